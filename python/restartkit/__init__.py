"""restartkit: how Kubernetes restarts and fails containers, Pods, Jobs and JobSets, exactly as
upstream does it (kubelet, kube-apiserver validation, Job controller, JobSet webhook and
controller, OpenKruise ContainerRecreateRequest), for the Kubernetes version and feature gates
you name.

>>> import restartkit
>>> r = restartkit.validate(job_dict)                      # doctest: +SKIP
>>> r.valid, [e.field for e in r.errors]                    # doctest: +SKIP
>>> restartkit.check("job.yaml contents ...")             # doctest: +SKIP  (raises ValidationError)
>>> policy = restartkit.compile(job_dict)                   # doctest: +SKIP
>>> policy.decide("trainer", 137)                           # doctest: +SKIP
'FailJob'

Objects may be dicts (API JSON, camelCase), YAML or JSON text, a path to a file (a ``str``
naming an existing file is read as that file, as ``open()`` does), objects of the official
``kubernetes`` package (``V1Pod``, ``V1Job``, ...), or any model with ``to_dict()`` giving API
JSON (the Kubeflow SDK's ``kubeflow_trainer_api`` models).

Kubeflow Trainer: :func:`trainjob` gives the JobSet the trainer builds from a TrainJob and its
runtime, before you submit it (``TrainerClient().train(...)`` submits such a TrainJob);
:func:`validate`, :func:`what_if` and :func:`simulate` take a TrainJob with ``runtime=``.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union, cast

from . import _native
from ._errors import RestartkitError, ValidationError
from ._model import Diagnostic, DocumentSummary, TrainJobResult, ValidationResult
from ._sweep import load_scenario, read_text_or_path, sweep, sweep_rows

if TYPE_CHECKING:
    from ._types import (
        BackoffOutput,
        CompareVersionsOutput,
        ContainerRestartOutput,
        Description,
        JobsetFailurePolicyOutput,
        PodFailurePolicyOutput,
        ResolveOutput,
        SimulateOutput,
        ValidateOutput,
        WhatIfOutput,
    )

__all__ = [
    "ACTIONS",
    "CONTRACT_VERSION",
    "Diagnostic",
    "DocumentSummary",
    "Policy",
    "RestartkitError",
    "TrainJobResult",
    "ValidationError",
    "ValidationResult",
    "__version__",
    "backoff_curve",
    "check",
    "compare_versions",
    "compile",
    "describe",
    "evaluate_container_exit",
    "evaluate_jobset_failure",
    "evaluate_pod_failure",
    "handle_json",
    "request",
    "schemas",
    "load_scenario",
    "simulate",
    "sweep",
    "sweep_rows",
    "trainjob",
    "validate",
    "validate_many",
    "what_if",
]

__version__: str = _native.VERSION
"""restartkit's version (the Rust core's)."""

CONTRACT_VERSION: str = _native.CONTRACT_VERSION
"""Version of the JSON request/response contract."""

ACTIONS: Tuple[str, ...] = _native.ACTIONS
"""Action names by code, as :meth:`Policy.decide_many` returns them: ``ACTIONS[code]``."""

Policy = _native.Policy
"""A Pod or Job compiled for fast decisions; made by :func:`compile`."""

#: Anything restartkit accepts as a Kubernetes object.
KubeObject = Union[Mapping[str, Any], str, bytes, "os.PathLike[str]", Any]


def handle_json(request: str) -> str:
    """The raw JSON contract: ``{"op": ..., "input": {...}}`` as JSON text in, the response as
    JSON text out (``{"status": "ok", "result": ...}`` or ``{"status": "error", "errors": [...]}``).
    Never raises; runs without the GIL. Unknown ops are answered by the core, not filtered here."""
    return _native.handle_json(request)


# ---------------------------------------------------------------------------------------------
# Input conversion

_api_client: Any = None


def _sanitize_kubernetes(obj: Any) -> Any:
    """Converts an object of the official ``kubernetes`` package to API JSON (camelCase)."""
    global _api_client
    if _api_client is None:
        from kubernetes.client import ApiClient  # imported lazily: an optional dependency

        _api_client = ApiClient()
    return _api_client.sanitize_for_serialization(obj)


def _is_kubernetes_model(obj: Any) -> bool:
    t = type(obj)
    return hasattr(t, "openapi_types") and hasattr(t, "attribute_map")


def _decode_text(b: bytes) -> str:
    """UTF-8 text from bytes, or a RestartkitError (code ``invalid-utf8``) naming the line and
    column of the first byte that is not UTF-8, as every front end reports it."""
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError as e:
        good = b[: e.start].decode("utf-8", errors="replace")
        line = good.count("\n") + 1
        column = len(good.rsplit("\n", 1)[-1]) + 1
        raise RestartkitError(
            [
                Diagnostic(
                    severity="error",
                    field="",
                    type=None,
                    message=f"line {line} column {column}: not UTF-8 text (byte {e.start})",
                    origin="restartkit",
                    code="invalid-utf8",
                    line=line,
                    column=column,
                )
            ]
        ) from None


def _first_document(text: Union[str, bytes, "os.PathLike[str]"], what: str) -> Any:
    if isinstance(text, bytes):
        text = _decode_text(text)
    text, _ = read_text_or_path(text, what)
    docs = json.loads(_native.parse_source(text))
    if not docs:
        raise RestartkitError(
            [Diagnostic(severity="error", field=what, type=None, message=f"{what}: the text holds no document", origin="restartkit", code="invalid-input")]
        )
    return docs[0]


def _has_to_dict(obj: Any) -> bool:
    """A model that gives its API JSON with ``to_dict()`` (the Kubeflow SDK's
    ``kubeflow_trainer_api`` models; the ``kubernetes`` package's are handled apart: their
    ``to_dict()`` gives Python attribute names, not the API's)."""
    return callable(getattr(obj, "to_dict", None)) and not _is_kubernetes_model(obj)


def _plain(obj: Any, what: str) -> Any:
    """A Kubernetes object as plain JSON-able data (dict)."""
    if isinstance(obj, Mapping):
        return obj
    if isinstance(obj, (str, bytes, os.PathLike)):
        return _first_document(obj, what)
    if _is_kubernetes_model(obj):
        return _sanitize_kubernetes(obj)
    if _has_to_dict(obj):
        return obj.to_dict()
    raise TypeError(
        f"{what} must be a dict, YAML/JSON text, a file path, a kubernetes client object (V1Pod, V1Job, ...) or a model with to_dict(), not {type(obj).__name__}"
    )


def _find_unencodable(value: Any, path: str, depth: int = 0) -> Optional[Tuple[str, str]]:
    """Where a value json cannot encode sits, and why (only run after json.dumps failed)."""
    if depth > 200:
        return (path, "nested too deeply")
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if value == value and value not in (float("inf"), float("-inf")) else (path, f"{value} is not a finite number")
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                return (path, f"map keys must be strings, not {type(k).__name__}")
            found = _find_unencodable(v, f"{path}.{k}" if path else k, depth + 1)
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = _find_unencodable(v, f"{path}[{i}]", depth + 1)
            if found:
                return found
        return None
    if _is_kubernetes_model(value):
        return None
    return (path, f"a value of Python type {type(value).__name__} is not JSON data")


def _default(o: Any) -> Any:
    if _is_kubernetes_model(o):
        return _sanitize_kubernetes(o)
    raise TypeError(type(o).__name__)


def _dumps(value: Any, field: str) -> str:
    """JSON text of ``value``; a value JSON cannot hold raises RestartkitError naming its field."""
    try:
        return json.dumps(value, allow_nan=False, separators=(",", ":"), default=_default)
    except RecursionError:
        raise RestartkitError(
            [Diagnostic(severity="error", field=field, type=None, message=f"{field}: the object is nested too deeply", origin="restartkit", code="invalid-input")]
        ) from None
    except (TypeError, ValueError) as e:
        found = _find_unencodable(value, field)
        where, why = found if found else (field, str(e))
        raise RestartkitError(
            [Diagnostic(severity="error", field=where, type=None, message=f"{where}: {why}", origin="restartkit", code="invalid-input")]
        ) from None


def _encode(op: str, inp: Mapping[str, Any]) -> str:
    return '{"op":%s,"input":%s}' % (json.dumps(op), _dumps(inp, "input"))


def _decode(text: str) -> Tuple[Any, Tuple[Diagnostic, ...]]:
    return _unpack(json.loads(text))


def _request(op: str, inp: Mapping[str, Any]) -> Tuple[Any, Tuple[Diagnostic, ...]]:
    """One contract call. Plain dicts go to the core without JSON text (``_native.call``); an
    input only JSON text can explain (NaN, non-str keys, client objects) takes that path, so
    its error names the field."""
    resp = _native.call(op, inp)
    if resp is None:
        return _decode(_native.handle_json(_encode(op, inp)))
    return _unpack(resp)


def _unpack(resp: Dict[str, Any]) -> Tuple[Any, Tuple[Diagnostic, ...]]:
    if resp.get("status") != "ok":
        raise RestartkitError([Diagnostic._from_dict(d) for d in resp.get("errors", [])])
    warnings = tuple(Diagnostic._from_dict(d) for d in resp.get("warnings", []))
    return resp.get("result"), warnings


def _options(kubernetes_version: Optional[str], feature_gates: Optional[Mapping[str, bool]]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    if kubernetes_version is not None:
        out["kubernetesVersion"] = str(kubernetes_version)
    if feature_gates is not None:
        out["featureGates"] = dict(feature_gates)
    return out


def request(op: str, input: Mapping[str, Any]) -> Any:
    """Runs any contract operation (``validate``, ``crrValidate``, ``containerRestart``,
    ``containerRestartable``, ``matchRestartRule``, ``statusTransition``, ``podFailurePolicy``,
    ``jobsetFailurePolicy``, ``backoff``, ``describe``, and any the core adds) with ``input`` in the
    contract's camelCase shape, and returns its ``result``. Raises :class:`RestartkitError` when
    the request fails."""
    return _request(op, input)[0]


# ---------------------------------------------------------------------------------------------
# Validation


#: A Kubeflow TrainingRuntime or ClusterTrainingRuntime (or several), given beside a TrainJob:
#: anything :data:`KubeObject` is, or a sequence of them.
RuntimeLike = Union[KubeObject, Sequence[KubeObject]]


def _runtimes_input(runtime: Optional[RuntimeLike]) -> List[Dict[str, Any]]:
    """The contract's ``runtimes`` (RuntimeInput objects) for ``runtime=``."""
    if runtime is None:
        return []
    items: Sequence[Any]
    if isinstance(runtime, (Mapping, str, bytes, os.PathLike)) or _is_kubernetes_model(runtime) or _has_to_dict(runtime):
        items = [runtime]
    else:
        items = list(runtime)
    out: List[Dict[str, Any]] = []
    for i, r in enumerate(items):
        what = "runtime" if len(items) == 1 else f"runtime[{i}]"
        if isinstance(r, bytes):
            r = _decode_text(r)
        if isinstance(r, (str, os.PathLike)):
            text, file_name = read_text_or_path(r, what)
            entry: Dict[str, Any] = {"source": text}
            if file_name is not None:
                entry["fileName"] = file_name
            out.append(entry)
        else:
            out.append({"object": _plain(r, what)})
    return out


def _validate_input(
    obj: KubeObject,
    kubernetes_version: Optional[str],
    feature_gates: Optional[Mapping[str, bool]],
    skip_defaulting: bool,
    file_name: Optional[str],
    field_validation: Optional[str] = None,
    runtime: Optional[RuntimeLike] = None,
) -> Dict[str, Any]:
    inp = _options(kubernetes_version, feature_gates)
    if field_validation is not None:
        inp["fieldValidation"] = field_validation
    path = _put_object(inp, obj)
    if skip_defaulting:
        inp["skipDefaulting"] = True
    if file_name is None:
        file_name = path
    if file_name is not None:
        inp["fileName"] = file_name
    runtimes = _runtimes_input(runtime)
    if runtimes:
        inp["runtimes"] = runtimes
    return inp


def _put_object(inp: Dict[str, Any], obj: KubeObject) -> Optional[str]:
    """Puts ``obj`` into a validate-like input: text as ``source``, an object as ``object``.
    Returns the path of the file read, when ``obj`` named one."""
    if isinstance(obj, bytes):
        obj = _decode_text(obj)
    if isinstance(obj, (str, os.PathLike)):
        text, path = read_text_or_path(obj, "obj")
        inp["source"] = text
        return path
    if isinstance(obj, Mapping):
        inp["object"] = obj
    elif _is_kubernetes_model(obj):
        inp["object"] = _sanitize_kubernetes(obj)
    elif _has_to_dict(obj):
        inp["object"] = obj.to_dict()
    else:
        raise TypeError(
            f"obj must be a dict, YAML/JSON text, a file path, a kubernetes client object (V1Pod, V1Job, ...) or a model with to_dict(), not {type(obj).__name__}"
        )
    return None


def validate(
    obj: KubeObject,
    *,
    kubernetes_version: Optional[str] = None,
    feature_gates: Optional[Mapping[str, bool]] = None,
    skip_defaulting: bool = False,
    file_name: Optional[str] = None,
    field_validation: Optional[str] = None,
    runtime: Optional[RuntimeLike] = None,
) -> ValidationResult:
    """Validates a Pod, Job, JobSet, Kubeflow TrainJob, ContainerRecreateRequest or
    KubeletConfiguration as kube-apiserver (and the JobSet / Kubeflow Trainer / OpenKruise
    webhooks) would on create.

    ``obj`` is a dict, YAML or JSON text (several documents allowed; diagnostics then carry
    ``line`` and ``column``), a file path (a ``str`` naming an existing file is read), a
    ``kubernetes`` client object, or a model with ``to_dict()``. A TrainJob is checked with its
    runtime (in the text, or ``runtime=``: a TrainingRuntime or ClusterTrainingRuntime, or a
    list) and with the JobSet the trainer builds from the two. Upstream defaulting runs first
    unless ``skip_defaulting``. ``field_validation`` is the API server's handling of fields the
    Kubernetes version does not know: ``"Strict"`` (refused, as kubectl asks), ``"Warn"`` (the
    default: a warning each) or ``"Ignore"``. An invalid object is a result with ``valid=False``;
    only a request restartkit cannot answer raises :class:`RestartkitError`.
    """
    inp = _validate_input(obj, kubernetes_version, feature_gates, skip_defaulting, file_name, field_validation, runtime)
    result, warnings = _request("validate", inp)
    return ValidationResult._from_output(cast("ValidateOutput", result), warnings)


def validate_many(
    objs: Iterable[KubeObject],
    *,
    kubernetes_version: Optional[str] = None,
    feature_gates: Optional[Mapping[str, bool]] = None,
    skip_defaulting: bool = False,
    field_validation: Optional[str] = None,
) -> List[ValidationResult]:
    """Validates many objects in one call into the core, without holding the GIL while the core
    works. Returns one result per object, in order; raises on the first request error."""
    reqs = [
        _encode("validate", _validate_input(o, kubernetes_version, feature_gates, skip_defaulting, None, field_validation))
        for o in objs
    ]
    out = []
    for text in _native.handle_json_many(reqs):
        result, warnings = _decode(text)
        out.append(ValidationResult._from_output(cast("ValidateOutput", result), warnings))
    return out


def check(
    obj: KubeObject,
    *,
    kubernetes_version: Optional[str] = None,
    feature_gates: Optional[Mapping[str, bool]] = None,
    skip_defaulting: bool = False,
    field_validation: Optional[str] = None,
    runtime: Optional[RuntimeLike] = None,
) -> ValidationResult:
    """Like :func:`validate`, but raises :class:`ValidationError` (whose ``errors()`` lists the
    Kubernetes field errors) when upstream would reject the object. Returns the result (with any
    warnings) when it is valid."""
    r = validate(
        obj,
        kubernetes_version=kubernetes_version,
        feature_gates=feature_gates,
        skip_defaulting=skip_defaulting,
        field_validation=field_validation,
        runtime=runtime,
    )
    if not r.valid:
        raise ValidationError(r.errors)
    return r


def compare_versions(
    obj: KubeObject,
    *,
    from_version: str,
    to_version: str,
    feature_gates: Optional[Mapping[str, bool]] = None,
    from_feature_gates: Optional[Mapping[str, bool]] = None,
    to_feature_gates: Optional[Mapping[str, bool]] = None,
    field_validation: Optional[str] = None,
    exit_codes: Optional[Sequence[int]] = None,
    file_name: Optional[str] = None,
) -> "CompareVersionsOutput":
    """The upgrade check: ``obj`` (as :func:`validate` takes it) judged by Kubernetes
    ``from_version`` and ``to_version``. Per document, what changes: admitted by one and refused
    by the other, errors and warnings that appear or go, container exits (``exit_codes``, default
    a standard set) decided differently; each with the upstream change that explains it where
    known. ``feature_gates`` apply to both sides, ``from_feature_gates``/``to_feature_gates`` to
    one. ``result["newlyRefused"]`` and ``result["decisionsChanged"]`` count what breaks."""
    inp: Dict[str, Any] = {"fromVersion": str(from_version), "toVersion": str(to_version)}
    for key, gates in (
        ("featureGates", feature_gates),
        ("fromFeatureGates", from_feature_gates),
        ("toFeatureGates", to_feature_gates),
    ):
        if gates is not None:
            inp[key] = dict(gates)
    if field_validation is not None:
        inp["fieldValidation"] = field_validation
    if exit_codes is not None:
        inp["exitCodes"] = [int(c) for c in exit_codes]
    path = _put_object(inp, obj)
    if file_name is None:
        file_name = path
    if file_name is not None:
        inp["fileName"] = file_name
    return cast("CompareVersionsOutput", request("compareVersions", inp))


# ---------------------------------------------------------------------------------------------
# Evaluation


def evaluate_container_exit(
    pod: KubeObject,
    container: str,
    exit_code: int,
    *,
    kubernetes_version: Optional[str] = None,
    feature_gates: Optional[Mapping[str, bool]] = None,
) -> "ContainerRestartOutput":
    """The kubelet's decision when ``container`` of ``pod`` exits with ``exit_code``:
    ``{"action": "Restart" | "DoNotRestart" | ...}`` (container restartPolicy and
    restartPolicyRules, then the pod's restartPolicy). ``result["warnings"]`` lists the Pod's
    validation errors (code ``invalid-object``) when the API server would refuse it."""
    inp = _options(kubernetes_version, feature_gates)
    inp.update(pod=_plain(pod, "pod"), container=container, exitCode=exit_code)
    return cast("ContainerRestartOutput", request("containerRestart", inp))


def evaluate_pod_failure(
    job: KubeObject,
    pod: KubeObject,
    *,
    kubernetes_version: Optional[str] = None,
    feature_gates: Optional[Mapping[str, bool]] = None,
) -> "PodFailurePolicyOutput":
    """What the Job controller does with a failed ``pod`` (with its status) of ``job``:
    ``matched``, ``action`` (FailJob, FailIndex, Ignore, Count or None), ``countFailed`` and the
    Job's failure ``message``. ``result["warnings"]`` lists the Job's validation errors (code
    ``invalid-object``) when the API server would refuse it; the answer stays upstream's."""
    inp = _options(kubernetes_version, feature_gates)
    inp.update(job=_plain(job, "job"), pod=_plain(pod, "pod"))
    return cast("PodFailurePolicyOutput", request("podFailurePolicy", inp))


def evaluate_jobset_failure(
    jobset: KubeObject,
    failed_jobs: Iterable[KubeObject],
    *,
    kubernetes_version: Optional[str] = None,
    feature_gates: Optional[Mapping[str, bool]] = None,
) -> "JobsetFailurePolicyOutput":
    """What the JobSet controller does when ``failed_jobs`` (Jobs with status) fail: the
    ``action`` of the failure policy, the rule and Job that matched, and the JobSet status.
    ``result["warnings"]`` lists the JobSet's validation errors (code ``invalid-object``)."""
    inp = _options(kubernetes_version, feature_gates)
    inp.update(
        jobset=_plain(jobset, "jobset"),
        failedJobs=[_plain(j, f"failedJobs[{i}]") for i, j in enumerate(failed_jobs)],
    )
    return cast("JobsetFailurePolicyOutput", request("jobsetFailurePolicy", inp))


def trainjob(
    train_job: KubeObject,
    runtime: Optional[RuntimeLike] = None,
    *,
    kubernetes_version: Optional[str] = None,
    feature_gates: Optional[Mapping[str, bool]] = None,
) -> TrainJobResult:
    """The JobSet (and ConfigMaps, Secrets, PodGroups) Kubeflow Trainer creates for a TrainJob
    and its TrainingRuntime or ClusterTrainingRuntime, as github.com/kubeflow/trainer/v2 v2.3.0
    builds them, with the admission errors of both and of the JobSet.

    ``train_job`` and ``runtime`` are dicts, YAML or JSON text, file paths, or models with
    ``to_dict()`` such as the Kubeflow SDK's ``kubeflow_trainer_api`` models
    (``TrainerV1alpha1TrainJob``): check what ``TrainerClient().train(...)`` would submit before
    submitting it. ``train_job`` may be text holding the runtime too (then ``runtime`` is
    optional); ``runtime`` may be a list. A TrainJob the API server or the trainer's webhook
    refuses gives ``job_set=None`` and ``not_built`` with the reason; ``errors`` hold each error
    at the TrainJob or runtime field it comes from.
    """
    inp = _options(kubernetes_version, feature_gates)
    if isinstance(train_job, bytes):
        train_job = _decode_text(train_job)
    if isinstance(train_job, (str, os.PathLike)):
        text, file_name = read_text_or_path(train_job, "train_job")
        inp["source"] = text
        if file_name is not None:
            inp["fileName"] = file_name
    else:
        inp["trainJob"] = _plain(train_job, "train_job")
    runtimes = _runtimes_input(runtime)
    if runtimes:
        inp["runtimes"] = runtimes
    result, warnings = _request("resolve", inp)
    return TrainJobResult._from_output(cast("ResolveOutput", result), warnings)


def what_if(
    obj: KubeObject,
    exit_code: int,
    *,
    container: Optional[str] = None,
    replicated_job: Optional[str] = None,
    pod_conditions: Sequence[str] = (),
    runtime: Optional[RuntimeLike] = None,
    kubernetes_version: Optional[str] = None,
    feature_gates: Optional[Mapping[str, bool]] = None,
) -> "WhatIfOutput":
    """What happens when ``container`` (default: the first) of a Pod, Job, JobSet or Kubeflow
    TrainJob exits with ``exit_code``: the kubelet's decision, the Pod's phase, the Job's
    outcome and the JobSet's action, with a ``story`` in sentences (the CLI's ``evaluate``). A
    TrainJob is answered for the JobSet the trainer builds from it and ``runtime`` (its trainer
    replicatedJob by default); ``result["warnings"]`` then holds the TrainJob's, runtime's and
    JobSet's errors at the TrainJob or runtime field each comes from."""
    inp = _options(kubernetes_version, feature_gates)
    inp.update(object=_plain(obj, "obj"), exitCode=exit_code)
    if container is not None:
        inp["container"] = container
    if replicated_job is not None:
        inp["replicatedJob"] = replicated_job
    if pod_conditions:
        inp["podConditions"] = list(pod_conditions)
    runtimes = _runtimes_input(runtime)
    if runtimes:
        inp["runtimes"] = runtimes
    return cast("WhatIfOutput", request("whatIf", inp))


def simulate(
    scenario: Any,
    *,
    compare: Any = None,
    runtime: Optional[KubeObject] = None,
) -> "SimulateOutput":
    """A restart timeline of a scenario (a dict, YAML or JSON text, or a scenario file's path:
    its ``workloadFile`` and ``runtimeFile`` are read relative to it), optionally beside a
    second one (``compare``). A TrainJob workload runs as the JobSet the trainer builds from it
    and its runtime (the scenario's ``runtime``, ``runtime=`` here, or a runtime in the
    workload file); ``result["trainJob"]`` gives its phase. See docs/simulation.md."""
    inp: Dict[str, Any] = {"scenario": load_scenario(scenario)}
    if runtime is not None:
        inp["scenario"]["runtime"] = _plain(runtime, "runtime")
    if compare is not None:
        inp["compare"] = load_scenario(compare)
    return cast("SimulateOutput", request("simulate", inp))


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def backoff_curve(
    component: str = "kubelet",
    *,
    kubernetes_version: Optional[str] = None,
    feature_gates: Optional[Mapping[str, bool]] = None,
    **params: Any,
) -> "BackoffOutput":
    """A backoff curve. ``component="kubelet"``: CrashLoopBackOff (``restarts=``,
    ``kubelet_config=`` a KubeletConfiguration dict or YAML, ``timeline=``);
    ``component="job-controller"``: the Job controller's pod-failure backoff (``function=`` the
    upstream helper modelled, with its inputs). Keyword names may be snake_case or camelCase.
    Returns ``initialSeconds``, ``maxSeconds``, ``delaysSeconds``, ... as the core computes them."""
    inp = _options(kubernetes_version, feature_gates)
    inp["component"] = component
    for k, v in params.items():
        key = _camel(k)
        if key == "kubeletConfig" and isinstance(v, (str, bytes, os.PathLike)):
            v = _first_document(v, "kubeletConfig")
        inp[key] = v
    return cast("BackoffOutput", request("backoff", inp))


def describe() -> "Description":
    """What this build models: versions, the default Kubernetes version, operations and feature
    gates with their per-version defaults."""
    return cast("Description", request("describe", {}))


def schemas() -> Dict[str, Any]:
    """The JSON Schemas of the contract by name (``Pod``, ``Job``, ``JobSet``, ``ValidateInput``,
    ``ValidateOutput``, ``Diagnostic``, ...)."""
    return cast(Dict[str, Any], json.loads(_native.schemas_json()))


def compile(
    obj: KubeObject,
    *,
    kubernetes_version: Optional[str] = None,
    feature_gates: Optional[Mapping[str, bool]] = None,
) -> Policy:
    """Compiles a Pod or Job (dict, YAML text or kubernetes client object) once for fast
    decisions: ``policy.decide(container, exit_code) -> action name`` and
    ``policy.decide_many(container, exit_codes) -> bytes`` of action codes (see :data:`ACTIONS`).
    An object the API server would refuse still compiles; ``policy.warnings`` then holds its
    validation errors (:class:`Diagnostic`, code ``invalid-object``), found once here."""
    obj_json = _dumps(_plain(obj, "object"), "object")
    return _native.Policy(obj_json, json.dumps(_options(kubernetes_version, feature_gates)))
