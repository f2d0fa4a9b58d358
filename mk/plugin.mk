# The WebAssembly policy module (plugin/), its wasmtime host (host/) and its Go host (host/go/).
#   make plugin        build the guest (release, wasm32-unknown-unknown), the host (debug) and the
#                      `restartkit` CLI with its `plugin` feature (`conformance --via plugin`)
#   make test-plugin   Rust host tests + Go host tests (vectors, limits, flat memory)
#   make bench-plugin  criterion (release wasmtime) and Go benchmarks
CARGO_TARGET_DIR ?= $(HOME)/.cache/restartkit/target
export CARGO_TARGET_DIR

PLUGIN_WASM := $(CARGO_TARGET_DIR)/wasm32-unknown-unknown/release/restartkit_plugin.wasm
PLUGIN_HOST_BIN := $(CARGO_TARGET_DIR)/debug/restartkit-host
PLUGIN_GO_ENV = RESTARTKIT_PLUGIN=$(PLUGIN_WASM) RESTARTKIT_HOST_BIN=$(PLUGIN_HOST_BIN)

.PHONY: plugin plugin-setup plugin-wasm test-plugin bench-plugin

# make test runs the plugin's tests: both hosts must pass every vector.
FRONTEND_TESTS += test-plugin

plugin-setup:
	@rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
	@command -v go >/dev/null || { echo "go is required for host/go (see host/README.md)"; exit 1; }
	cd host/go && go mod download

# The guest's profile: the release profile with fat LTO, one codegen unit, panic=abort (the only
# strategy of wasm32-unknown-unknown anyway) and symbols stripped, given here with --config so the
# module stays at the path above and no other build changes. opt-level stays 3: "s" and "z" cut
# the module to 2.4 / 2.1 MB but slow the JSON path by 20-60 % in wazero (host/README.md,
# "Numbers"), while the one figure the size drives (wazero's first load in a process) is tens of
# milliseconds either way; fast-decode (the plugin's default feature) stays on for the same reason.
PLUGIN_PROFILE := --config 'profile.release.lto="fat"' --config 'profile.release.codegen-units=1' \
  --config 'profile.release.panic="abort"' --config 'profile.release.strip=true'

plugin-wasm: plugin-setup
	cargo build --locked --release $(PLUGIN_PROFILE) --target wasm32-unknown-unknown -p restartkit-plugin

plugin: plugin-wasm
	cargo build --locked -p restartkit-host
	cargo build --locked -p restartkit-cli --features plugin

test-plugin: plugin
	cargo clippy --locked --target wasm32-unknown-unknown -p restartkit-plugin --no-deps -- -D warnings
	cargo clippy --locked -p restartkit-host --all-targets --no-deps -- -D warnings
	cargo clippy --locked -p restartkit-cli --features plugin --all-targets --no-deps -- -D warnings
	RESTARTKIT_PLUGIN=$(PLUGIN_WASM) cargo test --locked -p restartkit-host
	RESTARTKIT_PLUGIN=$(PLUGIN_WASM) cargo test --locked -p restartkit-cli --features plugin --test cli conformance_via
	@# Every vector through the plugin, in wasmtime (the CLI's --via plugin and the host's own
	@# runner) and in wazero (TestVectors): 0 failed in each, or the target fails.
	$(CARGO_TARGET_DIR)/debug/restartkit conformance --via plugin conformance/vectors/*.json
	$(PLUGIN_HOST_BIN) conformance --plugin $(PLUGIN_WASM) conformance/vectors/*.json
	cd host/go && go vet ./... && $(PLUGIN_GO_ENV) go test -count=1 ./...

bench-plugin: plugin-wasm
	RESTARTKIT_PLUGIN=$(PLUGIN_WASM) cargo bench --locked -p restartkit-host
	cd host/go && $(PLUGIN_GO_ENV) go test -run '^$$' -bench . -benchtime 2s ./...
