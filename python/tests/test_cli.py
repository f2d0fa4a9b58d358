"""The ``restartkit`` console command and ``python -m restartkit`` are the CLI: the same output and
exit codes as the binary (RESTARTKIT_BIN, built by make). ``python -m restartkit._conformance``
runs vectors through the Python binding."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Sequence

import pytest

from conftest import VECTOR_DIR
from restartkit import _native

CV = _native.CONTRACT_VERSION

CONSOLE = Path(sys.executable).parent / "restartkit"
BAD_POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\nspec:\n  containers: 5\n"
OK_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"


def _run(cmd: Sequence[str], cwd: Path) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=300, cwd=cwd)


def _binary() -> str:
    b = os.environ.get("RESTARTKIT_BIN")
    if not b:
        pytest.fail("RESTARTKIT_BIN is not set: run these tests through `make test-python`")
    return b


@pytest.fixture
def manifests(tmp_path: Path) -> Path:
    (tmp_path / "bad.yaml").write_text(BAD_POD)
    (tmp_path / "ok.yaml").write_text(OK_MAP)
    return tmp_path


CASES: List[List[str]] = [
    ["validate", "bad.yaml"],
    ["validate", "ok.yaml", "bad.yaml"],
    ["validate", "ok.yaml"],
    ["validate", "missing.yaml"],
    ["validate", "--output", "json", "bad.yaml"],
    ["validate", "--output", "sarif", "ok.yaml", "bad.yaml"],
    ["validate", "-k", "1.33", "--feature-gates", "ContainerRestartRules=true", "bad.yaml"],
    ["validate", "-k", "0.9", "ok.yaml"],
    ["validate", "--bogus"],
    ["--version"],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) for c in CASES])
def test_console_command_is_the_cli(manifests: Path, args: List[str]) -> None:
    want = _run([_binary(), *args], manifests)
    for cmd in ([str(CONSOLE)], [sys.executable, "-m", "restartkit"]):
        got = _run([*cmd, *args], manifests)
        assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr), cmd


def test_console_command_exit_codes(manifests: Path) -> None:
    assert _run([str(CONSOLE), "validate", "ok.yaml"], manifests).returncode == 0
    bad = _run([str(CONSOLE), "validate", "bad.yaml"], manifests)
    assert bad.returncode == 1
    assert "bad.yaml:6:" in bad.stdout + bad.stderr and "spec.containers" in bad.stdout + bad.stderr
    assert _run([str(CONSOLE), "validate", "missing.yaml"], manifests).returncode == 2


def _conformance(*args: str) -> "subprocess.CompletedProcess[str]":
    return _run([sys.executable, "-m", "restartkit._conformance", *args], Path.cwd())


def _vector_file(tmp_path: Path, vectors: List[object]) -> Path:
    f = tmp_path / "v.json"
    f.write_text(json.dumps(vectors))
    return f


def test_binding_conformance_pass_and_fail(tmp_path: Path) -> None:
    describe_ok = {"id": "describe-ok", "op": "describe", "input": {}, "expect": {"contractVersion": CV}}
    describe_bad = {"id": "describe-bad", "op": "describe", "input": {}, "expect": {"contractVersion": "9"}}
    unknown = {"id": "unknown-op", "op": "nope", "input": {}, "expect": {}}
    p = _conformance(str(_vector_file(tmp_path, [describe_ok, describe_bad, unknown])))
    lines = p.stdout.splitlines()
    assert p.returncode == 1
    assert lines[0].startswith(f'FAIL describe-bad: contractVersion: expected "9", got "{CV}"')
    assert lines[1].startswith("FAIL unknown-op: request failed: ")
    assert lines[-1] == "1 passed, 2 failed"
    good = _conformance(str(_vector_file(tmp_path, [describe_ok])))
    assert good.returncode == 0 and good.stdout.strip() == "1 passed, 0 failed"
    assert _conformance(str(tmp_path / "missing.json")).returncode == 2


def test_binding_conformance_over_the_repository_vectors() -> None:
    files = sorted(str(f) for f in VECTOR_DIR.glob("*.json"))
    p = _conformance(*files)
    assert p.stdout.splitlines()[-1].endswith("failed")
    assert p.returncode == 0, p.stdout[-3000:]



def _frame(msg: Dict[str, Any]) -> bytes:
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def test_the_console_command_is_the_language_server_too(tmp_path: Path) -> None:
    """``restartkit lsp`` from the wheel: a whole session, the diagnostic of a bad Pod included."""
    uri = "file:///bad.yaml"
    messages: List[Dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen",
         "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": BAD_POD}}},
        # Hover is answered after the validation (one worker, in order) once the debounce passed.
        {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
         "params": {"textDocument": {"uri": uri}, "position": {"line": 5, "character": 3}}},
    ]
    proc = subprocess.Popen([str(CONSOLE), "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=tmp_path)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"".join(_frame(m) for m in messages))
    proc.stdin.flush()
    got: List[Dict[str, Any]] = []
    while not any(m.get("method") == "textDocument/publishDiagnostics" for m in got):
        header = proc.stdout.readline()
        length = int(header.split(b":")[1])
        proc.stdout.readline()
        got.append(json.loads(proc.stdout.read(length)))
    proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}) + _frame({"jsonrpc": "2.0", "method": "exit"}))
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0
    init = next(m for m in got if m.get("id") == 1)
    assert init["result"]["serverInfo"] == {"name": "restartkit", "version": _native.VERSION}
    diags = next(m for m in got if m.get("method") == "textDocument/publishDiagnostics")["params"]["diagnostics"]
    assert [d["range"]["start"]["line"] for d in diags] == [5]
    assert "spec.containers" in diags[0]["message"]


def test_the_wheels_kubectl_plugin_is_the_clis_kubectl_command(tmp_path: Path) -> None:
    """``kubectl-restartkit`` (kubectl's plugin, a console script of the wheel) runs
    ``restartkit kubectl …``: the same output and exit code as the binary's."""
    plugin = Path(sys.executable).parent / "kubectl-restartkit"
    for args in (["explain", "--help"], ["explain", "deployment/web"]):
        got = _run([str(plugin), *args], tmp_path)
        want = _run([_binary(), "kubectl", *args], tmp_path)
        assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)
    assert "job/NAME" in _run([str(plugin), "explain", "--help"], tmp_path).stdout
