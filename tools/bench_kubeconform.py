#!/usr/bin/env python3
"""restartkit against kubeconform (issue 30, item 5): speed, peak memory and accuracy.

    make bench-kubeconform            # the full numbers (10,000-document stream, 1,000 and 10,000
                                      # files, 1 GB JSON List and 1 GB YAML stream)
    make bench-kubeconform-quick      # small corpora, seconds (a smoke of the harness)
    python3 tools/bench_kubeconform.py [--quick] [--accuracy-only | --no-accuracy] [--big-mb N]

kubeconform is pinned (KUBECONFORM_VERSION) and `go install`ed into ~/.cache/restartkit/tools;
its schemas are generated offline from the pinned k8s.io/kubernetes swagger.json by
tools/kubeconform_schemas.py; the corpora are generated deterministically into
~/.cache/restartkit/bench-corpora. Nothing is written into the repository.

Every corpus is valid, so any exit status but 0 is a failure of the run (reported with the first
line of its error output). Each run is one child process; its wall time is measured around it and its peak RSS is the
child's ru_maxrss from wait4. On a shared machine wall times are noisy: each figure is the best of
--repeat runs. Runs are made on all cores and on one (`taskset -c 0`); kubeconform gets `-n` equal
to the cores it may use. Needs only Python 3.9+, Go (for the install) and the release CLI.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kubeconform_schemas  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CACHE = kubeconform_schemas.CACHE
TOOLS = CACHE / "tools"
KUBECONFORM_VERSION = "v0.8.0"
KUBECONFORM_MODULE = "github.com/yannh/kubeconform/cmd/kubeconform"
KUBECONFORM = TOOLS / "kubeconform"
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", CACHE / "target"))
RK = Path(os.environ.get("RESTARTKIT_BIN", TARGET / "release" / "restartkit"))
CORPORA = CACHE / "bench-corpora"
MINOR = 37


# ---------------------------------------------------------------- tools

def ensure_kubeconform() -> str:
    """kubeconform at the pinned version (go install when missing or another version)."""
    def version() -> str:
        # `go install`ed builds print "development" for -v; the module version is in the build info
        if not KUBECONFORM.exists():
            return ""
        info = subprocess.run(["go", "version", "-m", str(KUBECONFORM)], capture_output=True, text=True).stdout
        m = re.search(r"^\s*mod\s+github.com/yannh/kubeconform\s+(\S+)", info, re.M)
        return m.group(1) if m else ""
    if version() != KUBECONFORM_VERSION:
        TOOLS.mkdir(parents=True, exist_ok=True)
        subprocess.run(["go", "install", f"{KUBECONFORM_MODULE}@{KUBECONFORM_VERSION}"], check=True,
                       env={**os.environ, "GOBIN": str(TOOLS)})
    v = version()
    if v != KUBECONFORM_VERSION:
        raise SystemExit(f"kubeconform reports {v!r}, expected {KUBECONFORM_VERSION}")
    return v


def kube_version() -> str:
    return kubeconform_schemas.pinned_kubernetes(MINOR).lstrip("v")


def kc_cmd(schemas: Path, strict: bool, workers: int, extra: List[str]) -> List[str]:
    return [str(KUBECONFORM), "-kubernetes-version", kube_version(), "-schema-location", str(schemas),
            "-n", str(workers)] + (["-strict"] if strict else []) + extra


# ---------------------------------------------------------------- corpora

def workload(rng: random.Random, i: int) -> Dict[str, Any]:
    """One realistic document of a mixed kind (all valid for the API server)."""
    app = f"app-{i % 997}"
    labels = {"app.kubernetes.io/name": app, "app.kubernetes.io/part-of": f"shop-{i % 13}", "tier": rng.choice(["web", "api", "worker"])}
    meta = {"name": f"{app}-{i}", "namespace": f"team-{i % 7}", "labels": labels,
            "annotations": {"example.com/owner": f"team-{i % 7}", "example.com/revision": str(rng.randint(1, 500))}}

    def container(name: str) -> Dict[str, Any]:
        c: Dict[str, Any] = {
            "name": name, "image": f"registry.example.com/{app}:{rng.randint(1, 40)}.{rng.randint(0, 9)}",
            "imagePullPolicy": "IfNotPresent",
            "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
            "env": [{"name": f"VAR_{k}", "value": f"value-{rng.randint(0, 10**6)}"} for k in range(rng.randint(1, 6))],
            "resources": {"requests": {"cpu": f"{rng.choice([100, 250, 500])}m", "memory": f"{rng.choice([128, 256, 512])}Mi"},
                          "limits": {"cpu": rng.choice(["1", "2", "500m"]), "memory": f"{rng.choice([256, 512, 1024])}Mi"}},
            "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http"}, "periodSeconds": 10},
            "livenessProbe": {"tcpSocket": {"port": 8080}, "initialDelaySeconds": 15},
            "volumeMounts": [{"name": "config", "mountPath": "/etc/app", "readOnly": True}],
        }
        return c

    pod_spec: Dict[str, Any] = {"containers": [container("main")], "volumes": [{"name": "config", "configMap": {"name": f"{app}-config"}}],
                                "securityContext": {"runAsNonRoot": True, "runAsUser": 1000},
                                "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                                    {"weight": 50, "preference": {"matchExpressions": [{"key": "disktype", "operator": "In", "values": ["ssd"]}]}}]}}}
    template = {"metadata": {"labels": labels}, "spec": pod_spec}
    kind = ["Deployment", "Service", "ConfigMap", "Job", "CronJob", "StatefulSet", "Pod"][i % 7]
    if kind == "Deployment":
        return {"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "spec": {
            "replicas": rng.randint(1, 10), "selector": {"matchLabels": labels},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}}, "template": template}}
    if kind == "Service":
        return {"apiVersion": "v1", "kind": kind, "metadata": meta, "spec": {
            "type": rng.choice(["ClusterIP", "NodePort"]), "selector": labels,
            "ports": [{"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"}]}}
    if kind == "ConfigMap":
        return {"apiVersion": "v1", "kind": kind, "metadata": meta,
                "data": {f"key{k}.properties": f"setting.{k}={rng.randint(0, 10**9)}\n" * 3 for k in range(rng.randint(2, 8))}}
    job_pod = {"metadata": {"labels": labels}, "spec": {**pod_spec, "restartPolicy": "Never"}}
    job = {"backoffLimit": rng.randint(0, 6), "template": job_pod,
           "podFailurePolicy": {"rules": [{"action": "FailJob", "onExitCodes": {"containerName": "main", "operator": "In", "values": [42]}},
                                          {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}}
    if kind == "Job":
        return {"apiVersion": "batch/v1", "kind": kind, "metadata": meta, "spec": job}
    if kind == "CronJob":
        return {"apiVersion": "batch/v1", "kind": kind, "metadata": meta, "spec": {
            "schedule": f"{rng.randint(0, 59)} {rng.randint(0, 23)} * * *", "concurrencyPolicy": "Forbid", "jobTemplate": {"spec": job}}}
    if kind == "StatefulSet":
        return {"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "spec": {
            "serviceName": app, "replicas": rng.randint(1, 5), "selector": {"matchLabels": labels}, "template": template,
            "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                                            "resources": {"requests": {"storage": "10Gi"}}}}]}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {**pod_spec, "restartPolicy": "Always"}}


def to_yaml(v: Any, indent: int = 0) -> str:
    """Block YAML for the JSON-like values above (strings always quoted: no YAML typing surprises)."""
    pad = " " * indent
    if isinstance(v, dict):
        out = []
        for k, x in v.items():
            if isinstance(x, (dict, list)) and x:
                out.append(f"{pad}{k}:\n{to_yaml(x, indent + 2)}")
            else:
                out.append(f"{pad}{k}: {scalar(x)}\n")
        return "".join(out)
    out = []
    for x in v:
        if isinstance(x, (dict, list)) and x:
            body = to_yaml(x, indent + 2)
            out.append(f"{pad}- {body[indent + 2:]}")
        else:
            out.append(f"{pad}- {scalar(x)}\n")
    return "".join(out)


def scalar(x: Any) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, (int, float)):
        return str(x)
    if isinstance(x, (dict, list)):
        return "{}" if isinstance(x, dict) else "[]"
    return json.dumps(x)


def docs(seed: int) -> Iterator[Dict[str, Any]]:
    rng = random.Random(seed)
    i = 0
    while True:
        yield workload(rng, i)
        i += 1


class Corpus:
    def __init__(self, name: str, paths: List[Path], kc_args: List[Path], documents: int, size: int) -> None:
        self.name, self.paths, self.kc_args, self.documents, self.size = name, paths, kc_args, documents, size


def build_corpora(quick: bool, big_mb: int, only: Optional[str] = None) -> List[Corpus]:
    """The corpora (regenerated only when their parameters change)."""
    stream_docs, file_counts = (500, [100]) if quick else (10_000, [1_000, 10_000])
    big_bytes = (1 if quick else big_mb) * 1024 * 1024
    base = CORPORA / ("quick" if quick else "full")
    base.mkdir(parents=True, exist_ok=True)
    out: List[Corpus] = []

    def stamped(path: Path, key: str) -> bool:
        s = path.parent / (path.name + ".stamp")
        return path.exists() and s.exists() and s.read_text() == key

    def stamp(path: Path, key: str) -> None:
        (path.parent / (path.name + ".stamp")).write_text(key)

    stream = base / "stream.yaml"
    key = f"stream v1 {stream_docs}"
    if not stamped(stream, key):
        with stream.open("w") as f:
            for n, d in zip(range(stream_docs), docs(1)):
                f.write("---\n" + to_yaml(d))
        stamp(stream, key)
    out.append(Corpus(f"stream ({stream_docs:,} docs, 1 file)", [stream], [stream], stream_docs, stream.stat().st_size))

    for count in file_counts:
        d = base / f"files-{count}"
        key = f"files v1 {count}"
        if not stamped(d, key):
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir()
            for n, doc in zip(range(count), docs(2)):
                (d / f"{n:05d}-{doc['kind'].lower()}.yaml").write_text(to_yaml(doc))
            stamp(d, key)
        files = sorted(d.glob("*.yaml"))
        out.append(Corpus(f"many files ({count:,})", files, [d], count, sum(p.stat().st_size for p in files)))

    for fmt in ("json", "yaml"):
        p = base / f"big-{big_bytes >> 20}mb.{fmt}"
        key = f"big v1 {fmt} {big_bytes}"
        n = 0
        if not stamped(p, key):
            with p.open("w") as f:
                size = 0
                if fmt == "json":
                    f.write('{"apiVersion": "v1", "kind": "List", "items": [\n')
                for d in docs(3):
                    text = (",\n" if n else "") + json.dumps(d) if fmt == "json" else "---\n" + to_yaml(d)
                    f.write(text)
                    size += len(text)
                    n += 1
                    if size >= big_bytes:
                        break
                if fmt == "json":
                    f.write("\n]}\n")
            stamp(p, key)
            (p.parent / (p.name + ".docs")).write_text(str(n))
        n = int((p.parent / (p.name + ".docs")).read_text())
        label = "JSON List" if fmt == "json" else "YAML stream"
        out.append(Corpus(f"{p.stat().st_size / 2**20:,.0f} MB {label} ({n:,} docs)", [p], [p], n, p.stat().st_size))
    return out


# ---------------------------------------------------------------- runs

def run(cmd: List[str], cores: Optional[str], cap_mb: int = 0) -> Tuple[float, int, int, str]:
    """(wall seconds, exit status, peak RSS in KiB, first line of error output) of one child;
    cap_mb > 0 limits its address space (so a runaway cannot take the shared machine's memory)."""
    if cores is not None:
        cmd = ["taskset", "-c", cores] + cmd

    def cap() -> None:
        if cap_mb:
            resource.setrlimit(resource.RLIMIT_AS, (cap_mb << 20, cap_mb << 20))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, preexec_fn=cap)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        msg = ""
        if p.returncode != 0:  # kubeconform writes its errors to stdout
            for f in (err, out):
                f.seek(0)
                msg = msg or first_line(f.read(4096).decode(errors="replace"))
    return wall, p.returncode, ru.ru_maxrss, msg


