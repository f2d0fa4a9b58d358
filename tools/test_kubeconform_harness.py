#!/usr/bin/env python3
"""Tests of the kubeconform harness itself (make test-kubeconform-harness, ~10 s once kubeconform is
installed): the generated schemas make kubeconform accept and refuse what they should, the bench
corpus is deterministic and valid, and the accuracy table's parsing and field matching hold.

    python3 tools/test_kubeconform_harness.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Any, Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_kubeconform as bk  # noqa: E402
import kubeconform_schemas as ks  # noqa: E402

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, creationTimestamp: null}
spec:
  replicas: %s
  selector: {matchLabels: {app: web}}
  strategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: "25%%"}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        resources: {%s: {cpu: 1, memory: 512Mi}}
"""


class Harness(unittest.TestCase):
    schemas: Path

    @classmethod
    def setUpClass(cls) -> None:
        bk.ensure_kubeconform()
        cls.schemas = ks.generate(bk.MINOR, bk.CACHE / "kubeconform-schemas")

    def kubeconform(self, text: str, strict: bool) -> List[Dict[str, Any]]:
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write(text)
            f.flush()
            p = subprocess.run(bk.kc_cmd(self.schemas, strict, 1, ["-output", "json", "-verbose", f.name]),
                               capture_output=True, text=True)
        res: List[Dict[str, Any]] = json.loads(p.stdout)["resources"]
        return res

    def test_valid_deployment_passes_both(self) -> None:
        for strict in (False, True):
            res = self.kubeconform(DEPLOYMENT % ("2", "limits"), strict)
            self.assertEqual([r["status"] for r in res], ["statusValid"], res)

    def test_replicas_two_refused_at_its_path(self) -> None:
        for strict in (False, True):
            res = self.kubeconform(DEPLOYMENT % ("two", "limits"), strict)
            self.assertEqual(res[0]["status"], "statusInvalid")
            self.assertIn("/spec/replicas", [e["path"] for e in res[0]["validationErrors"]])

    def test_unknown_field_only_under_strict(self) -> None:
        self.assertEqual(self.kubeconform(DEPLOYMENT % ("2", "limit"), False)[0]["status"], "statusValid")
        res = self.kubeconform(DEPLOYMENT % ("2", "limit"), True)[0]
        self.assertEqual(res["status"], "statusInvalid")
        self.assertTrue(bk.names(bk.kc_fields(res), "spec.template.spec.containers[0].resources.limit"), res)

    def test_layout_and_group_naming(self) -> None:
        self.assertEqual(ks.file_name({"group": "rbac.authorization.k8s.io", "version": "v1", "kind": "ClusterRole"}),
                         "clusterrole-rbac-v1.json")
        self.assertEqual(ks.file_name({"group": "", "version": "v1", "kind": "Pod"}), "pod-v1.json")
        for variant in ("standalone", "standalone-strict"):
            d = self.schemas / f"v{bk.kube_version()}-{variant}"
            for name in ("deployment-apps-v1.json", "service-v1.json", "cronjob-batch-v1.json", "clusterrole-rbac-v1.json"):
                self.assertTrue((d / name).is_file(), d / name)
        role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nrules: []\n"
        self.assertEqual(self.kubeconform(role, True)[0]["status"], "statusValid")

    def test_bench_corpus_is_deterministic_and_valid(self) -> None:
        a = [bk.to_yaml(d) for d, _ in zip(bk.docs(1), range(14))]
        b = [bk.to_yaml(d) for d, _ in zip(bk.docs(1), range(14))]
        self.assertEqual(a, b)
        res = self.kubeconform("".join("---\n" + x for x in a), True)
        self.assertEqual(len(res), 14)
        bad = [(r["kind"], r.get("msg")) for r in res if r["status"] != "statusValid"]
        self.assertEqual(bad, [])
        self.assertEqual(sorted({r["kind"] for r in res}),
                         ["ConfigMap", "CronJob", "Deployment", "Job", "Pod", "Service", "StatefulSet"])

    def test_field_matching(self) -> None:
        self.assertTrue(bk.names(["spec.ports[0].port"], "spec.ports[0].port"))
        self.assertTrue(bk.names(["data[my key]"], "data"))
        self.assertTrue(bk.names(["data.retries"], "data"))
        self.assertFalse(bk.names(["spec"], "spec.replicas"))
        self.assertFalse(bk.names(["spec.replicasx"], "spec.replicas"))
        self.assertEqual(bk.kc_fields({"validationErrors": [{"path": "/spec", "msg": "missing property 'selector'"}]}),
                         ["spec", "spec.selector"])

    def test_schema_refused_headers(self) -> None:
        cases: List[Tuple[Path, str, Any, List[str]]] = bk.expectations()["schema-refused"]
        self.assertGreaterEqual(len(cases), 40)
        for path, want, field, _ in cases:
            head = path.read_text().split("\n", 3)
            self.assertTrue(head[0].startswith("# expect: "), path)
            if want == "refuse":
                self.assertTrue(field, f"{path}: no # field:")

    def test_peak_rss_is_measured(self) -> None:
        wall, rc, rss_kib, _ = bk.run([sys.executable, "-c", "b = bytearray(64 << 20)"], None)
        self.assertEqual(rc, 0)
        self.assertGreater(rss_kib, 60 << 10)


if __name__ == "__main__":
    unittest.main(verbosity=2)
