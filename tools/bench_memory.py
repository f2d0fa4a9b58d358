#!/usr/bin/env python3
"""Memory at cluster scale (issue 30, item 4): peak RSS and seconds of `restartkit validate` on
large inputs, and the bad inputs that must end in bounded memory with a clear error.

    cargo build --release -p restartkit-cli
    python3 tools/bench_memory.py [--cli PATH] [--baseline PATH] [--only NAME ...] [--quick]
    make bench-memory

Inputs are generated (never checked in) under $RESTARTKIT_BENCH_DIR (default
~/.cache/restartkit/bench-memory) and kept for the next run. Peak RSS is the child's own
`ru_maxrss` (os.wait4), seconds are wall-clock; each line says the input, its size, the exit
status, seconds and peak RSS, and for the bad inputs the first error line. `--baseline` runs a
second binary (e.g. main's) on the inputs it can hold (`--baseline-max-mb`, default 200: the
1 GB inputs would take it tens of GB).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", Path.home() / ".cache/restartkit/target"))
DIR = Path(os.environ.get("RESTARTKIT_BENCH_DIR", Path.home() / ".cache/restartkit/bench-memory"))
MB = 1024 * 1024


def job(i: int) -> dict:
    """An ordinary Job as `kubectl get jobs -A -o json` prints it (about 1.3 KB)."""
    name = f"job-{i}"
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "creationTimestamp": "2026-11-26T10:00:00Z",
            "generation": 1,
            "labels": {"app": "batch", "batch.kubernetes.io/job-name": name, "job-name": name},
            "name": name,
            "namespace": f"team-{i % 50}",
            "resourceVersion": str(100000 + i),
            "uid": f"0b1c2d3e-0000-4000-8000-{i:012d}",
        },
        "spec": {
            "backoffLimit": 6,
            "completionMode": "NonIndexed",
            "completions": 1,
            "manualSelector": False,
            "parallelism": 1,
            "podReplacementPolicy": "TerminatingOrFailed",
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": f"0b1c2d3e-0000-4000-8000-{i:012d}"}},
            "suspend": False,
            "template": {
                "metadata": {
                    "labels": {
                        "batch.kubernetes.io/controller-uid": f"0b1c2d3e-0000-4000-8000-{i:012d}",
                        "batch.kubernetes.io/job-name": name,
                        "controller-uid": f"0b1c2d3e-0000-4000-8000-{i:012d}",
                        "job-name": name,
                    }
                },
                "spec": {
                    "containers": [
                        {
                            "command": ["sh", "-c", "echo hello"],
                            "image": "busybox:1.36",
                            "imagePullPolicy": "IfNotPresent",
                            "name": "main",
                            "resources": {},
                            "terminationMessagePath": "/dev/termination-log",
                            "terminationMessagePolicy": "File",
                        }
                    ],
                    "dnsPolicy": "ClusterFirst",
                    "restartPolicy": "Never",
                    "schedulerName": "default-scheduler",
                    "securityContext": {},
                    "terminationGracePeriodSeconds": 30,
                },
            },
        },
        "status": {"completionTime": "2026-11-26T10:00:09Z", "ready": 0, "startTime": "2026-11-26T10:00:00Z", "succeeded": 1, "terminating": 0},
    }


def yaml_of(v, indent: int = 0) -> str:
    """A small YAML writer (block style, JSON scalars), enough for `job`."""
    pad = " " * indent
    out = []
    if isinstance(v, dict):
        for k, x in v.items():
            if isinstance(x, (dict, list)) and x:
                out.append(f"{pad}{k}:\n{yaml_of(x, indent + 2)}")
            else:
                out.append(f"{pad}{k}: {json.dumps(x)}\n")
        return "".join(out)
    for x in v:
        if isinstance(x, (dict, list)) and x:
            body = yaml_of(x, indent + 2)
            out.append(f"{pad}- {body[indent + 2:]}")
        else:
            out.append(f"{pad}- {json.dumps(x)}\n")
    return "".join(out)


def write_json_list(path: Path, items: int) -> None:
    with open(path, "w") as f:
        f.write('{\n    "apiVersion": "v1",\n    "items": [\n')
        for i in range(items):
            if i:
                f.write(",\n")
            f.write(json.dumps(job(i), indent=4))
        f.write('\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n')


def write_json_list_bytes(path: Path, size: int) -> None:
    with open(path, "w") as f:
        f.write('{"apiVersion": "v1", "items": [\n')
        n, i = 0, 0
        while n < size:
            s = ("" if i == 0 else ",\n") + json.dumps(job(i))
            f.write(s)
            n += len(s)
            i += 1
        f.write('\n], "kind": "List", "metadata": {"resourceVersion": ""}}\n')


def write_yaml_stream(path: Path, docs: Optional[int] = None, size: Optional[int] = None) -> None:
    with open(path, "w") as f:
        n, i = 0, 0
        while (docs is not None and i < docs) or (size is not None and n < size):
            s = ("---\n" if i else "") + yaml_of(job(i))
            f.write(s)
            n += len(s)
            i += 1


def write_single_line(path: Path, size: int) -> None:
    """One JSON document on one line: a ConfigMap whose one value is `size` bytes."""
    chunk = "x" * MB
    with open(path, "w") as f:
        f.write('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"}, "data": {"a": "')
        for _ in range(size // MB):
            f.write(chunk)
        f.write('"}}\n{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "next"}, "spec": {"restartPolicy": "Sometimes", "containers": [{"name": "c", "image": "i"}]}}\n')


def write_tiny_list(path: Path, items: int) -> None:
    """A List of `items` tiny items (a million-item List)."""
    with open(path, "w") as f:
        f.write('{"apiVersion": "v1", "kind": "List", "items": [\n')
        for i in range(items):
            f.write(("," if i else "") + '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c%d"}}\n' % i)
        f.write("]}\n")


def write_bomb(path: Path) -> None:
    lines = ["apiVersion: v1", "kind: ConfigMap", "a: &a [x,x,x,x,x,x,x,x,x,x]"]
    prev = "a"
    for i in range(9):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*{prev}"] * 10) + "]")
        prev = f"a{i}"
    text = "\n".join(lines) + "\n---\napiVersion: v1\nkind: Pod\nspec:\n  restartPolicy: Sometimes\n"
    path.write_text(text)


def write_many_files(path: Path, n: int) -> None:
    """`n` small files in a directory, and a list of their paths for --files-from."""
    d = path.with_suffix("")
    d.mkdir(parents=True, exist_ok=True)
    doc = yaml_of(job(0))
    names = []
    for i in range(n):
        p = d / f"f{i:06d}.yaml"
        if not p.exists():
            p.write_text(doc)
        names.append(str(p))
    path.write_text("\n".join(names) + "\n")


# name -> (file, generator, args for validate beyond the file, bad input?)
INPUTS: Dict[str, Tuple[str, Callable[[Path], None], bool]] = {
    # Just under the 8 MiB up to which a file is read whole: the largest such reading.
    "stream-8m.yaml": ("stream-8m.yaml", lambda p: write_yaml_stream(p, size=8 * MB - 4096), False),
    "stream-10k.yaml": ("stream-10k.yaml", lambda p: write_yaml_stream(p, docs=10_000), False),
    "stream-50k.yaml": ("stream-50k.yaml", lambda p: write_yaml_stream(p, docs=50_000), False),
    "list-100k.json": ("list-100k.json", lambda p: write_json_list(p, 100_000), False),
    "list-1g.json": ("list-1g.json", lambda p: write_json_list_bytes(p, 1024 * MB), False),
    "stream-1g.yaml": ("stream-1g.yaml", lambda p: write_yaml_stream(p, size=1024 * MB), False),
    "bad-single-line-2g.json": ("bad-single-line-2g.json", lambda p: write_single_line(p, 2048 * MB), True),
    "bad-list-1m-items.json": ("bad-list-1m-items.json", lambda p: write_tiny_list(p, 1_000_000), True),
    "bad-alias-bomb.yaml": ("bad-alias-bomb.yaml", write_bomb, True),
    "bad-100k-files": ("bad-100k-files.txt", lambda p: write_many_files(p, 100_000), True),
}
QUICK = ["stream-10k.yaml", "list-100k.json", "bad-alias-bomb.yaml", "bad-list-1m-items.json"]


def run(cli: Path, path: Path, name: str, output: str = "human") -> Tuple[int, float, float, str]:
    """Exit status, seconds, peak RSS in MB and the first error line of one run."""
    args = [str(cli), "validate", "--output", output]
    args += ["--files-from", str(path)] if name == "bad-100k-files" else [str(path)]
    start = time.monotonic()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    first, lines = "", 0
    assert proc.stderr is not None
    for raw in proc.stderr:
        line = raw.decode("utf-8", "replace").rstrip()
        lines += 1
        if not first and line.startswith("error"):
            first = line[:160]
        last = line
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    summary = last if lines else ""
    return code, seconds, usage.ru_maxrss / 1024, first + ("  |  " + summary if summary else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", type=Path, default=TARGET / "release" / "restartkit")
    ap.add_argument("--baseline", type=Path, help="a second binary to measure (e.g. main's)")
    ap.add_argument("--baseline-max-mb", type=float, default=200)
    ap.add_argument("--only", nargs="*", help="input names (default: all)")
    ap.add_argument("--quick", action="store_true", help="only " + ", ".join(QUICK))
    ap.add_argument("--output", default="human", choices=["human", "json", "sarif"], help="validate's --output (stdout is discarded)")
    a = ap.parse_args()
    names = a.only or (QUICK if a.quick else list(INPUTS))
    DIR.mkdir(parents=True, exist_ok=True)
    print(f"inputs in {DIR}; validate --output {a.output}")
    print(f"{'input':26} {'MB':>8} {'binary':9} {'exit':>4} {'s':>8} {'peak RSS MB':>11}  first error | summary")
    for name in names:
        file, gen, _bad = INPUTS[name]
        path = DIR / file
        if not path.exists():
            t = time.monotonic()
            gen(path)
            print(f"  (generated {file} in {time.monotonic() - t:.0f} s)", file=sys.stderr)
        size = path.stat().st_size / MB
        bins = [("new", a.cli)]
        if a.baseline and size <= a.baseline_max_mb and name != "bad-100k-files":
            bins.append(("baseline", a.baseline))
        for label, cli in bins:
            code, s, rss, note = run(cli, path, name, a.output)
            print(f"{name:26} {size:8.1f} {label:9} {code:4} {s:8.2f} {rss:11.1f}  {note}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
