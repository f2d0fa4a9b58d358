#!/usr/bin/env python3
"""Benchmarks of the Python front end (a script, not timed tests). Prints per-call costs and
ratios:

- ``policy.decide`` vs the same exit-code decision written in plain Python;
- ``policy.decide_many`` per decision (100,000 exit codes in an ``array('i')``);
- ``validate`` vs ``jsonschema`` on the generated JSON Schema of a Job (jsonschema checks the
  shape only; restartkit also runs the API server's rules);
- the raw ``handle_json`` round trip.

    .venv/bin/python python/bench/bench.py [--quick]
"""

from __future__ import annotations

import argparse
import array
import json
import time
import timeit
from typing import Any, Callable, Dict, List, Optional

import restartkit


def per_call(fn: Callable[[], Any], n: int, repeat: int = 5) -> float:
    """Best seconds per call over `repeat` runs of `n` calls."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def per_statement(stmt: str, n: int, namespace: Dict[str, Any], repeat: int = 5) -> float:
    """Best seconds per execution of `stmt`, compiled inline by timeit: no wrapper call is
    added to either side of a comparison (a lambda alone costs about as much as a native call)."""
    return min(timeit.Timer(stmt, globals=namespace).repeat(repeat, n)) / n


def fmt(s: float) -> str:
    return f"{s * 1e9:,.0f} ns" if s < 1e-5 else f"{s * 1e6:,.1f} µs"


JOB: Dict[str, Any] = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "train", "namespace": "default"},
    "spec": {
        "backoffLimit": 3,
        "podFailurePolicy": {
            "rules": [
                {"action": "FailJob", "onExitCodes": {"containerName": "trainer", "operator": "In", "values": [42, 43]}},
                {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [137, 143]}},
                {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
            ]
        },
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "trainer", "image": "trainer:1"}, {"name": "sidecar", "image": "proxy:1"}],
            }
        },
    },
}


POD: Dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "worker", "namespace": "default"},
    "spec": {
        "restartPolicy": "Never",
        "containers": [
            {
                "name": "trainer",
                "image": "trainer:1",
                "restartPolicy": "Never",
                "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42, 43]}}],
            }
        ],
        "initContainers": [{"name": "proxy", "image": "proxy:1", "restartPolicy": "Always"}],
    },
}


def plain_python_decide(job: Dict[str, Any], container: str, exit_code: int) -> str:
    """The podFailurePolicy exit-code decision (first matching onExitCodes rule, else Count) in
    plain Python, reading the dict each time, as a script without restartkit would."""
    if exit_code == 0:
        return "DoNotRestart"
    for rule in job["spec"].get("podFailurePolicy", {}).get("rules", []):
        req = rule.get("onExitCodes")
        if not req:
            continue
        name = req.get("containerName")
        if name is not None and name != container:
            continue
        inside = exit_code in req["values"]
        if inside == (req["operator"] == "In"):
            return str(rule["action"])
    return "Count"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer iterations")
    args = ap.parse_args()
    scale = 10 if args.quick else 1
    rows: List[str] = []

    print(f"restartkit {restartkit.__version__} (Python front end)")

    req = json.dumps({"op": "describe", "input": {}})
    t_raw = per_call(lambda: restartkit.handle_json(req), 2000 // scale)
    rows.append(f"handle_json(describe) round trip      {fmt(t_raw)}")

    policy: Optional[Any] = None
    try:
        policy = restartkit.compile(JOB)
    except restartkit.RestartkitError as e:
        rows.append(f"compile/decide: skipped ({e.message})")
    if policy is not None:
        p = policy
        ns = {"p": p, "plain_python_decide": plain_python_decide, "JOB": JOB}
        t_decide = per_statement('p.decide("trainer", 42)', 200_000 // scale, ns)
        t_plain = per_statement('plain_python_decide(JOB, "trainer", 42)', 200_000 // scale, ns)
        codes = array.array("i", [i % 256 for i in range(100_000)])
        t_many = per_call(lambda: p.decide_many("trainer", codes), 20 // min(scale, 10) or 1) / len(codes)
        t_many_list = per_call(lambda: p.decide_many("trainer", codes.tolist()), 10 // min(scale, 10) or 1) / len(codes)
        rows.append(f"policy.decide                         {fmt(t_decide)}")
        rows.append(f"plain Python decision                 {fmt(t_plain)}   (decide is {t_plain / t_decide:.1f}x the speed)")
        rows.append(f"policy.decide_many, per decision      {fmt(t_many)}   (array('i'); {t_decide / t_many:.0f}x faster than decide)")
        rows.append(f"policy.decide_many(list), per decision {fmt(t_many_list)}")

    t_pod = per_call(lambda: restartkit.validate(POD), 2000 // scale)
    rows.append(f"restartkit.validate(Pod dict)         {fmt(t_pod)}")
    t_eval = per_call(lambda: restartkit.evaluate_container_exit(POD, "trainer", 42), 2000 // scale)
    rows.append(f"evaluate_container_exit(Pod, 42)      {fmt(t_eval)}")
    t_val = per_call(lambda: restartkit.validate(JOB), 2000 // scale)
    rows.append(f"restartkit.validate(Job dict)         {fmt(t_val)}")
    text = json.dumps(JOB)
    t_val_text = per_call(lambda: restartkit.validate(text), 2000 // scale)
    rows.append(f"restartkit.validate(Job JSON text)    {fmt(t_val_text)}")
    try:
        import jsonschema

        schema = restartkit.schemas()["Job"]
        cls = jsonschema.validators.validator_for(schema)
        validator = cls(schema)
        validator.validate(JOB)
        t_js = per_call(lambda: validator.validate(JOB), 2000 // scale)
        rows.append(f"jsonschema (generated Job schema)     {fmt(t_js)}   (validate is {t_js / t_val:.1f}x the speed)")
        pod_validator = cls(restartkit.schemas()["Pod"])
        t_js_pod = per_call(lambda: pod_validator.validate(POD), 2000 // scale)
        rows.append(f"jsonschema (generated Pod schema)     {fmt(t_js_pod)}   (validate is {t_js_pod / t_pod:.1f}x the speed)")
    except ImportError:
        rows.append("jsonschema: not installed")

    for r in rows:
        print(r)


if __name__ == "__main__":
    main()
