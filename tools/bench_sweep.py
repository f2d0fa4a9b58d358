#!/usr/bin/env python3
"""Sweep benchmarks (issue #20): parallel speed-up, the 100-seed 1,024-Pod 30-day sweep through the
CLI and Python, Ray's overhead over the local path, and memory against the number of seeds.

    make python && cargo build --release -p restartkit-cli
    .venv/bin/python tools/bench_sweep.py [--quick]

Needs the release CLI ($CARGO_TARGET_DIR/release/restartkit) and restartkit (+ ray) installed in
the running Python. Wall-clock figures on a shared machine are noisy: each is the best of
--repeat runs, and the script prints every run so the spread can be judged.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import restartkit

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
CLI = TARGET / "release" / "restartkit"


def jobset(in_place: bool, pods: int = 1024) -> Dict[str, Any]:
    """The simulator benchmark's JobSet (core/benches/simulate.rs): Jobs of 4 Pods."""
    container: Dict[str, Any] = {"name": "trainer", "image": "t"}
    if in_place:
        container.update(restartPolicy="Never", restartPolicyRules=[{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}])
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "train", "namespace": "ml"},
        "spec": {
            "failurePolicy": {"maxRestarts": 3},
            "replicatedJobs": [{"name": "workers", "replicas": pods // 4, "template": {"spec": {
                "parallelism": 4, "completions": 4, "completionMode": "Indexed", "backoffLimit": 1_000_000_000,
                "podFailurePolicy": {"rules": [{"action": "Ignore", "onExitCodes": {"containerName": "trainer", "operator": "In", "values": [42]}}]},
                "template": {"spec": {"restartPolicy": "Never", "containers": [container]}}}}}],
        },
    }


def scenario(in_place: bool, run_for: str, pods: int = 1024) -> Dict[str, Any]:
    return {
        "kubernetesVersion": "1.35", "runFor": run_for, "startupSeconds": 20, "podRescheduleSeconds": 90, "seed": 7,
        "maxTimelineEvents": 0, "workload": jobset(in_place, pods),
        "faults": [{"kind": "containerExit", "container": "trainer", "ratePerHour": 1, "exitCodes": [42]}],
    }


def best(label: str, repeat: int, f: Callable[[], Any]) -> Tuple[float, Any]:
    times: List[float] = []
    out: Any = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    print(f"  {label}: best {min(times):.2f} s of {', '.join(f'{x:.2f}' for x in times)}", flush=True)
    return min(times), out


def in_process(f: Callable[[], Any]) -> Any:
    """Runs f, printing its wall and CPU seconds (this process's threads)."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    t = time.perf_counter()
    out = f()
    secs = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"    wall {secs:.2f} s, CPU {cpu:.2f} s, load average {os.getloadavg()[0]:.1f}", flush=True)
    return out


def cli(path: Path, *args: str) -> float:
    """Wall seconds of one CLI sweep; prints its CPU seconds (user + system) too, since on a
    shared machine the wall time depends on the other processes."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run([str(CLI), "sweep", str(path), *args, "-o", "json"], capture_output=True, text=True)
    secs = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"restartkit sweep failed: {p.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"    wall {secs:.2f} s, CPU {cpu:.2f} s, load average {os.getloadavg()[0]:.1f}", flush=True)
    return secs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer seeds (a smoke run)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--parts", default="1234", help="which measurements to run, e.g. 23")
    a = ap.parse_args()
    if not CLI.exists():
        sys.exit(f"{CLI}: build it with cargo build --release -p restartkit-cli")
    tmp = Path(tempfile.mkdtemp(prefix="restartkit-bench-sweep-"))
    print(f"cores: {os.cpu_count()}  (other processes share them: figures are noisy)")

    if "1" in a.parts:
        speedup(a, tmp)
    if "2" in a.parts:
        hundred_seeds(a, tmp)
    if "3" in a.parts:
        ray_overhead(a)
    if "4" in a.parts:
        memory(a, tmp)


def speedup(a: argparse.Namespace, tmp: Path) -> None:
    # 1. Speed-up on 2 cores: the 1,024-Pod JobSet restarted in place over 30 days, the same
    # sweep with 1 and 2 threads.
    mid = tmp / "mid.json"
    mid.write_text(json.dumps(scenario(True, "30d")))
    seeds = "12" if a.quick else "40"
    print(f"1. throughput, 1,024-Pod JobSet in place, 30 days, {seeds} seeds (CLI)")
    one, _ = best("--jobs 1", a.repeat, lambda: cli(mid, "--seeds", seeds, "--jobs", "1"))
    two, _ = best("--jobs 2", a.repeat, lambda: cli(mid, "--seeds", seeds, "--jobs", "2"))
    print(f"  speed-up 2 cores / 1 core: {one / two:.2f}x")


def hundred_seeds(a: argparse.Namespace, tmp: Path) -> None:
    # 2. 100 seeds of the 1,024-Pod JobSet over 30 days at one fault per Pod-hour.
    n = 10 if a.quick else 100
    for in_place in (True, False):
        name = "in place" if in_place else "replacement Pods"
        big = tmp / f"big-{in_place}.json"
        sc = scenario(in_place, "30d")
        big.write_text(json.dumps(sc))
        print(f"2. {n} seeds, 1,024-Pod JobSet, 30 days, 1 fault per Pod-hour, {name}")
        best("CLI", 1, lambda: cli(big, "--seeds", str(n)))
        best("Python", 1, lambda: in_process(lambda: restartkit.sweep(sc, n)))


def ray_overhead(a: argparse.Namespace) -> None:
    # 3. Ray against the local path, the same sweep (>= 10 s locally).
    try:
        import ray
    except ImportError:
        print("3. Ray: not installed (pip install 'restartkit[ray]')")
    else:
        sc = scenario(True, "30d")
        n = 12 if a.quick else 120
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            print(f"3. Ray (local cluster, 2 CPUs) vs local threads: {n} seeds, 1,024 Pods in place, 30 days")
            # Start the workers (and import restartkit in them) before timing.
            restartkit.sweep(scenario(True, "1h", pods=8), 4, executor=ray)
            local, lo = best("local, 2 threads", a.repeat, lambda: in_process(lambda: restartkit.sweep(sc, n, jobs=2)))
            on_ray, ro = best("Ray tasks", a.repeat, lambda: restartkit.sweep(sc, n, executor=ray))
            print(f"  identical result: {lo == ro}; Ray overhead: {(on_ray / local - 1) * 100:+.1f} %")
        finally:
            ray.shutdown()


def memory(a: argparse.Namespace, tmp: Path) -> None:
    # 4. Memory: peak RSS against seeds (no per-run rows), small scenario.
    small = tmp / "small.json"
    small.write_text(json.dumps(scenario(True, "1d", pods=8)))
    print("4. peak RSS of the CLI (8-Pod JobSet, 1 day)")
    for s in ("1000", "10000") if a.quick else ("1000", "10000", "100000"):
        t = time.perf_counter()
        p = subprocess.run(["/usr/bin/env", "python3", "-c",
                            "import resource,subprocess,sys;subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL);"
                            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
                            str(CLI), "sweep", str(small), "--seeds", s, "-o", "json"], capture_output=True, text=True)
        secs = time.perf_counter() - t
        print(f"  {s:>6} seeds: {secs:.2f} s, peak RSS {int(p.stdout.strip()) / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
