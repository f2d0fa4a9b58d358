# Fuzzing (fuzz/: cargo-fuzz on nightly, libFuzzer; see fuzz/README.md).
#   make fuzz         every target for FUZZ_SECONDS (default 600) each, one after the other, one job
#                     each; logs and the working corpus in $(FUZZ_WORK)
#   make fuzz-build   build the four targets
#   make fuzz-seeds   rewrite the committed seed corpus fuzz/corpus/ from vectors and examples
# `make test` does not need nightly: core/tests/fuzz_corpus.rs and host/tests/bad_input.rs replay
# the seed corpus and every past finding (fuzz/regressions/) through the same harness on stable.
FUZZ_SECONDS ?= 600
FUZZ_TARGET_DIR ?= $(HOME)/.cache/restartkit/target-fuzz-nightly
FUZZ_WORK ?= $(HOME)/.cache/restartkit/fuzz
CARGO_FUZZ_VERSION := 0.13.2

.PHONY: fuzz fuzz-build fuzz-setup fuzz-seeds

fuzz-setup:
	@rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
	@[ "$$(cargo fuzz --version 2>/dev/null | awk '{print $$2}')" = "$(CARGO_FUZZ_VERSION)" ] || cargo install cargo-fuzz --version $(CARGO_FUZZ_VERSION)

fuzz-build: fuzz-setup plugin-wasm
	cd fuzz && CARGO_TARGET_DIR=$(FUZZ_TARGET_DIR) cargo +nightly fuzz build -O -s none

fuzz: fuzz-build
	RESTARTKIT_PLUGIN=$(PLUGIN_WASM) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_WORK=$(FUZZ_WORK) \
	  FUZZ_TARGET_DIR=$(FUZZ_TARGET_DIR) fuzz/campaign.sh $(FUZZ_TARGETS)

fuzz-seeds:
	python3 fuzz/make_seeds.py
