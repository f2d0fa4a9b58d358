"""Sweeps: one scenario over many seeds and variants (the ``sweep`` op), on every core or on an
executor (Ray, concurrent.futures, Dask) in chunks merged exactly. See docs/sweeps.md."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union, cast

from . import _native
from ._errors import RestartkitError
from ._model import Diagnostic

if TYPE_CHECKING:
    from ._types import SweepOutput, SweepPlanOutput

__all__ = ["sweep", "sweep_rows", "load_scenario", "read_text_or_path"]

#: A scenario: a dict (the contract's camelCase ``Scenario``), YAML or JSON text, or a path to a
#: scenario file (a ``Path``, or a ``str`` naming an existing file; its ``workloadFile`` is read
#: relative to it).
ScenarioLike = Union[Mapping[str, Any], str, bytes, "os.PathLike[str]"]


def _error(field: str, message: str) -> RestartkitError:
    return RestartkitError([Diagnostic(severity="error", field=field, type=None, message=message, origin="restartkit", code="invalid-input")])


def read_text_or_path(value: Union[str, "os.PathLike[str]"], what: str) -> Tuple[str, Optional[str]]:
    """The text ``value`` stands for, and the file it came from: a path (a ``Path``, or a ``str``
    of one line naming an existing file, as ``open()`` and pandas read it) is that file's text;
    any other ``str`` is YAML or JSON text. A one-line ``str`` that is neither an existing file
    nor a mapping (``"job.yaml"`` misspelt, or run from another directory) is refused: YAML would
    read it as a plain string, not as an object."""
    if isinstance(value, os.PathLike):
        path = Path(value)
        try:
            return path.read_text(encoding="utf-8"), str(path)
        except OSError as e:
            raise _error(what, f"{what}: {path}: {e.strerror or e}") from None
    if "\n" not in value and len(value) < 4096:
        path = Path(value).expanduser()
        try:
            if path.is_file():
                return path.read_text(encoding="utf-8"), value
        except OSError:
            pass
        docs = json.loads(_native.parse_source(value)) if value.strip() else []
        if len(docs) == 1 and not isinstance(docs[0], (dict, list)):
            raise _error(
                what,
                f"{what}: {value!r} is neither an existing file nor a Kubernetes object (as YAML it is the plain string {docs[0]!r}); pass the file's path (from this directory: {os.getcwd()}) or its YAML/JSON text",
            )
    return value, None


def _first(text: str, what: str) -> Any:
    docs = json.loads(_native.parse_source(text))
    if not docs:
        raise _error(what, f"{what}: no document")
    if not isinstance(docs[0], dict):
        raise _error(what, f"{what}: expected a mapping (a scenario), not {type(docs[0]).__name__}")
    return docs[0]


def _runtime_of(docs: List[Any], workload: Mapping[str, Any]) -> Optional[Dict[str, Any]]:
    """The runtime a TrainJob names among ``docs`` (the first runtime when none has its name)."""
    want = (workload.get("spec") or {}).get("runtimeRef", {}).get("name")
    runtimes = [d for d in docs if isinstance(d, dict) and d.get("kind") in ("TrainingRuntime", "ClusterTrainingRuntime")]
    named = [d for d in runtimes if (d.get("metadata") or {}).get("name") == want]
    found = named or runtimes
    return dict(found[0]) if found else None


def load_scenario(scenario: ScenarioLike) -> Dict[str, Any]:
    """A scenario as the contract takes it: a path's file is read and its ``workloadFile`` (and,
    for a Kubeflow TrainJob workload, its ``runtimeFile``, or the runtime in the workload file)
    inlined, as ``restartkit simulate FILE`` does; text is parsed; a dict is copied. A ``str``
    naming an existing file is read as that file."""
    if isinstance(scenario, bytes):
        scenario = scenario.decode("utf-8")
    if isinstance(scenario, Mapping):
        return dict(scenario)
    text, file_name = read_text_or_path(scenario, "scenario")
    doc = _first(text, "scenario")
    if file_name is None:
        return cast(Dict[str, Any], doc)
    base = Path(file_name).parent
    wdocs: List[Any] = []
    wf = doc.get("workloadFile")
    if isinstance(wf, str):
        wdocs = json.loads(_native.parse_source((base / wf).read_text(encoding="utf-8")))
        workloads = [d for d in wdocs if isinstance(d, dict) and d.get("kind") in ("Pod", "Job", "JobSet", "TrainJob")]
        if not workloads:
            raise _error("workloadFile", f"{wf}: no Pod, Job, JobSet or TrainJob")
        del doc["workloadFile"]
        doc["workload"] = workloads[0]
    rf = doc.pop("runtimeFile", None)
    workload = doc.get("workload") or {}
    if isinstance(rf, str):
        rdocs = json.loads(_native.parse_source((base / rf).read_text(encoding="utf-8")))
        rt = _runtime_of(rdocs, workload)
        if rt is None:
            raise _error("runtimeFile", f"{rf}: no TrainingRuntime or ClusterTrainingRuntime")
        doc["runtime"] = rt
    elif isinstance(workload, dict) and workload.get("kind") == "TrainJob" and "runtime" not in doc:
        rt = _runtime_of(wdocs, workload)
        if rt is not None:
            doc["runtime"] = rt
    return cast(Dict[str, Any], doc)


def _raise_response(resp: Mapping[str, Any]) -> None:
    if resp.get("status") != "ok":
        raise RestartkitError([Diagnostic._from_dict(d) for d in resp.get("errors", [])])


def _chunk(input_json: str, variant: int, start: int, count: int) -> str:
    """One chunk of a sweep (runs in a Ray task, a process pool, a Dask worker): the
    ``sweepChunk`` response as JSON text. It never raises for a refused sweep: the error travels
    back as the response and the caller raises it, naming the variant."""
    req = '{"op":"sweepChunk","input":{"sweep":%s,"variant":%d,"start":%d,"count":%d}}' % (input_json, variant, start, count)
    return _native.handle_json(req)


def _is_ray(executor: Any) -> bool:
    return all(hasattr(executor, a) for a in ("remote", "get", "put", "is_initialized"))


def _workers(executor: Any) -> int:
    if _is_ray(executor):
        return max(1, int(executor.cluster_resources().get("CPU", 1)))
    n = getattr(executor, "_max_workers", None)
    return int(n) if isinstance(n, int) and n > 0 else (os.cpu_count() or 1)


def _items(plan: "SweepPlanOutput", chunk_size: int) -> List[Tuple[int, int, int]]:
    seeds = plan["seeds"]
    return [(v, s, min(chunk_size, seeds - s)) for v in range(len(plan["variants"])) for s in range(0, seeds, chunk_size)]


def _run_on(executor: Any, input_json: str, items: Sequence[Tuple[int, int, int]]) -> List[str]:
    if _is_ray(executor):
        task = executor.remote(_chunk)
        shared = executor.put(input_json)
        return cast(List[str], executor.get([task.remote(shared, v, s, c) for v, s, c in items]))
    if not hasattr(executor, "map"):
        raise TypeError("executor: expected the ray module or an object with map() (concurrent.futures, a Dask client)")
    results = list(executor.map(_chunk, [input_json] * len(items), [i[0] for i in items], [i[1] for i in items], [i[2] for i in items]))
    # A Dask client's map gives futures; concurrent.futures' gives the values.
    return [r.result() if hasattr(r, "result") and not isinstance(r, str) else r for r in results]


def sweep(
    scenario: ScenarioLike,
    seeds: int,
    *,
    variants: Optional[Mapping[str, Mapping[str, Any]]] = None,
    grid: Optional[Mapping[str, Sequence[Any]]] = None,
    first_seed: Optional[int] = None,
    runs: bool = False,
    jobs: Optional[int] = None,
    executor: Any = None,
    chunk_size: Optional[int] = None,
) -> "SweepOutput":
    """Runs ``scenario`` for ``seeds`` seeds under each variant and summarises the runs.

    ``variants`` maps a name to a JSON Merge Patch of the scenario
    (``{"five": {"workload": {"spec": {"failurePolicy": {"maxRestarts": 5}}}}}``); ``grid`` maps a
    dotted path to its values (``{"faults.0.ratePerHour": [0.5, 1, 2]}``): every combination is
    a variant. Per variant the result has each measure's ``mean``, ``stdDev``, ``min``,
    ``p25`` … ``p99``, ``max`` and each final phase's probability with a 95 % Wilson interval;
    with ``runs=True`` also one row per run (:func:`sweep_rows` tabulates them).

    Without ``executor`` the runs use ``jobs`` threads (default: every core) without the GIL.
    With ``executor`` (the ``ray`` module after ``ray.init()``, a ``concurrent.futures``
    executor, a Dask client) the seeds are split into chunks of ``chunk_size`` runs, each chunk a
    task, and the partial results are merged exactly: the result is identical to the local one.
    A sweep the core refuses (a variant whose patch makes the scenario invalid, too many seeds or
    variants) raises :class:`RestartkitError` naming the variant and the field.
    """
    inp: Dict[str, Any] = {"scenario": load_scenario(scenario), "seeds": seeds}
    if first_seed is not None:
        inp["firstSeed"] = first_seed
    if variants:
        inp["variants"] = [{"name": k, "patch": dict(v)} for k, v in variants.items()]
    if grid:
        inp["grid"] = [{"path": k, "values": list(v)} for k, v in grid.items()]
    if runs:
        inp["runs"] = True
    input_json = json.dumps(inp, allow_nan=False)
    if executor is None:
        return cast("SweepOutput", json.loads(_native.sweep(input_json, jobs)))
    plan_resp = json.loads(_native.handle_json('{"op":"sweepPlan","input":%s}' % input_json))
    _raise_response(plan_resp)
    plan = cast("SweepPlanOutput", plan_resp["result"])
    if chunk_size is None:
        total = len(plan["variants"]) * plan["seeds"]
        # About four chunks per worker: enough to even out uneven runs, few enough that each
        # task's set-up (decoding and checking the variants) stays small.
        chunk_size = min(plan["seeds"], max(1, math.ceil(total / (4 * _workers(executor)))))
    if chunk_size < 1:
        raise ValueError("chunk_size: at least 1")
    texts = _run_on(executor, input_json, _items(plan, chunk_size))
    partials = []
    for t in texts:
        resp = json.loads(t)
        _raise_response(resp)
        partials.append(resp["result"])
    merged = json.loads(_native.handle_json(json.dumps({"op": "sweepMerge", "input": {"partials": partials}})))
    _raise_response(merged)
    return cast("SweepOutput", merged["result"])


def sweep_rows(result: "SweepOutput") -> Any:
    """The per-run rows of a sweep made with ``runs=True``, one per variant and seed with a
    ``variant`` column: a pandas DataFrame when pandas is installed, else a list of dicts."""
    rows: List[Dict[str, Any]] = []
    for v in result["variants"]:
        for r in v.get("rows", []):
            rows.append({"variant": v["name"], **r})
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)
