package main

// The validate(Ingress) leg: networking.k8s.io/v1 Ingresses and IngressClasses drawn around
// ValidateIngressCreate and ValidateIngressClass. Ingresses: with neither rules nor a default
// backend, rules with hosts that are IPs, wildcards right and wrong or not DNS names, HTTP paths
// of every pathType (none, an unknown one) with relative paths, `//`, `/./`, `%2F` and `/.`
// endings, backends with a service (names DNS-1035 or only DNS-1123, ports by name, number,
// both or neither, out of range) or a resource (apiGroup, kind, name right, empty or with `/`),
// both or neither, TLS hosts and secret names, ingressClassName beside the class annotation.
// IngressClasses: controllers empty, too long, not domain-prefixed; parameters with every scope
// (none: the v1 default Cluster), a namespace present or not, kinds and names empty or
// path-unsafe. RelaxedServiceNameValidation and DeclarativeValidationBeta are varied where the
// release lets them be set. Through the create path: decoding, the v1 defaulting, conversion,
// PrepareForCreate, the release's create validation (createValidation, rbac_create_*.go) and, for
// an Ingress that passed, WarningsOnCreate. Full messages are compared, and the warnings.

import (
	"encoding/json"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/kubernetes/pkg/apis/networking"
	ingressregistry "k8s.io/kubernetes/pkg/registry/networking/ingress"
	ingressclassregistry "k8s.io/kubernetes/pkg/registry/networking/ingressclass"
)

func (g gen) ingressServiceBackend() map[string]any {
	s := map[string]any{}
	if g.chance(0.9) {
		s["name"] = g.mistake(0.3, []any{"web", "api-v2", "frontend"}, []any{"", "1api", "Web", "my.svc", "a-"})
	}
	port := map[string]any{}
	switch g.r.IntN(5) {
	case 0:
		port["number"] = g.mistake(0.25, []any{80, 443, 8080}, []any{70000, -1})
	case 1:
		port["name"] = g.mistake(0.3, []any{"http", "grpc"}, []any{"8080", "no_such!", "a-very-long-port-name", "-http"})
	case 2:
		port["name"], port["number"] = "http", 80
	case 3:
		// neither
	}
	if len(port) > 0 || g.chance(0.5) {
		s["port"] = port
	}
	return s
}

func (g gen) ingressResourceRef() map[string]any {
	r := map[string]any{}
	if g.chance(0.4) {
		r["apiGroup"] = g.mistake(0.3, []any{"k8s.example.com", "storage.k8s.io"}, []any{"Example.com", "", "a_b"})
	}
	for _, key := range []string{"kind", "name"} {
		if g.chance(0.85) {
			r[key] = g.mistake(0.3, []any{"StorageBucket", "static-assets", "Params"}, []any{"", "a/b", "..", ".", "50%"})
		}
	}
	return r
}

func (g gen) ingressBackend() map[string]any {
	b := map[string]any{}
	switch g.r.IntN(10) {
	case 0:
		// neither
	case 1:
		b["service"], b["resource"] = g.ingressServiceBackend(), g.ingressResourceRef()
	case 2, 3:
		b["resource"] = g.ingressResourceRef()
	default:
		b["service"] = g.ingressServiceBackend()
	}
	return b
}

func (g gen) ingressHost() any {
	return g.mistake(0.35, []any{"example.com", "*.example.com", "api.internal.example.org"},
		[]any{"10.0.0.1", "::1", "*.Example.com", "a.*.com", "*", "Bad_Host", "foo..com", "010.0.0.1", strings.Repeat("a", 64) + ".com"})
}

func (g gen) ingressPath() map[string]any {
	p := map[string]any{"backend": g.ingressBackend()}
	if g.chance(0.9) {
		p["pathType"] = g.mistake(0.1, []any{"Prefix", "Exact", "ImplementationSpecific"}, []any{"Regex", ""})
	}
	if g.chance(0.9) {
		p["path"] = g.mistake(0.35, []any{"/", "/api", "/static/v1"}, []any{"", "api", "/a//b", "/a/./b", "/a/../b", "/a%2Fb", "/a%2fb", "/a/..", "/a/.", "/."})
	}
	return p
}

