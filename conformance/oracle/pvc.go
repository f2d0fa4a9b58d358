package main

// The validate(PersistentVolumeClaim) leg: PersistentVolumeClaims, and StatefulSets with
// volumeClaimTemplates, drawn mostly valid with the mistakes people make (no accessModes, an
// unknown mode, ReadWriteOncePod beside another mode, the storage request missing, zero or
// negative, a bad volumeMode, a dataSource of a kind no populator takes, dataSource and
// dataSourceRef that disagree, a storage or volume attributes class that is no DNS subdomain, a
// namespace in a claim template's metadata, a container mounting a claim template or a volume
// nobody declares), with VolumeAttributesClass, AnyVolumeDataSource and
// CrossNamespaceVolumeDataSource varied where the release lets them be set. A PVC goes through
// the v1 defaulting, the strategy's PrepareForCreate and Validate; a StatefulSet through the
// workloads leg's create path (admitWorkload, the strategy's Validate). Full messages are
// compared.

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	pvcregistry "k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
)

// mistake: one of `valid`, or, with probability p, one of `bad`.
func (g gen) mistake(p float64, valid, bad []any) any {
	if g.chance(p) {
		return bad[g.r.IntN(len(bad))]
	}
	return valid[g.r.IntN(len(valid))]
}

// dataSourceValue: a TypedLocalObjectReference (or, `ref`, a TypedObjectReference).
func (g gen) dataSourceValue(ref bool) map[string]any {
	d := g.mistake(0.35, []any{
		map[string]any{"kind": "PersistentVolumeClaim", "name": "source-pvc"},
		map[string]any{"kind": "VolumeSnapshot", "apiGroup": "snapshot.storage.k8s.io", "name": "snap-1"},
		map[string]any{"kind": "VolumePopulator", "apiGroup": "populator.example.com", "name": "seed"},
	}, []any{
		map[string]any{"kind": "Backup", "name": "nightly"},
		map[string]any{"kind": "VolumeSnapshot", "name": "snap-1"},
		map[string]any{"kind": "PersistentVolumeClaim"},
		map[string]any{"name": "x"},
		map[string]any{},
		map[string]any{"kind": "PersistentVolumeClaim", "apiGroup": "", "name": "source-pvc"},
		map[string]any{"kind": "Thing", "apiGroup": "Bad_Group", "name": "t"},
		map[string]any{"kind": "VolumeSnapshot", "apiGroup": "snapshot.storage.k8s.io", "name": "snap-2"},
	}).(map[string]any)
	out := map[string]any{}
	for k, v := range d {
		out[k] = v
	}
	if ref && g.chance(0.15) {
		out["namespace"] = g.pick("backups", "Bad_NS", "").(string)
	}
	return out
}

func (g gen) storageQuantity() any {
	return g.mistake(0.08, []any{"1Gi", "10Gi", "500Mi", "100G", "1Ti", 1, "8Gi", "1.5Gi"},
		[]any{"0", 0, "0Gi", "-1Gi", "-5", "-1e3", "-0.5Gi", "-1500m", "-1.5Gi", "-2E2", "-0.000000001"})
}

// claimSpec: a PersistentVolumeClaimSpec.
func (g gen) claimSpec() map[string]any {
	s := map[string]any{}
	if modes := g.mistake(0.08, []any{
		[]any{"ReadWriteOnce"}, []any{"ReadWriteOnce"}, []any{"ReadOnlyMany"}, []any{"ReadWriteMany"}, []any{"ReadWriteOncePod"},
		[]any{"ReadWriteOnce", "ReadOnlyMany"},
	}, []any{
		nil, []any{}, []any{"RWO"}, []any{"readwriteonce"}, []any{"ReadWriteOncePod", "ReadWriteOnce"},
		[]any{"ReadWriteOncePod", "Bogus"}, []any{"ReadWriteMany", "ReadWriteOncePod", "RWX"},
	}); modes != nil {
		s["accessModes"] = modes
	}
	switch {
	case g.chance(0.03):
		// no resources at all
	case g.chance(0.03):
		s["resources"] = map[string]any{"limits": map[string]any{"storage": "1Gi"}}
	default:
		r := map[string]any{"requests": map[string]any{"storage": g.storageQuantity()}}
		if g.chance(0.15) {
			r["limits"] = map[string]any{"storage": g.pick("20Gi", "1Gi").(string)}
		}
		s["resources"] = r
	}
	if g.chance(0.5) {
		s["storageClassName"] = g.mistake(0.08, []any{"standard", "fast-ssd", "gp3", "premium-rwo", "csi.example.com", ""},
			[]any{"Fast_SSD", "-bad", "gold.", strings.Repeat("c", 254)}).(string)
	}
	if g.chance(0.4) {
		s["volumeMode"] = g.mistake(0.1, []any{"Filesystem", "Block"}, []any{"block", "", "Raw"}).(string)
	}
	if g.chance(0.2) {
		s["dataSource"] = g.dataSourceValue(false)
	}
	if g.chance(0.15) {
		if d, ok := s["dataSource"].(map[string]any); ok && g.chance(0.5) {
			r := map[string]any{}
			for k, v := range d {
				r[k] = v
			}
			s["dataSourceRef"] = r
		} else {
			s["dataSourceRef"] = g.dataSourceValue(true)
		}
	}
	if g.chance(0.1) {
		s["selector"] = g.pick(
			map[string]any{"matchLabels": map[string]any{"tier": "db"}},
			map[string]any{"matchLabels": map[string]any{"bad key!": "v"}},
			map[string]any{"matchExpressions": []any{map[string]any{"key": "zone", "operator": "In"}}},
			map[string]any{"matchExpressions": []any{map[string]any{"key": "zone", "operator": "In", "values": []any{"a", "b"}}}},
		)
	}
	if g.chance(0.15) {
		s["volumeAttributesClassName"] = g.mistake(0.2, []any{"gold", "silver", ""}, []any{"Gold!", "-x"}).(string)
	}
	if g.chance(0.1) {
		s["volumeName"] = "pv-0001"
	}
	return s
}

