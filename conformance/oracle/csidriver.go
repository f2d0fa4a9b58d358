package main

// The validate(CSIDriver) leg: storage.k8s.io/v1 CSIDrivers drawn around SetDefaults_CSIDriver,
// PrepareForCreate and ValidateCSIDriver: the defaulted booleans absent, null or set; fsGroupPolicy
// absent, each policy, "" or unknown; volumeLifecycleModes empty, valid, unknown or ""; token
// requests with repeated (or empty) audiences and expirations around ten minutes and 2^32 s;
// nodeAllocatableUpdatePeriodSeconds around 10 and serviceAccountTokenInSecrets with and without
// token requests, with their gates drawn where the release lets them be set. Only the fields of the release's own type are drawn, so that
// decoding does not drop them unseen. Through the create path: decoding, the v1 defaulting,
// conversion, PrepareForCreate, the release's create validation and, for a driver that passed,
// WarningsOnCreate (from 1.35). Full messages are compared, and the warnings.

import (
	"reflect"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/kubernetes/pkg/apis/storage"
	csidriverregistry "k8s.io/kubernetes/pkg/registry/storage/csidriver"
)

// csiDriverHas: whether this release's CSIDriverSpec has the field named in JSON.
func csiDriverHas(jsonName string) bool {
	t := reflect.TypeOf(storagev1.CSIDriverSpec{})
	for i := 0; i < t.NumField(); i++ {
		if tag := t.Field(i).Tag.Get("json"); tag == jsonName || len(tag) > len(jsonName) && tag[:len(jsonName)+1] == jsonName+"," {
			return true
		}
	}
	return false
}

func (g gen) validateCSIDriver() map[string]any {
	spec := map[string]any{}
	for _, b := range []string{"attachRequired", "podInfoOnMount", "storageCapacity", "requiresRepublish", "seLinuxMount", "preventPodSchedulingIfMissing"} {
		if csiDriverHas(b) && g.chance(0.4) {
			spec[b] = g.pick(true, false, nil)
		}
	}
	if g.chance(0.5) {
		spec["fsGroupPolicy"] = g.mistake(0.3, []any{"ReadWriteOnceWithFSType", "File", "None"}, []any{"", "Always", "file"})
	}
	if g.chance(0.4) {
		modes := []any{}
		for i := g.r.IntN(3); i > 0; i-- {
			modes = append(modes, g.mistake(0.3, []any{"Persistent", "Ephemeral"}, []any{"", "Inline"}))
		}
		spec["volumeLifecycleModes"] = modes
	}
	if g.chance(0.5) {
		requests := []any{}
		for i := g.r.IntN(4); i > 0; i-- {
			r := map[string]any{"audience": g.pick("vault", "sts.amazonaws.com", "", "vault")}
			if g.chance(0.7) {
				r["expirationSeconds"] = g.pick(599, 600, 3600, 1, 0, -5, int64(1)<<32, int64(1)<<32+1)
			}
			requests = append(requests, r)
		}
		spec["tokenRequests"] = requests
	}
	if csiDriverHas("nodeAllocatableUpdatePeriodSeconds") && g.chance(0.4) {
		spec["nodeAllocatableUpdatePeriodSeconds"] = g.pick(9, 10, 60, 0, -1)
	}
	if csiDriverHas("serviceAccountTokenInSecrets") && g.chance(0.4) {
		spec["serviceAccountTokenInSecrets"] = g.pick(true, false)
	}
	obj := map[string]any{"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
		"metadata": map[string]any{"name": g.mistake(0.1, []any{"ebs.csi.aws.com", "pd.csi.storage.gke.io"}, []any{"Bad_Name", ""})}, "spec": spec}
	// SELinuxMountReadWriteOncePod and VolumeLimitScaling are left at their defaults: each only
	// defaults or drops its field, which no check reads (restartkit does not read them either).
	return map[string]any{"object": obj, "featureGates": gatesOf(g.drawGates("MutableCSINodeAllocatableCount", "CSIServiceAccountTokenSecrets"))}
}

func upstreamCSIDriver(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var d storage.CSIDriver
	if err := decodeAndConvert(in.Object, &storagev1.CSIDriver{}, &d); err != nil {
		return nil, err
	}
	return createExpect(createRequestCtx("", "storage.k8s.io", "csidrivers"), csidriverregistry.Strategy, &d), nil
}