func (g gen) validateIngressObject() map[string]any {
	spec := map[string]any{}
	if g.chance(0.4) {
		spec["defaultBackend"] = g.ingressBackend()
	}
	if g.chance(0.8) {
		rules := []any{}
		for i := g.r.IntN(3); i > 0; i-- {
			r := map[string]any{}
			if g.chance(0.7) {
				r["host"] = g.ingressHost()
			}
			if g.chance(0.85) {
				paths := []any{}
				for j := g.r.IntN(3); j > 0; j-- {
					paths = append(paths, g.ingressPath())
				}
				r["http"] = map[string]any{"paths": paths}
			}
			rules = append(rules, r)
		}
		spec["rules"] = rules
	}
	if g.chance(0.3) {
		tls := map[string]any{}
		if g.chance(0.8) {
			hosts := []any{}
			for i := 1 + g.r.IntN(2); i > 0; i-- {
				hosts = append(hosts, g.ingressHost())
			}
			tls["hosts"] = hosts
		}
		if g.chance(0.7) {
			tls["secretName"] = g.mistake(0.3, []any{"web-tls", "wildcard.example.com"}, []any{"Web_TLS", "-tls"})
		}
		spec["tls"] = []any{tls}
	}
	meta := map[string]any{"name": g.pick("web", "api.example", "ingress-1"), "namespace": "default"}
	if g.chance(0.4) {
		spec["ingressClassName"] = g.mistake(0.2, []any{"nginx", "traefik"}, []any{"", "Nginx"})
	}
	if g.chance(0.3) {
		meta["annotations"] = map[string]any{"kubernetes.io/ingress.class": g.pick("nginx", "traefik", "")}
	}
	return map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": meta, "spec": spec}
}

func (g gen) validateIngressClassObject() map[string]any {
	spec := map[string]any{}
	if g.chance(0.9) {
		spec["controller"] = g.mistake(0.3, []any{"k8s.io/ingress-nginx", "example.com/ingress-controller"},
			[]any{"", "nginx", "example.com/", "/x", "Example.com/x", "example.com/a b", "example.com/" + strings.Repeat("a", 250)})
	}
	if g.chance(0.6) {
		p := g.ingressResourceRef()
		if g.chance(0.6) {
			p["scope"] = g.mistake(0.15, []any{"Cluster", "Namespace"}, []any{"Global", ""})
		}
		if g.chance(0.5) {
			p["namespace"] = g.mistake(0.25, []any{"default", "ingress-system"}, []any{"", "Bad", "a.b"})
		}
		spec["parameters"] = p
	}
	return map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
		"metadata": map[string]any{"name": g.pick("nginx", "external.example.com")}, "spec": spec}
}

func (g gen) validateIngress() map[string]any {
	var obj map[string]any
	if g.chance(0.7) {
		obj = g.validateIngressObject()
	} else {
		obj = g.validateIngressClassObject()
	}
	return map[string]any{"object": obj, "featureGates": gatesOf(g.drawGates("RelaxedServiceNameValidation", "DeclarativeValidationBeta"))}
}

func upstreamIngress(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var kind struct{ Kind string }
	if err := json.Unmarshal(in.Object, &kind); err != nil {
		return nil, err
	}
	if kind.Kind == "IngressClass" {
		var ic networking.IngressClass
		if err := decodeAndConvert(in.Object, &networkingv1.IngressClass{}, &ic); err != nil {
			return nil, err
		}
		return createExpect(createRequestCtx("", "networking.k8s.io", "ingressclasses"), ingressclassregistry.Strategy, &ic), nil
	}
	var ing networking.Ingress
	if err := decodeAndConvert(in.Object, &networkingv1.Ingress{}, &ing); err != nil {
		return nil, err
	}
	return createExpect(createRequestCtx("default", "networking.k8s.io", "ingresses"), ingressregistry.Strategy, &ing), nil
}
