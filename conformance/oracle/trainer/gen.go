package main

// The generator: a runtime (TrainingRuntime or ClusterTrainingRuntime) and a TrainJob naming it,
// over every ML policy (none, torch with envInjection, mpi, jax, xgboost, flux), both pod-group
// plugins, 1-4 replicated Jobs (trainer, launcher, initializers, others) with their failure
// fields (backoffLimit, podFailurePolicy, restartPolicy, successPolicy, the JobSet's
// failurePolicy), initializers, runtimePatches of every allowed field, numNodes 1-64 (and a few
// below 1), resources with CPUs and GPUs, and values around the CRD's and webhooks' limits.

import (
	"fmt"
	"math/rand/v2"
)

type gen struct{ r *rand.Rand }

func (g gen) chance(p float64) bool { return g.r.Float64() < p }

func (g gen) pick(xs ...any) any { return xs[g.r.IntN(len(xs))] }

func (g gen) pickS(xs ...string) string { return xs[g.r.IntN(len(xs))] }

const ancestorLabel = "trainer.kubeflow.org/trainjob-ancestor-step"

// env: up to two variables, named from names (the same name twice now and then, which the
// CRDs' list-map keys refuse).
func (g gen) env(names ...string) []any {
	var out []any
	n := g.r.IntN(3)
	perm := g.r.Perm(len(names))
	for i := 0; i < n; i++ {
		name := names[perm[i%len(perm)]]
		if g.chance(0.05) {
			name = g.pickS(names...)
		}
		e := map[string]any{"name": name}
		switch g.r.IntN(6) {
		case 0:
			e["valueFrom"] = map[string]any{"fieldRef": map[string]any{"fieldPath": "metadata.name"}}
		case 1:
			e["valueFrom"] = map[string]any{"secretKeyRef": map[string]any{"name": "s", "key": "k", "optional": g.chance(0.5)}}
		case 2:
			e["value"] = ""
		default:
			e["value"] = fmt.Sprintf("v%d", g.r.IntN(100))
		}
		out = append(out, e)
	}
	return out
}

func (g gen) resources() map[string]any {
	res := map[string]any{}
	for _, k := range []string{"limits", "requests"} {
		if !g.chance(0.5) {
			continue
		}
		m := map[string]any{}
		if g.chance(0.7) {
			m["cpu"] = g.pickS("1", "2", "4", "500m", "1500m", "8")
		}
		if g.chance(0.4) {
			m["nvidia.com/gpu"] = g.pickS("1", "2", "4", "8", "0")
		}
		if g.chance(0.4) {
			m["memory"] = g.pickS("1Gi", "4Gi", "16Gi")
		}
		res[k] = m
	}
	return res
}

func (g gen) ports() []any {
	var out []any
	values := []int{8080, 29500, 9090, 6000}
	perm := g.r.Perm(len(values))
	for i := g.r.IntN(3); i > 0; i-- {
		port := values[perm[i]]
		if g.chance(0.05) {
			port = values[perm[0]]
		}
		p := map[string]any{"containerPort": port}
		if g.chance(0.5) {
			p["name"] = g.pickS("http", "metrics", "dist")
		}
		out = append(out, p)
	}
	return out
}

func (g gen) container(name string, role string) map[string]any {
	c := map[string]any{"name": name, "image": g.pickS("pytorch:2", "python:3", "busybox")}
	if g.chance(0.4) {
		c["env"] = g.env("A", "B", "PYTHONUNBUFFERED", "FLUX_VIEW_IMAGE", "FLUX_QUEUE_POLICY")
	}
	if g.chance(0.3) {
		if ps := g.ports(); len(ps) > 0 {
			c["ports"] = ps
		}
	}
	if g.chance(0.4) {
		c["resources"] = g.resources()
	}
	if g.chance(0.3) {
		cmd := []any{"python", "train.py"}
		if g.chance(0.3) {
			cmd = append(cmd, "output_dir=/out", "tokenizer.path=/tok", "epochs=3")
		}
		c["command"] = cmd
	}
	if g.chance(0.2) {
		c["args"] = []any{"--lr", "0.1"}
	}
	if role == "dataset-initializer" || role == "model-initializer" || g.chance(0.2) {
		if g.chance(0.8) {
			c["volumeMounts"] = []any{map[string]any{"name": "initializer", "mountPath": "/workspace"}}
		}
	}
	if g.chance(0.1) {
		c["restartPolicy"] = g.pickS("Always", "OnFailure", "Never")
	}
	return c
}

