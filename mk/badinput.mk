# The bad-input corpus (conformance/bad-input/, see its README.md) through every front end.
# `make test` already runs each runner inside its front end's own target (test-rust: CLI and the
# stable fuzz-corpus replay; test-plugin: wasmtime and Go hosts; test-python; test-node;
# test-wasm); this target runs just the corpus, for working on it.
#   make test-bad-input
.PHONY: test-bad-input

test-bad-input: build plugin python node wasm
	cargo test --locked -p restartkit-cli --test bad_input
	cargo test --locked -p restartkit --test fuzz_corpus
	RESTARTKIT_PLUGIN=$(PLUGIN_WASM) cargo test --locked -p restartkit-host --test bad_input
	cd host/go && $(PLUGIN_GO_ENV) go test -count=1 -run TestBadInputCorpus .
	$(PY_BIN)/python -m pytest -q -p no:cacheprovider python/tests/test_bad_input.py
	cd node && node --test test/bad-input.test.mjs
	cd wasm && node --test test/bad-input.test.mjs
