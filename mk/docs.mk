# docs/sweeps.md's worked examples come from the command's own output (tools/docs_sweeps.py):
# `make docs-sweeps` runs the sweeps (about 15 CPU-minutes) and rewrites the generated blocks and
# docs/sweeps-data.json; `make test-docs-sweeps` (in make test) checks that the blocks render from
# the data and that the first seeds of every sweep still give the stored rows.
.PHONY: docs-sweeps test-docs-sweeps
FRONTEND_TESTS += test-docs-sweeps

docs-sweeps:
	$(CARGO) build --locked --release -p restartkit-cli
	python3 tools/docs_sweeps.py --restartkit $(RK_RELEASE) generate

test-docs-sweeps: dist-cli-bin
	python3 tools/docs_sweeps.py --restartkit $(DIST_CLI_BIN) check
