"""restartkit.explain answers the parity snapshots exactly as the core does
(conformance/explain-parity.json, shared with the Node and wasm tests)."""

import json
import re
from pathlib import Path
from typing import Any, Dict, List

import pytest

import restartkit

PARITY: List[Dict[str, Any]] = json.loads(
    (Path(__file__).resolve().parents[2] / "conformance" / "explain-parity.json").read_text()
)


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@pytest.mark.parametrize("entry", PARITY, ids=[e["id"] for e in PARITY])
def test_explain_answers_as_the_core(entry: Dict[str, Any]) -> None:
    given = dict(entry["input"])
    objects = given.pop("source", None) or given.pop("objects")
    options = {snake(k): v for k, v in given.items()}
    assert restartkit.explain(objects, **options) == entry["output"]
