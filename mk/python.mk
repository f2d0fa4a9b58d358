# Python package (python/): pyo3 + maturin, one abi3 wheel for CPython >= 3.9.
#   make python       .venv at the repo root with restartkit (release wheel) + test tools
#   make test-python  Rust unit tests, generated types up to date, mypy --strict, pytest
CARGO_TARGET_DIR ?= $(HOME)/.cache/restartkit/target
export CARGO_TARGET_DIR

PY_ROOT  := $(CURDIR)
PY_VENV  := $(PY_ROOT)/.venv
PY_BIN   := $(PY_VENV)/bin
PY_DIST  := $(PY_ROOT)/dist/python
PY_TOOLS := "maturin>=1.9,<2" pytest mypy kubernetes jsonschema types-jsonschema pytest-benchmark typing_extensions
# restartkit.sweep on a real local Ray cluster and sweep_rows as a DataFrame (python/tests/test_sweep.py).
PY_TOOLS += ray pandas pandas-stubs
# restartkit.trainjob on the Kubeflow SDK's TrainJob models (examples/python/trainjob_sdk.py); 0.5 is the
# SDK of trainer v2.3.0, the release core/src/trainer models.
PY_TOOLS += "kubeflow>=0.5,<0.6"
PY_STAMP := $(PY_VENV)/.restartkit-tools

FRONTEND_TESTS += test-python

.PHONY: python test-python python-venv python-types bench-python

$(PY_BIN)/python:
	python3 -m venv $(PY_VENV)

$(PY_STAMP): $(PY_BIN)/python mk/python.mk
	$(PY_BIN)/pip install -q --disable-pip-version-check $(PY_TOOLS)
	touch $@

python-venv: $(PY_STAMP)

python: python-venv
	rm -rf $(PY_DIST)
	cd python && VIRTUAL_ENV=$(PY_VENV) PATH=$(PY_BIN):$$PATH maturin build --release -q -o $(PY_DIST)
	$(PY_BIN)/pip install -q --disable-pip-version-check --force-reinstall --no-deps $(PY_DIST)/restartkit-*.whl

# Rewrites python/restartkit/_types.pyi from the core's JSON Schemas.
python-types: python
	$(PY_BIN)/python python/tools/gen_types.py

# RESTARTKIT_BIN: the console command is checked against the binary's own output.
test-python: python build
	cargo test -q -p restartkit-python
	$(PY_BIN)/python python/tools/gen_types.py --check
	cd python && $(PY_BIN)/mypy --strict restartkit tools tests bench ../examples/python
	RESTARTKIT_BIN=$(RK) $(PY_BIN)/python -m pytest -q -p no:cacheprovider python/tests

bench-python: python
	$(PY_BIN)/python python/bench/bench.py

# The bundled CRDs (core/src/generated/crds) are what tools/gen_crd_schemas.py writes from the
# pinned releases (PyYAML comes with the venv's kubernetes package; go fetches a missing module).
.PHONY: check-crds
FRONTEND_TESTS += check-crds
check-crds: $(PY_STAMP)
	$(PY_BIN)/python tools/gen_crd_schemas.py --check

# The other generated tables of core/src/generated: the Trainer CRDs' defaults (from the pinned
# kubeflow/trainer module) and Go regexp's Unicode data (from the Go toolchain's own parser).
.PHONY: check-trainer-crd check-re2-tables
FRONTEND_TESTS += check-trainer-crd check-re2-tables
check-trainer-crd: $(PY_STAMP)
	$(PY_BIN)/python tools/gen_trainer_crd.py --check \
	  "$$(cd tools/gen_re2_unicode && go mod download -json github.com/kubeflow/trainer/v2@v2.3.0 | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p')"
check-re2-tables:
	cd tools/gen_re2_unicode && go run . | cmp - ../../core/src/generated/re2_tables.rs
