package main

// The validate(PersistentVolume) leg: v1 PersistentVolumes drawn around
// ValidatePersistentVolume and the strategy: names (the iscsi name-and-portal length needs long
// ones), the deprecated annotations and the mount-options one on sources that take mount options
// and on those that do not; access modes as the PVC leg draws them; capacity absent, empty, with
// another resource, zero, negative or fractional; every reclaim policy (Recycle with a hostPath
// of `/` written several ways); node affinity absent, empty, with bad operators, values a label
// may not hold and deprecated node labels; none, one or two of the 22 sources, each valid or with
// the mistakes its validator catches (iscsi names, quobyte registries as net.SplitHostPort reads
// them, CSI secret references, a local volume without node affinity, an azureDisk without kind);
// storage and volume attributes class names; volume modes. VolumeAttributesClass is varied
// where the release lets it be set and has not made it GA (1.31–1.33). Through the create path: decoding, the v1 defaulting,
// conversion, PrepareForCreate, the release's create validation and, for a volume that passed,
// WarningsOnCreate. Full messages are compared, and the warnings.

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	api "k8s.io/kubernetes/pkg/apis/core"
	pvregistry "k8s.io/kubernetes/pkg/registry/core/persistentvolume"
)

// iscsiSource: an ISCSIVolumeSource (or, pv, an ISCSIPersistentVolumeSource).
func (g gen) iscsiSource(bad, pv bool) map[string]any {
	s := map[string]any{"targetPortal": g.oneOf("10.0.2.15:3260", "[2001:db8::1]:3260", "san.example.com:3260"),
		"iqn": g.oneOf("iqn.2001-04.com.example:storage.disk1", "eui.02004567A425678D", "naa.52004567BA64678D52004567BA64678D"), "lun": 0}
	if g.chance(0.4) {
		s["initiatorName"] = g.oneOf("iqn.2001-04.com.example:node1", "eui.0123456789ABCDEF")
	}
	if g.chance(0.3) {
		s["chapAuthSession"] = true
		s["secretRef"] = map[string]any{"name": "chap"}
	}
	if !bad {
		return s
	}
	switch g.r.IntN(6) {
	case 0:
		s["iqn"] = g.oneOf("", "x.2001-04.com.example", "iqn.01-04.com.example:d", "iqn.2001-04.com.example", "eui.0123", "naa.12", "iqn.2001-04.com.ex ample:d")
	case 1:
		s["lun"] = g.pick(-1, 256, 1000)
	case 2:
		s["initiatorName"] = g.oneOf("", "node1", "iqn.bad", "eui.0123456789ABCDEFXX", "naa.1")
	case 3:
		s["chapAuthDiscovery"] = true
		delete(s, "secretRef")
	case 4:
		s["targetPortal"] = g.oneOf("", strings.Repeat("p", 60)+":3260")
		if pv && g.chance(0.5) {
			s["initiatorName"] = "iqn.2001-04.com.example:node1"
		}
	default:
		s["secretRef"] = map[string]any{"name": ""}
	}
	return s
}

// quobyteSource: a QuobyteVolumeSource.
func (g gen) quobyteSource(bad bool) map[string]any {
	s := map[string]any{"registry": g.oneOf("registry:7861", "a:7861,b:7861", "[2001:db8::1]:7861"), "volume": "testVolume"}
	if g.chance(0.3) {
		s["tenant"] = "a1b2c3d4-0000-4000-8000-000000000000"
	}
	if bad {
		switch g.r.IntN(3) {
		case 0:
			s["registry"] = g.oneOf("", "registry", "a:1,b", "a:b:c", "[::1]", "[::1]:80:90", "[::1]x:80", "a]:80", "a[:80", ",", "a:1,,b:2")
		case 1:
			s["tenant"] = strings.Repeat("t", g.r.IntN(3)+64)
		default:
			s["volume"] = ""
		}
	}
	return s
}

func (g gen) pvSecretRef() map[string]any {
	return g.mistake(0.4, []any{map[string]any{"name": "creds", "namespace": "storage"}},
		[]any{map[string]any{}, map[string]any{"name": "creds"}, map[string]any{"namespace": "storage"},
			map[string]any{"name": "Bad_Name", "namespace": "storage"}, map[string]any{"name": "creds", "namespace": "bad.ns"}}).(map[string]any)
}

