"""The Pythonic API: conversions, result objects, exceptions, robustness."""

from __future__ import annotations

import array
import dataclasses
import inspect
import json
import pickle
import threading
from typing import Any, Callable, Dict, List, Tuple

import pytest

import restartkit
from restartkit import Diagnostic, RestartkitError, ValidationError, ValidationResult

from conftest import job, pod

BAD_POD_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  name: bad
spec:
  containers: 5
"""


def test_version_and_constants() -> None:
    assert restartkit.__version__ == restartkit.describe()["restartkitVersion"]
    assert restartkit.ACTIONS[0] == "DoNotRestart"
    assert restartkit.ACTIONS.index("FailJob") == 3
    assert restartkit.CONTRACT_VERSION == restartkit.describe()["contractVersion"]


def test_describe_lists_ops_and_versions() -> None:
    d = restartkit.describe()
    for op in ("validate", "containerRestart", "podFailurePolicy", "jobsetFailurePolicy", "backoff"):
        assert op in d["operations"]
    assert d["defaultKubernetesVersion"] in d["kubernetesVersions"]
    assert all("defaults" in g for g in d["featureGates"])


def test_schemas_are_json_schemas() -> None:
    s = restartkit.schemas()
    for name in ("Pod", "Job", "JobSet", "ValidateInput", "ValidateOutput", "Diagnostic", "Request", "Response"):
        assert name in s, name
    assert s["Diagnostic"]["properties"]["field"]["type"] == "string"


def test_handle_json_raw_contract_never_raises() -> None:
    ok = json.loads(restartkit.handle_json('{"op":"describe","input":{}}'))
    assert ok["status"] == "ok" and ok["op"] == "describe"
    bad = json.loads(restartkit.handle_json("{not json"))
    assert bad["status"] == "error" and bad["errors"][0]["message"]
    unknown = json.loads(restartkit.handle_json('{"op":"noSuchOp","input":{}}'))
    assert unknown["status"] == "error"
    assert unknown["errors"][0]["code"] == "unknown-op"
    assert json.loads(restartkit.handle_json(""))["status"] == "error"


def test_request_unknown_op_raises_with_field() -> None:
    with pytest.raises(RestartkitError) as ei:
        restartkit.request("noSuchOp", {})
    assert ei.value.field == "op"
    assert "noSuchOp" in ei.value.message
    assert isinstance(ei.value.diagnostics[0], Diagnostic)


def test_validate_dict_result_object_is_immutable() -> None:
    r = restartkit.validate(pod())
    assert isinstance(r, ValidationResult)
    assert r.valid is True and r.errors == () and isinstance(r.warnings, tuple)
    assert r.kubernetes_version == restartkit.describe()["defaultKubernetesVersion"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.valid = False  # type: ignore[misc]
    assert "ValidationResult(valid=True" in repr(r)


def test_kubernetes_version_and_gates_are_passed() -> None:
    r = restartkit.validate(pod(), kubernetes_version="1.34", feature_gates={"ContainerRestartRules": True})
    assert r.kubernetes_version == "1.34"
    with pytest.raises(RestartkitError):
        restartkit.validate(pod(), kubernetes_version="0.1")


def test_type_errors_inside_the_object_are_field_errors() -> None:
    obj = pod()
    obj["spec"]["containers"] = 5
    r = restartkit.validate(obj)
    assert not r.valid
    e = r.errors[0]
    assert e.field.startswith("spec.containers")
    assert e.type == "FieldValueTypeInvalid"
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.message = "x"  # type: ignore[misc]


def test_yaml_text_gives_lines_and_columns() -> None:
    r = restartkit.validate(BAD_POD_YAML)
    assert not r.valid
    e = r.errors[0]
    assert e.field.startswith("spec.containers")
    assert e.line == 6 and e.column is not None
    assert e.document == 0
    assert r.documents[0].kind == "Pod" and r.documents[0].name == "bad" and not r.documents[0].valid


def test_json_text_and_bytes_are_accepted() -> None:
    assert restartkit.validate(json.dumps(pod())).valid
    assert restartkit.validate(json.dumps(pod()).encode()).valid


def test_multi_document_yaml() -> None:
    text = BAD_POD_YAML + "---\n" + BAD_POD_YAML.replace("name: bad", "name: bad2")
    r = restartkit.validate(text)
    assert [d.name for d in r.documents] == ["bad", "bad2"]
    assert {e.document for e in r.errors} == {0, 1}
    assert sorted(e.line for e in r.errors if e.line) == [6, 13]


def test_check_raises_validation_error_like_pydantic() -> None:
    with pytest.raises(ValidationError) as ei:
        restartkit.check(BAD_POD_YAML)
    err = ei.value
    assert isinstance(err, RestartkitError) and isinstance(err, ValueError)
    assert err.error_count() == len(err.errors()) >= 1
    first = err.errors()[0]
    assert first["field"].startswith("spec.containers") and first["type"] == "FieldValueTypeInvalid"
    assert first["line"] == 6
    assert err.field == first["field"] and err.line == 6
    assert "validation error" in str(err) and "spec.containers" in str(err)
    again = pickle.loads(pickle.dumps(err))
    assert again.errors() == err.errors()


def test_check_returns_result_when_valid() -> None:
    assert restartkit.check(pod()).valid


def test_check_rejects_pod_failure_policy_without_never() -> None:
    # The cluster-toolkit #6306 mistake: podFailurePolicy needs restartPolicy Never.
    with pytest.raises(ValidationError) as ei:
        restartkit.check(job(restart_policy="OnFailure"))
    fields = [e["field"] for e in ei.value.errors()]
    assert "spec.template.spec.restartPolicy" in fields
    restartkit.check(job(restart_policy="Never"))


def test_malformed_yaml_is_an_error_of_its_document_with_line() -> None:
    # A document that cannot be read is judged as kubectl judges it: an error of that document,
    # the others still validated (docs/contract.md, "Streams").
    r = restartkit.validate("apiVersion: v1\nkind: Pod\nspec: [unclosed\n")
    assert not r.valid
    e = next(d for d in r.errors if d.code == "syntax")
    assert e.line is not None and e.line >= 3
    assert e.document == 0 and e.message.startswith("document 0 (from line 1)")


def test_wrong_python_types() -> None:
    with pytest.raises(TypeError):
        restartkit.validate(42)
    with pytest.raises(TypeError):
        restartkit.evaluate_container_exit(object(), "main", 1)
    with pytest.raises(TypeError):
        restartkit.compile([1, 2, 3])


def test_unencodable_values_name_their_field() -> None:
    obj = pod()
    obj["spec"]["containers"][0]["ports"] = {1, 2}
    with pytest.raises(RestartkitError) as ei:
        restartkit.validate(obj)
    assert ei.value.field == "input.object.spec.containers[0].ports"
    obj["spec"]["containers"][0]["ports"] = float("nan")
    with pytest.raises(RestartkitError, match="finite"):
        restartkit.validate(obj)
    with pytest.raises(RestartkitError) as ei:
        restartkit.validate({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": object()}})
    assert ei.value.field == "input.object.metadata.name"


def test_exit_code_of_wrong_type_is_a_field_error() -> None:
    with pytest.raises(RestartkitError) as ei:
        restartkit.request("containerRestart", {"pod": pod(), "container": "main", "exitCode": "one"})
    assert ei.value.field == "input.exitCode"
    with pytest.raises(RestartkitError) as ei:
        restartkit.evaluate_container_exit(pod(), "main", 2**40)
    assert ei.value.field == "input.exitCode"


def _nest(depth: int) -> Dict[str, Any]:
    d: Dict[str, Any] = {}
    cur = d
    for _ in range(depth):
        nxt: Dict[str, Any] = {}
        cur["a"] = nxt
        cur = nxt
    return d


@pytest.mark.parametrize("depth", [200, 5_000, 100_000])
def test_deep_nesting_is_an_error_not_a_crash(depth: int) -> None:
    obj = pod()
    obj["metadata"]["annotations"] = _nest(depth)
    with pytest.raises(RestartkitError):
        restartkit.validate(obj)


def test_deeply_nested_yaml_text_is_an_error_not_a_crash() -> None:
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  annotations: " + "[" * 50_000 + "]" * 50_000 + "\n"
    r = restartkit.validate(text)
    assert not r.valid
    assert [(e.code, e.line, e.document) for e in r.errors] == [("too-deep", 4, 0)]


def test_deeply_nested_json_request_is_an_error() -> None:
    resp = json.loads(restartkit.handle_json('{"op":"validate","input":{"object":' + "[" * 100_000 + "]" * 100_000 + "}}"))
    assert resp["status"] == "error"


def test_huge_lists() -> None:
    obj = pod()
    obj["spec"]["containers"] = [
        {"name": f"c{i}", "image": "busybox", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"} for i in range(100_000)
    ]
    r = restartkit.validate(obj)
    assert isinstance(r.valid, bool)
    big = job()
    big["spec"]["podFailurePolicy"]["rules"][0]["onExitCodes"]["values"] = list(range(1, 100_001))
    r = restartkit.validate(big)
    assert not r.valid  # upstream allows at most 255 values
    assert any(e.field.startswith("spec.podFailurePolicy.rules[0].onExitCodes.values") for e in r.errors)


def test_validate_many_matches_validate() -> None:
    objs: List[Any] = [pod(), BAD_POD_YAML, job("OnFailure")]
    many = restartkit.validate_many(objs)
    assert [m.valid for m in many] == [restartkit.validate(o).valid for o in objs]
    assert many[1].errors == restartkit.validate(BAD_POD_YAML).errors


def test_validate_releases_the_gil_and_is_thread_safe() -> None:
    results: List[bool] = []

    def work() -> None:
        for _ in range(20):
            results.append(restartkit.validate(BAD_POD_YAML).valid)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [False] * 80


def test_backoff_curve_accepts_snake_case() -> None:
    out = restartkit.backoff_curve(
        "kubelet",
        restarts=5,
        feature_gates={"ReduceDefaultCrashLoopBackOffDecay": False, "KubeletCrashLoopBackOffMax": False},
    )
    assert out["initialSeconds"] == 10
    delays = out["delaysSeconds"]
    assert delays is not None and delays[:3] == [0, 10, 20]


def test_evaluate_container_exit() -> None:
    p = pod(restartPolicy="OnFailure")
    assert restartkit.evaluate_container_exit(p, "main", 1)["action"] == "Restart"
    assert restartkit.evaluate_container_exit(p, "main", 0)["action"] == "DoNotRestart"


def test_evaluate_pod_failure() -> None:
    failed = pod(restartPolicy="Never")
    failed["status"] = {
        "phase": "Failed",
        "containerStatuses": [
            {"name": "trainer", "state": {"terminated": {"exitCode": 42}}},
            {"name": "sidecar", "state": {"terminated": {"exitCode": 0}}},
        ],
    }
    out = restartkit.evaluate_pod_failure(job(), failed)
    assert out["matched"] is True and out["action"] == "FailJob"


def test_evaluate_jobset_failure_accepts_yaml() -> None:
    js = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train, namespace: default}
spec:
  failurePolicy:
    maxRestarts: 2
  replicatedJobs:
  - name: workers
    replicas: 2
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{name: trainer, image: trainer:1}]
"""
    failed = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "train-workers-0", "namespace": "default", "labels": {"jobset.sigs.k8s.io/replicatedjob-name": "workers"}},
        "status": {"conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}]},
    }
    out = restartkit.evaluate_jobset_failure(js, [failed])
    assert out["action"] == "RestartJobSet"