func (g gen) podFailurePolicy() map[string]any {
	rules := []any{}
	for i := 1 + g.r.IntN(2); i > 0; i-- {
		r := map[string]any{"action": g.pickS("FailJob", "Ignore", "Count", "FailIndex")}
		if g.chance(0.6) {
			r["onExitCodes"] = map[string]any{"operator": g.pickS("In", "NotIn"), "values": []any{g.pick(1, 42, 137)}}
		} else {
			r["onPodConditions"] = []any{map[string]any{"type": "DisruptionTarget"}}
		}
		rules = append(rules, r)
	}
	return map[string]any{"rules": rules}
}

// replicatedJob: a Job of the runtime; role is its ancestor ("trainer", an initializer, or "").
func (g gen) replicatedJob(name, role, mlPolicy string) map[string]any {
	var containers []any
	switch role {
	case "trainer":
		names := []string{"node"}
		if g.chance(0.04) {
			names = []string{"main"}
		}
		if g.chance(0.3) {
			names = append(names, "sidecar")
		}
		for _, n := range names {
			containers = append(containers, g.container(n, role))
		}
	case "dataset-initializer", "model-initializer":
		n := role
		if g.chance(0.04) {
			n = "init"
		}
		containers = append(containers, g.container(n, role))
	default:
		n := g.pickS("node", "launcher", "worker", "helper")
		containers = append(containers, g.container(n, role))
	}
	pod := map[string]any{"containers": containers}
	if g.chance(0.25) {
		pod["initContainers"] = []any{map[string]any{"name": g.pickS("prep", "flux-installer", "wait"), "image": "busybox"}}
	}
	if g.chance(0.3) {
		pod["volumes"] = []any{map[string]any{"name": g.pickS("initializer", "data", "mpi-ssh-auth"), "emptyDir": map[string]any{}}}
	}
	if g.chance(0.3) {
		pod["restartPolicy"] = g.pickS("Never", "OnFailure")
	}
	if g.chance(0.1) {
		pod["priorityClassName"] = g.pickS("system-cluster-critical", "high")
	}
	job := map[string]any{"template": map[string]any{"spec": pod}}
	if g.chance(0.3) {
		job["parallelism"] = g.pick(0, 1, 2, 4)
	}
	if g.chance(0.2) {
		job["completions"] = g.pick(1, 2, 4)
	}
	if g.chance(0.3) {
		job["backoffLimit"] = g.pick(0, 3, 2147483647)
	}
	if g.chance(0.2) {
		job["podReplacementPolicy"] = "Failed"
	}
	if g.chance(0.25) {
		job["podFailurePolicy"] = g.podFailurePolicy()
		if g.chance(0.8) {
			pod["restartPolicy"] = "Never"
		}
	}
	if g.chance(0.1) {
		job["completionMode"] = g.pickS("Indexed", "NonIndexed")
	}
	tmpl := map[string]any{"spec": job}
	if role != "" || g.chance(0.3) {
		labels := map[string]any{}
		if role != "" {
			labels[ancestorLabel] = role
		}
		if g.chance(0.3) {
			labels["team"] = "ml"
		}
		tmpl["metadata"] = map[string]any{"labels": labels}
	}
	rj := map[string]any{"name": name, "template": tmpl}
	if g.chance(0.3) {
		rj["replicas"] = 1
		if role == "" || g.chance(0.15) {
			rj["replicas"] = g.pick(0, 1, 2)
		}
	}
	if g.chance(0.05) {
		rj["dependsOn"] = []any{map[string]any{"name": "dataset-initializer", "status": "Complete"}}
	}
	return rj
}