// pvSource: one PersistentVolumeSource member.
func (g gen) pvSource(bad bool) (string, map[string]any) {
	switch g.r.IntN(22) {
	case 0:
		s := map[string]any{"path": g.oneOf("/mnt/data", "/", "//./", "/var/lib/../", "/srv/pv")}
		if g.chance(0.3) {
			s["type"] = g.oneOf("DirectoryOrCreate", "Directory", "")
		}
		if bad {
			s["path"] = g.oneOf("", "/a/../b", "../x")
			if g.chance(0.3) {
				s["type"] = "Dir"
			}
		}
		return "hostPath", s
	case 1:
		s := map[string]any{"pdName": "disk-1", "fsType": "ext4"}
		if bad {
			s["pdName"] = ""
			s["partition"] = g.pick(-1, 256)
		}
		return "gcePersistentDisk", s
	case 2:
		s := map[string]any{"volumeID": "vol-0a1b2c3d"}
		if bad {
			s["volumeID"] = ""
		}
		return "awsElasticBlockStore", s
	case 3:
		s := map[string]any{"endpoints": "glusterfs-cluster", "path": "vol1"}
		if g.chance(0.3) {
			s["endpointsNamespace"] = "gluster"
		}
		if bad {
			switch g.r.IntN(3) {
			case 0:
				s["endpoints"] = ""
			case 1:
				s["path"] = ""
			default:
				s["endpointsNamespace"] = g.oneOf("", "Bad_NS", "a.b")
			}
		}
		return "glusterfs", s
	case 4:
		s := map[string]any{"datasetName": "ds1"}
		if bad {
			s = g.pick(map[string]any{}, map[string]any{"datasetName": "a/b"}, map[string]any{"datasetName": "a", "datasetUUID": "u"}).(map[string]any)
		}
		return "flocker", s
	case 5:
		s := map[string]any{"server": "nfs.example.com", "path": "/exports/data"}
		if bad {
			s["path"] = g.oneOf("", "exports")
			if g.chance(0.3) {
				s["server"] = ""
			}
		}
		return "nfs", s
	case 6:
		s := map[string]any{"monitors": []any{"10.16.154.78:6789"}, "image": "foo"}
		if bad {
			if g.chance(0.5) {
				s["monitors"] = []any{}
			} else {
				s["image"] = ""
			}
		}
		return "rbd", s
	case 7:
		return "quobyte", g.quobyteSource(bad)
	case 8:
		s := map[string]any{"monitors": []any{"10.16.154.78:6789"}}
		if bad {
			delete(s, "monitors")
		}
		return "cephfs", s
	case 9:
		return "iscsi", g.iscsiSource(bad, true)
	case 10:
		s := map[string]any{"volumeID": "bd82f7e2-wece-4c01-a505-4acf60b07f4a"}
		if g.chance(0.3) || bad {
			s["secretRef"] = map[string]any{"name": "c", "namespace": "ns"}
		}
		if bad {
			switch g.r.IntN(3) {
			case 0:
				s["volumeID"] = ""
			case 1:
				s["secretRef"] = map[string]any{"name": "c"}
			default:
				s["secretRef"] = map[string]any{}
			}
		}
		return "cinder", s
	case 11:
		s := map[string]any{"targetWWNs": []any{"500a0982991b8dc5"}, "lun": 2}
		if bad {
			delete(s, "lun")
			if g.chance(0.5) {
				s["wwids"] = []any{"x"}
			}
		}
		return "fc", s
	case 12:
		s := map[string]any{"driver": "example/lvm", "options": map[string]any{"size": "1G"}}
		if bad {
			if g.chance(0.5) {
				s["driver"] = ""
			} else {
				s["options"] = map[string]any{"k8s.io/x": "y"}
			}
		}
		return "flexVolume", s
	case 13:
		s := map[string]any{"secretName": "azure-secret", "shareName": "k8stest"}
		if g.chance(0.3) {
			s["secretNamespace"] = "default"
		}
		if bad {
			switch g.r.IntN(3) {
			case 0:
				s["secretName"] = ""
			case 1:
				s["shareName"] = ""
			default:
				s["secretNamespace"] = ""
			}
		}
		return "azureFile", s
	case 14:
		s := map[string]any{"volumePath": "[datastore1] volumes/myDisk"}
		if bad {
			s["volumePath"] = ""
		}
		return "vsphereVolume", s
	case 15:
		s := map[string]any{"pdID": "p1"}
		if bad {
			s["pdID"] = ""
		}
		return "photonPersistentDisk", s
	case 16:
		s := map[string]any{"volumeID": "pxvol"}
		if bad {
			s["volumeID"] = ""
		}
		return "portworxVolume", s
	case 17:
		s := map[string]any{"diskName": "d", "diskURI": g.oneOf("https://acct.blob.core.windows.net/c/d.vhd", "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/disks/d")}
		if g.chance(0.5) {
			s["kind"] = g.oneOf("Managed", "Shared", "Dedicated")
		}
		if bad {
			s["kind"] = g.oneOf("Weird", "Managed")
			s["cachingMode"] = g.oneOf("None", "Sometimes")
		}
		return "azureDisk", s
	case 18:
		s := map[string]any{"gateway": "https://localhost:443/api", "system": "scaleio", "volumeName": "vol-0",
			"secretRef": map[string]any{"name": "sio-secret"}}
		if bad {
			s[g.oneOf("gateway", "system", "volumeName")] = ""
		}
		return "scaleIO", s
	case 19:
		s := map[string]any{"path": g.oneOf("/mnt/disks/ssd1", "/dev/nvme0n1")}
		if bad {
			s["path"] = g.oneOf("", "/mnt/../etc", "..")
		}
		return "local", s
	case 20:
		s := map[string]any{"volumeName": "redis-vol01"}
		if g.chance(0.3) {
			s["volumeNamespace"] = "default"
		}
		if g.chance(0.3) || bad {
			s["secretRef"] = map[string]any{"name": "c", "namespace": "ns"}
		}
		if bad {
			switch g.r.IntN(4) {
			case 0:
				s["volumeName"] = g.oneOf("", "Bad_Vol")
			case 1:
				s["volumeNamespace"] = "Bad.NS"
			case 2:
				s["secretRef"] = map[string]any{"name": "c"}
			default:
				s["secretRef"] = map[string]any{"namespace": "ns"}
			}
		}
		return "storageos", s
	default:
		s := map[string]any{"driver": g.oneOf("ebs.csi.aws.com", "pd.csi.storage.gke.io", "Disk.CSI.Azure.com"), "volumeHandle": "vol-1"}
		for _, r := range []string{"controllerPublishSecretRef", "controllerExpandSecretRef", "nodePublishSecretRef", "nodeExpandSecretRef"} {
			if g.chance(0.15) {
				s[r] = g.pvSecretRef()
			}
		}
		if bad {
			switch g.r.IntN(3) {
			case 0:
				s["driver"] = g.oneOf("", "-bad", strings.Repeat("d", 64), "a_b")
			case 1:
				s["volumeHandle"] = ""
			default:
				s["nodePublishSecretRef"] = g.pvSecretRef()
			}
		}
		return "csi", s
	}
}

