package main

// The decoding leg: what kube-apiserver says of a create whose body does not decode into the
// kind's Go type (a string where an int32 is, an int32 out of range, a quantity, int-or-string,
// time or base64 text its own decoder refuses, a list where an object is...): 400 Bad Request,
// `<Kind> in version "<v>" cannot be handled as a <Kind>: <encoding/json's error>`, before
// strict field validation and validation. Objects of many built-in kinds, modelled by
// restartkit or not, get values of every JSON type at fields chosen by walking the kind's Go type
// (so every field of every type is reachable). The body is the one kubectl sends: the object
// read as unstructured and marshalled again (keys sorted, numbers as Go writes them), decoded by
// the API server's JSON serializer (strict, as under kubectl's default --validate=strict).
// Compared: the decoding error; where the body decodes, a kind restartkit does not model must
// be valid (restartkit claims nothing more of it but its metadata, which stays valid unless the
// case changed it), and otherwise no decoding error may be reported (validation and metadata
// are the other legs' business).

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
)

// decodingKinds: built-in kinds every supported minor creates. modelled: restartkit validates
// their content (Pod, workloads, Jobs, Service, ConfigMap, Secret, PersistentVolumeClaim,
// Namespace, PodDisruptionBudget, PriorityClass, Lease, LimitRange, ResourceQuota, RBAC, NetworkPolicy,
// Ingress, HorizontalPodAutoscaler, StorageClass, ServiceAccount, ValidatingWebhookConfiguration,
// PersistentVolume), so
// only its decoding error is compared when the body decodes.
var decodingKinds = []struct {
	gvk       schema.GroupVersionKind
	modelled  bool
	clustered bool
}{
	{schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, true, false},
	{schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"}, true, false},
	{schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "CronJob"}, true, false},
	{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, true, false},
	{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}, true, false},
	{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}, true, false},
	{schema.GroupVersionKind{Version: "v1", Kind: "PodTemplate"}, true, false},
	{schema.GroupVersionKind{Version: "v1", Kind: "ReplicationController"}, true, false},
	{schema.GroupVersionKind{Version: "v1", Kind: "Service"}, true, false},
	{schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, true, false},
	{schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, true, false},
	{schema.GroupVersionKind{Version: "v1", Kind: "ServiceAccount"}, true, false},
	{schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolumeClaim"}, true, false},
	{schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolume"}, true, true},
	{schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, true, true},
	{schema.GroupVersionKind{Version: "v1", Kind: "Node"}, false, true},
	{schema.GroupVersionKind{Version: "v1", Kind: "LimitRange"}, true, false},
	{schema.GroupVersionKind{Version: "v1", Kind: "ResourceQuota"}, true, false},
	{schema.GroupVersionKind{Version: "v1", Kind: "Endpoints"}, true, false},
	{schema.GroupVersionKind{Version: "v1", Kind: "Event"}, false, false},
	{schema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}, true, false},
	{schema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy"}, true, false},
	{schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}, true, false},
	{schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}, true, false},
	{schema.GroupVersionKind{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"}, true, false},
	{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"}, true, false},
	{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"}, true, true},
	{schema.GroupVersionKind{Group: "scheduling.k8s.io", Version: "v1", Kind: "PriorityClass"}, true, true},
	{schema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass"}, true, true},
	{schema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}, true, false},
	{schema.GroupVersionKind{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"}, false, false},
	{schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"}, true, true},
}

// decodingValues: JSON values of every type, and texts the special decoders read (as raw JSON).
var decodingValues = []string{
	`"x"`, `""`, `"8080"`, `"100m"`, `"1x"`, `"1kk"`, `"1e"`, `" 2Gi "`, `"aGVsbG8="`, `"aGVsbG8"`, `"not base64!"`,
	`"2024-01-02T03:04:05Z"`, `"2024-01-02T03:04:05.123456+02:00"`, `"yesterday"`, `"2024-13-01T00:00:00Z"`, `"2024-01-02 03:04:05"`,
	`7`, `0`, `-1`, `1.5`, `1000.0`, `3000000000`, `-2147483649`, `9223372036854775808`, `1e21`, `1e-7`,
	`true`, `false`, `{}`, `{"a":1}`, `[]`, `["x"]`, `[1]`, `null`,
}

func (g gen) decodingValue() any {
	return json.RawMessage(decodingValues[g.r.IntN(len(decodingValues))])
}

// decodingPath picks a field path by walking the Go type from its root: each step a random JSON
// field; a list gets its first item, a map the key "k".
func (g gen) decodingPath(t reflect.Type) []string {
	var path []string
	for depth := 0; depth < 12; depth++ {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Slice:
			if t.Elem().Kind() == reflect.Uint8 || !g.chance(0.7) {
				return path
			}
			path = append(path, "0")
			t = t.Elem()
			continue
		case reflect.Map:
			if !g.chance(0.7) {
				return path
			}
			path = append(path, "k")
			t = t.Elem()
			continue
		case reflect.Struct:
		default:
			return path
		}
		if _, custom := reflect.PointerTo(t).MethodByName("UnmarshalJSON"); custom && len(path) > 0 {
			return path
		}
		fields := jsonFields(t)
		if len(fields) == 0 || (len(path) > 0 && !g.chance(0.8)) {
			return path
		}
		f := fields[g.r.IntN(len(fields))]
		path = append(path, f.name)
		t = f.typ
	}
	return path
}

type jsonField struct {
	name string
	typ  reflect.Type
}

// jsonFields: a struct's JSON fields as encoding/json sees them (embedded structs promoted),
// without apiVersion and kind, which say what the body is.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			out = append(out, jsonFields(ft)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == "apiVersion" || name == "kind" {
			continue
		}
		out = append(out, jsonField{name, f.Type})
	}
	return out
}

// setPath sets a value at a path of map keys and list indexes ("0"), creating what is missing;
// a step through a value of another shape replaces it.
func setPath(obj map[string]any, path []string, v any) {
	var cur any = obj
	for i, p := range path {
		last := i == len(path)-1
		nextIsIndex := !last && path[i+1] == "0"
		fresh := func() any {
			if nextIsIndex {
				return []any{nil}
			}
			return map[string]any{}
		}
		switch node := cur.(type) {
		case map[string]any:
			if last {
				node[p] = v
				return
			}
			next, ok := node[p]
			switch next.(type) {
			case map[string]any:
				if nextIsIndex {
					ok = false
				}
			case []any:
				if !nextIsIndex {
					ok = false
				}
			default:
				ok = false
			}
			if !ok {
				next = fresh()
				node[p] = next
			}
			cur = next
		case []any:
			if last {
				node[0] = v
				return
			}
			next := node[0]
			switch next.(type) {
			case map[string]any:
				if nextIsIndex {
					next = fresh()
				}
			case []any:
				if !nextIsIndex {
					next = fresh()
				}
			default:
				next = fresh()
			}
			node[0] = next
			cur = next
		}
	}
}

func (g gen) validateDecoding() map[string]any {
	k := decodingKinds[g.r.IntN(len(decodingKinds))]
	apiVersion := k.gvk.Version
	if k.gvk.Group != "" {
		apiVersion = k.gvk.Group + "/" + k.gvk.Version
	}
	obj := map[string]any{"apiVersion": apiVersion, "kind": k.gvk.Kind, "metadata": map[string]any{"name": "w"}}
	typ, ok := clientscheme.Scheme.AllKnownTypes()[k.gvk]
	if !ok {
		panic(fmt.Sprintf("decoding leg: %v is not in client-go's scheme", k.gvk))
	}
	for n := 1 + g.r.IntN(3); n > 0; n-- {
		path := g.decodingPath(typ)
		if len(path) == 0 {
			continue
		}
		setPath(obj, path, g.decodingValue())
	}
	return map[string]any{"object": obj, "fieldValidation": "Strict"}
}

// upstreamDecoding: the API server's answer to the body kubectl sends for the object.
func upstreamDecoding(raw []byte) (map[string]any, error) {
	var in struct {
		Object json.RawMessage `json:"object"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	// kubectl: the object as unstructured, marshalled again.
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(in.Object); err != nil {
		return nil, err
	}
	body, err := u.MarshalJSON()
	if err != nil {
		return nil, err
	}
	gvk := u.GroupVersionKind()
	var modelled bool
	for _, k := range decodingKinds {
		if k.gvk == gvk {
			modelled = k.modelled
		}
	}
	serializer := kjsonserializer.NewSerializerWithOptions(kjsonserializer.DefaultMetaFactory,
		clientscheme.Scheme, clientscheme.Scheme, kjsonserializer.SerializerOptions{Strict: true})
	_, _, err = serializer.Decode(body, nil, nil)
	if err != nil {
		if strict, ok := runtime.AsStrictDecodingError(err); ok {
			errs := []any{}
			for _, e := range strict.Errors() {
				errs = append(errs, map[string]any{"field": "", "type": nil, "message": "strict decoding error: " + e.Error()})
			}
			return map[string]any{"valid": false, "errors": errs, "errorsComplete": !modelled}, nil
		}
		// apiserver's transformDecodeError, for a body that names its kind.
		message := fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, gvk.Kind, err)
		return map[string]any{"valid": false, "errors": []any{map[string]any{"field": "", "type": nil, "message": message}}}, nil
	}
	// Metadata that decodes is the ObjectMeta leg's business (a finalizer "x" is refused there).
	var sent struct {
		Metadata map[string]any `json:"metadata"`
	}
	_ = json.Unmarshal(in.Object, &sent)
	metadataChanged := len(sent.Metadata) != 1 || sent.Metadata["name"] != "w"
	if modelled || metadataChanged {
		// Its validation is compared by the other legs; here: no decoding error.
		return map[string]any{"errors": []any{}, "errorsComplete": false, "errorMessages": []any{}}, nil
	}
	return map[string]any{"valid": true, "errors": []any{}}, nil
}
