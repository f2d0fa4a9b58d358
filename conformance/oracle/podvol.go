package main

// The validate(Pod volumes) and validate(Pod env) legs: Pods (and now and then a Job) whose
// volumes, volumeMounts, volumeDevices, env and envFrom are mostly valid, with the mistakes
// people make (an env var named `DB=HOST`, valueFrom with two sources, a mount naming no volume,
// two volumes named `data`, `hostPath.type: Dir`, a subPath with `..`), through the minor's real
// create path (admitPod / admitJob, then the strategy's Validate). Every message is compared.

import (
	"encoding/json"
	"fmt"
	"strings"

	jobregistry "k8s.io/kubernetes/pkg/registry/batch/job"
	podregistry "k8s.io/kubernetes/pkg/registry/core/pod"
)

func (g gen) oneOf(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// volName: mostly good names, some refused (upper case, a dot, too long, empty).
func (g gen) volName(valid bool) string {
	if !valid && g.chance(0.3) {
		return g.oneOf("Data", "my.vol", "", "vol_1", strings.Repeat("v", 64), "-x")
	}
	return g.oneOf("data", "config", "cache", "secrets", "tmp", "logs", "certs", "work", "scratch", "token")
}

func (g gen) keyToPaths(valid bool) []any {
	var items []any
	for i := g.r.IntN(3); i > 0; i-- {
		kp := map[string]any{"key": g.oneOf("app.conf", "tls.crt", "config.yaml"), "path": g.oneOf("app.conf", "certs/tls.crt", "conf/a.yaml")}
		if !valid && g.chance(0.3) {
			switch g.r.IntN(6) {
			case 0:
				kp["path"] = g.oneOf("/etc/app.conf", "../escape", "..conf", "a/../b", "")
			case 1:
				kp["key"] = ""
			case 2:
				kp["mode"] = g.pick(0o644, 0o777, 0o1000, -1, 420)
			case 3:
				kp["path"] = ".."
			default:
				kp["mode"] = 0o600
			}
		}
		items = append(items, kp)
	}
	return items
}

func (g gen) downwardItems(valid bool) []any {
	var items []any
	for i := 1 + g.r.IntN(2); i > 0; i-- {
		it := map[string]any{"path": g.oneOf("labels", "annotations", "name", "cpu_limit", "meta/ns")}
		switch g.r.IntN(5) {
		case 0, 1:
			it["fieldRef"] = map[string]any{"fieldPath": g.oneOf("metadata.labels", "metadata.annotations", "metadata.name", "metadata.namespace", "metadata.uid")}
		case 2:
			it["resourceFieldRef"] = map[string]any{"containerName": "app-0", "resource": g.oneOf("limits.cpu", "requests.memory", "limits.memory"), "divisor": g.oneOf("1m", "1", "1Mi")}
		default:
			it["fieldRef"] = map[string]any{"fieldPath": "metadata.labels['app']"}
		}
		if !valid && g.chance(0.35) {
			switch g.r.IntN(8) {
			case 0:
				it["fieldRef"] = map[string]any{"fieldPath": g.oneOf("spec.nodeName", "status.podIP", "metadata.labels['Bad Key']", "spec.containers[0]", "metadata.name['x']")}
			case 1:
				it["resourceFieldRef"] = map[string]any{"resource": "limits.cpu"}
			case 2:
				delete(it, "fieldRef")
				delete(it, "resourceFieldRef")
			case 3:
				it["path"] = g.oneOf("/abs", "../up", "")
			case 4:
				it["fieldRef"] = map[string]any{"fieldPath": "metadata.name"}
				it["resourceFieldRef"] = map[string]any{"containerName": "app-0", "resource": "limits.cpu"}
			case 5:
				it["mode"] = g.pick(0o1777, -5)
			case 6:
				it["fieldRef"] = map[string]any{"apiVersion": "v2", "fieldPath": "metadata.name"}
			default:
				it["resourceFieldRef"] = map[string]any{"containerName": "app-0", "resource": g.oneOf("limits.gpu", "requests.hugepages-2Mi", "limits.cpu"), "divisor": g.oneOf("1Mi", "2", "1m")}
			}
		}
		items = append(items, it)
	}
	return items
}

// volumeSource: one source of the kinds people use, now and then a mistake in it.
func (g gen) volumeSource(valid bool) map[string]any {
	bad := !valid && g.chance(0.4)
	switch g.r.IntN(14) {
	case 0, 1:
		s := map[string]any{}
		if g.chance(0.3) {
			s["medium"] = "Memory"
		}
		if g.chance(0.3) {
			s["sizeLimit"] = g.oneOf("1Gi", "500Mi", "0")
		}
		if bad {
			s["sizeLimit"] = "-1Gi"
		}
		return map[string]any{"emptyDir": s}
	case 2:
		s := map[string]any{"path": g.oneOf("/var/log", "/data", "/run/containerd/containerd.sock")}
		if g.chance(0.5) {
			s["type"] = g.oneOf("Directory", "DirectoryOrCreate", "File", "Socket", "", "FileOrCreate", "CharDevice", "BlockDevice")
		}
		if bad {
			switch g.r.IntN(3) {
			case 0:
				s["type"] = g.oneOf("Dir", "directory", "Folder")
			case 1:
				s["path"] = g.oneOf("", "/var/../etc", "../x")
			default:
				s["path"] = "/var/lib/../../etc"
			}
		}
		return map[string]any{"hostPath": s}
	case 3:
		s := map[string]any{"secretName": g.oneOf("db-creds", "tls")}
		if items := g.keyToPaths(valid); items != nil {
			s["items"] = items
		}
		if bad {
			switch g.r.IntN(2) {
			case 0:
				s["secretName"] = ""
			default:
				s["defaultMode"] = g.pick(0o1000, -1, 511)
			}
		}
		return map[string]any{"secret": s}
	case 4:
		s := map[string]any{"name": g.oneOf("app-config", "nginx-conf")}
		if items := g.keyToPaths(valid); items != nil {
			s["items"] = items
		}
		if bad {
			s["name"] = ""
		}
		return map[string]any{"configMap": s}
	case 5:
		s := map[string]any{"claimName": g.oneOf("data-pvc", "pod-data")}
		if bad {
			s["claimName"] = ""
		}
		if g.chance(0.3) {
			s["readOnly"] = true
		}
		return map[string]any{"persistentVolumeClaim": s}
	case 6:
		return map[string]any{"downwardAPI": map[string]any{"items": g.downwardItems(valid)}}
	case 7:
		var srcs []any
		for i := 1 + g.r.IntN(3); i > 0; i-- {
			switch g.r.IntN(4) {
			case 0:
				srcs = append(srcs, map[string]any{"secret": map[string]any{"name": "tls", "items": []any{map[string]any{"key": "tls.crt", "path": g.oneOf("tls.crt", "ca.crt")}}}})
			case 1:
				srcs = append(srcs, map[string]any{"configMap": map[string]any{"name": "ca", "items": []any{map[string]any{"key": "ca.crt", "path": g.oneOf("ca.crt", "bundle.pem")}}}})
			case 2:
				srcs = append(srcs, map[string]any{"downwardAPI": map[string]any{"items": g.downwardItems(valid)}})
			default:
				t := map[string]any{"path": g.oneOf("token", "sa/token")}
				if g.chance(0.5) {
					t["expirationSeconds"] = g.pick(3600, 7200, 600)
				}
				if g.chance(0.5) {
					t["audience"] = "vault"
				}
				if bad && g.chance(0.5) {
					switch g.r.IntN(3) {
					case 0:
						t["expirationSeconds"] = g.pick(60, 599, 1<<33)
					case 1:
						t["path"] = g.oneOf("", "/abs/token", "../token")
					default:
						t["path"] = "..token"
					}
				}
				srcs = append(srcs, map[string]any{"serviceAccountToken": t})
			}
		}
		if bad && g.chance(0.3) {
			srcs = append(srcs, map[string]any{"secret": map[string]any{"name": "a"}, "configMap": map[string]any{"name": "b"}})
		}
		return map[string]any{"projected": map[string]any{"sources": srcs}}
	case 8:
		s := map[string]any{"server": "nfs.example.com", "path": "/exports/data"}
		if bad {
			s[g.oneOf("server", "path")] = ""
			if g.chance(0.5) {
				s["path"] = "exports/data"
			}
		}
		return map[string]any{"nfs": s}
	case 9:
		s := map[string]any{"driver": g.oneOf("secrets-store.csi.k8s.io", "ebs.csi.aws.com", "Secrets-Store.CSI.k8s.io")}
		if g.chance(0.3) {
			s["volumeAttributes"] = map[string]any{"secretProviderClass": "vault"}
		}
		if bad {
			switch g.r.IntN(3) {
			case 0:
				s["driver"] = g.oneOf("", "my_driver", strings.Repeat("d", 64), "-bad")
			case 1:
				s["nodePublishSecretRef"] = map[string]any{"name": g.oneOf("", "Bad_Name")}
			default:
				s["nodePublishSecretRef"] = map[string]any{"name": "ok-secret"}
			}
		}
		return map[string]any{"csi": s}
	case 10:
		t := map[string]any{"spec": map[string]any{
			"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}}
		if g.chance(0.3) {
			// The PVC leg's claim specs, mistakes included: nothing of the PVC strategy runs here.
			t["spec"] = g.claimSpec()
		}
		if g.chance(0.3) {
			t["metadata"] = g.claimTemplateMeta()
		}
		e := map[string]any{"volumeClaimTemplate": t}
		if bad && g.chance(0.3) {
			e = map[string]any{}
		}
		return map[string]any{"ephemeral": e}
	case 11:
		s := map[string]any{"repository": "https://github.com/example/repo.git"}
		if g.chance(0.5) {
			s["directory"] = g.oneOf(".", "repo", "sub/dir")
		}
		if bad {
			switch g.r.IntN(2) {
			case 0:
				s["repository"] = ""
			default:
				s["directory"] = g.oneOf("/abs", "../up", "a/../b")
			}
		}
		return map[string]any{"gitRepo": s}
	case 12:
		s := map[string]any{"reference": g.oneOf("quay.io/crio/artifact:v1", "registry.k8s.io/pause:latest")}
		if g.chance(0.4) {
			s["pullPolicy"] = g.oneOf("Always", "IfNotPresent", "Never")
		}
		if bad {
			switch g.r.IntN(2) {
			case 0:
				s["reference"] = ""
			default:
				s["pullPolicy"] = "Sometimes"
			}
		}
		return map[string]any{"image": s}
	default:
		switch g.r.IntN(8) {
		case 6:
			return map[string]any{"iscsi": g.iscsiSource(bad, false)}
		case 7:
			return map[string]any{"quobyte": g.quobyteSource(bad)}
		case 0:
			s := map[string]any{"pdName": "disk-1"}
			if bad {
				s["partition"] = g.pick(-1, 256)
			}
			return map[string]any{"gcePersistentDisk": s}
		case 1:
			s := map[string]any{"volumeID": "vol-123"}
			if bad {
				s["volumeID"] = ""
			}
			return map[string]any{"awsElasticBlockStore": s}
		case 2:
			s := map[string]any{"driver": "example/lvm", "options": map[string]any{"size": "1G"}}
			if bad {
				s["options"] = map[string]any{"kubernetes.io/x": "y"}
			}
			return map[string]any{"flexVolume": s}
		case 3:
			s := map[string]any{"secretName": "az", "shareName": "share"}
			if bad {
				s["shareName"] = ""
			}
			return map[string]any{"azureFile": s}
		case 4:
			s := map[string]any{"diskName": "d", "diskURI": "https://acct.blob.core.windows.net/c/d.vhd"}
			if g.chance(0.3) {
				// Without a kind the v1 defaulting makes the disk Shared: a blob URL is needed.
				s["diskURI"] = g.oneOf("https://acct.blob.core.windows.net/c/d.vhd", "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/disks/d")
			}
			if bad {
				s["kind"] = g.oneOf("Managed", "Weird", "Shared")
				s["cachingMode"] = g.oneOf("None", "Sometimes")
			}
			return map[string]any{"azureDisk": s}
		default:
			s := map[string]any{"targetWWNs": []any{"500a0982991b8dc5"}, "lun": 2}
			if bad {
				delete(s, "lun")
				if g.chance(0.5) {
					s["wwids"] = []any{"x"}
				}
			}
			return map[string]any{"fc": s}
		}
	}
}

// claimTemplateMeta: an ephemeral volume's claim template metadata, where only labels and
// annotations may be set (a zero value of any other member passes).
func (g gen) claimTemplateMeta() map[string]any {
	m := map[string]any{}
	if g.chance(0.6) {
		m["labels"] = g.pick(map[string]any{"app": "db"}, map[string]any{"bad key": "x"}, map[string]any{"app": "not a value"})
	}
	if g.chance(0.3) {
		m["annotations"] = g.pick(map[string]any{"backup.example.com/policy": "daily"}, map[string]any{"-x": "y"})
	}
	if g.chance(0.5) {
		k := g.oneOf("name", "generateName", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
			"deletionGracePeriodSeconds", "finalizers", "ownerReferences")
		switch k {
		case "generation":
			m[k] = g.pick(0, 3)
		case "deletionGracePeriodSeconds":
			m[k] = g.pick(0, 30)
		case "creationTimestamp":
			m[k] = g.pick(nil, "2026-01-02T03:04:05Z", "0001-01-01T00:00:00Z")
		case "finalizers":
			m[k] = g.pick([]any{}, []any{"example.com/keep"})
		case "ownerReferences":
			m[k] = []any{}
		default:
			m[k] = g.oneOf("", "data", "other")
		}
	}
	return m
}

// podVolumes: the volumes of a Pod, their names, and which are claim-backed.
func (g gen) podVolumes(valid bool) ([]any, []string, map[string]bool) {
	var vols []any
	var names []string
	claim := map[string]bool{}
	n := g.r.IntN(4)
	for i := 0; i < n; i++ {
		v := g.volumeSource(valid)
		name := g.volName(valid)
		if !valid && g.chance(0.08) && len(names) > 0 {
			name = names[0] // two volumes of one name
		}
		v["name"] = name
		if !valid && g.chance(0.05) {
			for k, x := range g.volumeSource(true) {
				v[k] = x // a second source (or the same kind again)
			}
		}
		if !valid && g.chance(0.04) {
			v = map[string]any{"name": name} // no source: defaulted to emptyDir
		}
		vols = append(vols, v)
		names = append(names, name)
		if v["persistentVolumeClaim"] != nil || v["ephemeral"] != nil {
			claim[name] = true
		}
	}
	return vols, names, claim
}

func (g gen) volumeMounts(names []string, claim map[string]bool, valid bool) ([]any, []any) {
	var mounts, devices []any
	for i, name := range names {
		if claim[name] && g.chance(0.2) {
			devices = append(devices, map[string]any{"name": name, "devicePath": g.oneOf("/dev/xvda", "/dev/block")})
			continue
		}
		if g.chance(0.25) {
			continue
		}
		m := map[string]any{"name": name, "mountPath": fmt.Sprintf("/mnt/%s-%d", name, i)}
		if g.chance(0.2) {
			m["readOnly"] = true
		}
		if g.chance(0.15) {
			m["subPath"] = g.oneOf("app", "conf/app.conf", "logs")
		}
		if g.chance(0.05) {
			m["subPathExpr"] = "$(POD_NAME)"
		}
		if g.chance(0.1) {
			m["mountPropagation"] = g.oneOf("None", "HostToContainer", "Bidirectional")
		}
		if g.chance(0.1) {
			m["readOnly"] = true
			m["recursiveReadOnly"] = g.oneOf("Disabled", "IfPossible", "Enabled")
		}
		if !valid && g.chance(0.3) {
			switch g.r.IntN(10) {
			case 0:
				m["name"] = g.oneOf("missing", "dta", "")
			case 1:
				m["mountPath"] = ""
			case 2:
				m["subPath"] = g.oneOf("../etc", "/abs", "a/../../b", "..")
			case 3:
				m["subPathExpr"] = g.oneOf("../$(POD)", "/abs/$(X)")
				if g.chance(0.5) {
					m["subPath"] = "x"
				}
			case 4:
				m["mountPropagation"] = g.oneOf("Shared", "rshared", "")
			case 5:
				m["recursiveReadOnly"] = g.oneOf("Enabled", "IfPossible", "Always")
				delete(m, "readOnly")
				if g.chance(0.4) {
					m["mountPropagation"] = "HostToContainer"
				}
			case 6:
				m["mountPath"] = "/mnt/shared" // may collide below
			case 7:
				devices = append(devices, map[string]any{"name": name, "devicePath": g.oneOf("/dev/x", "/mnt/shared")})
			case 8:
				devices = append(devices, map[string]any{"name": g.oneOf("nope", ""), "devicePath": g.oneOf("", "/dev/../x", "/dev/xvda")})
			default:
				m["mountPath"] = "/mnt/shared"
			}
		}
		mounts = append(mounts, m)
	}
	if !valid && g.chance(0.1) {
		mounts = append(mounts, map[string]any{"name": g.oneOf("nowhere", "data"), "mountPath": "/mnt/shared"})
	}
	return mounts, devices
}

// envVar: one env var, mostly of the usual shapes.
func (g gen) envVar(valid bool, volNames []string) map[string]any {
	name := g.oneOf("DB_HOST", "LOG_LEVEL", "POD_NAME", "my.env-name", "JAVA_OPTS", "_X", "NODE_IP", "cpu-limit")
	e := map[string]any{"name": name}
	switch g.r.IntN(7) {
	case 0, 1:
		e["value"] = g.oneOf("postgres", "info", "", "-Xmx1g")
	case 2:
		e["valueFrom"] = map[string]any{"fieldRef": map[string]any{"fieldPath": g.oneOf("metadata.name", "metadata.namespace", "status.podIP", "spec.nodeName", "status.hostIPs", "metadata.labels['app']", "metadata.annotations['Team']", "spec.serviceAccountName", "spec.host")}}
	case 3:
		e["valueFrom"] = map[string]any{"resourceFieldRef": map[string]any{"resource": g.oneOf("limits.cpu", "requests.memory", "limits.ephemeral-storage", "requests.hugepages-2Mi"), "divisor": g.oneOf("1", "1m", "1Mi", "1Gi", "1k")}}
	case 4:
		e["valueFrom"] = map[string]any{"configMapKeyRef": map[string]any{"name": "app-config", "key": g.oneOf("log.level", "LEVEL", "db-host")}}
	case 5:
		e["valueFrom"] = map[string]any{"secretKeyRef": map[string]any{"name": "db-creds", "key": "password", "optional": true}}
	default:
		vn := "data"
		if len(volNames) > 0 {
			vn = volNames[g.r.IntN(len(volNames))]
		}
		e["valueFrom"] = map[string]any{"fileKeyRef": map[string]any{"volumeName": vn, "path": "env/vars", "key": "API_KEY"}}
	}
	if !valid && g.chance(0.35) {
		switch g.r.IntN(16) {
		case 0:
			e["name"] = g.oneOf("DB=HOST", "1ST", "my var", "", "naïve", ".", "..", "..X", "a\tb", "A=")
		case 1:
			vf, _ := e["valueFrom"].(map[string]any)
			if vf == nil {
				vf = map[string]any{}
			}
			vf["secretKeyRef"] = map[string]any{"name": "s", "key": "k"}
			vf["configMapKeyRef"] = map[string]any{"name": "c", "key": "k"}
			e["valueFrom"] = vf
		case 2:
			e["value"] = "x"
			e["valueFrom"] = map[string]any{"fieldRef": map[string]any{"fieldPath": "metadata.name"}}
		case 3:
			e["valueFrom"] = map[string]any{}
		case 4:
			e["valueFrom"] = map[string]any{"fieldRef": map[string]any{"fieldPath": g.oneOf("metadata.labels", "status.phase", "spec.containers", "metadata.name['x']", "", "status.hostIP['a']")}}
		case 5:
			e["valueFrom"] = map[string]any{"fieldRef": map[string]any{"apiVersion": g.oneOf("v2", "apps/v1"), "fieldPath": "metadata.name"}}
		case 6:
			e["valueFrom"] = map[string]any{"resourceFieldRef": map[string]any{"resource": g.oneOf("", "limits.gpu", "cpu", "requests.nvidia.com/gpu")}}
		case 7:
			e["valueFrom"] = map[string]any{"resourceFieldRef": map[string]any{"resource": g.oneOf("limits.cpu", "requests.memory", "limits.ephemeral-storage", "limits.hugepages-1Gi"), "divisor": g.oneOf("2", "1000", "1u", "500m", "1Ki", "0.5", "1024Ki", "1000m", "0")}}
		case 8:
			e["valueFrom"] = map[string]any{"configMapKeyRef": map[string]any{"name": g.oneOf("", "Bad_Name", "ok"), "key": g.oneOf("", "bad key", "..", "..hidden", strings.Repeat("k", 254), "ok")}}
		case 9:
			e["valueFrom"] = map[string]any{"secretKeyRef": map[string]any{"name": g.oneOf("", "x.y", "UPPER"), "key": g.oneOf("a/b", ".", "fine")}}
		case 10:
			e["valueFrom"] = map[string]any{"fileKeyRef": map[string]any{"volumeName": g.oneOf("", "Data", "nowhere", "data"), "path": g.oneOf("", "../x", "a/b"), "key": g.oneOf("", "K=V", "KEY")}}
		case 11:
			e["valueFrom"] = map[string]any{"fieldRef": map[string]any{"fieldPath": "metadata.name"}, "fileKeyRef": map[string]any{"volumeName": "data", "path": "p", "key": "K"}}
		default:
			e["name"] = g.oneOf("DB_HOST", "my var", "1ST", "A-B")
		}
	}
	return e
}

func (g gen) envFrom(valid bool) map[string]any {
	e := map[string]any{}
	if g.chance(0.5) {
		e["configMapRef"] = map[string]any{"name": "app-config"}
	} else {
		e["secretRef"] = map[string]any{"name": "db-creds", "optional": true}
	}
	if g.chance(0.3) {
		e["prefix"] = g.oneOf("APP_", "DB_", "cfg.")
	}
	if !valid && g.chance(0.4) {
		switch g.r.IntN(5) {
		case 0:
			e["prefix"] = g.oneOf("1_", "A=B", "my prefix", "..")
		case 1:
			e = map[string]any{"prefix": "X_"}
		case 2:
			e["configMapRef"] = map[string]any{"name": "c"}
			e["secretRef"] = map[string]any{"name": "s"}
		case 3:
			e["configMapRef"] = map[string]any{"name": g.oneOf("", "Bad_Name", "trailing-", "x..y")}
			delete(e, "secretRef")
		default:
			e["secretRef"] = map[string]any{"name": g.oneOf("", "UPPER", "ok-")}
			delete(e, "configMapRef")
		}
	}
	return e
}

// volumeSpec: the restart generator's valid containers, with volumes and mounts (and env with
// `withEnv`).
func (g gen) volumeSpec(valid, withEnv, withVolumes bool) map[string]any {
	spec, _ := g.restartSpec(true)
	var names []string
	claim := map[string]bool{}
	if withVolumes || g.chance(0.3) {
		var vols []any
		vols, names, claim = g.podVolumes(valid || !withVolumes)
		if len(vols) > 0 {
			spec["volumes"] = vols
		}
	}
	lists := []string{"containers", "initContainers"}
	for _, l := range lists {
		cs, _ := spec[l].([]any)
		for _, c := range cs {
			c := c.(map[string]any)
			if withVolumes || g.chance(0.3) {
				m, d := g.volumeMounts(names, claim, valid || !withVolumes)
				if len(m) > 0 {
					c["volumeMounts"] = m
				}
				if len(d) > 0 {
					c["volumeDevices"] = d
				}
			}
			if withEnv {
				var env []any
				for i := g.r.IntN(4); i > 0; i-- {
					env = append(env, g.envVar(valid, names))
				}
				if len(env) > 0 {
					c["env"] = env
				}
				if g.chance(0.3) {
					var ef []any
					for i := 1 + g.r.IntN(2); i > 0; i-- {
						ef = append(ef, g.envFrom(valid))
					}
					c["envFrom"] = ef
				}
			}
		}
	}
	if g.chance(0.04) {
		e := map[string]any{"name": "debugger", "image": "busybox:1.36"}
		if withEnv {
			e["env"] = []any{g.envVar(valid, names)}
		}
		if len(names) > 0 && g.chance(0.7) {
			m := map[string]any{"name": names[0], "mountPath": "/debug"}
			if g.chance(0.5) {
				m["subPath"] = "x"
			}
			e["volumeMounts"] = []any{m}
		}
		spec["ephemeralContainers"] = []any{e}
	}
	return spec
}

// volumeGates: the gates of this family, each drawn (so a seed's cases stay the same at every
// minor) and set only where the linked release lets it be set.
func (g gen) volumeGates() map[string]bool {
	drawn := map[string]bool{
		"ImageVolume":                          g.chance(0.6),
		"RecursiveReadOnlyMounts":              g.chance(0.8),
		"RelaxedEnvironmentVariableValidation": g.chance(0.6),
		"EnvFiles":                             g.chance(0.6),
	}
	out := map[string]bool{}
	for k, v := range drawn {
		if settableGate(k) {
			out[k] = v
		}
	}
	return out
}

// wrapSpec: a Pod, or now and then a Job whose template has the spec.
func (g gen) wrapSpec(spec map[string]any) map[string]any {
	if g.chance(0.15) {
		if rp, _ := spec["restartPolicy"].(string); rp != "OnFailure" && rp != "Never" {
			spec["restartPolicy"] = "Never"
		}
		for _, l := range []string{"containers", "initContainers"} {
			cs, _ := spec[l].([]any)
			for _, c := range cs {
				c := c.(map[string]any)
				if l == "containers" {
					delete(c, "restartPolicy")
					delete(c, "restartPolicyRules")
				}
			}
		}
		delete(spec, "ephemeralContainers")
		return map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "job", "namespace": "default", "uid": "1a2b3c"},
			"spec": map[string]any{"template": map[string]any{"spec": spec}}}
	}
	if g.chance(0.8) {
		spec["serviceAccountName"] = "app" // a projected token needs one on a Pod
	}
	p := pod(spec)
	if g.chance(0.05) {
		p["metadata"].(map[string]any)["name"] = strings.Repeat("p", 250)
	}
	return p
}

func (g gen) validatePodVolumes() map[string]any {
	spec := g.volumeSpec(g.chance(0.5), false, true)
	gates := g.volumeGates()
	gates["ContainerRestartRules"] = true
	return map[string]any{"object": g.wrapSpec(spec), "featureGates": gatesOf(gates)}
}

func (g gen) validatePodEnv() map[string]any {
	spec := g.volumeSpec(g.chance(0.5), true, false)
	gates := g.volumeGates()
	gates["ContainerRestartRules"] = true
	return map[string]any{"object": g.wrapSpec(spec), "featureGates": gatesOf(gates)}
}

// upstreamValidateMessages: upstreamValidate with every error's full text compared.
func upstreamValidateMessages(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var kind struct{ Kind string }
	_ = json.Unmarshal(in.Object, &kind)
	switch kind.Kind {
	case "Pod":
		p, _, err := admitPod(in.Object)
		if err != nil {
			return nil, err
		}
		return withMessages(podregistry.Strategy.Validate(ctxNS(), p), nil), nil
	case "Job":
		j, _, err := admitJob(in.Object)
		if err != nil {
			return nil, err
		}
		return withMessages(jobregistry.Strategy.Validate(ctxNS(), j), nil), nil
	}
	return nil, fmt.Errorf("kind %q", kind.Kind)
}
