# Differential oracle: restartkit against the upstream Go code (conformance/oracle/, docs/oracle.md).
#   make oracle N=<cases per op> [SEED=1]   long run on the release CLI, with the speed comparison per stage
#   make test-oracle                        smoke run (ORACLE_SMOKE_N cases per op, debug CLI), part of make test
#   make oracle-bump K8S=1.37.3             pin another Kubernetes release (go.mod is the one place
#                                           the upstream versions are written), then re-run
#   make oracle-bump-jobset JOBSET=0.13.0   pin another sigs.k8s.io/jobset release
#   (OpenKruise: conformance/oracle/kruise/go.mod, its own module; see docs/oracle.md)
ORACLE_DIR := $(CURDIR)/conformance/oracle
ORACLE_BIN := $(CARGO_TARGET_DIR)/oracle/oracle
# OpenKruise's answers come from a helper in its own Go module (its Kubernetes pins differ).
KRUISE_BIN := $(CARGO_TARGET_DIR)/oracle/kruise-upstream
ORACLE_SMOKE_N ?= 2000
N ?= 20000
# The timeline leg (real Job controller vs restartkit simulate): generated Job scenarios.
TIMELINE_SMOKE_N ?= 1000
TIMELINE_N ?= 20000
# ... and generated JobSet scenarios (real JobSet + Job controllers; about 0.1-0.2 s each upstream).
TIMELINE_JOBSET_SMOKE_N ?= 200
TIMELINE_JOBSET_N ?= 5000
SEED ?= 1
# matchPodFailurePolicy is unexported: the oracle pulls it with go:linkname, which the linker
# refuses unless its check is off.
ORACLE_GOFLAGS := -ldflags=-checklinkname=0

FRONTEND_TESTS += test-oracle

.PHONY: oracle test-oracle oracle-bin oracle-bump oracle-bump-jobset

oracle-bin:
	@command -v go >/dev/null || { echo "go is required for conformance/oracle (see docs/oracle.md)"; exit 1; }
	cd $(ORACLE_DIR) && go vet $(ORACLE_GOFLAGS) . && go build $(ORACLE_GOFLAGS) -o $(ORACLE_BIN) .
	cd $(ORACLE_DIR)/kruise && go vet . && go build -o $(KRUISE_BIN) .

test-oracle: build oracle-bin
	$(ORACLE_BIN) -n $(ORACLE_SMOKE_N) -seed $(SEED) -timing=false -restartkit $(RK) -kruise $(KRUISE_BIN) -timeline-n $(TIMELINE_SMOKE_N) -timeline-jobset-n $(TIMELINE_JOBSET_SMOKE_N)

oracle: oracle-bin
	$(CARGO) build --locked --release -p restartkit-cli
	$(ORACLE_BIN) -n $(N) -seed $(SEED) -restartkit $(RK_RELEASE) -kruise $(KRUISE_BIN) -out $(CARGO_TARGET_DIR)/oracle/disagreements.jsonl -timeline-n $(TIMELINE_N) -timeline-jobset-n $(TIMELINE_JOBSET_N) -timeline-out $(CARGO_TARGET_DIR)/oracle/timeline-disagreements.jsonl

# Moves k8s.io/kubernetes to v$(K8S) and every staging module it requires at v0.0.0 to the
# matching v0.x.y, as its own go.mod replaces them with ./staging.
oracle-bump:
	@test -n "$(K8S)" || { echo "usage: make oracle-bump K8S=1.37.2"; exit 1; }
	cd $(ORACLE_DIR) && go mod edit -require=k8s.io/kubernetes@v$(K8S) && \
	  staging=$$(go mod download -json k8s.io/kubernetes@v$(K8S) | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p') && \
	  for m in $$(awk '$$2 == "v0.0.0" && $$1 ~ /^k8s.io\// {print $$1}' $$staging); do \
	    go mod edit -replace=$$m=$$m@v0.$$(echo $(K8S) | cut -d. -f2-); done && \
	  GOFLAGS=-mod=mod go mod tidy
	@echo "now: make oracle N=20000 (and update docs/oracle.md with the counts)"

# Moves sigs.k8s.io/jobset to v$(JOBSET) (the proxy serves tags, not commit hashes).
oracle-bump-jobset:
	@test -n "$(JOBSET)" || { echo "usage: make oracle-bump-jobset JOBSET=0.12.0"; exit 1; }
	cd $(ORACLE_DIR) && GOFLAGS=-mod=mod go get sigs.k8s.io/jobset@v$(JOBSET) && GOFLAGS=-mod=mod go mod tidy
	@echo "now: make oracle N=20000 (and update docs/oracle.md, JobSet)"

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

test-oracle-trainer: build trainer-oracle-bin
	$(TRAINER_ORACLE_BIN) -n $(TRAINER_SMOKE_N) -seed $(SEED) -restartkit $(RK) -crds "$(TRAINER_CRDS)" -published conformance/realworld

oracle-trainer: trainer-oracle-bin
	$(CARGO) build --locked --release -p restartkit-cli
	$(TRAINER_ORACLE_BIN) -n $(TRAINER_N) -seed $(SEED) -restartkit $(RK_RELEASE) -crds "$(TRAINER_CRDS)" -published conformance/realworld -out $(CARGO_TARGET_DIR)/oracle/trainer-disagreements.jsonl

oracle: oracle-trainer
