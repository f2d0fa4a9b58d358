from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parents[2]
VECTOR_DIR = ROOT / "conformance" / "vectors"


def load_vectors() -> List[Dict[str, Any]]:
    out: List[Dict[str, Any]] = []
    for f in sorted(VECTOR_DIR.glob("*.json")):
        out.extend(json.loads(f.read_text(encoding="utf-8")))
    return out


def pod(**spec: Any) -> Dict[str, Any]:
    """A complete Pod (as the API server would see it after defaulting)."""
    base: Dict[str, Any] = {
        "restartPolicy": "Never",
        "dnsPolicy": "ClusterFirst",
        "terminationGracePeriodSeconds": 30,
        "containers": [{"name": "main", "image": "busybox", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}],
    }
    base.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"}, "spec": base}


def job(restart_policy: str = "Never", with_pfp: bool = True) -> Dict[str, Any]:
    spec: Dict[str, Any] = {
        "backoffLimit": 3,
        "template": {
            "spec": {
                "restartPolicy": restart_policy,
                "containers": [{"name": "trainer", "image": "trainer:1"}, {"name": "sidecar", "image": "proxy:1"}],
            }
        },
    }
    if with_pfp:
        spec["podFailurePolicy"] = {
            "rules": [
                {"action": "FailJob", "onExitCodes": {"containerName": "trainer", "operator": "In", "values": [42]}},
                {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
            ]
        }
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train", "namespace": "default"}, "spec": spec}
