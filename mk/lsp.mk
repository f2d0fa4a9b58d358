# restartkit lsp with real clients (docs/integrations.md), and the VS Code extension.
#   make test-lsp     the protocol client of VS Code's vscode-languageclient
#                     (vscode-languageserver-protocol) and Neovim headless (Debian's neovim, installed
#                     when missing, as chromium is) against the debug CLI; the Rust protocol-level suite
#                     is cli/tests/lsp.rs (make test-rust)
#   make vscode       editors/vscode/node_modules (vscode-languageclient; @vscode/vsce packages it)
#   make bench-lsp    the editing benchmark (docs/performance.md, "Language server"), release build
# The .vsix is built by `make dist` (mk/dist.mk) with the static CLI inside.

.PHONY: test-lsp lsp-nvim vscode bench-lsp

editors/lsp-tests/node_modules/.installed: editors/lsp-tests/package.json editors/lsp-tests/package-lock.json
	cd editors/lsp-tests && npm ci --no-audit --no-fund
	@touch $@

editors/vscode/node_modules/.installed: editors/vscode/package.json editors/vscode/package-lock.json
	cd editors/vscode && npm ci --no-audit --no-fund
	@touch $@

vscode: editors/vscode/node_modules/.installed

lsp-nvim:
	@command -v nvim >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q neovim; }

test-lsp: build lsp-nvim editors/lsp-tests/node_modules/.installed vscode
	cd editors/lsp-tests && RESTARTKIT_BIN=$(RK) node --test test/
	cd editors/vscode && node --test test/

bench-lsp:
	$(CARGO) build --locked --release -p restartkit-cli
	RESTARTKIT_BIN=$(RK_RELEASE) node editors/lsp-tests/bench/edit.mjs

FRONTEND_TESTS += test-lsp

# The .vsix for linux-x64 with the static musl CLI inside, packaged by @vscode/vsce (offline: the
# extension's dependencies come from its node_modules) in a staging copy of editors/vscode.
DIST_VSIX = $(DIST_DIR)/restartkit-vscode-$(DIST_VERSION)-linux-x64.vsix
.PHONY: dist-vscode
dist-vscode: dist-cli vscode
	rm -rf $(DIST_TOOLS_DIR)/vscode-stage && mkdir -p $(DIST_TOOLS_DIR)/vscode-stage/bin/linux-x64
	cd editors/vscode && cp -r package.json package-lock.json extension.js server.js README.md .vscodeignore node_modules $(DIST_TOOLS_DIR)/vscode-stage/
	cp $(CARGO_TARGET_DIR)/$(DIST_MUSL)/release/restartkit $(DIST_TOOLS_DIR)/vscode-stage/bin/linux-x64/
	cd $(DIST_TOOLS_DIR)/vscode-stage && npx vsce package --target linux-x64 --skip-license -o $(DIST_VSIX)
