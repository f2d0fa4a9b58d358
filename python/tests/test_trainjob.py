"""Kubeflow Trainer: restartkit.trainjob and the other functions taking a TrainJob with its
runtime, from dicts, YAML text, file paths and the Kubeflow SDK's models; a str naming a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

import restartkit
from conftest import ROOT
from restartkit import _native

EXAMPLE = ROOT / "examples" / "trainjob-torch.yaml"
SCENARIO = ROOT / "examples" / "scenarios" / "trainjob-torch.yaml"


def _docs() -> List[Dict[str, Any]]:
    docs = json.loads(_native.parse_source(EXAMPLE.read_text(encoding="utf-8")))
    return [d for d in docs if isinstance(d, dict)]


def _runtime() -> Dict[str, Any]:
    return next(d for d in _docs() if d["kind"] == "ClusterTrainingRuntime")


def _train_job() -> Dict[str, Any]:
    return next(d for d in _docs() if d["kind"] == "TrainJob")


def _node_job(r: restartkit.TrainJobResult) -> Dict[str, Any]:
    assert r.job_set is not None, r
    rj = r.job_set["spec"]["replicatedJobs"]
    node: Dict[str, Any] = next(j for j in rj if j["name"] == "node")
    return node


def test_a_file_path_str_gives_the_jobset_the_trainer_builds() -> None:
    r = restartkit.trainjob(str(EXAMPLE))
    assert r.valid and not r.errors, r.errors
    assert r.not_built is None
    job = _node_job(r)["template"]["spec"]
    # numNodes 4 → parallelism and completions 4 (the jobset plugin), the TrainJob's image.
    assert (job["parallelism"], job["completions"]) == (4, 4)
    container = job["template"]["spec"]["containers"][0]
    assert container["image"] == "ghcr.io/example/llm-finetune:1.0"
    env = {e["name"]: e.get("value") for e in container["env"]}
    # GPUs per node: torchrun's own "auto" (the torch plugin computes a count only for CPUs).
    assert env["PET_NNODES"] == "4" and env["PET_NPROC_PER_NODE"] == "auto"
    assert r.job_set is not None
    assert r.job_set["metadata"]["ownerReferences"][0]["kind"] == "TrainJob"
    kinds = sorted(o["kind"] for o in r.objects)
    assert "ConfigMap" in kinds, kinds


def test_dict_text_and_path_inputs_agree() -> None:
    by_dict = restartkit.trainjob(_train_job(), runtime=_runtime())
    by_path = restartkit.trainjob(_train_job(), runtime=EXAMPLE)
    by_str_path = restartkit.trainjob(_train_job(), runtime=str(EXAMPLE))
    by_text = restartkit.trainjob(EXAMPLE.read_text(encoding="utf-8"))
    assert by_dict.job_set == by_path.job_set == by_str_path.job_set == by_text.job_set
    assert by_dict.job_set is not None


def test_a_missing_runtime_gets_the_webhooks_message() -> None:
    tj = _train_job()
    tj["spec"]["runtimeRef"] = {"name": "torch-distributed"}
    r = restartkit.trainjob(tj)
    assert not r.valid and r.job_set is None
    # The ClusterTrainingRuntime validator's own field spelling (clustertrainingruntime.go).
    assert any(
        e.field == "spec.RuntimeRef" and e.message.endswith("specified clusterTrainingRuntime must be created before the TrainJob is created")
        for e in r.errors
    ), r.errors


def test_a_runtime_error_points_into_the_runtime_file(tmp_path: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8").replace("values: [2]", "values: [0]")
    runtime_text, train_job_text = text.split("\n---\n")
    r = restartkit.validate(train_job_text, runtime=[runtime_text])
    assert not r.valid
    # onExitCodes values may not hold 0 (In): the runtime's podFailurePolicy, at its line.
    bad = [e for e in r.errors if "onExitCodes" in e.field]
    assert bad and bad[0].field.startswith("spec.template.spec.replicatedJobs[0].template.spec.podFailurePolicy"), r.errors
    assert bad[0].line == runtime_text.splitlines().index("                      values: [0]") + 1
    # The runtime given by path: the diagnostic names its file.
    runtime_file = tmp_path / "runtime.yaml"
    runtime_file.write_text(runtime_text, encoding="utf-8")
    with_file = restartkit.validate(train_job_text, runtime=runtime_file)
    located = [e for e in with_file.errors if "onExitCodes" in e.field]
    assert located and located[0].file is not None and located[0].file.endswith("runtime.yaml")


def test_what_if_answers_for_the_built_jobset() -> None:
    user_error = restartkit.what_if(_train_job(), 2, runtime=_runtime())
    retriable = restartkit.what_if(_train_job(), 1, runtime=_runtime())
    assert user_error["container"] == "node" and not user_error["warnings"]
    jobset = user_error.get("jobset")
    assert isinstance(jobset, dict) and jobset["action"] == "FailJobSet"
    jobset = retriable.get("jobset")
    assert isinstance(jobset, dict) and jobset["action"] == "RestartJobSet"


def test_simulate_fails_the_trainjob_at_its_deadline() -> None:
    for scenario in (SCENARIO, str(SCENARIO)):
        out = restartkit.simulate(scenario)
        tj = out.get("trainJob")
        assert isinstance(tj, dict) and tj["phase"] == "Failed" and tj["reason"] == "DeadlineExceeded", tj
        assert tj["jobsetDeletedAtSeconds"] == 86400


def test_load_scenario_reads_a_str_path_like_a_path() -> None:
    by_str = restartkit.load_scenario(str(SCENARIO))
    assert by_str == restartkit.load_scenario(SCENARIO)
    assert by_str["workload"]["kind"] == "TrainJob"
    assert by_str["runtime"]["kind"] == "ClusterTrainingRuntime"
    # The issue's case: a sweep of the path as a str runs.
    r = restartkit.sweep(str(ROOT / "examples" / "scenarios" / "training-in-place.yaml"), 2)
    assert r["variants"][0]["name"] == "baseline"


def test_a_str_that_is_neither_a_file_nor_an_object_is_refused() -> None:
    with pytest.raises(restartkit.RestartkitError) as e:
        restartkit.load_scenario("examples/scenarios/no-such-scenario.yaml")
    msg = str(e.value)
    assert "neither an existing file nor a Kubernetes object" in msg and "pass the file's path" in msg
    assert os.getcwd() in msg
    with pytest.raises(restartkit.RestartkitError, match="neither an existing file"):
        restartkit.validate("no-such-job.yaml")
    with pytest.raises(restartkit.RestartkitError, match="neither an existing file"):
        restartkit.trainjob("trainjob.yaml", runtime=EXAMPLE)


class _SdkLike:
    """A model as the Kubeflow SDK's are: its API JSON from to_dict()."""

    def __init__(self, d: Dict[str, Any]) -> None:
        self._d = d

    def to_dict(self) -> Dict[str, Any]:
        return self._d