def first_line(err: str) -> str:
    lines = [line.strip() for line in err.splitlines() if line.strip()]
    return lines[0][:200] if lines else ""


def bench(corpora: List[Corpus], schemas: Path, repeat: int, big_repeat: int, kc_max_mb: int, rk_cap_mb: int) -> List[Dict[str, Any]]:
    ncpu = len(os.sched_getaffinity(0))
    rows: List[Dict[str, Any]] = []
    for c in corpora:
        rep = big_repeat if c.size > 100 * 2**20 else repeat
        for cores_label, cores, workers in ((f"{ncpu} cores", None, ncpu), ("1 core", "0", 1)):
            tools = [
                ("restartkit", [str(RK), "validate", "-o", "json"] + [str(p) for p in c.paths]),
                ("kubeconform", kc_cmd(schemas, False, workers, [str(p) for p in c.kc_args])),
                ("kubeconform -strict", kc_cmd(schemas, True, workers, [str(p) for p in c.kc_args])),
            ]
            if kc_max_mb and c.size > kc_max_mb << 20:
                tools = tools[:1]
            results = {}
            for label, cmd in tools:
                best: Optional[Tuple[float, int, int, str]] = None
                for _ in range(rep):
                    r = run(cmd, cores, rk_cap_mb if label == "restartkit" else 0)
                    if best is None or r[0] < best[0]:
                        best = r
                assert best is not None
                results[label] = best
                wall, rc, rss, err = best
                note = "" if rc == 0 else f": {err}"
                print(f"  {c.name:<38} {cores_label:<8} {label:<20} {wall:8.2f} s {c.documents / wall:10,.0f} docs/s"
                      f" {rss / 1024:8.1f} MB peak RSS  exit {rc}{note}", flush=True)
            rk = results["restartkit"][0]
            if len(results) == 1:
                rows.append({"corpus": c.name, "cores": cores_label, "docs": c.documents, "bytes": c.size,
                             "restartkit_s": rk, "restartkit_rss_mb": results["restartkit"][2] / 1024,
                             "restartkit_exit": results["restartkit"][1], "restartkit_err": results["restartkit"][3], "tool": None})
            for label in [t for t in ("kubeconform", "kubeconform -strict") if t in results]:
                rows.append({"corpus": c.name, "cores": cores_label, "docs": c.documents, "bytes": c.size,
                             "restartkit_s": rk, "restartkit_rss_mb": results["restartkit"][2] / 1024,
                             "restartkit_exit": results["restartkit"][1], "restartkit_err": results["restartkit"][3],
                             "tool": label, "kc_s": results[label][0], "kc_rss_mb": results[label][2] / 1024,
                             "kc_exit": results[label][1], "kc_err": results[label][3]})
    return rows


