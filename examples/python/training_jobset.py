#!/usr/bin/env python3
"""Build a JobSet for a training run in Python, and validate and evaluate it before submitting.

The mistake this catches is the one of GoogleCloudPlatform/cluster-toolkit PR #6306: a worker Job
with a podFailurePolicy but no `restartPolicy: Never` in its Pod template. The API server rejects
such a Job, but only when the JobSet controller creates it -- after a queue (Kueue) admitted the
workload -- so a submit script waiting for the run saw nothing but a hang. Here it fails before
submit, with the field path and the API server's message.

    python examples/python/training_jobset.py          # exit 0 when every check behaves
"""

from __future__ import annotations

import copy
import sys
from typing import Any, Dict, List, Optional

import restartkit

RETRIABLE_EXIT_CODES = [137, 143]  # OOM-killed / SIGTERM on preemption: retry the slice
FATAL_EXIT_CODE = 42  # the trainer's own "bad config, do not retry"


def training_jobset(name: str, workers: int, restart_policy: Optional[str]) -> Dict[str, Any]:
    """A JobSet: one replicated Job of `workers` indexed Pods running the trainer."""
    pod_spec: Dict[str, Any] = {
        "containers": [
            {
                "name": "trainer",
                "image": "registry.example/trainer:1.4",
                "command": ["python", "train.py", "--epochs", "10"],
            }
        ],
    }
    if restart_policy is not None:
        pod_spec["restartPolicy"] = restart_policy
    job_spec = {
        "parallelism": workers,
        "completions": workers,
        "completionMode": "Indexed",
        "backoffLimit": 0,
        "podFailurePolicy": {
            "rules": [
                {"action": "FailJob", "onExitCodes": {"containerName": "trainer", "operator": "In", "values": [FATAL_EXIT_CODE]}},
                {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
            ]
        },
        "template": {"spec": pod_spec},
    }
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": "training"},
        "spec": {
            "failurePolicy": {
                "maxRestarts": 3,
                "rules": [{"action": "FailJobSet", "onJobFailureReasons": ["PodFailurePolicy"]}],
            },
            "replicatedJobs": [{"name": "workers", "replicas": 1, "template": {"spec": job_spec}}],
        },
    }


def child_jobs(jobset: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The Jobs the JobSet controller will create (one per replica), as the API server sees them."""
    out = []
    for rj in jobset["spec"]["replicatedJobs"]:
        for i in range(rj.get("replicas", 1)):
            out.append(
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "metadata": {
                        "name": f"{jobset['metadata']['name']}-{rj['name']}-{i}",
                        "namespace": jobset["metadata"]["namespace"],
                        "labels": {"jobset.sigs.k8s.io/replicatedjob-name": rj["name"]},
                    },
                    "spec": copy.deepcopy(rj["template"]["spec"]),
                }
            )
    return out


def preflight(jobset: Dict[str, Any]) -> List[str]:
    """Validates the JobSet (webhook) and every child Job (kube-apiserver); returns the errors."""
    problems = [f"JobSet: {e.message}" for e in restartkit.validate(jobset).errors]
    for job in child_jobs(jobset):
        try:
            restartkit.check(job)
        except restartkit.ValidationError as err:
            problems += [f"Job {job['metadata']['name']}: {e['message']}" for e in err.errors()]
    return problems


def main() -> int:
    ok = True

    # 1. The PR #6306 mistake: podFailurePolicy without restartPolicy: Never.
    broken = training_jobset("llm-pretrain", workers=4, restart_policy=None)
    problems = preflight(broken)
    print("before the fix:")
    for p in problems:
        print("  ", p)
    if not any("restartPolicy" in p for p in problems):
        print("expected the missing `restartPolicy: Never` to be reported")
        ok = False

    # 2. Fixed: it passes, and we can ask what each failure would do before submitting.
    fixed = training_jobset("llm-pretrain", workers=4, restart_policy="Never")
    problems = preflight(fixed)
    print("after the fix:", "no problems" if not problems else problems)
    ok &= not problems

    job = child_jobs(fixed)[0]
    policy = restartkit.compile(job)
    for code in [0, 1, FATAL_EXIT_CODE, *RETRIABLE_EXIT_CODES]:
        print(f"  trainer exits {code:>3}: Job controller -> {policy.decide('trainer', code)}")
    ok &= policy.decide("trainer", FATAL_EXIT_CODE) == "FailJob"

    # 3. A worker Job failed through its podFailurePolicy: what does the JobSet do?
    failed = copy.deepcopy(job)
    failed["status"] = {
        "conditions": [
            {"type": "Failed", "status": "True", "reason": "PodFailurePolicy", "message": "Container trainer exited with 42"}
        ]
    }
    outcome = restartkit.evaluate_jobset_failure(fixed, [failed])
    print(f"  worker Job fails by PodFailurePolicy: JobSet -> {outcome['action']}")
    ok &= outcome["action"] == "FailJobSet"

    print("OK" if ok else "UNEXPECTED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
