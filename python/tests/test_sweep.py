"""restartkit.sweep: local threads, executors and a real local Ray cluster give one answer."""

from __future__ import annotations

import concurrent.futures
import sys
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

import restartkit

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "examples" / "scenarios" / "training-reschedule.yaml"
GRID = {"workload.spec.failurePolicy.maxRestarts": [0, 3]}


def _scenario() -> Dict[str, Any]:
    # Shorter than the example (6 h, rarer faults) so that runs end in different phases.
    sc = restartkit.load_scenario(SCENARIO)
    sc["runFor"] = "6h"
    sc["faults"][0]["ratePerHour"] = 0.05
    sc["exits"] = [{"container": "trainer", "afterSeconds": 14400, "exitCode": 0}]
    return sc


def test_any_thread_count_gives_the_same_result() -> None:
    one = restartkit.sweep(_scenario(), 30, grid=GRID, jobs=1, runs=True)
    two = restartkit.sweep(_scenario(), 30, grid=GRID, jobs=2, runs=True)
    assert one == two
    names = [v["name"] for v in one["variants"]]
    assert names == ["workload.spec.failurePolicy.maxRestarts=0", "workload.spec.failurePolicy.maxRestarts=3"]
    strict, lenient = one["variants"]
    assert strict["measures"]["jobsetRestarts"]["max"] == 0
    assert lenient["measures"]["jobsetRestarts"]["max"] > 0
    assert lenient["phases"]["Failed"]["probability"] < strict["phases"]["Failed"]["probability"]
    # Phase shares add up to all runs, and the Wilson interval holds the estimate.
    for v in one["variants"]:
        assert sum(p["runs"] for p in v["phases"].values()) == 30
        for p in v["phases"].values():
            assert p["low"] <= p["probability"] <= p["high"]
    # The seeds start at the scenario's seed (7) and every row is one seed.
    assert [r["seed"] for r in strict["rows"]] == list(range(7, 37))


def test_a_path_with_workload_file_is_read_like_the_cli() -> None:
    r = restartkit.sweep(SCENARIO, 2, first_seed=100)
    assert r["firstSeed"] == 100 and r["seeds"] == 2
    assert r["variants"][0]["name"] == "baseline"
    assert "rows" not in r["variants"][0], "rows only on request"


def test_executor_with_map_merges_to_the_identical_result() -> None:
    local = restartkit.sweep(_scenario(), 12, variants={"as is": {}, "no restarts": {"workload": {"spec": {"failurePolicy": {"maxRestarts": 0}}}}})
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        spread = restartkit.sweep(
            _scenario(),
            12,
            variants={"as is": {}, "no restarts": {"workload": {"spec": {"failurePolicy": {"maxRestarts": 0}}}}},
            executor=ex,
            chunk_size=5,
        )
    assert spread == local


def test_rows_are_a_dataframe_or_dicts(monkeypatch: pytest.MonkeyPatch) -> None:
    r = restartkit.sweep(_scenario(), 4, grid=GRID, runs=True)
    pandas = pytest.importorskip("pandas")
    frame = restartkit.sweep_rows(r)
    assert isinstance(frame, pandas.DataFrame)
    assert len(frame) == 8 and set(frame["variant"]) == set(GRID_NAMES)
    monkeypatch.setitem(sys.modules, "pandas", None)
    rows = restartkit.sweep_rows(r)
    assert isinstance(rows, list) and rows[0]["variant"] == GRID_NAMES[0] and rows[0]["seed"] == 7


GRID_NAMES = ["workload.spec.failurePolicy.maxRestarts=0", "workload.spec.failurePolicy.maxRestarts=3"]


def test_refusals_name_the_variant_and_field() -> None:
    with pytest.raises(restartkit.RestartkitError) as e:
        restartkit.sweep(_scenario(), 3, variants={"fine": {}, "typo": {"startupSeconds": "slow"}})
    assert e.value.message.startswith('variant "typo":')
    assert e.value.field == "scenario.startupSeconds"
    with pytest.raises(restartkit.RestartkitError) as e:
        restartkit.sweep(_scenario(), 0)
    assert e.value.field == "seeds"
    with pytest.raises(restartkit.RestartkitError) as e:
        restartkit.sweep(_scenario(), 2_000_000)
    assert "maximum" in e.value.message


# Before the Ray tests: their cluster (module-scoped) would still be running beside this one.
def test_ctrl_c_interrupts_a_local_sweep() -> None:
    import signal
    import subprocess
    import time

    code = (
        # As an interactive Python has it: a process started with SIGINT ignored (`cmd &` in a
        # script, some CI launchers) inherits that, and Python then installs no KeyboardInterrupt.
        "import restartkit, pathlib, signal, sys\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "print('started', flush=True)\n"
        "try:\n"
        f"    restartkit.sweep(pathlib.Path({str(SCENARIO)!r}), 1_000_000, jobs=2)\n"
        "except KeyboardInterrupt:\n"
        "    sys.exit(42)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stdout.readline().strip() == "started"
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        # Stopped, not finished: the sweep would take half an hour. The bound only tells the two
        # apart; on a loaded 2-core CI machine a tighter one was flaky.
        assert p.wait(timeout=60) == 42
    finally:
        p.kill()
    assert time.monotonic() - sent < 60


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def test_ray_merges_to_the_identical_result(ray_cluster: Any) -> None:
    local = restartkit.sweep(_scenario(), 20, grid=GRID, runs=True)
    on_ray = restartkit.sweep(_scenario(), 20, grid=GRID, runs=True, executor=ray_cluster, chunk_size=3)
    assert on_ray == local


def test_a_failing_ray_task_raises_naming_the_variant(ray_cluster: Any) -> None:
    # The sweep's plan is fine; the tasks find the bad variant when they decode it, and the
    # first failed task's error comes back (no hang: ray.get returns every task's answer).
    with pytest.raises(restartkit.RestartkitError) as e:
        restartkit.sweep(
            _scenario(),
            4,
            variants={"fine": {}, "bad action": {"workload": {"spec": {"failurePolicy": {"rules": [{"name": "r", "action": "Explode"}]}}}}},
            executor=ray_cluster,
            chunk_size=2,
        )
    assert e.value.message.startswith('variant "bad action":')
    assert e.value.field == "spec.failurePolicy.rules[0].action"


def test_results_and_partials_match_their_schemas() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schemas = restartkit.schemas()
    r = restartkit.sweep(_scenario(), 3, grid=GRID, runs=True)
    jsonschema.validate(r, schemas["SweepOutput"])
    sweep_input = {"scenario": _scenario(), "seeds": 3}
    partial = restartkit.request("sweepChunk", {"sweep": sweep_input, "variant": 0, "start": 0, "count": 3})
    jsonschema.validate(partial, schemas["SweepChunkOutput"])
    # Tally values are decimal strings, so the partial survives any JSON reader exactly.
    assert all(isinstance(v, str) for v, _ in partial["variants"]["0"]["measures"]["timeLostSeconds"])
    merged = restartkit.request("sweepMerge", {"partials": [partial]})
    assert merged == restartkit.sweep(_scenario(), 3)
