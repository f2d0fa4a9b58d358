# Differential oracle: restartkit against the upstream Go code (conformance/oracle/, docs/oracle.md).
# One source tree, built once per supported Kubernetes minor against that release's own module
# graph (conformance/oracle/versions/go.1.<minor>.mod; build tags k8s_before_1_<n> select the few
# files where the upstream API differs between minors).
#   make oracle [K8S=1.34] [N=20000] [SEED=1]   long run on the release CLI, every leg (the Pod timeline
#                                              and explain legs too: TIMELINE_POD_N, EXPLAIN_{POD,JOB,JOBSET}_N), one minor or
#                                              all of them (the default), with the speed comparison
#   make test-oracle                           smoke run on the oldest and the newest minor (part of make test)
#   make oracle-pin K8S=1.37.3                 pin a minor to another release (writes its modfile), then
#                                              regenerate the per-minor tables (make gen-k8s) and re-run
#   make gen-k8s                               core/src/generated/ from the pinned releases (tools/gen_k8s_versions.py)
#   (sigs.k8s.io/jobset: conformance/oracle/jobset/go.mod, OpenKruise: conformance/oracle/kruise/go.mod,
#    each its own module at its release's pins; see docs/oracle.md)
ORACLE_DIR := $(CURDIR)/conformance/oracle
ORACLE_MINORS := 1.31 1.32 1.33 1.34 1.35 1.36 1.37
ORACLE_OLDEST := $(firstword $(ORACLE_MINORS))
ORACLE_NEWEST := $(lastword $(ORACLE_MINORS))
ORACLE_OUT := $(CARGO_TARGET_DIR)/oracle
# The helpers: OpenKruise's and sigs.k8s.io/jobset's own code, each a module of its own.
KRUISE_BIN := $(ORACLE_OUT)/kruise-upstream
JOBSET_BIN := $(ORACLE_OUT)/jobset-upstream
ORACLE_SMOKE_N ?= 2000
N ?= 20000
# The timeline leg (real Job controller vs restartkit simulate): generated Job scenarios.
TIMELINE_SMOKE_N ?= 1000
TIMELINE_N ?= 2000
# ... and generated JobSet scenarios (real JobSet + Job controllers; about 0.1-0.3 s each upstream;
# about 64 % lose a node, played through the real node chain as the node-loss scenarios are).
TIMELINE_JOBSET_SMOKE_N ?= 200
TIMELINE_JOBSET_N ?= 2000
# The Pod timeline leg (the real kubelet runtime manager over the fake CRI vs restartkit simulate):
# generated bare-Pod scenarios (about 15 ms each upstream; docs/oracle.md, "Pod timeline: the
# real kubelet").
TIMELINE_POD_SMOKE_N ?= 1000
TIMELINE_POD_N ?= 2000
# The explain leg, Pod family (issue 41): those Pod scenarios on the real kubelet, snapshotted at
# random instants; `restartkit explain` on each snapshot against what the kubelet then does
# (about 3 snapshots a scenario, 1-5 ms each upstream; docs/oracle.md, "Explain: live Pods, Jobs and JobSets").
EXPLAIN_POD_SMOKE_N ?= 1000
EXPLAIN_POD_N ?= 5000
# ... and its Job family: the Job timeline scenarios on the real Job controller, snapshotted the
# same way (about 15 ms a snapshot upstream; docs/oracle.md, "Explain: live Pods, Jobs and JobSets").
EXPLAIN_JOB_SMOKE_N ?= 500
EXPLAIN_JOB_N ?= 5000
# ... and its JobSet family: the JobSet timeline scenarios on the real JobSet and Job
# controllers (about 140 ms a snapshot upstream; docs/oracle.md, "Explain: live Pods, Jobs and JobSets").
EXPLAIN_JOBSET_SMOKE_N ?= 100
EXPLAIN_JOBSET_N ?= 5000
# ... and generated node-loss Job scenarios (real node lifecycle, taint eviction and Pod GC
# controllers; about 0.1 s each upstream).
TIMELINE_NODELOSS_SMOKE_N ?= 200
TIMELINE_NODELOSS_N ?= 500
SEED ?= 1
K8S ?= all
# matchPodFailurePolicy and the controllers' constructors are unexported: the oracle pulls them
# with go:linkname, which the linker refuses unless its check is off.
ORACLE_GOFLAGS := -ldflags=-checklinkname=0

FRONTEND_TESTS += test-oracle

