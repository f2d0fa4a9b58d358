package main

// Upstream's decisions on pre-decoded inputs, for the speed comparison: the loop each returns
// runs the upstream function once per input and nothing else.

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	"k8s.io/kubernetes/pkg/apis/batch"
	api "k8s.io/kubernetes/pkg/apis/core"
	jobregistry "k8s.io/kubernetes/pkg/registry/batch/job"
	podregistry "k8s.io/kubernetes/pkg/registry/core/pod"
)

var sink int

func timedPFP(inputs [][]byte) (func(), int, error) {
	var ins []*pfpInput
	for _, raw := range inputs {
		in, err := decodePFP(raw)
		if err != nil {
			return nil, 0, err
		}
		ins = append(ins, in)
	}
	return func() {
		for _, in := range ins {
			_, c, _ := matchPodFailurePolicy(in.Job.Spec.PodFailurePolicy, &in.Pod)
			if c {
				sink++
			}
		}
	}, len(ins), nil
}

func timedContainerRestart(inputs [][]byte) (func(), int, error) {
	type tc struct {
		c    corev1.Container
		spec *corev1.PodSpec
		code int32
	}
	var tcs []tc
	for _, raw := range inputs {
		var in containerInput
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, 0, err
		}
		c, err := findContainer(&in.Pod.Spec, in.Container)
		if err != nil {
			return nil, 0, err
		}
		tcs = append(tcs, tc{*c, &in.Pod.Spec, in.ExitCode})
	}
	return func() {
		for _, t := range tcs {
			if podutil.ContainerShouldRestart(t.c, *t.spec, t.code) {
				sink++
			}
		}
	}, len(tcs), nil
}

// timedValidate: the registry strategy's Validate on admitted objects (gates as last set).
func timedValidate(inputs [][]byte) (func(), int, error) {
	var pods []*api.Pod
	var jobs []*batch.Job
	for _, raw := range inputs {
		var in validateInput
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, 0, err
		}
		switch jobOrPod(in.Object) {
		case "Pod":
			if p, _, err := admitPod(in.Object); err == nil {
				pods = append(pods, p)
			}
		case "Job":
			if j, _, err := admitJob(in.Object); err == nil {
				jobs = append(jobs, j)
			}
		}
	}
	ctx := ctxNS()
	return func() {
		var errs field.ErrorList
		for _, p := range pods {
			errs = podregistry.Strategy.Validate(ctx, p)
			sink += len(errs)
		}
		for _, j := range jobs {
			errs = jobregistry.Strategy.Validate(ctx, j)
			sink += len(errs)
		}
	}, len(pods) + len(jobs), nil
}

func jobOrPod(obj []byte) string {
	var k struct{ Kind string }
	_ = json.Unmarshal(obj, &k)
	return k.Kind
}
