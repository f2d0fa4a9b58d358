"""Command line: ``python -m restartkit validate FILE...`` (also installed as the ``restartkit``
command) and ``python -m restartkit conformance FILE...``. ``validate`` sends the CLI's request
and gives the CLI's exit codes (0 fine, 1 errors or failed vectors, 2 an unreadable file),
summary line and ``-o json`` report; its human output is one ``file:line:column`` line per
diagnostic instead of the CLI's source snippets."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List, Optional, Sequence

from . import handle_json
from ._conformance import run_files
from ._model import Diagnostic


def _gates(text: str) -> Dict[str, bool]:
    out: Dict[str, bool] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, sep, value = part.partition("=")
        if not sep or value.strip().lower() not in ("true", "false"):
            raise argparse.ArgumentTypeError(f"{part!r}: expected NAME=true or NAME=false")
        out[name.strip()] = value.strip().lower() == "true"
    return out


def _line(file: str, d: Diagnostic) -> str:
    where = f"{file}:{d.line}:{d.column}" if d.line is not None else file
    field = f" [{d.field}]" if d.field else ""
    return f"{where}: {d.severity}: {d.message}{field}"


def _read(path: str) -> str:
    """The file's text, as the CLI reads it; OSError/UnicodeDecodeError name the problem."""
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def _io_message(path: str, e: Exception) -> str:
    # The CLI's wording (Rust's io::Error): "No such file or directory (os error 2)".
    if isinstance(e, OSError) and e.strerror and e.errno is not None:
        return f"{'standard input' if path == '-' else path}: {e.strerror} (os error {e.errno})"
    return f"{path}: {e}"


def _validate(args: argparse.Namespace) -> int:
    """``restartkit validate``: the same request per file, the same JSON report (``-o json``),
    summary line and exit status (0 fine, 1 errors, 2 a file could not be read)."""
    any_error = io_error = False
    errors = warnings = 0
    reports: List[Dict[str, Any]] = []
    for path in args.files:
        try:
            text = _read(path)
        except (OSError, UnicodeDecodeError) as e:
            print(f"error: {_io_message(path, e)}", file=sys.stderr)
            io_error = True
            continue
        name = path
        inp: Dict[str, Any] = {}
        if args.kubernetes_version is not None:
            inp["kubernetesVersion"] = args.kubernetes_version
        if args.feature_gates is not None:
            inp["featureGates"] = args.feature_gates
        inp["source"] = text
        inp["fileName"] = name
        if args.skip_defaulting:
            inp["skipDefaulting"] = True
        resp = json.loads(handle_json(json.dumps({"op": "validate", "input": inp})))
        if resp.get("status") == "ok":
            result = resp.get("result", {})
            errs = result.get("errors", [])
        else:
            errs = resp.get("errors", [])
            result = {"valid": False, "errors": errs, "warnings": []}
        warns = result.get("warnings", [])
        any_error = any_error or bool(errs)
        errors += len(errs)
        warnings += len(warns)
        if args.output == "human":
            for d in [*errs, *warns, *result.get("infos", [])]:
                print(_line(name, Diagnostic._from_dict(d)))
        reports.append({"file": name, "result": result})
    if args.output == "human":
        unreadable = len(args.files) - len(reports)
        not_read = f" ({unreadable} could not be read)" if unreadable else ""
        print(f"{len(args.files)} file(s){not_read}: {errors} error(s), {warnings} warning(s)", file=sys.stderr)
    else:
        print(json.dumps(reports, indent=2, ensure_ascii=False))
    return 2 if io_error else 1 if any_error else 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``python -m restartkit``; returns the exit status."""
    p = argparse.ArgumentParser(prog="python -m restartkit", description="restartkit from Python.")
    sub = p.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="validate manifests (YAML or JSON, multi-document)")
    v.add_argument("files", nargs="+", metavar="FILE", help="files to validate; - reads standard input")
    v.add_argument("-k", "--kubernetes-version", metavar="VERSION")
    v.add_argument("--feature-gates", type=_gates, metavar="A=true,B=false")
    v.add_argument("--skip-defaulting", action="store_true")
    v.add_argument("-o", "--output", choices=("human", "json"), default="human",
                   help="human: one line per diagnostic; json: the report of `restartkit validate -o json`")
    c = sub.add_parser("conformance", help="run conformance vectors (conformance/FORMAT.md)")
    c.add_argument("files", nargs="+", metavar="FILE")
    args = p.parse_args(argv)
    if args.command == "validate":
        return _validate(args)
    return run_files(args.files, sys.stdout, sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
