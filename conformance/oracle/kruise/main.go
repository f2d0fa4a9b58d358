// Command kruise-upstream: OpenKruise's ContainerRecreateRequest admission (its mutating
// webhook, which both defaults and refuses) at the version in this module's go.mod, for the
// differential oracle in the parent directory. It lives in its own module because OpenKruise
// pins its own Kubernetes (v1.30) and controller-runtime (v0.18) releases, which cannot share a
// build with the oracle's Kubernetes v1.37.
//
// Standard input: JSON lines, each a restartkit crrValidate input ({object, pod,
// featureGates}); standard output: one JSON line each, {"expect": <vector expectation>} or
// {"skip": "<why upstream cannot take it>"}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	appsv1alpha1 "github.com/openkruise/kruise/apis/apps/v1alpha1"
	utilfeature "github.com/openkruise/kruise/pkg/util/feature"
	"github.com/openkruise/kruise/pkg/webhook/containerrecreaterequest/mutating"

	evanjsonpatch "github.com/evanphx/json-patch"
)

type input struct {
	Object       json.RawMessage `json:"object"`
	Pod          json.RawMessage `json:"pod"`
	FeatureGates map[string]bool `json:"featureGates"`
}

func module() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/openkruise/kruise" {
				return d.Version
			}
		}
	}
	return "unknown"
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-version" {
		fmt.Println(module())
		return
	}
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = appsv1alpha1.AddToScheme(scheme)
	decoder := admission.NewDecoder(scheme)
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for sc.Scan() {
		answer, err := one(sc.Bytes(), scheme, decoder)
		if err != nil {
			answer = map[string]any{"skip": err.Error()}
		}
		b, _ := json.Marshal(answer)
		out.Write(append(b, '\n'))
		out.Flush()
	}
}

func one(line []byte, scheme *runtime.Scheme, decoder admission.Decoder) (map[string]any, error) {
	var in input
	if err := json.Unmarshal(line, &in); err != nil {
		return nil, err
	}
	gates := map[string]bool{"KruiseDaemon": true}
	for k, v := range in.FeatureGates {
		gates[k] = v
	}
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(gates); err != nil {
		return nil, err
	}
	var objs []client.Object
	if len(in.Pod) > 0 && string(in.Pod) != "null" {
		pod := &corev1.Pod{}
		if err := json.Unmarshal(in.Pod, pod); err != nil {
			return nil, fmt.Errorf("pod: %v", err)
		}
		objs = append(objs, pod)
	}
	cli := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	h := &mutating.ContainerRecreateRequestHandler{Client: cli, Decoder: decoder}
	var meta struct {
		Metadata struct {
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(in.Object, &meta)
	resp := h.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Create,
		Namespace: meta.Metadata.Namespace,
		Object:    runtime.RawExtension{Raw: in.Object},
	}})
	if !resp.Allowed {
		code := int32(0)
		msg := ""
		if resp.Result != nil {
			code, msg = resp.Result.Code, resp.Result.Message
		}
		return map[string]any{"expect": map[string]any{
			"valid": false, "httpCode": code,
			"errors": []any{map[string]any{"field": "", "type": nil, "message": msg}},
		}}, nil
	}
	mutated := []byte(in.Object)
	if len(resp.Patches) > 0 {
		ops, err := json.Marshal(resp.Patches)
		if err != nil {
			return nil, err
		}
		patch, err := evanjsonpatch.DecodePatch(ops)
		if err != nil {
			return nil, err
		}
		if mutated, err = patch.Apply(mutated); err != nil {
			return nil, err
		}
	}
	var obj map[string]any
	if err := json.Unmarshal(mutated, &obj); err != nil {
		return nil, err
	}
	// The handler marshals the whole object, so its patch adds `status: {phase: ""}`; the API
	// server then drops status on create, as the CRD has the status subresource
	// (config/crd/bases/apps.kruise.io_containerrecreaterequests.yaml). What is stored has none.
	delete(obj, "status")
	return map[string]any{"expect": map[string]any{"valid": true, "errors": []any{}, "httpCode": 200, "mutatedObject": obj}}, nil
}
