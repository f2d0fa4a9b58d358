#!/usr/bin/env python3
"""Generates what restartkit knows of each supported Kubernetes minor, from that minor's own
release (the k8s.io/kubernetes version pinned in conformance/oracle/versions/go.1.<minor>.mod):

- core/src/generated/k8s_gates.rs: every feature gate the release's kube-apiserver,
  kube-controller-manager and kubelet register, with its default, lock, pre-release stage and
  dependencies, as conformance/oracle/cmd/k8sfacts prints them (built against that release);
- core/src/generated/k8s_schema.rs: the fields of every API type the workload kinds restartkit
  reads reach (Pod, Job, CronJob, Deployment, StatefulSet, DaemonSet, ReplicaSet,
  ReplicationController, PodTemplate), with the minors each field exists in and its value's
  shape, read from the release's published OpenAPI (api/openapi-spec/swagger.json); and those of
  the kubelet's KubeletConfiguration, which the OpenAPI does not describe, from its Go type
  (k8sfacts).

    python3 tools/gen_k8s_versions.py            # rewrite both files
    python3 tools/gen_k8s_versions.py --check    # exit 1 when either is not what it would write

Needs go (the module proxy serves every release); run from the repository root.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
ORACLE = ROOT / "conformance" / "oracle"
OUT = ROOT / "core" / "src" / "generated"
NEWEST = 37

KUBELET = "io.k8s.kubelet.config.v1beta1."

# The kinds whose objects restartkit reads (group, kind) and their OpenAPI definitions.
KINDS = [
    ("", "Pod", "io.k8s.api.core.v1.Pod"),
    ("", "PodTemplate", "io.k8s.api.core.v1.PodTemplate"),
    ("", "ReplicationController", "io.k8s.api.core.v1.ReplicationController"),
    ("apps", "DaemonSet", "io.k8s.api.apps.v1.DaemonSet"),
    ("apps", "Deployment", "io.k8s.api.apps.v1.Deployment"),
    ("apps", "ReplicaSet", "io.k8s.api.apps.v1.ReplicaSet"),
    ("apps", "StatefulSet", "io.k8s.api.apps.v1.StatefulSet"),
    ("batch", "CronJob", "io.k8s.api.batch.v1.CronJob"),
    ("batch", "Job", "io.k8s.api.batch.v1.Job"),
    # Not an API object, so not in the OpenAPI: its fields come from its Go type (k8sfacts).
    ("kubelet.config.k8s.io", "KubeletConfiguration", KUBELET + "KubeletConfiguration"),
]
# Types other documents embed (a JobSet's replicated Job template, a runtime's Pod templates).
EMBEDDED = ["io.k8s.api.batch.v1.JobTemplateSpec", "io.k8s.api.core.v1.PodTemplateSpec",
            "io.k8s.api.batch.v1.JobSpec", "io.k8s.api.core.v1.PodSpec",
            "io.k8s.api.apps.v1.StatefulSetSpec", "io.k8s.api.apps.v1.DeploymentSpec"]

# Definitions decoded by a custom unmarshaller rather than as an object of fields.
SPECIAL = {
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "IntOrString",
    "io.k8s.apimachinery.pkg.api.resource.Quantity": "Quantity",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": "Time",
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": "Time",
    "io.k8s.apimachinery.pkg.runtime.RawExtension": "Any",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": "Any",
}


def minors() -> Dict[int, str]:
    out = {}
    for f in sorted((ORACLE / "versions").glob("go.1.*.mod")):
        m = re.search(r"go\.1\.(\d+)\.mod$", f.name)
        v = re.search(r"^\s*(?:require )?k8s\.io/kubernetes (v[\d.]+)", f.read_text(), re.M)
        if m and v:
            out[int(m.group(1))] = v.group(1)
    return dict(sorted(out.items()))


def module_dir(version: str) -> Path:
    out = subprocess.run(["go", "mod", "download", "-json", f"k8s.io/kubernetes@{version}"],
                         check=True, capture_output=True, text=True, cwd=ORACLE).stdout
    return Path(json.loads(out)["Dir"])


def tags(minor: int) -> str:
    return ",".join(f"k8s_before_1_{n}" for n in range(minor + 1, NEWEST + 1))


def facts(minor: int) -> Dict[str, Any]:
    out = subprocess.run(["go", "run", f"-modfile=versions/go.1.{minor}.mod", f"-tags={tags(minor)}",
                          "./cmd/k8sfacts"], check=True, capture_output=True, text=True, cwd=ORACLE).stdout
    return json.loads(out)


def value_shape(p: Dict[str, Any]) -> Tuple:
    if "$ref" in p:
        ref = p["$ref"].rsplit("/", 1)[-1]
        return ("scalar", SPECIAL[ref]) if ref in SPECIAL else ("object", ref)
    if "allOf" in p:
        return value_shape(p["allOf"][0])
    t = p.get("type")
    if t == "array":
        return ("list", value_shape(p["items"]))
    if t == "object":
        ap = p.get("additionalProperties")
        return ("map", value_shape(ap)) if isinstance(ap, dict) else ("scalar", "Any")
    fmt = p.get("format")
    scalar = {("string", None): "String", ("string", "byte"): "Bytes", ("string", "date-time"): "Time",
              ("string", "int-or-string"): "IntOrString", ("integer", "int32"): "Int32",
              ("integer", "int64"): "Int64", ("integer", None): "Int64", ("number", "double"): "Number",
              ("number", None): "Number", ("boolean", None): "Boolean"}.get((t, fmt))
    if scalar is None:
        raise SystemExit(f"unhandled OpenAPI shape {p}")
    return ("scalar", scalar)


def walk_types(defs: Dict[str, Any]) -> Dict[str, Dict[str, Tuple]]:
    """Definition -> {field: shape}, for every definition the roots reach."""
    seen: Dict[str, Dict[str, Tuple]] = {}
    stack = [d for _, _, d in KINDS] + EMBEDDED
    while stack:
        t = stack.pop()
        if t in seen or t in SPECIAL or t not in defs:
            continue
        d = defs[t]
        if not d.get("properties") and d.get("type") != "object":
            raise SystemExit(f"{t}: a definition without fields that is not special")
        fields = {}
        for name, p in d.get("properties", {}).items():
            shape = value_shape(p)
            fields[name] = shape
            inner = shape
            while inner[0] in ("list", "map"):
                inner = inner[1]
            if inner[0] == "object":
                stack.append(inner[1])
        seen[t] = fields
    return seen


def kubelet_types(facts: Dict[str, Any]) -> Dict[str, Dict[str, Tuple]]:
    """k8sfacts' KubeletConfiguration types, as walk_types gives the OpenAPI ones."""
    def tup(shape: List[Any]) -> Tuple:
        if shape[0] == "object":
            return ("object", KUBELET + shape[1])
        if shape[0] in ("list", "map"):
            return (shape[0], tup(shape[1]))
        return tuple(shape)
    return {KUBELET + name: {f: tup(sh) for f, sh in fields.items()}
            for name, fields in facts["kubeletTypes"].items()}


