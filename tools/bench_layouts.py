#!/usr/bin/env python3
"""Time and memory on every input layout (issue 44, item 0): `restartkit validate` over Lists of
Jobs as a compact one-line JSON List (what `kubectl get --raw` and most clients return), the same
List indented (`kubectl get -o json`), and a YAML stream, at sizes 1, 2, 4, ... MB.

    cargo build --release -p restartkit-cli
    python3 tools/bench_layouts.py [--cli PATH] [--sizes 1,2,4,8,16,32,128]
    make bench-layouts

Prints, per layout and size: seconds, MB/s, peak RSS (the child's ru_maxrss) and the step
ratio t(2s)/t(s); then the compact List's time over the indented one's. Exits 1 when a goal of
the issue is missed: a super-linear step (a doubling that takes more than 2.6 times as long,
past 4 MB where start-up no longer dominates), peak RSS over 100 MB, or the compact List over
1.5 times the indented one. Inputs are generated under $RESTARTKIT_BENCH_DIR (default
~/.cache/restartkit/bench-memory), never in the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_memory import DIR, MB, TARGET, job, write_json_list_bytes, write_yaml_stream  # noqa: E402

STEP_GOAL = 2.6
PEAK_GOAL_MB = 100.0
COMPACT_GOAL = 1.5


def write_compact_list(path: Path, size: int) -> None:
    """One line: no white space anywhere, the items one after another."""
    with open(path, "w") as f:
        f.write('{"apiVersion":"v1","items":[')
        n, i = 0, 0
        while n < size:
            s = ("" if i == 0 else ",") + json.dumps(job(i), separators=(",", ":"))
            f.write(s)
            n += len(s)
            i += 1
        f.write('],"kind":"List","metadata":{"resourceVersion":""}}')


def write_indented_list(path: Path, size: int) -> None:
    """As `kubectl get -o json` prints it: four spaces, one field per line."""
    with open(path, "w") as f:
        f.write('{\n    "apiVersion": "v1",\n    "items": [\n')
        n, i = 0, 0
        while n < size:
            body = json.dumps(job(i), indent=4).replace("\n", "\n        ")
            s = ("" if i == 0 else ",\n") + "        " + body
            f.write(s)
            n += len(s)
            i += 1
        f.write('\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n')


LAYOUTS = {
    "compact JSON List": ("compact", write_compact_list),
    "indented JSON List": ("indented", write_indented_list),
    "JSON List, one item per line": ("lines", write_json_list_bytes),
    "YAML stream": ("yaml", lambda p, size: write_yaml_stream(p, size=size)),
}


def run(cli: str, path: Path) -> Tuple[float, float, int]:
    start = time.monotonic()
    with open(os.devnull, "w") as null:
        child = subprocess.Popen([cli, "validate", "-o", "json", str(path)], stdout=null, stderr=null)
        _, status, usage = os.wait4(child.pid, 0)
    return time.monotonic() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=str(TARGET / "release" / "restartkit"))
    ap.add_argument("--sizes", default="1,2,4,8,16,32,128", help="MB, comma-separated")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    DIR.mkdir(parents=True, exist_ok=True)
    missed: List[str] = []
    times: Dict[Tuple[str, int], float] = {}
    print(f"{'layout':32} {'MB':>5} {'s':>8} {'MB/s':>7} {'peak MB':>8} {'step':>6}")
    for name, (tag, write) in LAYOUTS.items():
        prev = None
        for size in sizes:
            path = DIR / f"layout-{tag}-{size}mb.{'yaml' if tag == 'yaml' else 'json'}"
            if not path.exists():
                write(path, size * MB)
            secs, peak, code = run(args.cli, path)
            times[(tag, size)] = secs
            step = secs / prev[1] if prev else None
            note = ""
            if code not in (0, 1):
                missed.append(f"{name} {size} MB: exit {code}")
            if step is not None and size == 2 * prev[0] and size > 4 and step > STEP_GOAL:
                missed.append(f"{name} {prev[0]}->{size} MB: step {step:.2f} (goal <= {STEP_GOAL})")
                note = " super-linear"
            if peak > PEAK_GOAL_MB:
                missed.append(f"{name} {size} MB: peak {peak:.0f} MB (goal <= {PEAK_GOAL_MB:.0f})")
            step_s = f"{step:6.2f}" if step is not None else "      "
            print(f"{name:32} {size:5} {secs:8.2f} {size / secs:7.1f} {peak:8.1f} {step_s}{note}", flush=True)
            prev = (size, secs)
    print()
    for size in sizes:
        ratio = times[("compact", size)] / times[("indented", size)]
        print(f"compact / indented List at {size} MB: {ratio:.2f} (goal <= {COMPACT_GOAL})")
        if ratio > COMPACT_GOAL and size >= 4:
            missed.append(f"compact List {size} MB: {ratio:.2f}x the indented one (goal <= {COMPACT_GOAL})")
    for m in missed:
        print(f"goal missed: {m}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