# oracle_minor: "1.34.4", "v1.34" or "1.34" -> "34"; oracle_tags: the k8s_before_1_<n> tags of a minor.
oracle_minor = $(word 2,$(subst ., ,$(patsubst v%,%,$(1))))
oracle_tags = $(subst $(eval) ,$(comma),$(foreach n,$(shell seq $$(( $(1) + 1 )) $(call oracle_minor,$(ORACLE_NEWEST))),k8s_before_1_$(n)))
comma := ,
oracle_bin = $(ORACLE_OUT)/oracle-1.$(1)
oracle_selected = $(if $(filter all,$(K8S)),$(ORACLE_MINORS),1.$(call oracle_minor,$(K8S)))

.PHONY: oracle test-oracle oracle-helpers oracle-pin gen-k8s oracle-minor-vectors oracle-go $(addprefix oracle-bin-,$(ORACLE_MINORS))

oracle-go:
	@command -v go >/dev/null || { echo "go is required for conformance/oracle (see docs/oracle.md)"; exit 1; }

oracle-helpers: oracle-go
	cd $(ORACLE_DIR)/kruise && go vet . && go build -o $(KRUISE_BIN) .
	cd $(ORACLE_DIR)/jobset && go vet $(ORACLE_GOFLAGS) . && go build $(ORACLE_GOFLAGS) -o $(JOBSET_BIN) .

# oracle-bin-1.34: the oracle linked against Kubernetes 1.34's release.
$(addprefix oracle-bin-,$(ORACLE_MINORS)): oracle-bin-%: oracle-go
	@m=$(call oracle_minor,$*); test -f $(ORACLE_DIR)/versions/go.1.$$m.mod || { echo "no conformance/oracle/versions/go.1.$$m.mod: supported minors are $(ORACLE_MINORS)"; exit 2; }
	cd $(ORACLE_DIR) && go vet -modfile=versions/go.$*.mod -tags '$(call oracle_tags,$(call oracle_minor,$*))' $(ORACLE_GOFLAGS) . && \
	  go build -modfile=versions/go.$*.mod -tags '$(call oracle_tags,$(call oracle_minor,$*))' $(ORACLE_GOFLAGS) -o $(call oracle_bin,$(call oracle_minor,$*)) .

# The two minors' smokes run side by side (each keeps about one core busy: the upstream side is
# one goroutine, restartkit one process at a time), on the release CLI that ships (dist-cli-bin).
ORACLE_SMOKE_RK = $(DIST_CLI_BIN)
test-oracle: dist-cli-bin oracle-helpers oracle-bin-$(ORACLE_OLDEST) oracle-bin-$(ORACLE_NEWEST)
	@for m in $(ORACLE_OLDEST) $(ORACLE_NEWEST); do \
	  { $(ORACLE_OUT)/oracle-$$m -n $(ORACLE_SMOKE_N) -seed $(SEED) -timing=false -restartkit $(ORACLE_SMOKE_RK) -kruise $(KRUISE_BIN) -jobset $(JOBSET_BIN) \
	      -timeline-n $(TIMELINE_SMOKE_N) -timeline-jobset-n $(TIMELINE_JOBSET_SMOKE_N) -timeline-nodeloss-n $(TIMELINE_NODELOSS_SMOKE_N) \
	      -timeline-pod-n $(TIMELINE_POD_SMOKE_N) -explain-pod-n $(EXPLAIN_POD_SMOKE_N) -explain-job-n $(EXPLAIN_JOB_SMOKE_N) -explain-jobset-n $(EXPLAIN_JOBSET_SMOKE_N) > $(ORACLE_OUT)/smoke-$$m.log 2>&1; echo $$? > $(ORACLE_OUT)/smoke-$$m.rc; } & \
	done; wait; \
	fail=0; for m in $(ORACLE_OLDEST) $(ORACLE_NEWEST); do \
	  echo "== oracle smoke, Kubernetes $$m"; cat $(ORACLE_OUT)/smoke-$$m.log; \
	  [ "$$(cat $(ORACLE_OUT)/smoke-$$m.rc)" = 0 ] || { echo "oracle smoke, Kubernetes $$m: failed"; fail=1; }; \
	done; exit $$fail

oracle: oracle-helpers $(addprefix oracle-bin-,$(oracle_selected))
	$(CARGO) build --locked --release -p restartkit-cli
	@fail=0; for m in $(oracle_selected); do \
	  echo "== oracle, Kubernetes $$m"; \
	  $(ORACLE_OUT)/oracle-$$m -n $(N) -seed $(SEED) -restartkit $(RK_RELEASE) -kruise $(KRUISE_BIN) -jobset $(JOBSET_BIN) \
	    -out $(ORACLE_OUT)/disagreements-$$m.jsonl -timeline-n $(TIMELINE_N) -timeline-jobset-n $(TIMELINE_JOBSET_N) -timeline-nodeloss-n $(TIMELINE_NODELOSS_N) \
	    -timeline-out $(ORACLE_OUT)/timeline-disagreements-$$m.jsonl \
	    -timeline-pod-n $(TIMELINE_POD_N) -timeline-pod-out $(ORACLE_OUT)/pod-timeline-disagreements-$$m.jsonl \
	    -explain-pod-n $(EXPLAIN_POD_N) -explain-pod-out $(ORACLE_OUT)/explain-pod-disagreements-$$m.jsonl \
	    -explain-job-n $(EXPLAIN_JOB_N) -explain-job-out $(ORACLE_OUT)/explain-job-disagreements-$$m.jsonl \
	    -explain-jobset-n $(EXPLAIN_JOBSET_N) -explain-jobset-out $(ORACLE_OUT)/explain-jobset-disagreements-$$m.jsonl || fail=1; \
	done; exit $$fail

