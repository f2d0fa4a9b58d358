#!/usr/bin/env python3
"""kubeconform's JSON Schemas, generated offline from the same OpenAPI restartkit's tables come from.

kubeconform looks a manifest's schema up as
`<dir>/v<k8s version>-standalone[-strict]/<kind>[-<group's first label>]-<version>.json`, the layout
of the schemas published for it (made by openapi2jsonschema with `--kubernetes --expanded
--stand-alone [--strict]`). This script writes that layout from k8s.io/kubernetes'
api/openapi-spec/swagger.json of the pinned release (conformance/oracle/versions/go.1.<minor>.mod),
found in the Go module cache as tools/gen_k8s_versions.py finds it. The transformations are those
openapi2jsonschema applies with those flags (re-implemented here, not copied):

- IntOrString is `oneOf [string, integer]`, Quantity `oneOf [string, number]` (the OpenAPI says
  string only; the published schemas allow numbers, as the API server does);
- `apiVersion` and `kind` of a kind get an `enum` of its group/version and kind;
- strict: every object schema with `properties` and no `additionalProperties` gets
  `additionalProperties: false` (and so does the kind's root);
- `$ref`s are replaced by the definition they name (stand-alone files; a `$ref`'s sibling keys go);
- then every `type` under the kind's `properties`, at any depth, also admits `null`, except that of
  a property its enclosing object lists in `required` (as in the published schemas, where e.g.
  `metadata.creationTimestamp` is `["string", "null"]` but `ownerReferences[].uid` is `"string"`).

Kinds whose definitions refer to themselves (CustomResourceDefinition's JSONSchemaProps) cannot be
stand-alone and are left out, as openapi2jsonschema leaves them out.

    python3 tools/kubeconform_schemas.py [--minor 37] [--out DIR]    # prints the schema dir
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
ORACLE = ROOT / "conformance" / "oracle"
CACHE = Path(os.environ.get("RESTARTKIT_CACHE", Path.home() / ".cache" / "restartkit"))
REF = "#/definitions/"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"


def pinned_kubernetes(minor: int) -> str:
    """k8s.io/kubernetes' version in the oracle's go.1.<minor>.mod, e.g. v1.37.2."""
    text = (ORACLE / "versions" / f"go.1.{minor}.mod").read_text()
    m = re.search(r"^\s*(?:require )?k8s\.io/kubernetes (v[\d.]+)", text, re.M)
    if not m:
        raise SystemExit(f"no k8s.io/kubernetes in go.1.{minor}.mod")
    return m.group(1)


def swagger_path(version: str) -> Path:
    """api/openapi-spec/swagger.json of k8s.io/kubernetes@version (downloaded into the module cache)."""
    out = subprocess.run(["go", "mod", "download", "-json", f"k8s.io/kubernetes@{version}"],
                         check=True, capture_output=True, text=True, cwd=ORACLE).stdout
    return Path(json.loads(out)["Dir"]) / "api" / "openapi-spec" / "swagger.json"


def file_name(gvk: Dict[str, str]) -> str:
    """kubeconform's lookup: kind, the group's first label (none for the core group), version."""
    group = gvk["group"].split(".")[0].lower()
    parts = [gvk["kind"].lower()] + ([group] if group else []) + [gvk["version"].lower()]
    return "-".join(parts) + ".json"


def close_objects(node: Any) -> None:
    """strict: objects with properties and no additionalProperties get additionalProperties false."""
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict) and "additionalProperties" not in node:
            node["additionalProperties"] = False
        for v in node.values():
            close_objects(v)
    elif isinstance(node, list):
        for v in node:
            close_objects(v)


def nullable(props: Dict[str, Any], required: List[str]) -> None:
    """Every `type` under these properties also admits null, except a required property's own."""
    def walk(node: Any, keep: bool) -> None:
        if isinstance(node, dict):
            t = node.get("type")
            if isinstance(t, str) and t != "null" and not keep:
                node["type"] = [t, "null"]
            req = node.get("required") if isinstance(node.get("required"), list) else []
            for k, v in node.items():
                if k == "properties" and isinstance(v, dict):
                    for name, sub in v.items():
                        walk(sub, name in req)
                elif k != "type":
                    walk(v, False)
        elif isinstance(node, list):
            for v in node:
                walk(v, False)
    for name, sub in props.items():
        walk(sub, name in required)


