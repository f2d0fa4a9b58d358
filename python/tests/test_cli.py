"""`python -m restartkit validate|conformance`: output format and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import List

from conftest import VECTOR_DIR


def run(*args: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run([sys.executable, "-m", "restartkit", *args], capture_output=True, text=True, timeout=300)


def test_validate_prints_file_line_col_and_exits_1(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\nspec:\n  containers: 5\n")
    p = run("validate", str(f))
    assert p.returncode == 1, p.stderr
    first = p.stdout.splitlines()[0]
    assert first.startswith(f"{f}:6:")
    assert ": error: " in first and first.endswith("]") and "[spec.containers" in first
    assert "1 file(s): 1 error(s)" in p.stderr


def test_validate_ok_and_unreadable(tmp_path: Path) -> None:
    f = tmp_path / "ok.yaml"
    f.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
    ok = run("validate", str(f))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert run("validate", str(tmp_path / "missing.yaml")).returncode == 2


def _vector_file(tmp_path: Path, vectors: List[object]) -> Path:
    f = tmp_path / "v.json"
    f.write_text(json.dumps(vectors))
    return f


def test_conformance_pass_and_fail(tmp_path: Path) -> None:
    describe_ok = {"id": "describe-ok", "op": "describe", "input": {}, "expect": {"contractVersion": "1.2"}}
    describe_bad = {"id": "describe-bad", "op": "describe", "input": {}, "expect": {"contractVersion": "9"}}
    unknown = {"id": "unknown-op", "op": "nope", "input": {}, "expect": {}}
    p = run("conformance", str(_vector_file(tmp_path, [describe_ok, describe_bad, unknown])))
    lines = p.stdout.splitlines()
    assert p.returncode == 1
    assert lines[0].startswith('FAIL describe-bad: contractVersion: expected "9", got "1.2"')
    assert lines[1].startswith("FAIL unknown-op: request failed: ")
    assert lines[-1] == "1 passed, 2 failed"
    good = run("conformance", str(_vector_file(tmp_path, [describe_ok])))
    assert good.returncode == 0 and good.stdout.strip() == "1 passed, 0 failed"
    assert run("conformance", str(tmp_path / "missing.json")).returncode == 2


def test_conformance_over_the_repository_vectors() -> None:
    files = sorted(str(f) for f in VECTOR_DIR.glob("*.json"))
    p = run("conformance", *files)
    assert p.stdout.splitlines()[-1].endswith("failed")
    assert p.returncode == 0, p.stdout[-3000:]
