# restartkit — every build and test goes through here. CARGO_TARGET_DIR from the environment is
# honoured; the default keeps build caches outside the clone.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/restartkit/target
export CARGO_TERM_COLOR ?= never
CARGO ?= cargo
RK := $(CARGO_TARGET_DIR)/debug/restartkit
RK_RELEASE := $(CARGO_TARGET_DIR)/release/restartkit
VECTORS := $(wildcard conformance/vectors/*.json)

# Front ends add their test targets to this list from mk/*.mk.
FRONTEND_TESTS :=
.DEFAULT_GOAL := all
-include mk/*.mk

.PHONY: all build demo test test-rust test-cli lint bench help
all: build

help:
	@echo "make demo   - build the CLI and run validate, evaluate and backoff on examples/"
	@echo "make test   - every test (Rust, CLI, conformance, real-world corpus, front ends)"
	@echo "make build  - build the workspace"
	@echo "make bench  - criterion benchmarks"

build:
	$(CARGO) build --locked

$(RK): build

demo: build
	@echo "== restartkit validate examples/*.yaml"
	-$(RK) validate examples/*.yaml
	@echo
	@echo "== what if the trainer exits 42? (restart in place)"
	$(RK) evaluate examples/training-jobset.yaml --container trainer --exit-code 42
	@echo
	@echo "== what if the trainer exits 2? (user bug: the Job and the JobSet fail)"
	$(RK) evaluate examples/training-jobset.yaml --container trainer --exit-code 2
	@echo
	@echo "== what if the trainer exits 137? (counted failure; the JobSet restarts)"
	$(RK) evaluate examples/training-jobset.yaml --container trainer --exit-code 137
	@echo
	@echo "== the keystone Pod: main exits 0"
	$(RK) evaluate examples/pod-sidecar-keystone.yaml --container main --exit-code 0
	@echo
	@echo "== CrashLoopBackOff on Kubernetes 1.33 defaults, then on a node capped at 30s"
	$(RK) backoff -k 1.33 --restarts 8
	$(RK) backoff --kubelet-config examples/kubelet-config.yaml --restarts 8
	@echo
	@echo "== KEP-4603 curves side by side (chart: $(CARGO_TARGET_DIR)/backoff-compare.svg)"
	$(RK) backoff --compare --kubelet-config examples/kubelet-config.yaml --svg $(CARGO_TARGET_DIR)/backoff-compare.svg
	@echo
	@echo "== simulate a day of a training JobSet: in-place restarts vs rescheduling"
	$(RK) simulate examples/scenarios/training-in-place.yaml --compare examples/scenarios/training-reschedule.yaml
	@echo
	@echo "== EXPERIMENTAL (docs/proposals.md): KEP-4603's Rapid curve beside upstream's, with the KEP's load figures"
	$(RK) backoff --compare --proposal Rapid --proposal FrontLoadedCatchUp --svg $(CARGO_TARGET_DIR)/backoff-proposals.svg
	@echo
	@echo "== EXPERIMENTAL: Pod restartPolicy AlwaysPod (sandbox recreated) vs upstream's RestartAllContainers rule"
	$(RK) simulate examples/scenarios/alwayspod-recreate.yaml --compare examples/scenarios/restart-all-containers.yaml
	@echo
	@echo "== EXPERIMENTAL: KEP-5307's four-container example under its future rule shapes (Complete, TerminatePod)"
	$(RK) simulate examples/proposals/kep-5307-scenario.yaml

lint:
	$(CARGO) clippy --locked --all-targets -- -D warnings

test-rust:
	$(CARGO) test --locked

# The CLI binary against every vector and the real-world corpus.
test-cli: build
	$(RK) conformance $(VECTORS)

test: lint test-rust test-cli $(FRONTEND_TESTS)
	@echo "make test: all green"

bench:
	$(CARGO) bench --locked -p restartkit

