#!/usr/bin/env python3
"""Check a Kubeflow TrainJob built with the Kubeflow SDK's own models before submitting it.

`TrainerClient().train(...)` (the `kubeflow` package) builds a `TrainerV1alpha1TrainJob` and
submits it; the trainer controller then builds a JobSet from it and the runtime it names. A
mistake in that pair (a runtimePatch the trainer's webhook refuses, a numNodes the runtime's
JobSet cannot take) shows up only after submission, as an admission error or a controller event.
Here the same model goes to `restartkit.trainjob`, which answers with the JobSet the trainer
would create (and whether the API server takes it), and to `restartkit.what_if`, which says what
a node's exit code does to it.

    pip install kubeflow                          # the SDK (kubeflow_trainer_api models)
    python examples/python/trainjob_sdk.py        # exit 0 when every check behaves
"""

from __future__ import annotations

import sys
from pathlib import Path

from kubeflow_trainer_api import models

import restartkit

# The ClusterTrainingRuntime the TrainJob names (the first document of this file).
RUNTIME = Path(__file__).resolve().parents[1] / "trainjob-torch.yaml"
USER_ERROR_EXIT_CODE = 2  # the runtime's podFailurePolicy fails the Job on it, and the JobSet with it


def train_job(num_nodes: int, node_selector_patch: bool) -> models.TrainerV1alpha1TrainJob:
    """The TrainJob `TrainerClient().train(runtime="torch-distributed-resilient", ...)` submits."""
    patches = None
    if node_selector_patch:
        # A nodeSelector for the Pods of "worker", a replicatedJob the runtime does not have.
        patches = [
            models.TrainerV1alpha1RuntimePatch(
                manager="example.com/scheduler",
                trainingRuntimeSpec=models.TrainerV1alpha1TrainingRuntimeSpecPatch(
                    template=models.TrainerV1alpha1JobSetTemplatePatch(
                        spec=models.TrainerV1alpha1JobSetSpecPatch(
                            replicatedJobs=[
                                models.TrainerV1alpha1ReplicatedJobPatch(
                                    name="worker",
                                    template=models.TrainerV1alpha1JobTemplatePatch(
                                        spec=models.TrainerV1alpha1JobSpecPatch(
                                            template=models.TrainerV1alpha1PodTemplatePatch(
                                                spec=models.TrainerV1alpha1PodSpecPatch(nodeSelector={"pool": "a100"})
                                            )
                                        )
                                    ),
                                )
                            ]
                        )
                    )
                ),
            )
        ]
    return models.TrainerV1alpha1TrainJob(
        apiVersion="trainer.kubeflow.org/v1alpha1",
        kind="TrainJob",
        metadata=models.IoK8sApimachineryPkgApisMetaV1ObjectMeta(name="llm-finetune", namespace="training"),
        spec=models.TrainerV1alpha1TrainJobSpec(
            runtimeRef=models.TrainerV1alpha1RuntimeRef(name="torch-distributed-resilient"),
            trainer=models.TrainerV1alpha1Trainer(
                numNodes=num_nodes,
                image="ghcr.io/example/llm-finetune:1.0",
                command=["torchrun", "train.py"],
            ),
            runtimePatches=patches,
        ),
    )


def main() -> int:
    failures = 0

    # 1. The TrainJob as written: the JobSet the trainer creates from it and the runtime.
    r = restartkit.trainjob(train_job(4, node_selector_patch=False), runtime=RUNTIME)
    print(r)
    job_set = r.job_set
    if not r.valid or job_set is None:
        print("  unexpected: the TrainJob should build a valid JobSet")
        return 1
    node = job_set["spec"]["replicatedJobs"][0]
    job = node["template"]["spec"]
    print(f"  JobSet {job_set['metadata']['name']}: replicatedJob {node['name']}, parallelism={job['parallelism']}, completions={job['completions']}")
    if (job["parallelism"], job["completions"]) != (4, 4):
        print("  unexpected: numNodes 4 should give 4 Pods")
        failures += 1
    env = {e["name"]: e.get("value") for e in job["template"]["spec"]["containers"][0].get("env", [])}
    print(f"  torchrun env: PET_NNODES={env.get('PET_NNODES')} PET_NPROC_PER_NODE={env.get('PET_NPROC_PER_NODE')}")
    if env.get("PET_NNODES") != "4":
        print("  unexpected: the torch plugin should set PET_NNODES=4")
        failures += 1

    # 2. What a node's exit code does to the TrainJob's JobSet.
    for code in (USER_ERROR_EXIT_CODE, 1):
        w = restartkit.what_if(train_job(4, node_selector_patch=False), code, runtime=RUNTIME)
        jobset = w.get("jobset")
        action = jobset.get("action") if isinstance(jobset, dict) else None
        print(f"  exit {code}: JobSet {action}")
        if (code == USER_ERROR_EXIT_CODE) != (action == "FailJobSet"):
            print("  unexpected: only the user error should fail the JobSet")
            failures += 1

    # 3. The mistake: a runtimePatch for a replicatedJob the runtime does not have ("worker";
    # the runtime's is "node"). The trainer's webhook admits it (v2.3.0 checks patched names
    # against the runtime after merging the patches), so the TrainJob is created; the JobSet
    # the trainer builds then has a Job without containers, which the API server refuses, and
    # the user sees only a controller event. restartkit says so before submitting, at the patch.
    bad = restartkit.trainjob(train_job(4, node_selector_patch=True), runtime=RUNTIME)
    print(bad)
    for e in bad.errors:
        print(f"  {e.origin}: {e.field}: {e.message}")
    at_patch = [e for e in bad.errors if e.field.startswith("spec.runtimePatches[0]") and e.origin == "kube-apiserver"]
    if bad.valid or not at_patch or any(e.origin == "trainer-webhook" for e in bad.errors):
        print("  unexpected: the JobSet built with the patch should be refused, at the patch")
        failures += 1

    print("OK" if failures == 0 else f"{failures} unexpected result(s)")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
