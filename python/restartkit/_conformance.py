"""Conformance vectors (conformance/FORMAT.md) run through the Python front end.

A vector's request goes through :func:`restartkit.handle_json`, exactly as a user's would; its
result is compared with ``expect`` by the rules of FORMAT.md (the same rules as the core's
reference comparator, core/src/conformance.rs).
"""

from __future__ import annotations

import json
from typing import Any, List, Mapping, Optional, Sequence, TextIO, Tuple

from . import _native

__all__ = ["Mismatch", "compare", "partial_eq", "run_vector", "run_files"]


class Mismatch(Exception):
    """A result differs from a vector's expectation; ``str()`` says how."""


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _j(v: Any) -> str:
    return json.dumps(v, separators=(",", ":"))


def partial_eq(exp: Any, got: Any, path: str = "") -> None:
    """``exp`` ⊆ ``got``: objects by the keys ``exp`` names (a null expectation also accepts a
    missing key), lists element by element with equal length, numbers by value (10 == 10.0)."""
    if isinstance(exp, dict) and isinstance(got, dict):
        for k, ev in exp.items():
            if k not in got:
                if ev is None:
                    continue
                raise Mismatch(f"{path}.{k}: missing (expected {_j(ev)})")
            partial_eq(ev, got[k], f"{path}.{k}")
        return
    if isinstance(exp, list) and isinstance(got, list):
        if len(exp) != len(got):
            raise Mismatch(f"{path}: expected {len(exp)} items, got {len(got)} ({_j(got)})")
        for i, (ev, gv) in enumerate(zip(exp, got)):
            partial_eq(ev, gv, f"{path}[{i}]")
        return
    if _is_number(exp) and _is_number(got):
        if float(exp) != float(got):
            raise Mismatch(f"{path}: expected {_j(exp)}, got {_j(got)}")
        return
    if type(exp) is not type(got) or exp != got:
        raise Mismatch(f"{path}: expected {_j(exp)}, got {_j(got)}")


def _messages(errors: Any) -> List[str]:
    if not isinstance(errors, list):
        return []
    return [e["message"] for e in errors if isinstance(e, dict) and isinstance(e.get("message"), str)]


def _key(e: Any) -> Tuple[str, Optional[str]]:
    if not isinstance(e, dict):
        return ("", None)
    f = e.get("field")
    t = e.get("type")
    return (f if isinstance(f, str) else "", t if isinstance(t, str) else None)


def _compare_errors(expected: Any, got: Any, complete: bool) -> None:
    exp = expected if isinstance(expected, list) else []
    got_list = got if isinstance(got, list) else []
    got_keys = [_key(g) for g in got_list]
    msgs = _messages(got_list)
    typed: List[Tuple[str, Optional[str]]] = []
    untyped: List[str] = []
    for e in exp:
        field, ty = _key(e)
        if ty is not None:
            if (field, ty) not in got_keys:
                rendered = ", ".join(f"{{{f}, {t or 'null'}}}" for f, t in got_keys)
                raise Mismatch(f"missing error {{{field}, {ty}}}; got [{rendered}]")
            typed.append((field, ty))
        else:
            m = e.get("message", "") if isinstance(e, dict) else ""
            m = m if isinstance(m, str) else ""
            if not any(m in x for x in msgs):
                raise Mismatch(f"no error message contains {_j(m)}; messages: {_j(msgs)}")
            untyped.append(m)
    if complete:
        for g, (f, t) in zip(got_list, got_keys):
            gm = g.get("message", "") if isinstance(g, dict) else ""
            # Expected when it matches a typed expectation by {field, type}, or an untyped one
            # (whose field is not compared) by message.
            ok = (t is not None and (f, t) in typed) or any(u in gm for u in untyped)
            if not ok:
                raise Mismatch(f"unexpected error {{{f}, {t or 'null'}}}: {gm}")


def compare(expect: Any, result: Any) -> None:
    """Raises :class:`Mismatch` when ``result`` does not satisfy ``expect`` (FORMAT.md rules)."""
    if not isinstance(expect, dict) or not isinstance(result, dict):
        raise Mismatch("expect and result must be objects")
    complete = expect.get("errorsComplete", True) is not False
    for k, ev in expect.items():
        if k == "errorsComplete":
            continue
        if k == "errors":
            _compare_errors(ev, result.get("errors"), complete)
        elif k == "errorMessages":
            msgs = _messages(result.get("errors"))
            for m in ev if isinstance(ev, list) else []:
                if not any(str(m) in x for x in msgs):
                    raise Mismatch(f"no error message contains {_j(m)}; messages: {_j(msgs)}")
        elif k not in result:
            raise Mismatch(f"result has no {_j(k)} (expected {_j(ev)})")
        else:
            partial_eq(ev, result[k], k)


def run_vector(vector: Mapping[str, Any]) -> None:
    """Runs one vector through the contract; raises :class:`Mismatch` on any difference."""
    op = vector.get("op")
    if not isinstance(op, str):
        raise Mismatch("vector has no op")
    if "expect" not in vector:
        raise Mismatch("vector has no expect")
    req = json.dumps({"op": op, "input": vector.get("input")})
    resp = json.loads(_native.handle_json(req))
    if resp.get("status") != "ok":
        raise Mismatch("request failed: " + "; ".join(_messages(resp.get("errors"))))
    compare(_corrected_expect(vector), resp.get("result"))


def _corrected_expect(vector: Mapping[str, Any]) -> Any:
    """The vector's expect with the known upstream divergences applied
    (conformance/divergences.json, applied by the core)."""
    r = json.loads(_native.handle_json(json.dumps({"op": "vectorExpect", "input": {"vector": vector}})))
    return r["result"]["expect"] if r.get("status") == "ok" else vector["expect"]


def run_files(paths: Sequence[str], out: TextIO, err: TextIO) -> int:
    """Runs the vectors of every file; prints ``FAIL <id>: ...`` per failure and then
    ``N passed, M failed``. Returns the exit status: 0, 1 on any failure, 2 on an unreadable file."""
    passed = failed = 0
    for p in paths:
        try:
            with open(p, encoding="utf-8") as f:
                vectors = json.load(f)
            if not isinstance(vectors, list):
                raise ValueError("a vector file must hold a JSON array")
        except (OSError, ValueError) as e:
            print(f"error: {p}: {e}", file=err)
            return 2
        for v in vectors:
            vid = v.get("id", "?") if isinstance(v, dict) else "?"
            try:
                if not isinstance(v, dict):
                    raise Mismatch("a vector must be an object")
                run_vector(v)
                passed += 1
            except Mismatch as e:
                failed += 1
                print(f"FAIL {vid}: {e}", file=out)
    print(f"{passed} passed, {failed} failed", file=out)
    return 1 if failed else 0


if __name__ == "__main__":
    # ``python -m restartkit._conformance FILE...``: the vectors through the Python binding (the
    # ``restartkit conformance`` command runs them through the Rust engine directly).
    import sys

    sys.exit(run_files(sys.argv[1:], sys.stdout, sys.stderr))
