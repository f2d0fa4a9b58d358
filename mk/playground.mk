# The browser playground: a static page on the restartkit-wasm package (see playground/README.md).
#   make playground         build playground/dist (builds the wasm package first); deployable under any
#                           sub-path (.github/workflows/pages.yml publishes it on GitHub Pages)
#   make serve-playground   serve playground/dist on http://127.0.0.1:8080/
#   make test-playground    Playwright (playwright-core) + Debian's chromium, headless; screenshots
#                           in test-artifacts/playground/ (UPDATE_DOCS_SCREENSHOT=1 refreshes docs/playground.png)

.PHONY: playground serve-playground test-playground

playground/node_modules/.installed: playground/package.json playground/package-lock.json
	cd playground && npm ci --no-audit --no-fund
	@touch $@

# esbuild (npm) bundles the page: the npm packages come first.
playground: wasm playground/node_modules/.installed
	node playground/scripts/build.mjs

serve-playground: playground
	node playground/scripts/serve.mjs playground/dist 8080

test-playground: playground playground/node_modules/.installed
	@command -v chromium >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }
	cd playground && node --test test/

FRONTEND_TESTS += test-playground
