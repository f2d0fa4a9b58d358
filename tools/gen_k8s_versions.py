#!/usr/bin/env python3
"""Generates what restartkit knows of each supported Kubernetes minor, from that minor's own
release (the k8s.io/kubernetes version pinned in conformance/oracle/versions/go.1.<minor>.mod):

- core/src/generated/k8s_gates.rs: every feature gate the release's kube-apiserver,
  kube-controller-manager and kubelet register, with its default, lock, pre-release stage and
  dependencies, as conformance/oracle/cmd/k8sfacts prints them (built against that release);
- core/src/generated/k8s_schema.rs: every kind the release's API server creates (a POST in its
  published OpenAPI, api/openapi-spec/swagger.json) with the minors that serve it, and the fields
  of every API type those kinds reach, with the minors each field exists in, its value's shape
  (from the OpenAPI) and its Go type names (from the Go types the release links, k8sfacts'
  goTypes: what a decoding error names); and those of the kubelet's KubeletConfiguration, which
  the OpenAPI does not describe, from its Go type (k8sfacts).

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

# The kubelet's configuration file: not an API object, so not in the OpenAPI; its fields come from
# its Go type (k8sfacts).
KUBELET_KIND = ("kubelet.config.k8s.io", "v1beta1", "KubeletConfiguration", KUBELET + "KubeletConfiguration")
# Types other documents embed (a JobSet's replicated Job template, a runtime's Pod templates).
EMBEDDED = ["io.k8s.api.batch.v1.JobTemplateSpec", "io.k8s.api.core.v1.PodTemplateSpec",
            "io.k8s.api.batch.v1.JobSpec", "io.k8s.api.core.v1.PodSpec",
            "io.k8s.api.apps.v1.StatefulSetSpec", "io.k8s.api.apps.v1.DeploymentSpec"]
# Types the core looks up by their Go name (unknown_fields::type_named): that name must be one
# definition's only.
LOOKED_UP = ["Pod", "Job", "JobTemplateSpec", "ContainerStatus", "KubeletConfiguration"]

# Definitions decoded by a custom unmarshaller rather than as an object of fields.
SPECIAL = {
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "IntOrString",
    "io.k8s.apimachinery.pkg.api.resource.Quantity": "Quantity",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": "Time",
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": "MicroTime",
    "io.k8s.apimachinery.pkg.runtime.RawExtension": "Any",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": "Any",
    # A CustomResourceDefinition's schema: any JSON where a schema may be (its own decoders).
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON": "Any",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray": "Any",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool": "Any",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray": "Any",
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


def creatable_kinds(swagger: Dict[str, Any], go_types: Dict[str, Any]) -> Dict[Tuple[str, str, str], str]:
    """(group, version, kind) -> definition, for every kind the API server creates (a POST whose
    body is that definition), leaving out those whose Go types k8sfacts does not link."""
    kinds = {}
    for ops in swagger["paths"].values():
        post = ops.get("post") or {}
        gvk = post.get("x-kubernetes-group-version-kind")
        body = [p for p in post.get("parameters", []) + ops.get("parameters", []) if p.get("in") == "body"]
        if not gvk or not body or "$ref" not in body[0]["schema"]:
            continue
        d = body[0]["schema"]["$ref"].rsplit("/", 1)[-1]
        if d in go_types:
            kinds[(gvk["group"], gvk["version"], gvk["kind"])] = d
    return kinds


def walk_types(defs: Dict[str, Any], roots: List[str]) -> Dict[str, Dict[str, Tuple]]:
    """Definition -> {field: shape}, for every definition the roots reach."""
    seen: Dict[str, Dict[str, Tuple]] = {}
    stack = roots + EMBEDDED
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


def with_go_names(types: Dict[str, Dict[str, Tuple]], go_types: Dict[str, Any]) -> Dict[str, Dict[str, Tuple]]:
    """Each field's shape with its Go type names, outermost first (k8sfacts' goTypes): what a
    decoding error names ("of type v1.PullPolicy")."""
    out = {}
    for d, fields in types.items():
        go = go_types.get(d)
        if go is None:
            raise SystemExit(f"{d}: no Go type in k8sfacts' goTypes")
        out[d] = {}
        for f, shape in fields.items():
            if f not in go:
                raise SystemExit(f"{d}.{f}: in the OpenAPI, not in the Go type")
            names = list(go[f])
            via = names.pop(0)[len("embedded:"):] if names and names[0].startswith("embedded:") else ""
            out[d][f] = (shape, (via, tuple(names)))
    return out


def kubelet_types(facts: Dict[str, Any]) -> Dict[str, Dict[str, Tuple]]:
    """k8sfacts' KubeletConfiguration types, as walk_types gives the OpenAPI ones."""
    def tup(shape: List[Any]) -> Tuple:
        if shape[0] == "object":
            return ("object", KUBELET + shape[1])
        if shape[0] in ("list", "map"):
            return (shape[0], tup(shape[1]))
        return tuple(shape)
    # The kubelet reads its file with its own decoder: no Go names are needed for its messages.
    return {KUBELET + name: {f: (tup(sh), ("", ())) for f, sh in fields.items()}
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


def schema_rs(per_minor: Dict[int, Dict[str, Dict[str, Tuple]]],
              kinds: Dict[int, Dict[Tuple[str, str, str], str]], versions: Dict[int, str]) -> str:
    names = sorted({t for types in per_minor.values() for t in types})
    shorts = [short(n) for n in names]
    dup = {s for s in LOOKED_UP if shorts.count(s) != 1}
    if dup:
        raise SystemExit(f"type names the core looks up that are not one definition's: {sorted(dup)}")
    ids = {n: i for i, n in enumerate(names)}
    # A field's Go type names and embedding path are interned (in order of first use): a few
    # hundred distinct lists for thousands of fields keeps the table, which the wasm module's
    # first-load part carries whole, small.
    go_lists: Dict[str, int] = {}
    vias: Dict[str, int] = {'""': 0}
    lines = [
        f"// @generated by tools/gen_k8s_versions.py from k8s.io/kubernetes {', '.join(versions.values())}",
        "// (api/openapi-spec/swagger.json and the Go types of each); do not edit.",
        "//! The fields of the API types of every kind the API server creates, per Kubernetes minor.",
        "",
        "use super::schema_types::{Field, Kind, Scalar as S, Type, Value as V};",
        "",
        "/// Sorted by OpenAPI definition name; a field's `Object` value is an index in this list.",
        "pub static TYPES: &[Type] = &[",
    ]
    for n in names:
        fields: Dict[str, Tuple[int, int, Tuple, Tuple]] = {}
        for m, types in per_minor.items():
            for f, (shape, go) in types.get(n, {}).items():
                if f in fields:
                    lo, hi, s, g = fields[f]
                    if s != shape or g != go:
                        raise SystemExit(f"{n}.{f} changes shape or Go type between minors")
                    fields[f] = (min(lo, m), max(hi, m), s, g)
                else:
                    fields[f] = (m, m, shape, go)
        present = sorted(m for m, types in per_minor.items() if n in types)
        body = ", ".join(
            f"Field {{ name: {json.dumps(f)}, since: {lo}, until: {hi}, value: {rust_value(s, ids)}, "
            f"go: {intern(go_lists, ', '.join(json.dumps(x) for x in g[1]))}, via: {intern(vias, json.dumps(g[0]))} }}"
            for f, (lo, hi, s, g) in sorted(fields.items(), key=lambda kv: (len(kv[0]), kv[0])))
        lines.append(f"    Type {{ name: {json.dumps(short(n))}, since: {present[0]}, until: {present[-1]}, fields: &[{body}] }},")
    lines.append("];")
    lines.append("")
    lines.append("/// The Go type name lists `Field::go` indexes.")
    lines.append("pub static GO: &[&[&str]] = &[")
    lines += [f"    &[{g}]," for g in go_lists]
    lines.append("];")
    lines.append("")
    lines.append("/// The embedding paths `Field::via` indexes.")
    lines.append("pub static VIA: &[&str] = &[")
    lines += [f"    {v}," for v in vias]
    lines.append("];")
    lines.append("")
    lines.append("/// The kinds whose objects are checked, sorted by (group, kind, version), with the minors")
    lines.append("/// whose API server creates them.")
    lines.append("pub static KINDS: &[Kind] = &[")
    spans: Dict[Tuple[str, str, str], Tuple[int, int, str]] = {}
    for m, ks in kinds.items():
        for gvk, d in ks.items():
            lo, hi, d0 = spans.get(gvk, (m, m, d))
            if d0 != d:
                raise SystemExit(f"{gvk} changes definition between minors")
            spans[gvk] = (min(lo, m), max(hi, m), d)
    for (group, version, kind), (lo, hi, d) in sorted(spans.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1])):
        lines.append(f"    Kind {{ group: {json.dumps(group)}, version: {json.dumps(version)}, kind: {json.dumps(kind)}, "
                     f"type_: {ids[d]}, since: {lo}, until: {hi} }},")
    lines.append("];")
    return "\n".join(lines) + "\n"


def intern(table: Dict[str, int], key: str) -> int:
    """The index of `key` in `table` (dicts keep insertion order), added when new."""
    return table.setdefault(key, len(table))


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
    kinds = {}
    for m, v in versions.items():
        swagger = json.loads((module_dir(v) / "api" / "openapi-spec" / "swagger.json").read_text())
        gates[m] = facts(m)
        kinds[m] = creatable_kinds(swagger, gates[m]["goTypes"])
        openapi = walk_types(swagger["definitions"], sorted(set(kinds[m].values())))
        schemas[m] = {**with_go_names(openapi, gates[m]["goTypes"]), **kubelet_types(gates[m])}
        kinds[m][KUBELET_KIND[:3]] = KUBELET_KIND[3]
    files = {OUT / "k8s_schema.rs": schema_rs(schemas, kinds, versions), OUT / "k8s_gates.rs": gates_rs(gates, versions)}
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
