# restartkit-wasm: the npm package (wasm/pkg) built with cargo + wasm-bindgen-cli + wasm-opt (npm binaryen)
# + wasm-split (Debian's binaryen).
#   make wasm        build wasm/pkg (installs the Rust target, the pinned wasm-bindgen CLI, npm tools)
#   make test-wasm   node --test suites (entry points, API, errors, vectors, tsc --noEmit, browser)
# Set RESTARTKIT_WASM_OPT=0 to skip wasm-opt in development builds.

CARGO_TARGET_DIR ?= $(HOME)/.cache/restartkit/target
export CARGO_TARGET_DIR
export PATH := $(HOME)/.cargo/bin:$(PATH)

# The CLI must equal the wasm-bindgen crate in Cargo.lock (wasm/Cargo.toml pins it with `=`).
WASM_BINDGEN_VERSION = $(shell awk '/^name = "wasm-bindgen"$$/{getline; gsub(/"/,"",$$3); print $$3}' Cargo.lock)
WASM_SOURCES := $(shell find core/src wasm/src -name '*.rs' 2>/dev/null) Cargo.toml core/Cargo.toml wasm/Cargo.toml wasm/build.rs \
	Cargo.lock wasm/scripts/build.mjs wasm/scripts/split.mjs wasm/scripts/data-split.mjs wasm/scripts/training.mjs wasm/README.md
# The split's training input (wasm/scripts/training.mjs: the playground's default example, named
# by its index): a change moves functions between the parts.
WASM_SOURCES += $(shell find playground/examples -type f 2>/dev/null)

.PHONY: wasm test-wasm wasm-tools wasm-chromium

wasm-tools: wasm/node_modules/.installed
	@rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
	@if [ "$$(wasm-bindgen --version 2>/dev/null | awk '{print $$2}')" != "$(WASM_BINDGEN_VERSION)" ]; then \
	  echo "installing wasm-bindgen-cli $(WASM_BINDGEN_VERSION)"; \
	  cargo install wasm-bindgen-cli --version "$(WASM_BINDGEN_VERSION)"; \
	fi
# (not --locked: the CLI's own lock pins a webpki-roots the registry here lacks; /work/shared/toolchain.md)
# wasm-split (binaryen) cuts the module into its first-load and on-demand parts; npm's binaryen
# has no wasm-split, Debian's does (wasm/scripts/split.mjs).
	@command -v wasm-split >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q binaryen; }

wasm/node_modules/.installed: wasm/package.json wasm/package-lock.json
	cd wasm && npm ci --no-audit --no-fund
	@touch $@

wasm/pkg/package.json: $(WASM_SOURCES) | wasm-tools
	node wasm/scripts/build.mjs

wasm: wasm-tools wasm/pkg/package.json

wasm-chromium:
	@command -v chromium >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }

test-wasm: wasm wasm-chromium
	cd wasm && node --test test/

FRONTEND_TESTS += test-wasm
