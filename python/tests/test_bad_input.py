"""The shared bad-input corpus (conformance/bad-input/manifest.json) through the Python package.

Each case runs in a child interpreter (this file, run as a script) under a timeout: a hang fails
the case without stalling the suite, and a crash of the native module (an abort) fails only that
case. The child answers with the diagnostics it got, as JSON; the case passes when one of them
names what the manifest expects (line, field, code or type).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "conformance" / "bad-input"
FRONT_END = "python"
# Bounds a hang; it is not a speed target (the slowest case takes about a second).
TIMEOUT_S = 300


def load_cases() -> List[Dict[str, Any]]:
    manifest = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    cases: List[Dict[str, Any]] = manifest["cases"]
    return cases


def case_bytes(case: Dict[str, Any]) -> bytes:
    if "file" in case:
        return (CORPUS / str(case["file"])).read_bytes()
    out = bytearray()
    for part in case["generate"]:
        if isinstance(part, str):
            out += part.encode("utf-8")
        elif "bytes" in part:
            out += bytes.fromhex(part["bytes"])
        else:
            sep = part.get("separator", "")
            out += sep.join(part["repeat"].replace("{i}", str(i)) for i in range(part["times"])).encode("utf-8")
    return bytes(out)


def expected(case: Dict[str, Any]) -> Dict[str, Any]:
    override: Dict[str, Any] = case.get("frontEnds", {}).get(FRONT_END, {})
    want: Dict[str, Any] = override or case["expect"]
    return want


def run_child(name: str) -> List[Dict[str, Any]]:
    """Runs one case through the package, in this process: the diagnostics it produced."""
    import restartkit

    case = next(c for c in load_cases() if c["name"] == name)
    data = case_bytes(case)
    if case["input"] == "request":
        resp = json.loads(restartkit.handle_json(data.decode("utf-8")))
        diags: List[Dict[str, Any]] = resp["errors"] if resp["status"] == "error" else resp["result"].get("errors", [])
        return diags
    try:
        result = restartkit.validate(data)
        found = list(result.errors)
    except restartkit.RestartkitError as e:
        found = list(e.diagnostics)
    return [{"field": d.field, "type": d.type, "code": d.code, "line": d.line, "column": d.column, "message": d.message} for d in found]


@pytest.mark.parametrize("name", [c["name"] for c in load_cases()])
def test_bad_input_gives_a_clear_error(name: str) -> None:
    case = next(c for c in load_cases() if c["name"] == name)
    try:
        proc = subprocess.run([sys.executable, __file__, name], capture_output=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{name}: no answer within {TIMEOUT_S}s (a hang)")
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, f"{name}: the child died with {proc.returncode}: {stderr[-2000:]}"
    diags: List[Dict[str, Any]] = json.loads(proc.stdout)
    for d in diags:
        assert str(d.get("message", "")).strip(), f"{name}: a diagnostic without a message: {d}"
    want = expected(case)
    assert any(all(d.get(k) == v for k, v in want.items()) for d in diags), f"{name}: no diagnostic has {want}; got {diags}"


def test_corpus_covers_the_issue() -> None:
    names = {c["name"] for c in load_cases()}
    for needed in ["non-utf8-bytes", "huge-exit-code-list", "deep-flow-sequences", "duplicate-key-yaml", "nan-yaml", "unicode-duplicate-key"]:
        assert needed in names


if __name__ == "__main__":
    json.dump(run_child(sys.argv[1]), sys.stdout)
