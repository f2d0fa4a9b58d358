package main

// The validate(WebhookConfiguration) leg: admissionregistration.k8s.io/v1
// ValidatingWebhookConfigurations and MutatingWebhookConfigurations drawn around
// ValidateValidatingWebhookConfiguration / ValidateMutatingWebhookConfiguration: webhook names
// (qualified, three segments, repeated), rules (operations, groups, versions and resources with
// their wildcards and subresources, scope), the policies (absent: the v1 defaults), sideEffects,
// admissionReviewVersions, timeouts, both label selectors, the mutating reinvocationPolicy, a
// clientConfig URL composed from parts Go's url.Parse reads differently (schemes, user
// information, IPv6 literals and zones, ports, escapes, queries, fragments) or a service
// (namespace and name empty, ports, paths), and match conditions (names, empty expressions,
// more than 64). Every expression drawn compiles: restartkit does not model cel-go's compile
// errors. The configuration's name sometimes ends with the reserved .static.k8s.io;
// ManifestBasedAdmissionControlConfig and ExcludeAdmissionWebhookVirtualResources are varied
// where the release lets them be set. Through the create path (createExpect): decoding, the v1
// defaulting, conversion, PrepareForCreate, the release's create validation and, for a
// configuration that passed, WarningsOnCreate. Full messages are compared, and the warnings.

import (
	"encoding/json"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	mutatingwebhookregistry "k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	validatingwebhookregistry "k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"
)

// webhookURL: a URL from parts, most of them ones a webhook may use, some not.
func (g gen) webhookURL() string {
	if g.chance(0.2) {
		return g.pick("", "*", ":x", "1x:y/z", "//h/p", "h/p", "https:h", "https://", "https://h\n/",
			"https://[::1/", "https://x[y]/", "https://[::1]x/", "https://a@b@h/", "HTTPS://H/").(string)
	}
	scheme := g.mistake(0.2, []any{"https://"}, []any{"http://", "HTTPS://", "ftp://", "", "h2c://"}).(string)
	user := ""
	if g.chance(0.12) {
		user = g.pick("u:p@", "@", "u@", "a%40b:c:d@", "u%zz@", "u s@", "!x(y)@", "%C3%A9:%ff@").(string)
	}
	host := g.mistake(0.3, []any{"hook.example.com", "10.0.0.1", "[fe80::1]", "[::1]", "svc.ns.svc"},
		[]any{"", "a b", "h%41", "h%C3%A9", "[1.2.3.4]", "[fe80::1::2]", "[x]", "[fe80::1%25en0]", "[fe80::1%25]",
			"[::ffff:1.2.3.4]", "[1:2:3:4:5:6:7:8:9]", "[1::2:3:4:5:6:7:8]", "[01.2.3.4]", "[::1.2.3]", "[12345::]",
			"[%25zone]", "h<i>", "ü.example"}).(string)
	port := ""
	if g.chance(0.3) {
		port = g.pick(":443", ":8443", ":", ":80:1", ":x", ":99999").(string)
	}
	path := g.pick("", "/", "/validate", "/a/b", "/%zz", "/p%2Fq", "/é").(string)
	tail := ""
	if g.chance(0.2) {
		tail += g.pick("?", "?a=b", "??", "?x#").(string)
	}
	if g.chance(0.2) {
		tail += g.pick("#", "#frag", "#%4", "#%C3%A9", "#%ff", "#a#b").(string)
	}
	return scheme + user + host + port + path + tail
}

func (g gen) webhookService() map[string]any {
	s := map[string]any{}
	if g.chance(0.9) {
		s["name"] = g.mistake(0.2, []any{"hook", "policy-webhook"}, []any{""})
	}
	if g.chance(0.9) {
		s["namespace"] = g.mistake(0.2, []any{"system", "default"}, []any{""})
	}
	if g.chance(0.4) {
		s["port"] = g.mistake(0.4, []any{443, 8443, 1, 65535}, []any{0, -1, 65536, 70000})
	}
	if g.chance(0.5) {
		s["path"] = g.mistake(0.5, []any{"", "/", "/validate", "/a.b/c-d", "/x/"},
			[]any{"//", "///", "validate", "/a//b", "/A", "/-x", "/é", "é/x", "/" + strings.Repeat("a", 254), "/a/b//"})
	}
	return s
}

