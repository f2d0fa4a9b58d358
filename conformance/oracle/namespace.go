package main

// The validate(Namespace) leg: v1 Namespaces whose spec.finalizers are drawn valid (the
// standard names, domain-qualified ones) and not (names neither standard nor qualified, bad
// qualified names, empty), sometimes with no spec or no `kubernetes` finalizer (PrepareForCreate
// appends it), through the create path: decoding, the v1 defaulting (the
// kubernetes.io/metadata.name label), conversion, the strategy's PrepareForCreate and Validate.
// Full messages are compared; names are valid (the ObjectMeta leg draws them).

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	namespaceregistry "k8s.io/kubernetes/pkg/registry/core/namespace"
)

func (g gen) validateNamespace() map[string]any {
	obj := map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": g.pick("team-a", "prod", "kube-x").(string)}}
	if g.chance(0.85) {
		var fs []any
		for i := 0; i < g.pick(0, 1, 1, 2, 3).(int); i++ {
			fs = append(fs, g.mistake(0.4, []any{"kubernetes", "example.com/cleanup", "orphan", "foregroundDeletion", "a.b/c-d"},
				[]any{"cleanup", "", "Bad Name", "a/b/c", "/x", "example.com/", "Bad_Prefix/x", "kubernetes.io/", "x/-y", "Kubernetes"}))
		}
		spec := map[string]any{}
		if fs != nil || g.chance(0.5) {
			spec["finalizers"] = fs
		}
		obj["spec"] = spec
	}
	return map[string]any{"object": obj}
}

func upstreamNamespace(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var v corev1.Namespace
	if err := json.Unmarshal(in.Object, &v); err != nil {
		return nil, err
	}
	legacyscheme.Scheme.Default(&v)
	var ns api.Namespace
	if err := legacyscheme.Scheme.Convert(&v, &ns, nil); err != nil {
		return nil, err
	}
	ctx := ctxNSOf("")
	namespaceregistry.Strategy.PrepareForCreate(ctx, &ns)
	return withMessages(namespaceregistry.Strategy.Validate(ctx, &ns), nil), nil
}
