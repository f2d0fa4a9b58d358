# Integrations: the pre-commit hook (.pre-commit-hooks.yaml), the GitHub Action (action.yml),
# the workflows (.github/workflows, checked by actionlint) and SARIF against its schema.
#   make test-integrations   actionlint, then tools/tests with the release wheel from make dist
#                            (manylinux2014; pre-commit and the action install it, no cargo on PATH)
ACTIONLINT_VERSION := v1.7.12
TOOLS_BIN := $(HOME)/.cache/restartkit/tools/bin
ACTIONLINT := $(TOOLS_BIN)/actionlint-$(ACTIONLINT_VERSION)
INTEGRATION_TOOLS := "pre-commit>=4,<5" pyyaml jsonschema pytest mypy types-PyYAML types-jsonschema

FRONTEND_TESTS += test-integrations

.PHONY: test-integrations actionlint

$(ACTIONLINT):
	mkdir -p $(TOOLS_BIN)
	GOBIN=$(TOOLS_BIN) go install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)
	mv $(TOOLS_BIN)/actionlint $@

# shellcheck, when present, checks the workflows' run: scripts and tools/action/*.sh.
actionlint: $(ACTIONLINT)
	@command -v shellcheck >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q shellcheck; }
	$(ACTIONLINT) -no-color .github/workflows/*.yml
	shellcheck tools/action/*.sh

test-integrations: actionlint python dist-python
	$(PY_BIN)/pip install -q --disable-pip-version-check $(INTEGRATION_TOOLS)
	$(PY_BIN)/mypy --strict tools/tests
	RESTARTKIT_WHEEL_DIR=$(DIST_DIR) $(PY_BIN)/python -m pytest -q -p no:cacheprovider tools/tests