func (g gen) webhookSelector() any {
	if g.chance(0.1) {
		return nil
	}
	sel := map[string]any{}
	if g.chance(0.5) {
		sel["matchLabels"] = map[string]any{g.mistake(0.2, []any{"team", "example.com/env"}, []any{"bad key", "a/b/c"}).(string): g.mistake(0.2, []any{"a", ""}, []any{"-x", "a b"})}
	}
	if g.chance(0.5) {
		e := map[string]any{"key": g.mistake(0.2, []any{"environment", "kubernetes.io/metadata.name"}, []any{"", "-k"}),
			"operator": g.mistake(0.2, []any{"In", "NotIn", "Exists", "DoesNotExist"}, []any{"Equals", ""})}
		if g.chance(0.6) {
			e["values"] = g.pick([]any{}, []any{"prod"}, []any{"prod", "bad value"})
		}
		sel["matchExpressions"] = []any{e}
	}
	return sel
}

func (g gen) webhookRule() map[string]any {
	r := map[string]any{
		"operations": g.pick([]any{}, []any{"CREATE"}, []any{"CREATE", "UPDATE"}, []any{"*"}, []any{"*", "CREATE"},
			[]any{"PATCH"}, []any{"create"}, []any{"CONNECT", "DELETE"}),
		"apiGroups": g.pick([]any{}, []any{""}, []any{"apps"}, []any{"*"}, []any{"*", "apps"}, []any{"authorization.k8s.io"},
			[]any{"authentication.k8s.io", "authorization.k8s.io"}),
		"apiVersions": g.pick([]any{}, []any{"v1"}, []any{"*"}, []any{"*", "v1"}, []any{"v1", ""}),
		"resources": g.pick([]any{}, []any{""}, []any{"pods"}, []any{"pods/status"}, []any{"*"}, []any{"*/*"},
			[]any{"*/*", "pods"}, []any{"pods/*", "pods/log"}, []any{"*/status", "deployments/status"}, []any{"*", "pods"},
			[]any{"*", "pods/status"}, []any{"pods", "*"}, []any{"subjectaccessreviews"},
			[]any{"tokenreviews", "tokenreviews", "selfsubjectreviews"}, []any{"a/b/c"}, []any{"*/x", "*/x"}),
	}
	if g.chance(0.1) {
		delete(r, g.pick("operations", "apiGroups", "apiVersions", "resources").(string))
	}
	if g.chance(0.5) {
		r["scope"] = g.mistake(0.3, []any{"Cluster", "Namespaced", "*"}, []any{"Global", "", "cluster"})
	}
	return r
}

// webhookExpressions compile in every release's match-condition environment.
var webhookExpressions = []any{"true", "request.operation == 'CREATE'", "object.metadata.name != 'x'",
	"has(object.metadata.labels)", "request.userInfo.username != 'system:admin'"}

func (g gen) webhookMatchConditions() []any {
	if g.chance(0.05) {
		out := []any{}
		for i := 0; i < 65; i++ {
			out = append(out, map[string]any{"name": fmt.Sprintf("c%d", i), "expression": "true"})
		}
		return out
	}
	out := []any{}
	for i := g.r.IntN(4); i > 0; i-- {
		c := map[string]any{}
		if len(out) > 0 && g.chance(0.2) {
			c["name"] = out[len(out)-1].(map[string]any)["name"]
		} else if g.chance(0.95) {
			c["name"] = g.mistake(0.3, []any{"exclude-leases", "example.com/cond", "a.b"}, []any{"", "a/b/c", "Bad Name", "-x"})
		}
		if g.chance(0.95) {
			c["expression"] = g.mistake(0.2, webhookExpressions, []any{"", "   ", "\n\t"})
		}
		out = append(out, c)
	}
	return out
}

