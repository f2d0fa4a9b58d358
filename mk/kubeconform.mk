# restartkit against kubeconform (issue 30, item 5; docs/kubeconform.md): kubeconform pinned and
# `go install`ed into ~/.cache/restartkit/tools, its JSON Schemas generated offline from the pinned
# k8s.io/kubernetes swagger.json, corpora generated into ~/.cache/restartkit/bench-corpora.
#   make bench-kubeconform         the full numbers (minutes; the 1 GB files need ~10 min of
#                                  kubeconform each: KC_BENCH_FLAGS='--kubeconform-max-mb 64' skips that)
#   make bench-kubeconform-quick   small corpora and the accuracy table (under a minute)
#   make test-kubeconform-harness  the harness's own tests (in make test)
KC_BENCH := RESTARTKIT_BIN=$(RK_RELEASE) python3 tools/bench_kubeconform.py
KC_BENCH_FLAGS ?=

FRONTEND_TESTS += test-kubeconform-harness

.PHONY: bench-kubeconform bench-kubeconform-quick test-kubeconform-harness

$(RK_RELEASE):
	$(CARGO) build --locked --release -p restartkit-cli

bench-kubeconform: $(RK_RELEASE)
	$(KC_BENCH) $(KC_BENCH_FLAGS)

bench-kubeconform-quick: $(RK_RELEASE)
	$(KC_BENCH) --quick $(KC_BENCH_FLAGS)

test-kubeconform-harness:
	python3 tools/test_kubeconform_harness.py
