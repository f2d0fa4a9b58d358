# Node package (node/): @restartkit/node, napi-rs v3, linux-x64-gnu.
#   make node       npm install, napi build (release), loader + binding.d.ts, contract.d.ts, tsc --noEmit
#   make test-node  Rust unit tests, tsc --noEmit, node --test (every vector, errors, async)
CARGO_TARGET_DIR ?= $(HOME)/.cache/restartkit/target
export CARGO_TARGET_DIR

NODE_DIR := $(CURDIR)/node

FRONTEND_TESTS += test-node

.PHONY: node test-node bench-node

# `npm ci` rejects the lock npm writes here (optional per-platform packages of @napi-rs/cli's
# dependencies are missing from it): `npm install` keeps the lock as it is.
$(NODE_DIR)/node_modules/.package-lock.json: $(NODE_DIR)/package.json
	cd $(NODE_DIR) && npm install --no-audit --no-fund
	touch $@

node: $(NODE_DIR)/node_modules/.package-lock.json
	cd $(NODE_DIR) && npx napi build --platform --release --js binding.js --dts binding.d.ts
	cd $(NODE_DIR) && node scripts/gen-types.mjs
	cd $(NODE_DIR) && npx tsc --noEmit -p tsconfig.json

test-node: node
	cargo test -q -p restartkit-node
	cd $(NODE_DIR) && node --test test/

# Per-call cost: the Rust core (criterion, core/benches/frontends.rs) vs @restartkit/node vs
# restartkit-wasm on the same calls, with ratios (node/bench/compare.mjs); then the native
# package's own figures (bench.mjs). Not part of `make test`. BENCH_RUST=0 skips the Rust run.
BENCH_RUST ?= 1
bench-node: node wasm
	@if [ "$(BENCH_RUST)" = 1 ]; then nice -n 10 cargo bench -p restartkit --bench frontends -- --noplot; fi
	node $(NODE_DIR)/bench/compare.mjs --criterion $(CARGO_TARGET_DIR)/criterion
	node $(NODE_DIR)/bench/bench.mjs