def print_bench(rows: List[Dict[str, Any]]) -> None:
    """A Markdown table; a run that failed (any exit status but 0: every corpus is valid) shows its
    error instead of a rate."""
    def fig(secs: float, rc: int, err: str, docs: int) -> Tuple[str, str]:
        if rc == 0:
            return f"{secs:.2f}", f"{docs / secs:,.0f}"
        short = re.sub(r"^\S+ - ", "", err)[:80]  # kubeconform's lines start with the file name
        return f"failed after {secs:.1f} (exit {rc}: {short})", "—"
    print("\n| corpus | cores | restartkit s | docs/s | peak RSS MB | vs | kubeconform s | docs/s | peak RSS MB | time restartkit/kubeconform |")
    print("|---|---|---:|---:|---:|---|---:|---:|---:|---:|")
    for r in rows:
        rk_ok = r["restartkit_exit"] == 0
        rk_s, rk_rate = fig(r["restartkit_s"], r["restartkit_exit"], r.get("restartkit_err", ""), r["docs"])
        if r["tool"] is None:
            print(f"| {r['corpus']} | {r['cores']} | {rk_s} | {rk_rate} | {r['restartkit_rss_mb']:.0f} | "
                  "kubeconform not run (--kubeconform-max-mb) | | | | |")
            continue
        kc_ok = r["kc_exit"] == 0
        kc_s, kc_rate = fig(r["kc_s"], r["kc_exit"], r["kc_err"], r["docs"])
        ratio = f"{r['restartkit_s'] / r['kc_s']:.2f}" if rk_ok and kc_ok else "—"
        print(f"| {r['corpus']} | {r['cores']} | {rk_s} | {rk_rate} | {r['restartkit_rss_mb']:.0f} | {r['tool']} | "
              f"{kc_s} | {kc_rate} | {r['kc_rss_mb']:.0f} | {ratio} |")


