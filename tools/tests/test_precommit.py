"""The pre-commit hook (.pre-commit-hooks.yaml), run by the real pre-commit on a fresh git
repository: pre-commit installs this repository as a user's would (the root pyproject.toml, which
pulls the restartkit wheel from RESTARTKIT_WHEEL_DIR: the release wheel, no cargo on PATH)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Dict

import yaml

from conftest import ROOT, clean_path
from manifests import BAD_JOB, BAD_LINE, GOOD_JOB, RULES_POD


def _env(tmp_path: Path, wheel_dir: Path) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PRE_COMMIT", "VIRTUAL_ENV"))}
    env.update(
        PATH=clean_path(),
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        PIP_FIND_LINKS=str(wheel_dir),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
        GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid",
    )
    return env


def _git(repo: Path, env: Dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, timeout=60)


def _pre_commit(repo: Path, env: Dict[str, str], *args: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=900
    )


def _repo(tmp_path: Path, env: Dict[str, str]) -> Path:
    repo = tmp_path / "manifests"
    (repo / "deploy").mkdir(parents=True)
    (repo / "deploy" / "good.yaml").write_text(GOOD_JOB)
    (repo / "README.md").write_text("not a manifest\n")
    _git(repo, env, "init", "-q")
    _git(repo, env, "add", ".")
    return repo


def test_try_repo_passes_then_fails_naming_file_and_line(tmp_path: Path, wheel_dir: Path) -> None:
    env = _env(tmp_path, wheel_dir)
    repo = _repo(tmp_path, env)
    ok = _pre_commit(repo, env, "try-repo", str(ROOT), "restartkit-validate", "--all-files")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "restartkit validate" in ok.stdout and "Passed" in ok.stdout

    (repo / "deploy" / "bad.yaml").write_text(BAD_JOB)
    _git(repo, env, "add", ".")
    bad = _pre_commit(repo, env, "try-repo", str(ROOT), "restartkit-validate", "--all-files")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "Failed" in bad.stdout
    assert f"deploy/bad.yaml:{BAD_LINE}:7" in bad.stdout, bad.stdout
    assert 'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"' in bad.stdout
    assert "good.yaml:" not in bad.stdout


def test_hook_args_reach_restartkit(tmp_path: Path, wheel_dir: Path) -> None:
    """A repository's config pins the version with `args`; `verbose` shows the hook's output."""
    env = _env(tmp_path, wheel_dir)
    repo = _repo(tmp_path, env)
    (repo / "deploy" / "trainer.yaml").write_text(RULES_POD)
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    outputs = {}
    for version in ("1.34", "1.37"):
        hook = {"id": "restartkit-validate", "args": [f"--kubernetes-version={version}"], "verbose": True}
        config = {"repos": [{"repo": str(ROOT), "rev": rev.strip(), "hooks": [hook]}]}
        (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
        _git(repo, env, "add", ".")
        r = _pre_commit(repo, env, "run", "--all-files")
        assert r.returncode == 0, r.stdout + r.stderr
        outputs[version] = r.stdout
    assert "ContainerRestartRules feature gate is off" in outputs["1.34"]
    assert "ContainerRestartRules" not in outputs["1.37"]