# Pins one minor to a release: versions/go.1.<minor>.mod requires k8s.io/kubernetes@v$(K8S) with
# every staging module at the matching v0.x.y and every other dependency at the release's own pin.
oracle-pin: oracle-go
	@test -n "$(K8S)" || { echo "usage: make oracle-pin K8S=1.37.3"; exit 1; }
	$(ORACLE_DIR)/versions/pin.sh $(patsubst v%,%,$(K8S))
	@echo "now: make gen-k8s && make oracle K8S=$(K8S) (and update docs/oracle.md with the counts)"

gen-k8s: oracle-go
	python3 tools/gen_k8s_versions.py

# conformance/vectors/minors.json: the hand-written inputs of conformance/oracle/testdata/
# minors-inputs.jsonl, each with the expectation every minor's own code gives it.
oracle-minor-vectors: $(addprefix oracle-bin-,$(ORACLE_MINORS))
	@for m in $(ORACLE_MINORS); do $(ORACLE_OUT)/oracle-$$m -expect $(ORACLE_DIR)/testdata/minors-inputs.jsonl || exit 1; done \
	  | python3 -c 'import json,sys; vs=[json.loads(l) for l in sys.stdin]; [v.update(id=v["id"]+"@"+v["input"]["kubernetesVersion"]) for v in vs]; print(json.dumps(vs, indent=1, ensure_ascii=False))' \
	  > conformance/vectors/minors.json
	@echo "conformance/vectors/minors.json: $$(grep -c '"id"' conformance/vectors/minors.json) vectors"

# Kubeflow Trainer leg (conformance/oracle/trainer, docs/oracle.md "Kubeflow Trainer"): its own Go
# module at the trainer's pins (github.com/kubeflow/trainer/v2 v2.3.0 builds against k8s.io v0.36,
# not the v0.37 above). Generated TrainJob/runtime pairs, and the trainer's published ones in
# conformance/realworld (-published): the trainer's CRD admission, webhooks and runtime/core
# NewObjects against restartkit's validate and resolve.
#   make oracle-trainer TRAINER_N=20000   (part of make oracle)
TRAINER_ORACLE_DIR := $(ORACLE_DIR)/trainer
TRAINER_ORACLE_BIN := $(CARGO_TARGET_DIR)/oracle/trainer-oracle
TRAINER_SMOKE_N ?= 1000
TRAINER_N ?= 20000
# The CRDs the trainer release publishes, from the module the leg is built with.
TRAINER_CRDS = $$(cd $(TRAINER_ORACLE_DIR) && go list -m -f '{{.Dir}}' github.com/kubeflow/trainer/v2)/manifests/base/crds

FRONTEND_TESTS += test-oracle-trainer

.PHONY: trainer-oracle-bin test-oracle-trainer oracle-trainer

trainer-oracle-bin:
	@command -v go >/dev/null || { echo "go is required for conformance/oracle/trainer (see docs/oracle.md)"; exit 1; }
	cd $(TRAINER_ORACLE_DIR) && go vet . && go build -o $(TRAINER_ORACLE_BIN) .

test-oracle-trainer: dist-cli-bin trainer-oracle-bin
	$(TRAINER_ORACLE_BIN) -n $(TRAINER_SMOKE_N) -seed $(SEED) -restartkit $(ORACLE_SMOKE_RK) -crds "$(TRAINER_CRDS)" -published conformance/realworld

oracle-trainer: trainer-oracle-bin
	$(CARGO) build --locked --release -p restartkit-cli
	$(TRAINER_ORACLE_BIN) -n $(TRAINER_N) -seed $(SEED) -restartkit $(RK_RELEASE) -crds "$(TRAINER_CRDS)" -published conformance/realworld -out $(CARGO_TARGET_DIR)/oracle/trainer-disagreements.jsonl

# The trainer leg runs with the whole oracle (K8S=all), not with one minor's.
ifeq ($(K8S),all)
oracle: oracle-trainer
endif
