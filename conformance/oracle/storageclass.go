package main

// The validate(StorageClass) leg: storage.k8s.io/v1 StorageClasses drawn around
// ValidateStorageClass: provisioners empty, valid, uppercase (checked lowercased), with a space or
// an empty prefix; parameters none, with an empty key, over 512 entries or 256 KiB; reclaimPolicy
// absent (the v1 default), Delete, Retain, Recycle or ""; volumeBindingMode absent, both modes,
// "" or unknown; allowedTopologies with empty terms, repeated terms, repeated keys and values,
// empty value lists, bad keys and the deprecated node labels GetWarningsForStorageClass warns
// of. DeclarativeValidationBeta is varied where the release lets it be set. Through the create
// path: decoding, the v1 defaulting, conversion, PrepareForCreate, the release's create
// validation (createValidation, rbac_create_*.go) and, for a class that passed,
// WarningsOnCreate. Full messages are compared, and the warnings.

import (
	"fmt"
	"strings"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/kubernetes/pkg/apis/storage"
	storageclassregistry "k8s.io/kubernetes/pkg/registry/storage/storageclass"
)

func (g gen) storageClassTerm() map[string]any {
	t := map[string]any{}
	if g.chance(0.15) {
		return t
	}
	exprs := []any{}
	for i := g.r.IntN(3); i > 0; i-- {
		e := map[string]any{"key": g.mistake(0.3, []any{"topology.kubernetes.io/zone", "kubernetes.io/hostname", "failure-domain.beta.kubernetes.io/zone", "node-role.kubernetes.io/master"},
			[]any{"", "bad key", "-x", "a/b/c"})}
		if g.chance(0.9) {
			values := []any{}
			for j := g.r.IntN(3); j > 0; j-- {
				values = append(values, g.pick("us-east-1a", "us-east-1b", "node-1"))
			}
			e["values"] = values
		}
		exprs = append(exprs, e)
	}
	t["matchLabelExpressions"] = exprs
	return t
}

func (g gen) validateStorageClass() map[string]any {
	obj := map[string]any{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
		"metadata": map[string]any{"name": g.pick("fast", "standard-rwo", "gp3.example")}}
	if g.chance(0.9) {
		obj["provisioner"] = g.mistake(0.3, []any{"ebs.csi.aws.com", "kubernetes.io/aws-ebs", "Pd.CSI.Storage.GKE.io", "rancher.io/local-path"},
			[]any{"", "no such", "/x", "example.com/a b", strings.Repeat("a", 64)})
	}
	if g.chance(0.5) {
		params := map[string]any{}
		switch g.r.IntN(16) {
		case 0:
			params[""] = "x"
		case 1:
			for i := 0; i < 513; i++ {
				params[fmt.Sprintf("k%d", i)] = "v"
			}
		case 2:
			params["big"] = strings.Repeat("x", 256*1024)
		default:
			params["type"] = g.pick("gp3", "pd-ssd")
			if g.chance(0.5) {
				params["csi.storage.k8s.io/fstype"] = "ext4"
			}
		}
		obj["parameters"] = params
	}
	if g.chance(0.5) {
		obj["reclaimPolicy"] = g.mistake(0.3, []any{"Delete", "Retain"}, []any{"Recycle", "", "delete"})
	}
	if g.chance(0.5) {
		obj["volumeBindingMode"] = g.mistake(0.3, []any{"Immediate", "WaitForFirstConsumer"}, []any{"", "Lazy"})
	}
	if g.chance(0.4) {
		terms := []any{}
		for i := g.r.IntN(4); i > 0; i-- {
			if len(terms) > 0 && g.chance(0.25) {
				terms = append(terms, terms[len(terms)-1])
				continue
			}
			terms = append(terms, g.storageClassTerm())
		}
		obj["allowedTopologies"] = terms
	}
	if g.chance(0.2) {
		obj["allowVolumeExpansion"] = g.chance(0.5)
	}
	return map[string]any{"object": obj, "featureGates": gatesOf(g.drawGates("DeclarativeValidationBeta"))}
}

func upstreamStorageClass(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var sc storage.StorageClass
	if err := decodeAndConvert(in.Object, &storagev1.StorageClass{}, &sc); err != nil {
		return nil, err
	}
	return createExpect(createRequestCtx("", "storage.k8s.io", "storageclasses"), storageclassregistry.Strategy, &sc), nil
}
