# Release artifacts and clean-room installs of them (docs in README.md, "Install").
#   make dist        dist/: the Python wheel (abi3, CPython >= 3.10, manylinux2014) and sdist,
#                    restartkit-wasm-<v>.tgz, @restartkit/node + @restartkit/node-linux-x64-gnu
#                    (npm pack), the static musl CLI tarball, the plugin tarball (module + ABI.md),
#                    the VS Code extension (.vsix, the static CLI inside: mk/lsp.mk), SHA256SUMS. One version everywhere: [workspace.package] version in Cargo.toml.
#   make test-dist   installs each artifact in a fresh temporary directory as a user would, with no
#                    cargo on PATH (the sdist excepted: it builds from source), and uses it
#                    (tools/dist/test-dist.sh)
# Tools come from the registries: ziglang from PyPI (the manylinux2014 link and the musl C
# compiler for mimalloc), esbuild/vite/playwright-core from npm (inside test-dist).
DIST_DIR := $(CURDIR)/dist
DIST_VERSION = $(shell awk '/^\[workspace.package\]/{w=1; next} /^\[/{w=0} w && $$1 == "version" {gsub(/"/, "", $$3); print $$3}' Cargo.toml)
DIST_TOOLS_DIR = $(CARGO_TARGET_DIR)/dist-tools
DIST_MUSL := x86_64-unknown-linux-musl
DIST_CLI_NAME = restartkit-$(DIST_VERSION)-$(DIST_MUSL)
DIST_PLUGIN_NAME = restartkit-plugin-$(DIST_VERSION)-wasm32
# Tarballs that come out the same from the same files.
DIST_TAR := tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0

FRONTEND_TESTS += test-dist

.PHONY: dist dist-clean-release dist-tools dist-python dist-npm dist-cli dist-cli-bin dist-plugin test-dist

dist-tools: python-venv
	@$(PY_BIN)/python -c 'import ziglang' 2>/dev/null || $(PY_BIN)/pip install -q --disable-pip-version-check ziglang
	@rustup target list --installed | grep -qx $(DIST_MUSL) || rustup target add $(DIST_MUSL)
	@mkdir -p $(DIST_TOOLS_DIR)
	@# zig cc as the musl C compiler of mimalloc; cc-rs passes a --target= that zig does not parse.
	@printf '%s\n' '#!/bin/sh' \
	  'for a in "$$@"; do shift; case "$$a" in --target=*) ;; *) set -- "$$@" "$$a";; esac; done' \
	  'exec $(PY_BIN)/python -m ziglang cc -target x86_64-linux-musl "$$@"' > $(DIST_TOOLS_DIR)/musl-cc
	@chmod +x $(DIST_TOOLS_DIR)/musl-cc
	@# zig cc as the linker of the Node addon, against glibc 2.17 (as the wheel); maturin's
	@# `zig cc` adapts rustc's link arguments to zig.
	@printf '%s\n' '#!/bin/sh' \
	  'export CARGO_ZIGBUILD_ZIG_COMMAND=$(PY_BIN)/python CARGO_ZIGBUILD_ZIG_COMMAND_ARGS="-m ziglang"' \
	  'exec $(PY_BIN)/maturin zig cc -- -fno-sanitize=all -target x86_64-linux-gnu.2.17 "$$@"' > $(DIST_TOOLS_DIR)/gnu217-cc
	@chmod +x $(DIST_TOOLS_DIR)/gnu217-cc

# Old release files go; dist/python (make python's own wheel) stays.
dist-clean-release:
	mkdir -p $(DIST_DIR)
	rm -f $(DIST_DIR)/restartkit* $(DIST_DIR)/SHA256SUMS

