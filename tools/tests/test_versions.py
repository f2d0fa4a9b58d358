"""The pre-commit package and the GitHub Action install the release of this very version."""

from __future__ import annotations

import re
import tomllib

import yaml

from conftest import ROOT

WORKSPACE = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]


def test_pre_commit_package_pins_this_version() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["version"] == WORKSPACE
    assert project["dependencies"] == [f"restartkit=={WORKSPACE}"]


def test_action_installs_this_version() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["inputs"]["version"]["default"] == WORKSPACE
    assert re.search(rf"uses: [\w/-]+@v{re.escape(WORKSPACE)}\b", (ROOT / "action.yml").read_text())


def test_hook_example_pins_this_version() -> None:
    assert f"rev: v{WORKSPACE}" in (ROOT / ".pre-commit-hooks.yaml").read_text()
