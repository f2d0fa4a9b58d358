"""The dict path into the core (``_native.call``) must answer exactly as the JSON-text path
(``handle_json``) does, and hand back to it whatever only JSON text can explain."""

from __future__ import annotations

import json
import math
from typing import Any, Dict

import pytest

import restartkit
from restartkit import _native

POD: Dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p", "labels": {"big": 2**63, "neg": -(2**63), "f": 0.5, "t": True, "n": None}},
    "spec": {
        "restartPolicy": "Never",
        "containers": [
            {
                "name": "c",
                "image": "i",
                "restartPolicy": "Never",
                "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": (42, 0)}}],
            }
        ],
    },
}


@pytest.mark.parametrize(
    "op,inp",
    [
        ("validate", {"object": POD}),
        ("validate", {"object": POD, "kubernetesVersion": "1.33"}),
        ("containerRestart", {"pod": POD, "container": "c", "exitCode": 42}),
        ("backoff", {"restarts": 3}),
        ("validate", {"object": POD, "sauce": 1}),
        ("noSuchOp", {}),
    ],
)
def test_dict_path_answers_as_json_text_does(op: str, inp: Dict[str, Any]) -> None:
    direct = _native.call(op, inp)
    assert direct is not None
    via_text = json.loads(_native.handle_json(json.dumps({"op": op, "input": inp})))
    assert direct == via_text


@pytest.mark.parametrize(
    "inp",
    [
        {"object": {"metadata": {"labels": {"x": math.nan}}}},
        {"object": {1: "non-str key"}},
        {"object": {"spec": object()}},
        {"object": {"n": 2**64}},
    ],
)
def test_what_only_json_text_explains_is_handed_back(inp: Dict[str, Any]) -> None:
    assert _native.call("validate", inp) is None


def test_nan_still_names_its_field() -> None:
    with pytest.raises(restartkit.RestartkitError) as e:
        restartkit.validate({"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"x": math.nan}}})
    assert "metadata.labels.x" in str(e.value.field) + e.value.message


def test_decide_names_and_indices() -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j"},
        "spec": {
            "podFailurePolicy": {"rules": [{"action": "FailJob", "onExitCodes": {"containerName": "b", "operator": "In", "values": [3]}}]},
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "a", "image": "i"}, {"name": "b", "image": "i"}]}},
        },
    }
    p = restartkit.compile(job)
    assert p.decide("b", 3) == "FailJob"
    assert p.decide(1, 3) == "FailJob"
    assert p.decide("a", 3) == "Count"
    # The same interned string object every time: no allocation per call.
    assert p.decide("b", 3) is p.decide("b", 3)
    with pytest.raises(restartkit.RestartkitError, match='no container named "c"'):
        p.decide("c", 3)
    with pytest.raises(restartkit.RestartkitError, match="out of range"):
        p.decide(2, 3)
    with pytest.raises(TypeError):
        p.decide(["a"], 3)  # type: ignore[arg-type]
