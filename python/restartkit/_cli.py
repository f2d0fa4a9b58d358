"""The ``restartkit`` console command (and ``python -m restartkit``): the Rust CLI itself, run
in this process, so output and exit codes are the CLI's (0 fine, 1 errors found, 2 unreadable
input or a usage error)."""

from __future__ import annotations

import signal
import sys
from typing import Optional, Sequence

from . import _native


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs ``restartkit ARGS...``; returns the exit status (``argv`` defaults to ``sys.argv[1:]``)."""
    # The CLI writes to the process's own stdout/stderr: what Python buffered goes first.
    sys.stdout.flush()
    sys.stderr.flush()
    # Ctrl-C stops the command as it stops the binary: Python's handler would only set a flag
    # that native code never looks at.
    previous = signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        return _native.run_cli(list(sys.argv[1:] if argv is None else argv))
    finally:
        signal.signal(signal.SIGINT, previous)


def console() -> None:
    """Entry point of the ``restartkit`` console script."""
    raise SystemExit(main())


def kubectl_plugin() -> None:
    """Entry point of the ``kubectl-restartkit`` console script, kubectl's plugin: ``kubectl
    restartkit explain job/NAME`` runs ``restartkit kubectl explain job/NAME``."""
    raise SystemExit(main(["kubectl", *sys.argv[1:]]))