# ---------------------------------------------------------------- accuracy

def norm(path: str) -> str:
    return re.sub(r"\[[^\]]*\]", "", path).strip(".")


def names(found: List[str], expected: Optional[str]) -> bool:
    """An error names the expected field: same path (indices aside) or a path inside it."""
    if not expected:
        return False
    e = norm(expected)
    return any(norm(f) == e or norm(f).startswith(e + ".") for f in found)


def kc_fields(res: Dict[str, Any]) -> List[str]:
    out = []
    for v in res.get("validationErrors") or []:
        base = ".".join(x for x in v.get("path", "").split("/") if x and not x.isdigit())
        out.append(base)
        for q in re.findall(r"'([^']+)'", v.get("msg", "")):
            out.append(f"{base}.{q}" if base else q)
    return out


def kubeconform_verdicts(files: List[Path], schemas: Path, strict: bool) -> Dict[str, Tuple[str, List[str]]]:
    """file -> (refused | passed | no schema, fields named): one run over all files."""
    cmd = kc_cmd(schemas, strict, 2, ["-ignore-missing-schemas", "-output", "json", "-verbose"] + [str(f) for f in files])
    p = subprocess.run(cmd, capture_output=True, text=True)
    out: Dict[str, Tuple[str, List[str]]] = {str(f): ("passed", []) for f in files}
    for res in json.loads(p.stdout or "{}").get("resources", []):
        f = res.get("filename", "")
        st = res.get("status")
        prev, fields = out.get(f, ("passed", []))
        if st in ("statusInvalid", "statusError"):
            out[f] = ("refused", fields + kc_fields(res) + [res.get("msg", "")[:0]])
        elif st == "statusSkipped" and prev == "passed":
            out[f] = ("no schema", fields)
    return out