# --- an object the API server would refuse ----------------------------------------------------

BOGUS_FIELD = "spec.podFailurePolicy.rules[0].action"


def bogus_job() -> Dict[str, Any]:
    """``job()`` with its FailJob rule's action misspelt: the API server refuses it."""
    j = job()
    j["spec"]["podFailurePolicy"]["rules"][0]["action"] = "Bogus"
    return j


def failed_trainer(code: int) -> Dict[str, Any]:
    failed = pod(restartPolicy="Never")
    failed["status"] = {"phase": "Failed", "containerStatuses": [{"name": "trainer", "state": {"terminated": {"exitCode": code}}}]}
    return failed


def test_evaluation_results_warn_about_an_invalid_job() -> None:
    out = restartkit.evaluate_pod_failure(bogus_job(), failed_trainer(42))
    # Upstream's matcher skips the unknown action: nothing matches, the failure counts.
    assert out["matched"] is False and out["countFailed"] is True
    [w] = out["warnings"]
    assert w["code"] == "invalid-object" and w["severity"] == "warning"
    assert w["field"] == BOGUS_FIELD and w["type"] == "FieldValueNotSupported"
    assert w["message"].startswith(BOGUS_FIELD + ': Unsupported value: "Bogus"')
    assert restartkit.evaluate_pod_failure(job(), failed_trainer(42))["warnings"] == []
    # The what-if pipeline (`restartkit evaluate`) through the generic request.
    what_if = restartkit.request("whatIf", {"object": bogus_job(), "container": "trainer", "exitCode": 42})
    assert [w["field"] for w in what_if["warnings"]] == [BOGUS_FIELD]
    assert restartkit.request("whatIf", {"object": job(), "container": "trainer", "exitCode": 42})["warnings"] == []