def test_models_with_to_dict_are_read() -> None:
    r = restartkit.trainjob(_SdkLike(_train_job()), runtime=_SdkLike(_runtime()))
    assert r.valid and r.job_set == restartkit.trainjob(str(EXAMPLE)).job_set


def test_kubeflow_sdk_models() -> None:
    models = pytest.importorskip("kubeflow_trainer_api.models")
    tj = models.TrainerV1alpha1TrainJob(
        apiVersion="trainer.kubeflow.org/v1alpha1",
        kind="TrainJob",
        metadata=models.IoK8sApimachineryPkgApisMetaV1ObjectMeta(name="llm-finetune", namespace="training"),
        spec=models.TrainerV1alpha1TrainJobSpec(
            runtimeRef=models.TrainerV1alpha1RuntimeRef(name="torch-distributed-resilient"),
            activeDeadlineSeconds=86400,
            trainer=models.TrainerV1alpha1Trainer(
                numNodes=4,
                image="ghcr.io/example/llm-finetune:1.0",
                command=["torchrun", "train.py"],
                resourcesPerNode=models.IoK8sApiCoreV1ResourceRequirements(
                    limits={"nvidia.com/gpu": models.IoK8sApimachineryPkgApiResourceQuantity("8")}
                ),
            ),
        ),
    )
    r = restartkit.trainjob(tj, runtime=EXAMPLE)
    assert r.valid and r.job_set == restartkit.trainjob(str(EXAMPLE)).job_set
    assert restartkit.validate(tj, runtime=EXAMPLE).valid


def test_trainjob_sdk_example() -> None:
    pytest.importorskip("kubeflow_trainer_api")
    p = subprocess.run([sys.executable, str(ROOT / "examples" / "python" / "trainjob_sdk.py")], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0]" in p.stdout
    assert p.stdout.rstrip().endswith("OK")