class Cycle(Exception):
    pass


def expand(node: Any, defs: Dict[str, Any], memo: Dict[str, Any], stack: Tuple[str, ...] = ()) -> Any:
    """`node` with every $ref replaced by the (expanded) definition it names."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF):
            name = ref[len(REF):]
            if name in stack:
                raise Cycle(name)
            if name not in memo:
                memo[name] = expand(defs[name], defs, memo, stack + (name,))
            return memo[name]  # shared, serialised once per file
        return {k: expand(v, defs, memo, stack) for k, v in node.items()}
    if isinstance(node, list):
        return [expand(v, defs, memo, stack) for v in node]
    return node


def variant(swagger_defs: Dict[str, Any], strict: bool) -> Tuple[Dict[str, Any], List[str]]:
    """{file name: schema} of one variant, and the kinds left out."""
    defs = copy.deepcopy(swagger_defs)
    defs[INT_OR_STRING] = {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    defs[QUANTITY] = {"oneOf": [{"type": "string"}, {"type": "number"}]}
    kinds: List[Tuple[str, Dict[str, str]]] = []
    for title, d in defs.items():
        for gvk in d.get("x-kubernetes-group-version-kind", []):
            props = d.get("properties", {})
            api_version = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
            if "apiVersion" in props and api_version not in props["apiVersion"].setdefault("enum", []):
                props["apiVersion"]["enum"].append(api_version)
            if "kind" in props and gvk["kind"] not in props["kind"].setdefault("enum", []):
                props["kind"]["enum"].append(gvk["kind"])
            kinds.append((title, gvk))
    if strict:
        close_objects(defs)
    out: Dict[str, Any] = {}
    left_out: List[str] = []
    memo: Dict[str, Any] = {}
    for title, gvk in kinds:
        spec = copy.deepcopy(defs[title])
        spec["$schema"] = "http://json-schema.org/schema#"
        spec.setdefault("type", "object")
        if strict:
            spec["additionalProperties"] = False
        try:
            # a copy of its own: nullability depends on where a definition is used
            full = json.loads(json.dumps(expand(spec, defs, memo, (title,))))
        except Cycle:
            left_out.append(f"{gvk['group'] or 'core'}/{gvk['version']} {gvk['kind']}")
            continue
        if isinstance(full.get("properties"), dict):
            nullable(full["properties"], full.get("required", []))
        out[file_name(gvk)] = full
    return out, left_out


def generate(minor: int, out_root: Path) -> Path:
    """Writes both variants under out_root/<k8s version>/ unless already there; returns that dir."""
    version = pinned_kubernetes(minor)
    base = out_root / version.lstrip("v")
    src = swagger_path(version)
    stamp = hashlib.sha256(Path(__file__).read_bytes() + src.read_bytes()).hexdigest()
    done = base / ".complete"
    if done.exists() and done.read_text().strip() == stamp:
        return base
    swagger_defs = json.loads(src.read_text())["definitions"]
    for strict in (False, True):
        d = base / f"{version}-standalone{'-strict' if strict else ''}"
        d.mkdir(parents=True, exist_ok=True)
        schemas, left_out = variant(swagger_defs, strict)
        for name, schema in schemas.items():
            (d / name).write_text(json.dumps(schema, indent=1))
        print(f"{d}: {len(schemas)} schemas; left out (self-referring): {', '.join(left_out) or 'none'}",
              file=sys.stderr)
    done.write_text(stamp + "\n")
    return base


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minor", type=int, default=37, help="Kubernetes minor (1.<minor>), default 37")
    ap.add_argument("--out", type=Path, default=CACHE / "kubeconform-schemas")
    a = ap.parse_args(argv)
    print(generate(a.minor, a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