def test_kubelet_evaluation_warns_about_an_invalid_pod() -> None:
    bad = restartkit.evaluate_container_exit(pod(restartPolicy="Sometimes"), "main", 1)
    assert [(w["field"], w["code"]) for w in bad["warnings"]] == [("spec.restartPolicy", "invalid-object")]
    assert restartkit.evaluate_container_exit(pod(restartPolicy="Never"), "main", 1)["warnings"] == []


def test_compiled_policy_warns_once_and_decides_as_upstream() -> None:
    policy = restartkit.compile(bogus_job())
    assert policy.decide("trainer", 42) == "Count"
    [w] = policy.warnings
    assert isinstance(w, Diagnostic)
    assert (w.field, w.type, w.code, w.severity) == (BOGUS_FIELD, "FieldValueNotSupported", "invalid-object", "warning")
    assert restartkit.compile(job()).warnings == ()
    assert restartkit.compile(job()).decide("trainer", 42) == "FailJob"


# --- the compiled fast path ------------------------------------------------------------------


def test_compile_decide_and_decide_many() -> None:
    policy = restartkit.compile(job())
    assert policy.containers[:2] == ("trainer", "sidecar")
    assert policy.decide("trainer", 42) == "FailJob"
    assert policy.decide(0, 42) == "FailJob"
    assert policy.decide("trainer", 1) == "Count"
    codes = [0, 1, 42, 137, -1]
    expected = bytes(restartkit.ACTIONS.index(policy.decide("trainer", c)) for c in codes)
    assert policy.decide_many("trainer", codes) == expected
    assert policy.decide_many("trainer", tuple(codes)) == expected
    assert policy.decide_many("trainer", array.array("i", codes)) == expected
    assert policy.decide_many("trainer", memoryview(array.array("i", codes))) == expected
    assert policy.decide_many("trainer", array.array("i", codes).tobytes()) == expected
    assert policy.decide_many("trainer", bytearray(array.array("i", codes).tobytes())) == expected
    assert policy.decide_many("trainer", []) == b""


