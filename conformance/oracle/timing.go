package main

// Upstream's decisions on pre-decoded inputs, for the speed comparison: the loop each returns
// runs the upstream function once per input and nothing else.

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/apis/batch"
	api "k8s.io/kubernetes/pkg/apis/core"
	jobregistry "k8s.io/kubernetes/pkg/registry/batch/job"
	podregistry "k8s.io/kubernetes/pkg/registry/core/pod"
)

var sink int

// timedStages: upstream's two timed stages over the same inputs. decide runs upstream's
// decision on inputs decoded (and defaulted, converted, admitted) beforehand; decodeDecide does
// the decoding too, from each input's JSON text. Feature gates are process-wide upstream, set
// before the loops (as last set by the cases), not per input.
type timedStages struct {
	decideName   string // the upstream function decide times
	decide       func()
	decodeDecide func()
	n            int
}

func timedPFP(inputs [][]byte) (timedStages, error) {
	var ins []*pfpInput
	for _, raw := range inputs {
		in, err := decodePFP(raw)
		if err != nil {
			return timedStages{}, err
		}
		ins = append(ins, in)
	}
	return timedStages{
		decideName: "matchPodFailurePolicy",
		decide: func() {
			for _, in := range ins {
				_, c, _ := matchPodFailurePolicy(in.Job.Spec.PodFailurePolicy, &in.Pod)
				if c {
					sink++
				}
			}
		},
		decodeDecide: func() {
			for _, raw := range inputs {
				in, err := decodePFP(raw)
				if err != nil {
					continue
				}
				_, c, _ := matchPodFailurePolicy(in.Job.Spec.PodFailurePolicy, &in.Pod)
				if c {
					sink++
				}
			}
		},
		n: len(ins),
	}, nil
}

func timedContainerRestart(inputs [][]byte) (timedStages, error) {
	type tc struct {
		c    corev1.Container
		spec *corev1.PodSpec
		code int32
	}
	var tcs []tc
	for _, raw := range inputs {
		var in containerInput
		if err := json.Unmarshal(raw, &in); err != nil {
			return timedStages{}, err
		}
		c, err := findContainer(&in.Pod.Spec, in.Container)
		if err != nil {
			return timedStages{}, err
		}
		tcs = append(tcs, tc{*c, &in.Pod.Spec, in.ExitCode})
	}
	return timedStages{
		decideName: "ContainerShouldRestart",
		decide: func() {
			for _, t := range tcs {
				if containerShouldRestart(t.c, *t.spec, t.code) {
					sink++
				}
			}
		},
		decodeDecide: func() {
			for _, raw := range inputs {
				var in containerInput
				if json.Unmarshal(raw, &in) != nil {
					continue
				}
				c, err := findContainer(&in.Pod.Spec, in.Container)
				if err != nil {
					continue
				}
				if containerShouldRestart(*c, in.Pod.Spec, in.ExitCode) {
					sink++
				}
			}
		},
		n: len(tcs),
	}, nil
}

// timedValidate: the registry strategy's Validate on admitted objects; with decoding, the
// admission as upstream.go does it (decode with defaulting, conversion, PrepareForCreate).
func timedValidate(inputs [][]byte) (timedStages, error) {
	var pods []*api.Pod
	var jobs []*batch.Job
	var objs [][]byte
	for _, raw := range inputs {
		var in validateInput
		if err := json.Unmarshal(raw, &in); err != nil {
			return timedStages{}, err
		}
		switch jobOrPod(in.Object) {
		case "Pod":
			if p, _, err := admitPod(in.Object); err == nil {
				pods = append(pods, p)
				objs = append(objs, raw)
			}
		case "Job":
			if j, _, err := admitJob(in.Object); err == nil {
				jobs = append(jobs, j)
				objs = append(objs, raw)
			}
		}
	}
	ctx := ctxNS()
	return timedStages{
		decideName: "Strategy.Validate",
		decide: func() {
			var errs field.ErrorList
			for _, p := range pods {
				errs = podregistry.Strategy.Validate(ctx, p)
				sink += len(errs)
			}
			for _, j := range jobs {
				errs = jobregistry.Strategy.Validate(ctx, j)
				sink += len(errs)
			}
		},
		decodeDecide: func() {
			for _, raw := range objs {
				var in validateInput
				if json.Unmarshal(raw, &in) != nil {
					continue
				}
				if len(pods) > 0 {
					if p, _, err := admitPod(in.Object); err == nil {
						sink += len(podregistry.Strategy.Validate(ctx, p))
					}
				} else if j, _, err := admitJob(in.Object); err == nil {
					sink += len(jobregistry.Strategy.Validate(ctx, j))
				}
			}
		},
		n: len(pods) + len(jobs),
	}, nil
}

func jobOrPod(obj []byte) string {
	var k struct{ Kind string }
	_ = json.Unmarshal(obj, &k)
	return k.Kind
}