func (g gen) pvNodeAffinity() map[string]any {
	if g.chance(0.08) {
		return map[string]any{}
	}
	terms := []any{}
	for i := g.r.IntN(3); i > 0; i-- {
		exprs := []any{}
		for j := 1 + g.r.IntN(2); j > 0; j-- {
			e := map[string]any{
				"key":      g.mistake(0.15, []any{"kubernetes.io/hostname", "topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone", "beta.kubernetes.io/arch"}, []any{"", "bad key", "-x"}),
				"operator": g.mistake(0.1, []any{"In", "NotIn", "Exists"}, []any{"Equals", "Gt", ""}),
			}
			if op := e["operator"]; op != "Exists" || g.chance(0.1) {
				e["values"] = g.mistake(0.15, []any{[]any{"node-1"}, []any{"us-east-1a", "us-east-1b"}}, []any{[]any{}, []any{"node 1"}, []any{strings.Repeat("v", 64)}})
			}
			exprs = append(exprs, e)
		}
		terms = append(terms, map[string]any{"matchExpressions": exprs})
	}
	return map[string]any{"required": map[string]any{"nodeSelectorTerms": terms}}
}

func (g gen) validatePV() map[string]any {
	meta := map[string]any{"name": g.mistake(0.05, []any{"pv-1", "local-pv-a1", "nfs.share", strings.Repeat("n", 40)}, []any{"Bad_PV", strings.Repeat("n", 254)})}
	if g.chance(0.15) {
		ann := map[string]any{}
		if g.chance(0.5) {
			ann["volume.beta.kubernetes.io/storage-class"] = "slow"
		}
		if g.chance(0.6) {
			ann["volume.beta.kubernetes.io/mount-options"] = "ro,soft"
		}
		meta["annotations"] = ann
	}
	spec := map[string]any{}
	if modes := g.mistake(0.08, []any{[]any{"ReadWriteOnce"}, []any{"ReadWriteMany"}, []any{"ReadOnlyMany", "ReadWriteOnce"}, []any{"ReadWriteOncePod"}},
		[]any{nil, []any{}, []any{"RWO"}, []any{"ReadWriteOncePod", "ReadWriteOnce"}, []any{"ReadWriteOncePod", "Bogus"}}); modes != nil {
		spec["accessModes"] = modes
	}
	switch {
	case g.chance(0.04):
	case g.chance(0.03):
		spec["capacity"] = map[string]any{}
	case g.chance(0.04):
		spec["capacity"] = map[string]any{"storage": "5Gi", "cpu": g.pick("1", "500m")}
	case g.chance(0.03):
		spec["capacity"] = map[string]any{"cpu": "1"}
	default:
		spec["capacity"] = map[string]any{"storage": g.storageQuantity()}
	}
	if g.chance(0.5) {
		spec["persistentVolumeReclaimPolicy"] = g.mistake(0.15, []any{"Retain", "Delete", "Recycle"}, []any{"", "Keep", "retain"})
	}
	if g.chance(0.3) {
		spec["nodeAffinity"] = g.pvNodeAffinity()
	}
	bad := g.chance(0.35)
	n := 1
	switch {
	case g.chance(0.04):
		n = 0
	case g.chance(0.06):
		n = 2
	}
	for i := 0; i < n; i++ {
		k, s := g.pvSource(bad)
		if k == "local" && spec["nodeAffinity"] == nil && g.chance(0.7) {
			spec["nodeAffinity"] = g.pvNodeAffinity()
		}
		spec[k] = s
	}
	if g.chance(0.3) {
		spec["storageClassName"] = g.mistake(0.2, []any{"standard", "local-storage", "gp3.fast"}, []any{"Bad_Class", "a..b"})
	}
	if g.chance(0.3) {
		spec["volumeMode"] = g.mistake(0.2, []any{"Filesystem", "Block"}, []any{"block", ""})
	}
	if g.chance(0.15) {
		spec["volumeAttributesClassName"] = g.mistake(0.3, []any{"gold", "silver.fast"}, []any{"", "Bad_VAC"})
	}
	if g.chance(0.2) {
		spec["mountOptions"] = []any{"hard", "nfsvers=4.1"}
	}
	if g.chance(0.1) {
		spec["claimRef"] = map[string]any{"namespace": "default", "name": "data"}
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "PersistentVolume", "metadata": meta, "spec": spec}
	gates := map[string]bool{}
	if set, on := g.chance(0.5), g.chance(0.5); set && settablePreReleaseGate("VolumeAttributesClass") {
		gates["VolumeAttributesClass"] = on
	}
	return map[string]any{"object": obj, "featureGates": gatesOf(gates)}
}

func upstreamPV(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var pv api.PersistentVolume
	if err := decodeAndConvert(in.Object, &corev1.PersistentVolume{}, &pv); err != nil {
		return nil, err
	}
	return createExpect(createRequestCtx("", "", "persistentvolumes"), pvregistry.Strategy, &pv), nil
}
