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
from . import _ops
from ._ops import *  # noqa: F403  (every op, generated from the core's op table)
from ._ops import backoff, container_restart, jobset_failure_policy, pod_failure_policy
from ._runtime import (
    KubeObject,
    RuntimeLike,
    _decode,
    _decode_text,
    _encode,
    _dumps,
    _options,
    _plain,
    _request,
    _runtimes_input,
    _validate_input,
    request,
)
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
__all__ += _ops.__all__

__version__: str = _native.VERSION
"""restartkit's version (the Rust core's)."""

CONTRACT_VERSION: str = _native.CONTRACT_VERSION
"""Version of the JSON request/response contract."""

ACTIONS: Tuple[str, ...] = _native.ACTIONS
"""Action names by code, as :meth:`Policy.decide_many` returns them: ``ACTIONS[code]``."""

Policy = _native.Policy
"""A Pod or Job compiled for fast decisions; made by :func:`compile`."""


def handle_json(request: str) -> str:
    """The raw JSON contract: ``{"op": ..., "input": {...}}`` as JSON text in, the response as
    JSON text out (``{"status": "ok", "result": ...}`` or ``{"status": "error", "errors": [...]}``).
    Never raises; runs without the GIL. Unknown ops are answered by the core, not filtered here."""
    return _native.handle_json(request)


# ---------------------------------------------------------------------------------------------
# The conveniences over the generated ops: ``validate`` with a ValidationResult, ``check``,
# ``trainjob`` (``resolve`` with a TrainJobResult), ``simulate`` of a scenario file, ``compile``;
# and the names of the first releases (``evaluate_container_exit`` is ``container_restart``).

evaluate_container_exit = container_restart
evaluate_pod_failure = pod_failure_policy
evaluate_jobset_failure = jobset_failure_policy


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
    return backoff(component=component, kubernetes_version=kubernetes_version, feature_gates=feature_gates, **params)


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
