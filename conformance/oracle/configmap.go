package main

// The validate(ConfigMap and Secret) leg: ConfigMaps and Secrets drawn mostly valid, with the
// mistakes people make (keys that are no config keys, a key in both data and binaryData, more
// than 1 MiB, a typed Secret without its required keys, a docker config that is not a JSON
// object, a service-account token without its annotation), through the create path: v1
// defaulting, conversion (stringData merged into data), the strategy's PrepareForCreate and
// Validate.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	configmapregistry "k8s.io/kubernetes/pkg/registry/core/configmap"
	secretregistry "k8s.io/kubernetes/pkg/registry/core/secret"
)

func (g gen) configKey() string {
	return g.vb([]any{"app.properties", "KEY_NAME", "key-name", "config.yaml", "tls.crt", "tls.key", "username", "password", ".dockerconfigjson", ".dockercfg", "ssh-privatekey", "token"},
		[]any{"a b", "a/b", "..data", ".", "..", "", strings.Repeat("k", 254), "key:1", "ключ"}).(string)
}

func (g gen) configValue() string {
	if g.chance(0.01) {
		return strings.Repeat("x", g.pick(1024*1024, 600*1024, 1024*1024+1).(int))
	}
	return g.pick("v", "", "line1\nline2", "{\"a\": 1}").(string)
}

func (g gen) dockerConfig() string {
	return g.vb([]any{`{"auths":{"r.example.com":{"auth":"dXNlcjpwdw=="}}}`, `{}`, ` {"a": [1, 2.5e3, true, null, "\u00e9"]} `, `null`},
		[]any{``, `{"auths": }`, `{"a" 1}`, `{a:1}`, `[1]`, `"s"`, `12`, `true`, `{} x`, `{"a":1 "b":2}`, `tru`, `nul!`, `{"a":"\q"}`, `{"a":"\u12g4"}`, `{"a":1.}`, `{"a":1e+}`, `{"a":-x}`, "{\"a\":\"\t\"}", `{"a":[1 2]}`, `{"a":01}`, `{"a":`}).(string)
}

func (g gen) validateConfigMapOrSecret() map[string]any {
	md := map[string]any{"name": "c", "namespace": "default"}
	var obj map[string]any
	if g.chance(0.4) {
		obj = map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md}
		data := map[string]any{}
		for i := 0; i < g.pick(0, 1, 2, 3).(int); i++ {
			data[g.configKey()] = g.configValue()
		}
		if len(data) > 0 || g.chance(0.3) {
			obj["data"] = data
		}
		if g.chance(0.2) {
			bin := map[string]any{}
			for i := 0; i < g.pick(1, 2).(int); i++ {
				bin[g.configKey()] = base64.StdEncoding.EncodeToString([]byte(g.configValue()))
			}
			obj["binaryData"] = bin
		}
		if g.chance(0.1) {
			obj["immutable"] = g.chance(0.5)
		}
	} else {
		obj = map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": md}
		typ := g.pick("", "Opaque", "kubernetes.io/tls", "kubernetes.io/basic-auth", "kubernetes.io/ssh-auth",
			"kubernetes.io/dockerconfigjson", "kubernetes.io/dockercfg", "kubernetes.io/service-account-token", "example.com/custom").(string)
		if typ != "" {
			obj["type"] = typ
		}
		required := map[string][]string{
			"kubernetes.io/tls": {"tls.crt", "tls.key"}, "kubernetes.io/basic-auth": {"username", "password"},
			"kubernetes.io/ssh-auth": {"ssh-privatekey"}, "kubernetes.io/dockerconfigjson": {".dockerconfigjson"},
			"kubernetes.io/dockercfg": {".dockercfg"},
		}[typ]
		data, str := map[string]any{}, map[string]any{}
		for _, k := range required {
			if g.chance(0.1) {
				continue // a required key missing
			}
			v := g.pick("secret", "").(string)
			if strings.HasPrefix(k, ".docker") {
				v = g.dockerConfig()
			}
			if g.chance(0.5) {
				str[k] = v
			} else {
				data[k] = base64.StdEncoding.EncodeToString([]byte(v))
			}
		}
		for i := 0; i < g.pick(0, 0, 1, 2).(int); i++ {
			k, v := g.configKey(), g.configValue()
			if g.chance(0.5) {
				str[k] = v
			} else {
				data[k] = base64.StdEncoding.EncodeToString([]byte(v))
			}
		}
		if len(data) > 0 {
			obj["data"] = data
		}
		if len(str) > 0 {
			obj["stringData"] = str
		}
		if typ == "kubernetes.io/service-account-token" && g.chance(0.8) {
			md["annotations"] = map[string]any{"kubernetes.io/service-account.name": g.pick("default", "").(string)}
		}
	}
	return map[string]any{"object": obj}
}

func upstreamConfigMapOrSecret(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var kind struct{ Kind string }
	_ = json.Unmarshal(in.Object, &kind)
	var errs field.ErrorList
	switch kind.Kind {
	case "ConfigMap":
		var v corev1.ConfigMap
		if err := json.Unmarshal(in.Object, &v); err != nil {
			return nil, err
		}
		legacyscheme.Scheme.Default(&v)
		var cm api.ConfigMap
		if err := legacyscheme.Scheme.Convert(&v, &cm, nil); err != nil {
			return nil, err
		}
		configmapregistry.Strategy.PrepareForCreate(ctxNS(), &cm)
		errs = configmapregistry.Strategy.Validate(ctxNS(), &cm)
	case "Secret":
		var v corev1.Secret
		if err := json.Unmarshal(in.Object, &v); err != nil {
			return nil, err
		}
		legacyscheme.Scheme.Default(&v)
		var s api.Secret
		if err := legacyscheme.Scheme.Convert(&v, &s, nil); err != nil {
			return nil, err
		}
		secretregistry.Strategy.PrepareForCreate(ctxNS(), &s)
		errs = secretregistry.Strategy.Validate(ctxNS(), &s)
	default:
		return nil, fmt.Errorf("kind %q", kind.Kind)
	}
	return withMessages(errs, nil), nil
}
