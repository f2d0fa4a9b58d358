#!/usr/bin/env python3
"""Writes core/src/generated/crds/*.json: the CRDs restartkit bundles, cut down to what its schema
pass needs (core/src/validate/crd_schema/bundled.rs).

Each is read from the Go module cache at the release restartkit models, and then:
- descriptions, examples and `x-kubernetes-validations` (CEL) are dropped: the first two are
  words, and the create-time CEL rules of the bundled kinds are modelled by hand (jobset.rs,
  core/src/trainer) or concern updates;
- a subtree that is a Kubernetes built-in type (a JobTemplateSpec, a PersistentVolumeClaim) is
  replaced by `{"type": "object", "x-kubernetes-preserve-unknown-fields": true}`: those are
  checked by the built-in type tables (decoding, unknown fields, the kinds' own validation), so
  copying their schemas would only grow the wasm module;
- only the fields of the CRD the reader uses are kept (group, kind, versions with their schema
  and status subresource), written as one line of JSON.

Usage: python3 tools/gen_crd_schemas.py [--check]   (`make check-crds` runs the check)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "core" / "src" / "generated" / "crds"

# The Pod fields a TrainJob's runtime patch may set that are Kubernetes types.
_POD_PATCH = [
    "spec", "runtimePatches", "[]", "trainingRuntimeSpec", "template", "spec",
    "replicatedJobs", "[]", "template", "spec", "template", "spec",
]
TRAINJOB_CUTS = [_POD_PATCH + [f] for f in ("affinity", "securityContext")] + [
    _POD_PATCH + ["volumes", "[]"],
    _POD_PATCH + ["tolerations", "[]"],
    _POD_PATCH + ["containers", "[]", "securityContext"],
    _POD_PATCH + ["initContainers", "[]", "securityContext"],
]
# A runtime's JobSet template: its Job templates and volume claim templates.
RUNTIME_CUTS = [
    ["spec", "template", "spec", "replicatedJobs", "[]", "template"],
    ["spec", "template", "spec", "volumeClaimPolicies", "[]", "templates", "[]"],
]

# Kubeflow's training-operator v1 jobs: (file name, replica specs field); each replica's Pod
# template is a built-in type.
TRAINING_OPERATOR = "github.com/kubeflow/training-operator@v1.8.1"
TRAINING_JOBS = [
    ("pytorchjobs", "pytorchReplicaSpecs"),
    ("tfjobs", "tfReplicaSpecs"),
    ("mpijobs", "mpiReplicaSpecs"),
    ("xgboostjobs", "xgbReplicaSpecs"),
    ("paddlejobs", "paddleReplicaSpecs"),
    ("mxjobs", "mxReplicaSpecs"),
]

# name -> (module@version, path in the module, [paths of built-in subtrees to stub])
# A path is a list of property names; "[]" steps into an array's items, "{}" into a map's values.
BUNDLED = {
    "jobset": (
        "sigs.k8s.io/jobset@v0.12.0",
        "config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml",
        [
            ["spec", "replicatedJobs", "[]", "template"],
            ["spec", "volumeClaimPolicies", "[]", "templates", "[]"],
        ],
    ),
    # The version conformance/oracle/kruise pins. The CRR's containers carry Pod fields (ports,
    # preStop) that the webhook refuses and fills itself: kept, they are small.
    "kruise-crr": (
        "github.com/openkruise/kruise@v1.8.0",
        "config/crd/bases/apps.kruise.io_containerrecreaterequests.yaml",
        [],
    ),
    "lws": (
        "sigs.k8s.io/lws@v0.9.0",
        "config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml",
        [
            ["spec", "leaderWorkerTemplate", "leaderTemplate"],
            ["spec", "leaderWorkerTemplate", "workerTemplate"],
            ["spec", "leaderWorkerTemplate", "volumeClaimTemplates", "[]"],
        ],
    ),
    # core/src/trainer checks what these schemas say inside the cut subtrees (crd.rs).
    "trainer-trainjob": (
        "github.com/kubeflow/trainer/v2@v2.3.0",
        "manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml",
        TRAINJOB_CUTS,
    ),
    "trainer-trainingruntime": (
        "github.com/kubeflow/trainer/v2@v2.3.0",
        "manifests/base/crds/trainer.kubeflow.org_trainingruntimes.yaml",
        RUNTIME_CUTS,
    ),
    "trainer-clustertrainingruntime": (
        "github.com/kubeflow/trainer/v2@v2.3.0",
        "manifests/base/crds/trainer.kubeflow.org_clustertrainingruntimes.yaml",
        RUNTIME_CUTS,
    ),
}

BUNDLED.update(
    {
        f"kubeflow-{file}": (
            TRAINING_OPERATOR,
            f"manifests/base/crds/kubeflow.org_{file}.yaml",
            [["spec", specs, "{}", "template"]],
        )
        for file, specs in TRAINING_JOBS
    }
)

STUB = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
DROP = {"description", "example", "x-kubernetes-validations"}


def module_dir(module: str) -> Path:
    """The module's directory in the Go module cache, downloaded (by the Go module proxy) when
    it is not there yet, as `go mod download -json` does."""
    out = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True)
    path = Path(out.stdout.strip()) / module
    if path.is_dir():
        return path
    out = subprocess.run(
        ["go", "mod", "download", "-json", module], capture_output=True, text=True, check=True
    )
    return Path(json.loads(out.stdout)["Dir"])


def strip(node: object) -> object:
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items() if k not in DROP}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def stub(schema: dict, path: list[str]) -> None:
    def child(step: str) -> str:
        return {"[]": "items", "{}": "additionalProperties"}.get(step, step)

    node = schema
    for step in path[:-1]:
        node = node[child(step)] if step in ("[]", "{}") else node["properties"][step]
    last = path[-1]
    if last in ("[]", "{}"):
        node[child(last)] = dict(STUB)
    else:
        node["properties"][last] = dict(STUB)


def build(module: str, file: str, cuts: list[list[str]]) -> dict:
    text = (module_dir(module) / file).read_text()
    crd = yaml.safe_load(text)
    versions = []
    for v in crd["spec"]["versions"]:
        schema = v["schema"]["openAPIV3Schema"]
        for cut in cuts:
            stub(schema, cut)
        entry = {
            "name": v["name"],
            "served": v.get("served", True),
            "schema": {"openAPIV3Schema": strip(schema)},
        }
        if "status" in v.get("subresources", {}):
            entry["subresources"] = {"status": {}}
        versions.append(entry)
    return {
        "apiVersion": crd["apiVersion"],
        "kind": "CustomResourceDefinition",
        "spec": {
            "group": crd["spec"]["group"],
            "names": {"kind": crd["spec"]["names"]["kind"]},
            "scope": crd["spec"].get("scope", "Namespaced"),
            "versions": versions,
        },
        "source": f"{module}/{file}",
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="fail when a committed file is stale")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    stale = []
    for name, (module, file, cuts) in BUNDLED.items():
        text = json.dumps(build(module, file, cuts), separators=(",", ":"), sort_keys=True) + "\n"
        path = OUT / f"{name}.json"
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path))
        else:
            path.write_text(text)
            print(f"{path.relative_to(ROOT)}: {len(text)} bytes")
    if stale:
        print("stale: " + ", ".join(stale) + " (run tools/gen_crd_schemas.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