def short(defn: str) -> str:
    return defn.rsplit(".", 1)[-1]


def rust_value(shape: Tuple, ids: Dict[str, int]) -> str:
    kind = shape[0]
    if kind == "scalar":
        return f"V::Scalar(S::{shape[1]})"
    if kind == "object":
        return f"V::Object({ids[shape[1]]})"
    return f"V::{'List' if kind == 'list' else 'Map'}(&{rust_value(shape[1], ids)})"


def schema_rs(per_minor: Dict[int, Dict[str, Dict[str, Tuple]]], versions: Dict[int, str]) -> str:
    names = sorted({t for types in per_minor.values() for t in types})
    shorts = [short(n) for n in names]
    dup = {s for s in shorts if shorts.count(s) > 1}
    if dup:
        raise SystemExit(f"type names shared by two definitions: {sorted(dup)}")
    ids = {n: i for i, n in enumerate(names)}
    lines = [
        f"// @generated by tools/gen_k8s_versions.py from k8s.io/kubernetes {', '.join(versions.values())}",
        "// (api/openapi-spec/swagger.json of each); do not edit.",
        "//! The fields of the API types the workload kinds reach, per Kubernetes minor.",
        "",
        "use super::schema_types::{Field, Kind, Scalar as S, Type, Value as V};",
        "",
        "/// Sorted by OpenAPI definition name; a field's `Object` value is an index in this list.",
        "pub static TYPES: &[Type] = &[",
    ]
    for n in names:
        fields: Dict[str, Tuple[int, int, Tuple]] = {}
        for m, types in per_minor.items():
            for f, shape in types.get(n, {}).items():
                if f in fields:
                    lo, hi, s = fields[f]
                    if s != shape:
                        raise SystemExit(f"{n}.{f} changes shape between minors")
                    fields[f] = (min(lo, m), max(hi, m), s)
                else:
                    fields[f] = (m, m, shape)
        present = sorted(m for m, types in per_minor.items() if n in types)
        body = ", ".join(
            f"Field {{ name: {json.dumps(f)}, since: {lo}, until: {hi}, value: {rust_value(s, ids)} }}"
            for f, (lo, hi, s) in sorted(fields.items(), key=lambda kv: (len(kv[0]), kv[0])))
        lines.append(f"    Type {{ name: {json.dumps(short(n))}, since: {present[0]}, until: {present[-1]}, fields: &[{body}] }},")
    lines.append("];")
    lines.append("")
    lines.append("/// The kinds whose objects are checked: (API group, kind, type).")
    lines.append("pub static KINDS: &[Kind] = &[")
    for group, kind, d in KINDS:
        lines.append(f"    Kind {{ group: {json.dumps(group)}, kind: {json.dumps(kind)}, type_: {ids[d]} }},")
    lines.append("];")
    return "\n".join(lines) + "\n"