def test_decide_every_calling_form() -> None:
    # On CPython >= 3.10 `decide` and `decide_code` take a vectorcall path that handles two
    # positional arguments itself and hands every other form to the general method: each form
    # must give the same answer (or the same error) as the plain call.
    policy = restartkit.compile(job())
    built = "".join(["trai", "ner"])  # equal to, but not the same object as, the literal

    class Name(str):
        pass

    forms: List[Tuple[Callable[..., object], object]] = [
        (policy.decide, "FailJob"),
        (policy.decide_code, restartkit.ACTIONS.index("FailJob")),
    ]
    for decide, fail_job in forms:
        assert decide("trainer", 42) == fail_job
        assert decide(built, 42) == fail_job
        assert decide(Name("trainer"), 42) == fail_job
        assert decide(policy.containers[0], 42) == fail_job
        assert decide(0, 42) == fail_job
        assert decide(False, 42) == fail_job
        assert decide(container="trainer", exit_code=42) == fail_job
        assert decide("trainer", exit_code=42) == fail_job
        assert decide("sidecar", 42) != fail_job
        with pytest.raises(TypeError, match="exit_code"):
            decide("trainer")
        with pytest.raises(TypeError):
            decide("trainer", 42, 1)
        with pytest.raises(TypeError):
            decide("trainer", 42, container="trainer")
        with pytest.raises(TypeError):
            decide("trainer", "42")
        with pytest.raises(OverflowError):
            decide(0, -(2**40))
        with pytest.raises(RestartkitError, match="out of range"):
            decide(2**40, 1)
        with pytest.raises(RestartkitError, match="nope"):
            decide(container="nope", exit_code=1)
    assert restartkit.Policy.decide(policy, "trainer", 42) == "FailJob"
    assert restartkit.Policy.decide_code(policy, "trainer", 42) == restartkit.ACTIONS.index("FailJob")
    with pytest.raises(TypeError):
        restartkit.Policy.decide(object(), "trainer", 42)  # type: ignore[arg-type]
    # Interned action names: the same object whichever way the container is named.
    assert policy.decide("trainer", 42) is policy.decide(built, 42) is policy.decide(0, 42)