func (g gen) mlPolicy(kind string) map[string]any {
	ml := map[string]any{}
	if g.chance(0.6) {
		ml["numNodes"] = g.pick(1, 2, 4)
	}
	switch kind {
	case "torch":
		t := map[string]any{}
		if g.chance(0.2) {
			t["envInjection"] = map[string]any{"targets": []any{map[string]any{
				"jobName": g.pickS("node", "launcher", "missing"), "containerNames": []any{g.pickS("sidecar", "prep", "ghost")},
			}}}
		}
		ml["torch"] = t
	case "mpi":
		m := map[string]any{}
		if g.chance(0.5) {
			m["numProcPerNode"] = g.pick(1, 2, 8)
		}
		if g.chance(0.5) {
			m["runLauncherAsNode"] = g.chance(0.5)
		}
		if g.chance(0.1) {
			m["mpiImplementation"] = g.pickS("OpenMPI", "")
		}
		if g.chance(0.2) {
			m["sshAuthMountPath"] = "/home/mpi/.ssh"
		}
		ml["mpi"] = m
	case "jax", "xgboost":
		ml[kind] = map[string]any{}
	case "flux":
		f := map[string]any{}
		if g.chance(0.3) {
			f["numProcPerNode"] = g.pick(1, 2, 4)
		}
		ml["flux"] = f
	case "two":
		ml["torch"] = map[string]any{}
		ml["jax"] = map[string]any{}
	}
	return ml
}