STAGES = {"ALPHA": "Alpha", "BETA": "Beta", "GA": "Ga", "DEPRECATED": "Deprecated"}


def gates_rs(per_minor: Dict[int, Dict[str, Any]], versions: Dict[int, str]) -> str:
    names = sorted({g["name"] for f in per_minor.values() for g in f["gates"]})
    ids = {n: i for i, n in enumerate(names)}
    lines = [
        f"// @generated by tools/gen_k8s_versions.py from k8s.io/kubernetes {', '.join(versions.values())}",
        "// (conformance/oracle/cmd/k8sfacts built against each); do not edit.",
        "//! The feature gates each supported Kubernetes minor's components register.",
        "",
        "use super::gate_types::{Gate, Minor, Stage};",
        "",
        "/// Every gate name any supported minor knows, sorted; `Gate::name` indexes it.",
        "pub static NAMES: &[&str] = &[",
    ]
    lines += [f"    {json.dumps(n)}," for n in names]
    lines.append("];")
    lines.append("")
    lines.append("/// Oldest first.")
    lines.append("pub static MINORS: &[Minor] = &[")
    for m, f in per_minor.items():
        if f["kubernetes"] != versions[m]:
            raise SystemExit(f"k8sfacts for 1.{m} linked {f['kubernetes']}, not {versions[m]}")
        lines.append(f"    Minor {{ minor: {m}, release: {json.dumps(versions[m])}, gates: &[")
        for g in f["gates"]:
            lines.append(f"        Gate {{ name: {ids[g['name']]}, default: {str(g['default']).lower()}, "
                         f"locked: {str(g['lockToDefault']).lower()}, stage: Stage::{STAGES[g['stage']]} }},")
        lines.append("    ], depends: &[")
        for g in f["gates"]:
            if g.get("dependsOn"):
                deps = ", ".join(str(ids[d]) for d in g["dependsOn"])
                lines.append(f"        ({ids[g['name']]}, &[{deps}]),")
        lines.append("    ] },")
    lines.append("];")
    return "\n".join(lines) + "\n"


def main() -> int:
    check = "--check" in sys.argv[1:]
    versions = minors()
    if min(versions) != 31 or max(versions) != NEWEST:
        raise SystemExit(f"expected minors 31..{NEWEST}, found {list(versions)}")
    schemas = {}
    gates = {}
    for m, v in versions.items():
        defs = json.loads((module_dir(v) / "api" / "openapi-spec" / "swagger.json").read_text())["definitions"]
        gates[m] = facts(m)
        schemas[m] = {**walk_types(defs), **kubelet_types(gates[m])}
    files = {OUT / "k8s_schema.rs": schema_rs(schemas, versions), OUT / "k8s_gates.rs": gates_rs(gates, versions)}
    stale = []
    for path, text in files.items():
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(text)
    if stale:
        print("not what tools/gen_k8s_versions.py writes (run it): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
