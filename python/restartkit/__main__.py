"""Command line: ``python -m restartkit validate FILE...`` and
``python -m restartkit conformance FILE...`` (the exit codes of the ``restartkit`` CLI:
0 fine, 1 errors or failed vectors, 2 an unreadable file)."""

from __future__ import annotations

import argparse
import sys
from typing import Dict, List, Optional, Sequence

from . import RestartkitError, validate
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


def _validate(args: argparse.Namespace) -> int:
    status = 0
    errors = warnings = 0
    for path in args.files:
        name = "<stdin>" if path == "-" else path
        try:
            if path == "-":
                text = sys.stdin.read()
            else:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            print(f"error: {path}: {e}", file=sys.stderr)
            status = 2
            continue
        try:
            r = validate(
                text,
                kubernetes_version=args.kubernetes_version,
                feature_gates=args.feature_gates,
                skip_defaulting=args.skip_defaulting,
                file_name=name,
            )
            diags: List[Diagnostic] = list(r.errors) + list(r.warnings)
            n_err = len(r.errors)
        except RestartkitError as e:
            diags = list(e.diagnostics)
            n_err = len(diags)
        for d in diags:
            print(_line(name, d))
        errors += n_err
        warnings += len(diags) - n_err
        if n_err and status == 0:
            status = 1
    print(f"{len(args.files)} file(s): {errors} error(s), {warnings} warning(s)", file=sys.stderr)
    return status


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``python -m restartkit``; returns the exit status."""
    p = argparse.ArgumentParser(prog="python -m restartkit", description="restartkit from Python.")
    sub = p.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="validate manifests (YAML or JSON, multi-document)")
    v.add_argument("files", nargs="+", metavar="FILE", help="files to validate; - reads standard input")
    v.add_argument("-k", "--kubernetes-version", metavar="VERSION")
    v.add_argument("--feature-gates", type=_gates, metavar="A=true,B=false")
    v.add_argument("--skip-defaulting", action="store_true")
    c = sub.add_parser("conformance", help="run conformance vectors (conformance/FORMAT.md)")
    c.add_argument("files", nargs="+", metavar="FILE")
    args = p.parse_args(argv)
    if args.command == "validate":
        return _validate(args)
    return run_files(args.files, sys.stdout, sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
