"""examples/python/training_jobset.py runs and catches the cluster-toolkit #6306 mistake."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_training_jobset_example() -> None:
    p = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "python" / "training_jobset.py")], capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "spec.template.spec.restartPolicy" in p.stdout
    assert p.stdout.rstrip().endswith("OK")