def restartkit_verdict(path: Path, extra: List[str]) -> Tuple[str, List[str], int]:
    p = subprocess.run([str(RK), "validate", "-o", "json"] + extra + [str(path)], capture_output=True, text=True)
    fields: List[str] = []
    try:
        for entry in json.loads(p.stdout):
            res = entry.get("result") or {}
            fields += [e.get("field") or "" for e in res.get("errors", [])]
    except (json.JSONDecodeError, AttributeError, TypeError):
        pass
    return ("refused" if p.returncode != 0 else "passed"), fields, p.returncode


def expectations() -> Dict[str, List[Tuple[Path, str, Optional[str], List[str]]]]:
    """corpus -> [(file, must 'pass' or 'refuse', expected field, restartkit flags)]."""
    out: Dict[str, List[Tuple[Path, str, Optional[str], List[str]]]] = {}
    rw = ROOT / "conformance" / "realworld"
    out["realworld"] = []
    for e in json.loads((rw / "INDEX.json").read_text()):
        flags: List[str] = []
        if e.get("featureGates"):
            gates = e["featureGates"]
            flags += ["--feature-gates", ",".join(f"{k}={str(v).lower()}" for k, v in gates.items()) if isinstance(gates, dict) else ",".join(gates)]
        for r in e.get("runtimes", []):
            flags += ["--runtime", str(rw / r)]
        out["realworld"].append((rw / e["file"], "pass" if e.get("expect") == "valid" else "refuse", None, flags))
    bi = ROOT / "conformance" / "bad-input"
    out["bad-input"] = [(bi / c["file"], "refuse", c.get("expect", {}).get("field"), [])
                        for c in json.loads((bi / "manifest.json").read_text())["cases"]
                        if c.get("input") == "source" and c.get("file")]
    out["schema-refused"] = []
    for f in sorted((ROOT / "conformance" / "schema-refused").glob("*.yaml")):
        head = f.read_text().split("\n", 3)
        expect = next((l[len("# expect: "):] for l in head if l.startswith("# expect: ")), "")
        field = next((l[len("# field: "):] for l in head if l.startswith("# field: ")), None)
        out["schema-refused"].append((f, "pass" if expect == "accepted" else "refuse", field, []))
    return out


