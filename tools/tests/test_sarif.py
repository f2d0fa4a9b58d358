"""`restartkit validate --output sarif` against the OASIS SARIF 2.1.0 JSON Schema
(data/sarif-schema-2.1.0.json), on errors, warnings, a broken document, odd file names and an
unreadable file; and what code scanning needs beyond the schema (rule table, locations)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import jsonschema
import pytest

from conftest import DATA, VENV_BIN
from manifests import BAD_JOB, BAD_LINE, GOOD_JOB, RULES_POD

SCHEMA = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
VALIDATOR = jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)


def _sarif(cwd: Path, *args: str) -> "tuple[int, Dict[str, Any]]":
    p = subprocess.run(
        [str(VENV_BIN / "restartkit"), "validate", "--output", "sarif", *args],
        cwd=cwd, capture_output=True, text=True, timeout=120,
    )
    return p.returncode, json.loads(p.stdout)


def _valid(log: Dict[str, Any]) -> None:
    errors = sorted(VALIDATOR.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "good.yaml").write_text(GOOD_JOB)
    (tmp_path / "deploy" / "bad job.yaml").write_text(BAD_JOB)
    (tmp_path / "deploy" / "trainer.yaml").write_text(RULES_POD)
    (tmp_path / "deploy" / "broken.yaml").write_text(GOOD_JOB + "---\nkind: [\n")
    (tmp_path / "deploy" / "not-k8s.yaml").write_text("repos: []\n")
    return tmp_path


def test_schema_rejects_a_wrong_log() -> None:
    """The schema is strict enough to catch a mistake (so the passing tests mean something)."""
    wrong = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"level": "fatal"}]}]}
    assert list(VALIDATOR.iter_errors(wrong))


def test_clean_run_is_a_valid_log(files: Path) -> None:
    status, log = _sarif(files, "deploy/good.yaml")
    assert status == 0
    _valid(log)
    run = log["runs"][0]
    assert run["results"] == [] and run["invocations"][0]["executionSuccessful"] is True
    assert run["tool"]["driver"]["name"] == "restartkit"


def test_findings_are_a_valid_log_with_rules_and_locations(files: Path) -> None:
    names = ["deploy/good.yaml", "deploy/bad job.yaml", "deploy/broken.yaml", "deploy/not-k8s.yaml", "deploy/trainer.yaml"]
    status, log = _sarif(files, "-k", "1.34", *names)
    assert status == 1
    _valid(log)
    run = log["runs"][0]
    rules: List[Dict[str, Any]] = run["tool"]["driver"]["rules"]
    results: List[Dict[str, Any]] = run["results"]
    assert {r["level"] for r in results} == {"error", "warning"}
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        assert r["message"]["text"]
    by_uri: Dict[str, List[Dict[str, Any]]] = {}
    for r in results:
        by_uri.setdefault(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], []).append(r)
    assert "deploy/good.yaml" not in by_uri
    bad = by_uri["deploy/bad%20job.yaml"]
    assert [r["ruleId"] for r in bad] == ["FieldValueRequired"]
    assert bad[0]["locations"][0]["physicalLocation"]["region"] == {"startLine": BAD_LINE, "startColumn": 7}
    assert bad[0]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "spec.template.spec.restartPolicy"
    broken = by_uri["deploy/broken.yaml"]
    assert broken[0]["level"] == "error" and broken[0]["locations"][0]["physicalLocation"]["region"]["startLine"] >= 14
    assert by_uri["deploy/not-k8s.yaml"][0]["level"] == "warning"
    assert any("ContainerRestartRules" in r["message"]["text"] for r in by_uri["deploy/trainer.yaml"])


def test_unreadable_file_is_a_failed_invocation(files: Path) -> None:
    status, log = _sarif(files, "deploy/good.yaml", "deploy/missing.yaml")
    assert status == 2
    _valid(log)
    inv = log["runs"][0]["invocations"][0]
    assert inv["executionSuccessful"] is False
    note = inv["toolExecutionNotifications"][0]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "deploy/missing.yaml"
    assert "missing.yaml" in note["message"]["text"]


FIXABLE_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: fixme
spec:
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes:
        operator: In
        values: [0, 42]
  template:
    spec:
      restartPolicy: OnFailure
      containers:
      - name: main
        image: busybox
"""


def _apply(text: str, replacements: List[Dict[str, Any]]) -> str:
    """Applies SARIF replacements (1-based lines and columns, end exclusive), last first."""
    lines = text.splitlines(keepends=True)

    def offset(line: int, column: int) -> int:
        return sum(len(x) for x in lines[: line - 1]) + column - 1

    for r in sorted(replacements, key=lambda r: (r["deletedRegion"]["startLine"], r["deletedRegion"]["startColumn"]), reverse=True):
        d = r["deletedRegion"]
        start, end = offset(d["startLine"], d["startColumn"]), offset(d["endLine"], d["endColumn"])
        text = text[:start] + r["insertedContent"]["text"] + text[end:]
        lines = text.splitlines(keepends=True)
    return text


def test_fixes_are_valid_sarif_and_repair_the_file(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(FIXABLE_JOB)
    status, log = _sarif(tmp_path, "job.yaml")
    assert status == 1
    _valid(log)
    results = log["runs"][0]["results"]
    assert len(results) == 2 and all(len(r["fixes"]) == 1 for r in results)
    replacements = [rep for r in results for change in r["fixes"][0]["artifactChanges"] for rep in change["replacements"]]
    assert {c["artifactLocation"]["uri"] for r in results for c in r["fixes"][0]["artifactChanges"]} == {"job.yaml"}
    (tmp_path / "job.yaml").write_text(_apply(FIXABLE_JOB, replacements))
    status, log = _sarif(tmp_path, "job.yaml")
    assert (status, log["runs"][0]["results"]) == (0, []), (tmp_path / "job.yaml").read_text()