// claimTemplates: one to three volumeClaimTemplates (a bad name only when there is one:
// upstream lists the claim volumes in Go's map order, which a second one would make vary).
func (g gen) claimTemplates() []any {
	n := g.pick(1, 1, 1, 2, 3).(int)
	var ts []any
	for i := 0; i < n; i++ {
		name := []string{"data", "logs", "wal"}[i]
		if n == 1 && g.chance(0.05) {
			name = g.oneOf("Data", "", "data.v1")
		}
		md := map[string]any{"name": name}
		if g.chance(0.15) {
			md["namespace"] = g.pick("other", "default").(string)
		}
		if g.chance(0.1) {
			md["labels"] = map[string]any{"app": "db"}
		}
		ts = append(ts, map[string]any{"metadata": md, "spec": g.claimSpec()})
	}
	return ts
}

func (g gen) pvcStatefulSet() map[string]any {
	templates := g.claimTemplates()
	var mounts []any
	for _, t := range templates {
		name := t.(map[string]any)["metadata"].(map[string]any)["name"].(string)
		if g.chance(0.9) {
			mounts = append(mounts, map[string]any{"name": name, "mountPath": "/var/lib/" + name})
		}
	}
	podSpec := map[string]any{}
	if g.chance(0.3) {
		// A volume of its own, sometimes with a claim template's name (which replaces it).
		name := g.mistake(0.2, []any{"config"}, []any{"data", "Cache"}).(string)
		podSpec["volumes"] = []any{map[string]any{"name": name, "configMap": map[string]any{"name": "db-config"}}}
		if name == "config" && g.chance(0.9) || g.chance(0.05) {
			mounts = append(mounts, map[string]any{"name": "config", "mountPath": "/etc/db"})
		}
	}
	if g.chance(0.05) {
		mounts = append(mounts, map[string]any{"name": "missing", "mountPath": "/m"})
	}
	c := map[string]any{"name": "db", "image": "postgres:16"}
	if len(mounts) > 0 {
		c["volumeMounts"] = mounts
	}
	podSpec["containers"] = []any{c}
	if g.chance(0.1) {
		podSpec["hostname"] = g.pick("db", "Not_A_Label").(string)
	}
	if g.chance(0.1) {
		podSpec["subdomain"] = g.pick("db", "bad.sub").(string)
	}
	return map[string]any{"apiVersion": "apps/v1", "kind": "StatefulSet",
		"metadata": map[string]any{"name": "db", "namespace": "default"},
		"spec": map[string]any{
			"serviceName": "db",
			"replicas":    3,
			"selector":    map[string]any{"matchLabels": map[string]any{"app": "db"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "db"}},
				"spec": podSpec},
			"volumeClaimTemplates": templates,
		}}
}

func (g gen) validatePVC() map[string]any {
	var obj map[string]any
	if g.chance(0.5) {
		md := map[string]any{"name": g.mistake(0.05, []any{"data", "data-db-0", "www"}, []any{"Data_1", "-x", strings.Repeat("n", 254)}).(string),
			"namespace": "default"}
		if g.chance(0.05) {
			md["annotations"] = map[string]any{"volume.beta.kubernetes.io/storage-class": "standard"}
		}
		obj = map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": md, "spec": g.claimSpec()}
	} else {
		obj = g.pvcStatefulSet()
	}
	// Each drawn whatever the release (a seed's cases stay the same); set only where it may be.
	gates := map[string]bool{}
	for _, gate := range []string{"VolumeAttributesClass", "AnyVolumeDataSource", "CrossNamespaceVolumeDataSource"} {
		set, on := g.chance(0.5), g.chance(0.5)
		if set && settableGate(gate) {
			gates[gate] = on
		}
	}
	return map[string]any{"object": obj, "featureGates": gatesOf(gates)}
}

func upstreamPVC(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var kind struct{ Kind string }
	_ = json.Unmarshal(in.Object, &kind)
	var errs field.ErrorList
	switch kind.Kind {
	case "PersistentVolumeClaim":
		var v corev1.PersistentVolumeClaim
		if err := json.Unmarshal(in.Object, &v); err != nil {
			return nil, err
		}
		legacyscheme.Scheme.Default(&v)
		var c api.PersistentVolumeClaim
		if err := legacyscheme.Scheme.Convert(&v, &c, nil); err != nil {
			return nil, err
		}
		pvcregistry.Strategy.PrepareForCreate(ctxNS(), &c)
		errs = pvcregistry.Strategy.Validate(ctxNS(), &c)
	case "StatefulSet":
		obj, _, err := admitWorkload(in.Object)
		if err != nil {
			return nil, err
		}
		errs = workloadKinds["StatefulSet"].validate(obj)
	default:
		return nil, fmt.Errorf("kind %q", kind.Kind)
	}
	return withMessages(errs, nil), nil
}