# maturin links with zig against glibc 2.17 and checks the wheel against the manylinux2014
# policy itself (it refuses a wheel that needs newer symbols). Its own target dir: with --zig it
# builds for --target x86_64-unknown-linux-gnu with zig's compiler settings, which would make
# `make node` (same target, the host's settings) rebuild every shared crate, and back.
dist-python: dist-tools dist-clean-release
	cd python && CARGO_TARGET_DIR=$(CARGO_TARGET_DIR)/dist-python VIRTUAL_ENV=$(PY_VENV) PATH=$(PY_BIN):$$PATH \
	  maturin build --release -q --zig --compatibility manylinux2014 -o $(DIST_DIR)
	cd python && VIRTUAL_ENV=$(PY_VENV) PATH=$(PY_BIN):$$PATH maturin sdist -o $(DIST_DIR)

# The addon is built again for the release, linked against glibc 2.17 (make node's own links
# against this machine's glibc), in its own target dir so that neither build relinks the other's.
dist-npm: wasm node dist-tools dist-clean-release
	cd wasm/pkg && npm pack -q --pack-destination $(DIST_DIR)
	rm -rf $(DIST_TOOLS_DIR)/node-glibc217 && mkdir -p $(DIST_TOOLS_DIR)/node-glibc217
	cd node && CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER=$(DIST_TOOLS_DIR)/gnu217-cc npx napi build --platform --release \
	  --target x86_64-unknown-linux-gnu --target-dir $(CARGO_TARGET_DIR)/dist-node \
	  --output-dir $(DIST_TOOLS_DIR)/node-glibc217 --no-js --dts unused.d.ts
	node node/scripts/pack-dist.mjs $(DIST_DIR) --binaries $(DIST_TOOLS_DIR)/node-glibc217 --stage $(DIST_TOOLS_DIR)/node-stage

# The static CLI alone (the oracle smoke runs it too: what ships, built once).
DIST_CLI_BIN = $(CARGO_TARGET_DIR)/$(DIST_MUSL)/release/restartkit
dist-cli-bin: dist-tools
	CC_x86_64_unknown_linux_musl=$(DIST_TOOLS_DIR)/musl-cc cargo build --locked --release -p restartkit-cli --target $(DIST_MUSL)

dist-cli: dist-cli-bin dist-clean-release
	rm -rf $(DIST_TOOLS_DIR)/$(DIST_CLI_NAME) && mkdir -p $(DIST_TOOLS_DIR)/$(DIST_CLI_NAME)
	cp $(CARGO_TARGET_DIR)/$(DIST_MUSL)/release/restartkit README.md CHANGELOG.md $(DIST_TOOLS_DIR)/$(DIST_CLI_NAME)/
	@# kubectl's plugin is the same binary under the plugin's name (it runs `restartkit kubectl …`).
	ln -s restartkit $(DIST_TOOLS_DIR)/$(DIST_CLI_NAME)/kubectl-restartkit
	$(DIST_TAR) -czf $(DIST_DIR)/$(DIST_CLI_NAME).tar.gz -C $(DIST_TOOLS_DIR) $(DIST_CLI_NAME)

dist-plugin: plugin-wasm dist-clean-release
	rm -rf $(DIST_TOOLS_DIR)/$(DIST_PLUGIN_NAME) && mkdir -p $(DIST_TOOLS_DIR)/$(DIST_PLUGIN_NAME)
	cp $(PLUGIN_WASM) plugin/ABI.md plugin/README.md $(DIST_TOOLS_DIR)/$(DIST_PLUGIN_NAME)/
	$(DIST_TAR) -czf $(DIST_DIR)/$(DIST_PLUGIN_NAME).tar.gz -C $(DIST_TOOLS_DIR) $(DIST_PLUGIN_NAME)

dist: dist-python dist-npm dist-cli dist-plugin dist-vscode
	cd $(DIST_DIR) && find . -maxdepth 1 -type f -name 'restartkit*' -printf '%f\n' | sort | xargs sha256sum > SHA256SUMS
	@echo "dist/ ($(DIST_VERSION)):" && cat $(DIST_DIR)/SHA256SUMS

test-dist: dist
	@command -v chromium >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }
	tools/dist/test-dist.sh $(DIST_DIR) $(DIST_VERSION)
