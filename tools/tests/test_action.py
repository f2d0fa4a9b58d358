"""The composite GitHub Action (action.yml) run as the runner runs it: its steps' scripts with the
runner's environment (RUNNER_TEMP, GITHUB_PATH, GITHUB_OUTPUT, GITHUB_ACTION_PATH) and the
inputs action.yml maps into each step, installing the release wheel with no cargo on PATH."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import jsonschema
import pytest
import yaml

from conftest import DATA, ROOT, clean_path
from manifests import BAD_JOB, BAD_LINE, GOOD_JOB, RULES_POD

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
SARIF = jsonschema.Draft7Validator(json.loads((DATA / "sarif-schema-2.1.0.json").read_text()))


def _step(name: str) -> Dict[str, Any]:
    return next(s for s in ACTION["runs"]["steps"] if s.get("name") == name)


def _step_env(step: Dict[str, Any], inputs: Dict[str, str]) -> Dict[str, str]:
    """The step's `env:` with `${{ inputs.x }}` resolved as the runner would (defaults applied)."""
    values = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
    values.update(inputs)
    out = {}
    for k, v in step.get("env", {}).items():
        m = re.fullmatch(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", v)
        assert m, f"{k}: the action passes inputs to its scripts only as whole values"
        assert m.group(1) in ACTION["inputs"], f"{k} names an input action.yml does not declare"
        out[k] = values[m.group(1)]
    return out


class Runner:
    """One job: a workspace, the runner's files, and the PATH its steps see."""

    def __init__(self, tmp: Path) -> None:
        self.workspace = tmp / "workspace"
        self.workspace.mkdir()
        self.temp = tmp / "runner-temp"
        self.temp.mkdir()
        self.path_file = tmp / "github_path"
        self.path_file.touch()
        self.path = clean_path()

    def run(self, name: str, inputs: Dict[str, str]) -> "tuple[subprocess.CompletedProcess[str], Dict[str, str]]":
        step = _step(name)
        assert step["shell"] == "bash"
        outputs = self.temp / "github_output"
        outputs.write_text("")
        added = [line for line in self.path_file.read_text().splitlines() if line]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VIRTUAL_ENV"))}
        env.update(_step_env(step, inputs))
        env.update(
            PATH=os.pathsep.join([*reversed(added), self.path]),
            RUNNER_TEMP=str(self.temp),
            GITHUB_PATH=str(self.path_file),
            GITHUB_OUTPUT=str(outputs),
            GITHUB_ACTION_PATH=str(ROOT),
        )
        p = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=self.workspace, env=env, capture_output=True, text=True, timeout=600)
        values = dict(line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line)
        return p, values


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory, wheel_dir: Path) -> Runner:
    r = Runner(tmp_path_factory.mktemp("action"))
    wheel = sorted(wheel_dir.glob("restartkit-*.whl"))[-1]
    p, _ = r.run("Install restartkit", {"package": str(wheel)})
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip().startswith("restartkit ")
    deploy = r.workspace / "deploy" / "team"
    deploy.mkdir(parents=True)
    (deploy / "good.yaml").write_text(GOOD_JOB)
    (deploy / "trainer.yaml").write_text(RULES_POD)
    (r.workspace / "bad.yaml").write_text(BAD_JOB)
    return r


def test_outputs_are_the_steps_outputs() -> None:
    assert ACTION["runs"]["using"] == "composite"
    for name, out in ACTION["outputs"].items():
        assert out["value"] == "${{ steps.validate.outputs.%s }}" % name
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            script = re.fullmatch(r'"\$GITHUB_ACTION_PATH/(.+)"', step["run"])
            assert script and os.access(ROOT / script.group(1), os.X_OK), step["run"]


def test_clean_manifests_pass_with_a_valid_sarif(runner: Runner) -> None:
    p, out = runner.run("Validate manifests", {"files": "deploy/**/*.yaml"})
    assert p.returncode == 0, p.stdout + p.stderr
    assert out == {"sarif-file": "restartkit.sarif", "status": "0"}
    log = json.loads((runner.workspace / "restartkit.sarif").read_text())
    assert not list(SARIF.iter_errors(log))
    assert log["runs"][0]["results"] == []
    assert "2 file(s): 0 error(s)" in p.stderr


def test_errors_fail_the_step_and_still_write_sarif(runner: Runner) -> None:
    p, out = runner.run("Validate manifests", {"files": "deploy/**/*.yaml\nbad.yaml", "sarif-file": "reports/r.sarif"})
    assert p.returncode == 1
    assert out == {"sarif-file": "reports/r.sarif", "status": "1"}
    log = json.loads((runner.workspace / "reports" / "r.sarif").read_text())
    assert [r["level"] for r in log["runs"][0]["results"]].count("error") == 1


def test_errors_reported_without_failing(runner: Runner) -> None:
    p, out = runner.run("Validate manifests", {"files": "bad.yaml deploy/**/*.yaml", "sarif-file": "out/r.sarif", "fail-on-error": "false"})
    assert p.returncode == 0, p.stdout + p.stderr
    assert out == {"sarif-file": "out/r.sarif", "status": "1"}
    assert f"bad.yaml:{BAD_LINE}:7" in p.stderr
    log = json.loads((runner.workspace / "out" / "r.sarif").read_text())
    assert not list(SARIF.iter_errors(log))
    errors: List[Dict[str, Any]] = [r for r in log["runs"][0]["results"] if r["level"] == "error"]
    assert [e["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for e in errors] == ["bad.yaml"]


def test_version_and_gates_reach_restartkit(runner: Runner) -> None:
    old, _ = runner.run("Validate manifests", {"files": "deploy/team/trainer.yaml", "kubernetes-version": "1.34"})
    new, _ = runner.run("Validate manifests", {"files": "deploy/team/trainer.yaml", "kubernetes-version": "1.34", "feature-gates": "ContainerRestartRules=true"})
    assert old.returncode == new.returncode == 0
    assert "ContainerRestartRules feature gate is off" in old.stderr
    assert "ContainerRestartRules" not in new.stderr


@pytest.mark.parametrize(
    "inputs, message",
    [
        ({"files": "nowhere/*.yaml"}, 'no file matches "nowhere/*.yaml"'),
        ({"files": "  \n "}, "'files' names no file"),
        ({"files": "bad.yaml", "fail-on-error": "yes"}, 'fail-on-error must be "true" or "false", not "yes"'),
    ],
)
def test_bad_inputs_fail_with_a_clear_error(runner: Runner, inputs: Dict[str, str], message: str) -> None:
    p, out = runner.run("Validate manifests", inputs)
    assert p.returncode == 2
    assert f"::error::restartkit action: {message}" in p.stdout
    assert out == {}


def test_unreadable_file_fails_even_when_errors_may_pass(runner: Runner) -> None:
    # A link to nothing: opening it fails (a directory now stands for the manifests in it, and
    # the tests run as root, who reads any file whatever its mode).
    (runner.workspace / "unreadable.yaml").symlink_to(runner.workspace / "missing.yaml")
    p, out = runner.run("Validate manifests", {"files": "unreadable.yaml", "fail-on-error": "false"})
    assert p.returncode == 2 and out["status"] == "2"
