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
