"""Every conformance vector, through the Python front end."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from restartkit._conformance import Mismatch, run_vector

from conftest import load_vectors

VECTORS = load_vectors()


def test_there_are_vectors() -> None:
    assert len(VECTORS) >= 100


@pytest.mark.parametrize("vector", VECTORS, ids=[str(v.get("id")) for v in VECTORS])
def test_vector(vector: Dict[str, Any]) -> None:
    try:
        run_vector(vector)
    except Mismatch as e:
        pytest.fail(f"{vector['id']}: {e}", pytrace=False)
