#!/usr/bin/env python3
"""Sweep maxRestarts and the restart mode of the 1,024-worker, 30-day training JobSet
(examples/scenarios/training-1024-30d.yaml) on a Ray cluster, or on this machine's cores.

    python examples/python/sweep_ray.py --seeds 20                  # local threads
    python examples/python/sweep_ray.py --seeds 200 --ray auto      # an existing Ray cluster
    ray job submit --working-dir . -- python examples/python/sweep_ray.py --seeds 200 --ray auto

The answer (docs/sweeps.md): the probability that the JobSet fails within 30 days for each
maxRestarts, and the slot-hours (GPU-hours) lost with and without in-place restarts.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Optional, Sequence

import restartkit

if TYPE_CHECKING:
    from restartkit._types import RunRow

HERE = Path(__file__).resolve().parent
SCENARIO = HERE.parent / "scenarios" / "training-1024-30d.yaml"
IN_PLACE = HERE.parent / "scenarios" / "training-1024-in-place.patch.yaml"


def failure_probability(rows: Sequence["RunRow"], max_restarts: int) -> float:
    """P(the JobSet fails) for a maxRestarts, from runs with an unlimited one: a run fails under
    maxRestarts m exactly when it needed more than m JobSet restarts (up to that point the runs
    are the same)."""
    return sum(1 for r in rows if r["jobsetRestarts"] > max_restarts) / max(1, len(rows))


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--ray", metavar="ADDRESS", help="run on Ray: 'auto' for the cluster this runs in, or an address")
    a = ap.parse_args(argv)
    executor: Any = None
    if a.ray:
        import ray

        ray.init(address=a.ray)
        executor = ray
    in_place = restartkit.load_scenario(IN_PLACE)
    result = restartkit.sweep(
        SCENARIO,
        a.seeds,
        variants={
            "recreate": {"workload": {"spec": {"failurePolicy": {"maxRestarts": 100000}}}},
            "in-place": in_place,
        },
        runs=True,
        executor=executor,
    )
    for v in result["variants"]:
        lost = v["measures"]["timeLostSeconds"]
        print(f"{v['name']}: slot-hours lost per 30 days: mean {lost['mean'] / 3600:,.0f}, p99 {lost['p99'] / 3600:,.0f}")
    recreate = result["variants"][0]
    restarts = recreate["measures"]["jobsetRestarts"]
    print(f"JobSet restarts needed in 30 days: p50 {restarts['p50']:.0f}, p99 {restarts['p99']:.0f}, max {restarts['max']:.0f}")
    for m in (700, 750, 800):
        print(f"  maxRestarts {m}: P(fail) ~ {failure_probability(recreate.get('rows', []), m):.1%}")


if __name__ == "__main__":
    main()