def test_decide_docs_and_signature() -> None:
    for name, doc in (("decide", "The action name"), ("decide_code", "The action code")):
        method = getattr(restartkit.Policy, name)
        assert method.__name__ == name
        assert list(inspect.signature(method).parameters) == ["self", "container", "exit_code"]
        assert (method.__doc__ or "").startswith(doc)


def test_native_module_imports_again() -> None:
    # Importing the extension again runs its initialisation again (the type stays the same): the
    # vectorcall methods must not be installed twice, and decisions must still work.
    import importlib
    import sys

    saved = sys.modules.pop("restartkit._native")
    try:
        again = importlib.import_module("restartkit._native")
        assert again.Policy is restartkit.Policy
        assert restartkit.compile(job()).decide("trainer", 42) == "FailJob"
    finally:
        sys.modules["restartkit._native"] = saved


def test_decide_many_huge_batch() -> None:
    policy = restartkit.compile(job())
    codes = array.array("i", [i % 256 for i in range(100_000)])
    out = policy.decide_many("trainer", codes)
    assert len(out) == 100_000
    assert out[42] == restartkit.ACTIONS.index("FailJob")
    assert out[1] == restartkit.ACTIONS.index(policy.decide("trainer", 1))


def test_compile_errors() -> None:
    policy = restartkit.compile(job())
    with pytest.raises(RestartkitError) as ei:
        policy.decide("nope", 1)
    assert ei.value.field == "container" and "nope" in ei.value.message
    with pytest.raises(RestartkitError):
        policy.decide(99, 1)
    with pytest.raises(RestartkitError):
        policy.decide(-1, 1)
    with pytest.raises(TypeError):
        policy.decide(1.5, 1)  # type: ignore[arg-type]
    with pytest.raises(OverflowError):
        policy.decide("trainer", 2**40)
    with pytest.raises(RestartkitError, match="int32"):
        policy.decide_many("trainer", array.array("d", [1.0]))
    with pytest.raises(RestartkitError, match="multiple of 4"):
        policy.decide_many("trainer", b"\x00\x01\x02")
    with pytest.raises(RestartkitError):
        policy.decide_many("trainer", [1, "x"])
    with pytest.raises(TypeError):
        policy.decide_many("trainer", 5)
    with pytest.raises(RestartkitError):
        restartkit.compile({"apiVersion": "v1", "kind": "ConfigMap"})


RULES_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  restartPolicy: Never
  containers:
  - name: app
    image: busybox
    restartPolicy: Never
    restartPolicyRules:
    - action: Restart
      exitCodes: {operator: In, values: [42]}
"""


def test_field_validation_modes_of_an_older_minor() -> None:
    # restartPolicyRules came in 1.34: 1.33 does not know the fields.
    strict = restartkit.validate(RULES_POD, kubernetes_version="1.33", field_validation="Strict")
    assert not strict.valid
    assert any("unknown field" in e.message and "restartPolicyRules" in e.message for e in strict.errors)
    warn = restartkit.validate(RULES_POD, kubernetes_version="1.33", field_validation="Warn")
    assert any("restartPolicyRules" in w.message for w in warn.warnings)
    ignore = restartkit.validate(RULES_POD, kubernetes_version="1.33", field_validation="Ignore")
    assert not any("restartPolicyRules" in w.message for w in ignore.warnings)
    many = restartkit.validate_many([RULES_POD], kubernetes_version="1.33", field_validation="Strict")
    assert [r.valid for r in many] == [False]
    with pytest.raises(ValidationError):
        restartkit.check(RULES_POD, kubernetes_version="1.33", field_validation="Strict")


def test_compare_versions_reports_the_upgrade() -> None:
    r = restartkit.compare_versions(RULES_POD, from_version="1.33", to_version="v1.35.4", field_validation="Strict", exit_codes=[42])
    assert (r["fromVersion"], r["toVersion"]) == ("1.33", "1.35")
    (doc,) = r["documents"]
    assert (doc["from"]["valid"], doc["to"]["valid"]) == (False, True)
    decision = next(c for c in doc["changes"] if c["kind"] == "decision")
    assert decision["exitCode"] == 42
    assert decision["to"] == "kubelet Restart, Pod Running"
    assert r["decisionsChanged"] == 1
    with pytest.raises(RestartkitError) as e:
        restartkit.compare_versions(RULES_POD, from_version="1.30", to_version="1.35")
    assert "1.31 to 1.37" in str(e.value)
