"""Every op of the core's table is a function of ``restartkit`` (snake_case), and each refuses a
malformed input with a RestartkitError naming the field, never a crash."""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List

import pytest

import restartkit
from restartkit import RestartkitError, _ops

POD: Dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p"},
    "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]},
}


def _snake(name: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def test_every_op_of_the_table_is_exposed() -> None:
    table: List[str] = list(restartkit.describe()["operations"])
    assert list(_ops.OPS) == table
    for op in table:
        name = _snake(op)
        assert _ops.OPS[op] == name
        assert callable(getattr(restartkit, name)), name
        assert callable(getattr(_ops, name)), name


def _positional(fn: Callable[..., Any]) -> List[Any]:
    """Plausible values for a generated wrapper's positional arguments, by their annotation."""
    import inspect

    out: List[Any] = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind is not p.POSITIONAL_OR_KEYWORD:
            continue
        ann = str(p.annotation)
        out.append({"KubeObject": POD, "str": "c", "int": 1, "Iterable[KubeObject]": []}.get(ann, []))
    return out


@pytest.mark.parametrize("op", list(_ops.OPS))
def test_malformed_input_names_the_field(op: str) -> None:
    fn = getattr(_ops, _ops.OPS[op])
    args = _positional(fn)
    if op == "describe":  # takes no input: anything given is ignored
        assert "operations" in fn(not_a_member=1)
        return
    with pytest.raises(RestartkitError) as e:
        fn(*args, not_a_member=1)
    msg = str(e.value)
    assert "notAMember" in msg or "missing field `" in msg, msg
    assert e.value.diagnostics[0].field.startswith("input") or e.value.diagnostics[0].field == "", e.value.diagnostics


def test_a_wrong_type_names_its_field() -> None:
    with pytest.raises(RestartkitError) as e:
        restartkit.container_restart(POD, "c", "one")  # type: ignore[arg-type]
    assert "exitCode" in e.value.diagnostics[0].field, e.value.diagnostics
    with pytest.raises(RestartkitError) as e:
        restartkit.list_gates(kubernetes_version="1.20")
    assert e.value.diagnostics[0].field == "kubernetesVersion"


def test_list_gates() -> None:
    out = restartkit.list_gates(kubernetes_version="1.31", name_contains="sidecar")
    assert out["kubernetesVersion"] == "1.31"
    side = {g["name"]: g for g in out["gates"]}["SidecarContainers"]
    assert (side["stage"], side["default"]) == ("Beta", True)