func (g gen) webhook(mutating bool, previous []any) map[string]any {
	h := map[string]any{}
	if len(previous) > 0 && g.chance(0.15) {
		h["name"] = previous[len(previous)-1].(map[string]any)["name"]
	} else {
		h["name"] = g.mistake(0.25, []any{"check.example.com", "pods.policy.example.io", "a.b.c"},
			[]any{"", "two.parts", "Bad.Example.com", "x..y.z", "nodots", strings.Repeat("a", 250) + ".b.c"})
	}
	rules := []any{}
	for i := g.r.IntN(3); i > 0; i-- {
		rules = append(rules, g.webhookRule())
	}
	h["rules"] = rules
	if g.chance(0.5) {
		h["failurePolicy"] = g.mistake(0.3, []any{"Fail", "Ignore"}, []any{"fail", ""})
	}
	if g.chance(0.5) {
		h["matchPolicy"] = g.mistake(0.3, []any{"Exact", "Equivalent"}, []any{"Loose", ""})
	}
	if g.chance(0.85) {
		h["sideEffects"] = g.mistake(0.25, []any{"None", "NoneOnDryRun"}, []any{"Some", "Unknown", "", "none"})
	}
	if g.chance(0.9) {
		h["admissionReviewVersions"] = g.mistake(0.3, []any{[]any{"v1"}, []any{"v1", "v1beta1"}, []any{"v1beta1"}},
			[]any{[]any{}, []any{"v2"}, []any{"v1", "v1"}, []any{"V1"}, []any{"v1", "1x"}, []any{"v1", ""}, []any{"v2", "v2"}})
	}
	if g.chance(0.4) {
		h["timeoutSeconds"] = g.mistake(0.4, []any{1, 10, 30}, []any{0, 31, -5})
	}
	for _, key := range []string{"namespaceSelector", "objectSelector"} {
		if g.chance(0.3) {
			h[key] = g.webhookSelector()
		}
	}
	if mutating && g.chance(0.5) {
		h["reinvocationPolicy"] = g.mistake(0.3, []any{"Never", "IfNeeded"}, []any{"Always", ""})
	}
	cc := map[string]any{}
	switch n := g.r.IntN(20); {
	case n == 0:
	case n == 1:
		cc["url"] = g.webhookURL()
		cc["service"] = g.webhookService()
	case n < 11:
		cc["url"] = g.webhookURL()
	default:
		cc["service"] = g.webhookService()
	}
	if g.chance(0.95) {
		h["clientConfig"] = cc
	}
	if g.chance(0.3) {
		h["matchConditions"] = g.webhookMatchConditions()
	}
	return h
}

func (g gen) validateWebhookConfiguration() map[string]any {
	mutating := g.chance(0.5)
	kind := "ValidatingWebhookConfiguration"
	if mutating {
		kind = "MutatingWebhookConfiguration"
	}
	name := g.mistake(0.1, []any{"policy", "pods.example.com"}, []any{"local.static.k8s.io"})
	obj := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
		"metadata": map[string]any{"name": name}}
	if g.chance(0.95) {
		hooks := []any{}
		for i := g.r.IntN(4); i > 0; i-- {
			hooks = append(hooks, g.webhook(mutating, hooks))
		}
		obj["webhooks"] = hooks
	}
	return map[string]any{"object": obj, "featureGates": gatesOf(g.drawGates("ManifestBasedAdmissionControlConfig", "ExcludeAdmissionWebhookVirtualResources"))}
}

func upstreamWebhookConfiguration(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var kind struct{ Kind string }
	if err := json.Unmarshal(in.Object, &kind); err != nil {
		return nil, err
	}
	if kind.Kind == "MutatingWebhookConfiguration" {
		var c admissionregistration.MutatingWebhookConfiguration
		if err := decodeAndConvert(in.Object, &admissionregistrationv1.MutatingWebhookConfiguration{}, &c); err != nil {
			return nil, err
		}
		return createExpect(createRequestCtx("", "admissionregistration.k8s.io", "mutatingwebhookconfigurations"), mutatingwebhookregistry.Strategy, &c), nil
	}
	var c admissionregistration.ValidatingWebhookConfiguration
	if err := decodeAndConvert(in.Object, &admissionregistrationv1.ValidatingWebhookConfiguration{}, &c); err != nil {
		return nil, err
	}
	return createExpect(createRequestCtx("", "admissionregistration.k8s.io", "validatingwebhookconfigurations"), validatingwebhookregistry.Strategy, &c), nil
}
