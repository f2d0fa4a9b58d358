"""Shared paths for the integration tests (pre-commit hook, GitHub Action, SARIF)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
VENV_BIN = Path(sys.executable).parent


@pytest.fixture(scope="session")
def wheel_dir() -> Path:
    """The directory holding the restartkit wheel under test (make passes RESTARTKIT_WHEEL_DIR)."""
    d = os.environ.get("RESTARTKIT_WHEEL_DIR")
    if not d or not list(Path(d).glob("restartkit-*.whl")):
        pytest.fail("RESTARTKIT_WHEEL_DIR must name a directory with the restartkit wheel: run `make test-integrations`")
    return Path(d)


def clean_path() -> str:
    """A PATH with this venv, git and the system tools, and no cargo: what a user's machine has."""
    keep = [str(VENV_BIN)]
    git = shutil.which("git")
    if git:
        keep.append(str(Path(git).parent))
    keep += ["/usr/local/bin", "/usr/bin", "/bin"]
    return os.pathsep.join(p for p in dict.fromkeys(keep) if not (Path(p) / "cargo").exists())