func (g gen) runtime(ns string) (map[string]any, string) {
	kind := g.pickS("TrainingRuntime", "ClusterTrainingRuntime")
	policy := g.pickS("", "torch", "torch", "torch", "mpi", "mpi", "mpi", "jax", "xgboost", "xgboost", "flux", "flux")
	if g.chance(0.03) {
		policy = "two"
	}
	name := g.pickS("torch-distributed", "mpi-runtime", "custom", "torchtune-llama3.2-1b", "torchtune-qwen2.5-1.5b", "torchtune-llama3.3-70b")
	md := map[string]any{"name": name}
	if kind == "TrainingRuntime" {
		md["namespace"] = ns
	}
	labels := map[string]any{}
	if g.chance(0.05) {
		labels["trainer.kubeflow.org/support"] = "deprecated"
	}
	if g.chance(0.05) {
		labels["trainer.kubeflow.org/webhook-validation"] = "disabled"
	}
	if len(labels) > 0 {
		md["labels"] = labels
	}
	spec := map[string]any{}
	if policy != "" || g.chance(0.3) {
		spec["mlPolicy"] = g.mlPolicy(policy)
	}
	if g.chance(0.15) {
		spec["podGroupPolicy"] = map[string]any{"coscheduling": map[string]any{}}
	} else if g.chance(0.15) {
		v := map[string]any{}
		if g.chance(0.5) {
			v["networkTopology"] = map[string]any{"mode": g.pickS("hard", "soft")}
		}
		spec["podGroupPolicy"] = map[string]any{"volcano": v}
	}
	// The replicated Jobs: the trainer's, and some of launcher, initializers, others.
	var rjs []any
	type slot struct{ name, role string }
	slots := []slot{{"node", "trainer"}}
	if policy == "mpi" || g.chance(0.1) {
		slots = append([]slot{{"launcher", g.pickS("", "", "trainer")}}, slots...)
	}
	if g.chance(0.25) {
		slots = append([]slot{{"dataset-initializer", "dataset-initializer"}}, slots...)
	}
	if g.chance(0.2) {
		slots = append([]slot{{"model-initializer", "model-initializer"}}, slots...)
	}
	if g.chance(0.15) {
		slots = append(slots, slot{"extra", ""})
	}
	if len(slots) > 4 {
		slots = slots[:4]
	}
	if g.chance(0.05) {
		slots[len(slots)-1].role = ""
	}
	for _, s := range slots {
		rjs = append(rjs, g.replicatedJob(s.name, s.role, policy))
	}
	js := map[string]any{"replicatedJobs": rjs}
	if g.chance(0.3) {
		fp := map[string]any{"maxRestarts": g.pick(0, 3, 10)}
		if g.chance(0.3) {
			fp["restartStrategy"] = g.pickS("Recreate", "BlockingRecreate", "InPlaceRestart")
		}
		if g.chance(0.5) {
			fp["rules"] = []any{map[string]any{"name": "rule1", "action": g.pickS("FailJobSet", "RestartJobSet", "RestartJob"),
				"onJobFailureReasons": []any{"PodFailurePolicy"}}}
		}
		js["failurePolicy"] = fp
	}
	if g.chance(0.2) {
		js["successPolicy"] = map[string]any{"operator": "All", "targetReplicatedJobs": []any{"node"}}
	}
	if g.chance(0.1) {
		js["network"] = map[string]any{"subdomain": "sub"}
	}
	if g.chance(0.05) {
		js["suspend"] = true
	}
	tmpl := map[string]any{"spec": js}
	if g.chance(0.3) {
		tmpl["metadata"] = map[string]any{"labels": map[string]any{"runtime": name}, "annotations": map[string]any{"a": "b"}}
	}
	if g.chance(0.05) {
		tmpl["metadata"] = map[string]any{"annotations": map[string]any{"scheduling.volcano.sh/queue-name": g.pickS("", "q1")}}
	}
	spec["template"] = tmpl
	return map[string]any{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": kind, "metadata": md, "spec": spec}, kind
}

func (g gen) podSpecPatch() map[string]any {
	ps := map[string]any{}
	if g.chance(0.3) {
		ps["serviceAccountName"] = "training-sa"
	}
	if g.chance(0.3) {
		ps["nodeSelector"] = map[string]any{"node-type": g.pickS("gpu", "cpu")}
	}
	if g.chance(0.3) {
		ps["tolerations"] = []any{map[string]any{"key": "k", "operator": "Exists", "effect": "NoSchedule"}}
	}
	if g.chance(0.3) {
		ps["volumes"] = []any{map[string]any{"name": g.pickS("data", "cache", "initializer"), "emptyDir": map[string]any{}}}
	}
	if g.chance(0.2) {
		ps["imagePullSecrets"] = []any{map[string]any{"name": "regcred"}}
	}
	if g.chance(0.2) {
		ps["schedulingGates"] = []any{map[string]any{"name": "gate"}}
	}
	if g.chance(0.2) {
		ps["securityContext"] = map[string]any{"runAsNonRoot": true}
	}
	if g.chance(0.2) {
		ps["affinity"] = map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
			"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{map[string]any{"key": "zone", "operator": "In", "values": []any{"a"}}}}}}}}
	}
	if g.chance(0.3) {
		ps["terminationGracePeriodSeconds"] = g.pick(-1, 0, 30, 120)
	}
	if g.chance(0.4) {
		c := map[string]any{"name": g.pickS("node", "sidecar", "ghost", "dataset-initializer")}
		if g.chance(0.4) {
			c["env"] = []any{map[string]any{"name": g.pickS("X", "A"), "value": "p"}}
		}
		if g.chance(0.4) {
			c["volumeMounts"] = []any{map[string]any{"name": "data", "mountPath": g.pickS("/data", "/workspace")}}
		}
		if g.chance(0.3) {
			c["securityContext"] = map[string]any{"privileged": false}
		}
		ps["containers"] = []any{c}
	}
	if g.chance(0.15) {
		ps["initContainers"] = []any{map[string]any{"name": g.pickS("prep", "ghost"), "env": []any{map[string]any{"name": "Y", "value": "1"}}}}
	}
	return ps
}

func (g gen) runtimePatches() []any {
	var out []any
	n := g.r.IntN(3)
	if g.chance(0.02) {
		n = 17
	}
	for i := 0; i < n; i++ {
		p := map[string]any{"manager": g.pickS("example.io/platform", "kueue.x-k8s.io/manager", "noslash", "Bad_Host/x", "a.io/b c")}
		if g.chance(0.1) {
			p["manager"] = "example.io/platform"
		}
		tmpl := map[string]any{}
		if g.chance(0.4) {
			tmpl["metadata"] = map[string]any{"labels": map[string]any{"team": "x"}, "annotations": map[string]any{"note": "y"}}
		}
		if g.chance(0.8) {
			var rjs []any
			for j := 1 + g.r.IntN(2); j > 0; j-- {
				rj := map[string]any{"name": g.pickS("node", "node", "launcher", "dataset-initializer", "ghost")}
				jt := map[string]any{}
				if g.chance(0.3) {
					jt["metadata"] = map[string]any{"labels": map[string]any{"patched": "yes"}}
				}
				pt := map[string]any{}
				if g.chance(0.2) {
					pt["metadata"] = map[string]any{"annotations": map[string]any{"pod": "yes"}}
				}
				pt["spec"] = g.podSpecPatch()
				jt["spec"] = map[string]any{"template": pt}
				rj["template"] = jt
				rjs = append(rjs, rj)
			}
			tmpl["spec"] = map[string]any{"replicatedJobs": rjs}
		}
		p["trainingRuntimeSpec"] = map[string]any{"template": tmpl}
		out = append(out, p)
	}
	return out
}

func (g gen) trainJob(rtName, rtKind, ns string, policy map[string]any) map[string]any {
	name := g.pickS("tj", "train-job", "llm-7b")
	if g.chance(0.03) {
		name = g.pickS("1bad", "a.b", "x-")
	}
	md := map[string]any{"name": name, "namespace": ns}
	if g.chance(0.3) {
		md["uid"] = "0a1b2c3d-0000-4000-8000-000000000001"
	}
	ref := map[string]any{"name": rtName}
	switch {
	case g.chance(0.05):
		ref["kind"] = g.pickS("TrainingRuntime", "ClusterTrainingRuntime", "Foo")
	case rtKind == "TrainingRuntime" || g.chance(0.3):
		ref["kind"] = rtKind
	}
	if g.chance(0.2) {
		ref["apiGroup"] = "trainer.kubeflow.org"
	}
	if g.chance(0.02) {
		ref["name"] = "missing"
	}
	spec := map[string]any{"runtimeRef": ref}
	if g.chance(0.9) {
		t := map[string]any{}
		if g.chance(0.8) {
			n := 1 + g.r.IntN(64)
			if g.chance(0.5) {
				n = 1 + g.r.IntN(4)
			}
			if g.chance(0.02) {
				n = g.r.IntN(2) - 1
			}
			t["numNodes"] = n
		}
		if g.chance(0.4) {
			t["image"] = "custom:1"
		}
		if g.chance(0.5) {
			switch g.r.IntN(4) {
			case 0:
				t["command"] = []any{"tune", "run"}
			case 1:
				t["command"] = []any{}
			default:
				t["command"] = []any{"torchrun", "train.py"}
			}
		}
		if g.chance(0.4) {
			switch g.r.IntN(4) {
			case 0:
				t["args"] = []any{"model.lora_attn_modules=[q_proj]", "epochs=1"}
			case 1:
				t["args"] = []any{"model.quantize_base=True"}
			case 2:
				t["args"] = []any{"output_dir=/mine"}
			default:
				t["args"] = []any{"--epochs", "3"}
			}
		}
		if g.chance(0.5) {
			t["env"] = g.env("HF_TOKEN", "A", "PET_NNODES", "DMLC_TASK_ID", "OMPI_MCA_plm_rsh_args", "FLUX_VIEW_IMAGE", "FLUX_NETWORK_DEVICE")
		}
		if g.chance(0.4) {
			t["resourcesPerNode"] = g.resources()
		}
		if g.chance(0.3) {
			t["numProcPerNode"] = g.pick(0, 1, 2, 4)
		}
		spec["trainer"] = t
	}
	if g.chance(0.25) {
		init := map[string]any{}
		for _, k := range []string{"dataset", "model"} {
			if !g.chance(0.6) {
				continue
			}
			a := map[string]any{}
			if g.chance(0.8) {
				a["storageUri"] = g.pickS("hf://org/data", "s3://bucket/x", "", "not a uri")
			}
			if g.chance(0.3) {
				a["env"] = []any{map[string]any{"name": "TOKEN", "value": "x"}}
			}
			if g.chance(0.3) {
				a["secretRef"] = map[string]any{"name": "hf-secret"}
			}
			init[k] = a
		}
		spec["initializer"] = init
	}
	if g.chance(0.35) {
		if ps := g.runtimePatches(); len(ps) > 0 {
			spec["runtimePatches"] = ps
		}
	}
	if g.chance(0.3) {
		spec["suspend"] = g.chance(0.3)
	}
	if g.chance(0.1) {
		spec["activeDeadlineSeconds"] = g.pick(0, 60, 3600)
	}
	if g.chance(0.06) {
		spec["managedBy"] = g.pickS("kueue.x-k8s.io/multikueue", "trainer.kubeflow.org/trainjob-controller", "me")
	}
	return map[string]any{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": md, "spec": spec}
}

// pair: one case.
func (g gen) pair() (rt, tj map[string]any) {
	ns := g.pickS("default", "ml")
	rt, kind := g.runtime(ns)
	name := rt["metadata"].(map[string]any)["name"].(string)
	var policy map[string]any
	if spec, ok := rt["spec"].(map[string]any); ok {
		policy, _ = spec["mlPolicy"].(map[string]any)
	}
	tj = g.trainJob(name, kind, ns, policy)
	return rt, tj
}