def accuracy(schemas: Path, only: Optional[List[str]] = None) -> Dict[str, Any]:
    totals: Dict[str, Any] = {}
    for corpus, cases in expectations().items():
        if only and corpus not in only:
            continue
        files = [c[0] for c in cases]
        kc = {s: kubeconform_verdicts(files, schemas, s) for s in (False, True)}
        print(f"\n### {corpus} ({len(cases)} files)\n")
        print("| file | expected | kubeconform | kubeconform -strict | restartkit |")
        print("|---|---|---|---|---|")
        t = {k: {"right": 0, "named": 0, "no schema": 0} for k in ("kubeconform", "kubeconform -strict", "restartkit")}
        t["refuse"] = sum(1 for c in cases if c[1] == "refuse")
        t["pass"] = len(cases) - t["refuse"]
        for path, want, field, flags in cases:
            cells = []
            for label, (verdict, fields) in (("kubeconform", kc[False][str(path)]), ("kubeconform -strict", kc[True][str(path)])):
                cells.append(cell(t[label], want, verdict, fields, field))
            rv, rf, rc = restartkit_verdict(path, flags)
            cells.append(cell(t["restartkit"], want, rv, rf, field) + f" (exit {rc})")
            print(f"| {path.name} | {'valid' if want == 'pass' else 'refused'} | " + " | ".join(cells) + " |")
        print()
        for label in ("kubeconform", "kubeconform -strict", "restartkit"):
            x = t[label]
            print(f"{corpus}: {label}: right on {x['right']}/{len(cases)} ({t['refuse']} to refuse, {t['pass']} to pass)"
                  f"; refusals naming the field: {x['named']}; skipped for want of a schema: {x['no schema']}")
        totals[corpus] = t
    return totals


def cell(t: Dict[str, int], want: str, verdict: str, fields: List[str], field: Optional[str]) -> str:
    if verdict == "no schema":
        t["no schema"] += 1
        return "no schema (skipped)"
    right = (verdict == "refused") == (want == "refuse")
    t["right"] += right
    if verdict == "refused":
        named = names(fields, field)
        t["named"] += named
        return ("caught" if want == "refuse" else "FALSE POSITIVE") + (", names field" if named else "")
    return "passes" if want == "pass" else "MISSED"


# ---------------------------------------------------------------- main

def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small corpora, one run each (seconds)")
    ap.add_argument("--accuracy-only", action="store_true")
    ap.add_argument("--no-accuracy", action="store_true")
    ap.add_argument("--big-mb", type=int, default=1024, help="size of the big JSON List and YAML stream (full mode)")
    ap.add_argument("--repeat", type=int, default=0, help="runs per figure (default 1 quick, 3 full; 1 for the big files)")
    ap.add_argument("--kubeconform-max-mb", type=int, default=0,
                    help="run only restartkit on corpora larger than this (kubeconform needs ~10 min per GB here)")
    ap.add_argument("--restartkit-cap-mb", type=int, default=4096,
                    help="address-space cap for restartkit's runs (exit status 101/134 when exceeded); 0: none")
    ap.add_argument("--only", help="run only the corpora whose name matches this regular expression, e.g. 'MB'")
    ap.add_argument("--json", type=Path, help="also write the bench rows here")
    a = ap.parse_args(argv)
    if not RK.exists():
        raise SystemExit(f"{RK} missing: cargo build --release -p restartkit-cli (or set RESTARTKIT_BIN)")
    print(f"kubeconform {ensure_kubeconform()} (pinned), restartkit {RK}, Kubernetes {kube_version()} schemas")
    schemas = kubeconform_schemas.generate(MINOR, CACHE / "kubeconform-schemas")
    print(f"schemas: {schemas}; cores available: {len(os.sched_getaffinity(0))}")
    if not a.accuracy_only:
        corpora = [c for c in build_corpora(a.quick, a.big_mb, a.only) if not a.only or re.search(a.only, c.name)]
        rows = bench(corpora, schemas, a.repeat or (1 if a.quick else 3), 1, a.kubeconform_max_mb, a.restartkit_cap_mb)
        print_bench(rows)
        if a.json:
            a.json.write_text(json.dumps(rows, indent=1))
    if not a.no_accuracy:
        accuracy(schemas)
    return 0


if __name__ == "__main__":
    sys.exit(main())
