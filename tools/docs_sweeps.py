#!/usr/bin/env python3
"""The worked examples of docs/sweeps.md, from the command's own output.

    python3 tools/docs_sweeps.py --restartkit BIN generate   # run the sweeps, rewrite the docs
    python3 tools/docs_sweeps.py --restartkit BIN check      # docs match the data; data match the CLI

`generate` runs every sweep below with `restartkit sweep ... -o json --runs`, keeps each run's row
in docs/sweeps-data.json (with the sweep's CPU time and peak memory), and rewrites each block of
docs/sweeps.md (and the README's sentence about it) between `<!-- BEGIN generated:NAME -->` and `<!-- END generated:NAME -->` from
that data: tables, and the sentences whose numbers come from them. Nothing in a block is typed.

`render` only rewrites the blocks from the stored data. `check` (in `make test`) renders the
blocks again from the stored data and compares them with the files, then re-runs the first two seeds of every sweep with the CLI under test and compares
their rows with the stored ones, so a simulator change that moves the figures fails until
`make docs-sweeps` is run again.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import tempfile
import textwrap
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "sweeps.md"
README = ROOT / "README.md"
DATA = ROOT / "docs" / "sweeps-data.json"

LLAMA = "examples/scenarios/llama3-405b-54d.yaml"
T1024 = "examples/scenarios/training-1024-30d.yaml"
UNLIMITED = "recreate={workload: {spec: {failurePolicy: {maxRestarts: 100000}}}}"
INSTANT = "instant={nodeLoss: {nodeDeletedAfterSeconds: null, idealisedInstantFailure: true}}"

# Each sweep: its name, the scenario, the arguments after it (seeds and variants). The order is
# the order they run in.
SWEEPS = [
    {
        "name": "llama3-grid",
        "scenario": LLAMA,
        "args": ["--seeds", "40", "--vary", "startupSeconds=60,300,600",
                 "--vary", "nodeLoss.nodeDeletedAfterSeconds=60,600"],
    },
    {"name": "llama3-instant", "scenario": LLAMA, "args": ["--seeds", "40", "--variant", INSTANT]},
    {
        "name": "t1024-variants",
        "scenario": T1024,
        "args": ["--seeds", "100", "--variant", UNLIMITED,
                 "--variant", "in-place=@examples/scenarios/training-1024-in-place.patch.yaml"],
        "svg": "docs/sweep-training-1024.svg",
    },
    {"name": "t1024-tail", "scenario": T1024, "args": ["--seeds", "1000", "--variant", UNLIMITED]},
]
# The maxRestarts sweep that checks the "one unlimited variant answers every maxRestarts" claim:
# its values come from the unlimited runs, so it is built after them.
CHECK_SWEEP = "t1024-max-restarts"

LLAMA_GPUS = 16_384


def run_sweep(rk: str, scenario: str, args: list[str], svg: str | None = None) -> tuple[dict, dict]:
    cmd = [rk, "sweep", scenario, *args, "-o", "json", "--runs"]
    if svg:
        cmd += ["--svg", svg]
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=err)
        # This child's own CPU time and peak RSS (kilobytes on Linux), not the children's so far.
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read().decode(errors="replace")
    if p.returncode != 0:
        sys.exit(f"docs_sweeps: {' '.join(cmd)} failed ({p.returncode}):\n{stderr}")
    cost = {"cpuSeconds": round(usage.ru_utime + usage.ru_stime, 1), "wallSeconds": round(wall, 1),
            "peakRssMB": round(usage.ru_maxrss / 1024, 1)}
    return json.loads(stdout), cost


def stored_sweep(out: dict) -> dict:
    """A sweep's output as the data file keeps it: each variant's rows as one header and one
    list of values per run (a tenth of the size of a list of objects)."""
    variants = []
    for v in out["variants"]:
        # A run that did not finish has no timeToFinishSeconds: null stands for it.
        columns = list(dict.fromkeys(c for r in v["rows"] for c in r))
        variants.append({"name": v["name"], "measures": v["measures"], "phases": v["phases"],
                         "columns": columns,
                         "values": [[r.get(c) for c in columns] for r in v["rows"]]})
    return {"firstSeed": out["firstSeed"], "seeds": out["seeds"], "variants": variants}


def rows(v: dict) -> list[dict]:
    """A stored variant's rows, as the sweep printed them."""
    return [{c: x for c, x in zip(v["columns"], vals) if x is not None} for vals in v["values"]]


def max_restarts_values(tail: dict) -> list[int]:
    """Two maxRestarts values for the check sweep: about the median and the 90th percentile of
    the restarts the first 100 unlimited runs needed."""
    r = sorted(x["jobsetRestarts"] for x in rows(tail["variants"][0])[:100])
    return [int(r[len(r) // 2]) // 10 * 10, int(r[len(r) * 9 // 10]) // 10 * 10]


def check_sweep_args(values: list[int]) -> list[str]:
    return ["--seeds", "100", "--vary",
            "workload.spec.failurePolicy.maxRestarts=" + ",".join(map(str, values))]


def generate(rk: str) -> None:
    data = {"date": datetime.date.today().isoformat(), "restartkit": version(rk), "sweeps": {}}
    for s in SWEEPS:
        print(f"docs_sweeps: {s['name']}: restartkit sweep {s['scenario']} {' '.join(s['args'])}",
              file=sys.stderr)
        out, cost = run_sweep(rk, s["scenario"], s["args"], s.get("svg"))
        data["sweeps"][s["name"]] = {"scenario": s["scenario"], "args": s["args"], "cost": cost,
                                     **stored_sweep(out)}
    args = check_sweep_args(max_restarts_values(data["sweeps"]["t1024-tail"]))
    print(f"docs_sweeps: {CHECK_SWEEP}: {' '.join(args)}", file=sys.stderr)
    out, cost = run_sweep(rk, T1024, args)
    data["sweeps"][CHECK_SWEEP] = {"scenario": T1024, "args": args, "cost": cost,
                                   **stored_sweep(out)}
    DATA.write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n")
    render(data)


def render(data: dict) -> None:
    for path, (_, text) in render_files(data).items():
        path.write_text(text)
        print(f"docs_sweeps: wrote {path.relative_to(ROOT)}", file=sys.stderr)


def version(rk: str) -> str:
    p = subprocess.run([rk, "--version"], capture_output=True, text=True)
    return p.stdout.strip()


# ---- rendering -------------------------------------------------------------------------------

def n(x: float, digits: int = 0) -> str:
    """A number as the docs write it: thousands separated by commas."""
    return f"{x:,.{digits}f}"


def pct(x: float, digits: int = 2) -> str:
    return f"{100 * x:.{digits}f}"


def variant(sweep: dict, name: str) -> dict:
    for v in sweep["variants"]:
        if v["name"] == name:
            return v
    raise KeyError(f"no variant {name!r} in {[v['name'] for v in sweep['variants']]}")


def wilson(k: int, total: int) -> tuple[float, float]:
    """The 95 % Wilson score interval, as the sweep computes it (z = 1.959964)."""
    if total == 0:
        return 0.0, 1.0
    z = 1.959963984540054
    p = k / total
    d = 1 + z * z / total
    c = (p + z * z / (2 * total)) / d
    h = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / d
    return max(0.0, c - h), min(1.0, c + h)


def cost_line(costs: list[dict], runs: int) -> str:
    cpu = sum(c["cpuSeconds"] for c in costs)
    wall = sum(c["wallSeconds"] for c in costs)
    rss = max(c["peakRssMB"] for c in costs)
    return (f"{n(cpu)} CPU-seconds ({cpu / runs:.2f} per run), {n(wall)} s wall on the 2-core "
            f"machine, peak RSS at most {n(rss)} MB")


def llama_blocks(data: dict) -> dict[str, str]:
    grid = data["sweeps"]["llama3-grid"]
    inst = data["sweeps"]["llama3-instant"]
    runfor = variant(grid, "startupSeconds=300, nodeLoss.nodeDeletedAfterSeconds=60")["measures"][
        "endSeconds"]["max"]
    seeds = grid["seeds"]

    def stats(v: dict) -> dict:
        m = v["measures"]
        apr, rs = m["allPodsRunningSeconds"], m["jobsetRestarts"]
        share = apr["mean"] / runfor
        return {
            "restarts": rs["mean"], "rmin": rs["min"], "rmax": rs["max"],
            "share": share, "smin": apr["min"] / runfor, "smax": apr["max"] / runfor,
            "sd": apr["stdDev"] / runfor, "faults": m["faults"]["mean"],
            "idle": LLAMA_GPUS * (runfor - apr["mean"]) / 3600,
            # Effective: the time all Pods run, less half a checkpoint interval redone per restart.
            "eff": {c: share - rs["mean"] * c * 60 / 2 / runfor for c in (10, 20, 30, 60)},
        }

    by = {}
    for start in (60, 300, 600):
        for deleted in (60, 600):
            by[(start, deleted)] = stats(variant(
                grid, f"startupSeconds={start}, nodeLoss.nodeDeletedAfterSeconds={deleted}"))
    instant = stats(variant(inst, "instant"))

    def row(first: str, second: str, s: dict) -> str:
        return (f"| {first} | {second} | {s['restarts']:.1f} [{s['rmin']:.0f}–{s['rmax']:.0f}] | "
                f"{pct(s['share'])} % [{pct(s['smin'])}–{pct(s['smax'])}] | "
                f"{n(round(s['idle'], -3))} | "
                f"{pct(s['eff'][10], 1)} / {pct(s['eff'][30], 1)} / {pct(s['eff'][60], 1)} % |")

    costs = [grid["cost"], inst["cost"]]
    runs = seeds * (len(grid["variants"]) + len(inst["variants"]))
    lines = [
        f"Measured {data['date']} ({data['restartkit']}, release build; seeds "
        f"{grid['firstSeed']}–{grid['firstSeed'] + seeds - 1} per variant, {runs} runs: "
        f"{cost_line(costs, runs)}; `make docs-sweeps` writes this block):",
        "",
        "| start-up | Node deleted after | JobSet restarts mean [min–max] | all Pods running, mean "
        "[min–max] | GPU-hours with a GPU idle | effective, C = 10 / 30 / 60 min |",
        "|---|---|---|---|---|---|",
    ]
    for (start, deleted), s in by.items():
        lines.append(row(f"{start} s", f"{deleted} s", s))
    lines.append(row("300 s", "the idealised instant failure", instant))
    sds = [s["sd"] for s in [*by.values(), instant]]
    faults = [s["faults"] for s in [*by.values(), instant]]
    lines += [
        "",
        f"(The standard deviation of \"all Pods running\" across seeds is {pct(min(sds))}–"
        f"{pct(max(sds))} points; {min(faults):.0f}–{max(faults):.0f} faults reach a running "
        "trainer per run on average, fewer than the 419 the rates are drawn from, because nothing "
        "runs while the JobSet is recreated.)",
    ]
    table = "\n".join(lines)

    base = by[(300, 60)]
    per_10_min = base["restarts"] * 5 * 60 / runfor          # 10 more minutes: C/2 grows by 5 min
    per_startup_min = (by[(60, 60)]["share"] - by[(600, 60)]["share"]) / 9
    per_deletion = base["share"] - by[(300, 600)]["share"]
    # Which checkpoint intervals keep the paper's "higher than 90 %", per start-up, with the
    # Node deleted a minute after the loss.
    holds = {start: [c for c in (10, 20, 30, 60) if by[(start, 60)]["eff"][c] > 0.90]
             for start in (60, 300, 600)}

    def which(cs: list[int]) -> str:
        if not cs:
            return "no checkpoint interval of 10 minutes or more"
        listed = ", ".join(str(c) for c in cs[:-1]) + (" or " if len(cs) > 1 else "") + str(cs[-1])
        return f"checkpoints every {listed} minutes"

    parts = [f"{which(cs)} at a {start // 60}-minute start-up "
             f"({pct(by[(start, 60)]['eff'][10], 1)} % at 10 min, "
             f"{pct(by[(start, 60)]['eff'][20], 1)} % at 20)"
             for start, cs in holds.items()]
    holds_text = ", ".join(parts[:-1]) + " and " + parts[-1]
    paper = (
        f"**Beside the paper.** With a 5-minute start-up and a checkpoint every 10 minutes the "
        f"simulated run keeps {pct(base['eff'][10], 1)} % effective training time; every 10 more "
        f"minutes between checkpoints costs about {100 * per_10_min:.1f} points "
        f"({base['restarts']:.0f} restarts × 5 min of redone work over 54 days), every minute "
        f"more of start-up about {100 * per_startup_min:.1f} points, and a Node deleted 10 "
        f"minutes after its machine died instead of one about {100 * per_deletion:.1f} points. "
        f"With the Node deleted a minute after the loss, the paper's \"higher than 90 %\" (over "
        f"its 466 interruptions, 47 of them planned and not modelled here) holds with "
        f"{holds_text}. The figure says more about checkpoint frequency than about Kubernetes."
    )
    node = (
        f"**What the node's path costs.** The idealised instant failure (the Pod fails the instant "
        f"its node dies) overstates the time all Pods run by "
        f"{100 * (instant['share'] - base['share']):.1f} points when the Node object is deleted a "
        f"minute after the loss and by {100 * (instant['share'] - by[(300, 600)]['share']):.1f} "
        f"points when it takes 10 minutes: each lost node keeps the job stalled until Pod GC fails "
        f"its Pod (the Node's deletion, then up to 20 s to Pod GC's next pass and its 40 s "
        f"quarantine)."
    )
    return {"llama3-table": table, "llama3-paper": paper + "\n\n" + node}


def t1024_blocks(data: dict) -> dict[str, str]:
    head = data["sweeps"]["t1024-variants"]
    tail = data["sweeps"]["t1024-tail"]
    chk = data["sweeps"][CHECK_SWEEP]
    rec, inp, rec_tail = variant(head, "recreate"), variant(head, "in-place"), variant(tail, "recreate")
    runfor = rec["measures"]["endSeconds"]["max"]
    slots = 1024
    slot_hours = slots * runfor / 3600

    def row(label: str, v: dict) -> str:
        m = v["measures"]
        r, f, lost = m["jobsetRestarts"], m["faults"], m["timeLostSeconds"]
        failed = v["phases"]["Failed"]
        lo, hi = failed["low"], failed["high"]
        digits = 0 if lost["mean"] > 36_000 else 2
        return (f"| {label} | {n(len(v['values']))} | {r['p50']:.0f} / {r['p99']:.0f} / "
                f"{r['max']:.0f} | {f['mean']:.1f} (p99 {f['p99']:.0f}) | "
                f"{n(lost['mean'] / 3600, digits)} ({n(lost['min'] / 3600, digits)}–"
                f"{n(lost['max'] / 3600, digits)}) | {failed['runs']} of {n(len(v['values']))}, 95 % "
                f"interval [{pct(lo, 1)}, {pct(hi, 1)} %] |")

    costs = [head["cost"], tail["cost"]]
    lines = [
        f"Measured {data['date']} ({data['restartkit']}, release build; seeds "
        f"{head['firstSeed']}–{head['firstSeed'] + head['seeds'] - 1} for both variants: "
        f"{cost_line([head['cost']], 2 * head['seeds'])}; seeds {tail['firstSeed']}–"
        f"{tail['firstSeed'] + tail['seeds'] - 1} for the recreate variant: "
        f"{cost_line([tail['cost']], tail['seeds'])}; `make docs-sweeps` writes this block):",
        "",
        "| variant | runs | JobSet restarts p50 / p99 / max | faults mean | slot-hours lost per 30 "
        "days, mean (min–max) | JobSet failed in 30 days |",
        "|---|---|---|---|---|---|",
        row("recreate, `maxRestarts` unlimited", rec),
        row("recreate, `maxRestarts` unlimited", rec_tail),
        row("in-place (`restartPolicyRules`)", inp),
    ]
    lost_rec = rec_tail["measures"]["timeLostSeconds"]["mean"] / 3600
    lost_inp = inp["measures"]["timeLostSeconds"]["mean"] / 3600
    restarts = rec_tail["measures"]["jobsetRestarts"]["mean"]
    per_restart = lost_rec * 3600 / restarts / slots
    lines += [
        "",
        f"**GPU-hours.** Recreating the JobSet for every failure loses about {n(round(lost_rec, -2))} "
        f"slot-hours (GPU-hours) in 30 days, {pct(lost_rec / slot_hours, 1)} % of the run's "
        f"{n(slot_hours)}: each of ~{restarts:.0f} recreations idles all 1,024 slots for about "
        f"{per_restart:.0f} s — the failed Job's other Pods and then every Job's Pods are deleted "
        f"with their 30 s grace period, each Job is recreated once its Pods are gone, and the new "
        f"Pods need 90 s to be rescheduled and 20 s to start (`restartkit simulate` on the "
        f"scenario with `runFor: 4h` shows one recreation event by event). Fewer faults reach a "
        f"trainer under recreation ({rec['measures']['faults']['mean']:.0f} against "
        f"{inp['measures']['faults']['mean']:.0f} on average over the same seeds) because no "
        f"trainer runs while the JobSet is recreated. Restarting the trainer in place loses about "
        f"{lost_inp:.1f} GPU-hours (each restart: one slot, its back-off and 20 s start-up). "
        f"In-place restarts save about **{n(round(lost_rec - lost_inp, -2))} GPU-hours per 30 "
        f"days** here, before counting the work lost since the last checkpoint, which restartkit "
        f"does not model and which both modes pay per failure.",
    ]
    variants_block = "\n".join(lines)

    # maxRestarts from the 1,000 unlimited runs: P(Failed) under maxRestarts m is the share of
    # runs that needed more than m restarts.
    need = sorted(r["jobsetRestarts"] for r in rows(rec_tail))
    total = len(need)
    marks = sorted({int(need[min(total - 1, int(total * q))]) // 5 * 5
                    for q in (0.5, 0.9, 0.98, 0.99, 0.995)} | {int(need[-1]) // 5 * 5 + 5})
    table = ["| `maxRestarts` | runs failed of 1,000 | P(Failed) | 95 % interval |", "|---|---|---|---|"]
    below_1 = None
    for m in range(int(need[0]), int(need[-1]) + 2):
        k = sum(1 for x in need if x > m)
        if wilson(k, total)[1] < 0.01:
            below_1 = m
            break
    for m in sorted(set(marks) | ({below_1} if below_1 is not None else set())):
        k = sum(1 for x in need if x > m)
        lo, hi = wilson(k, total)
        table.append(f"| {m} | {k} | {pct(k / total, 1)} % | {pct(lo, 1)}–{pct(hi, 1)} % |")
    never = int(need[0])
    check = []
    for v in chk["variants"]:
        m = int(v["name"].rsplit("=", 1)[1])
        first = [r["jobsetRestarts"] for r in rows(rec_tail)[: chk["seeds"]]]
        expect = sum(1 for x in first if x > m)
        got = v["phases"]["Failed"]["runs"]
        if got != expect:
            raise SystemExit(f"docs_sweeps: maxRestarts {m}: the sweep failed {got} runs, the "
                             f"unlimited runs that needed more than {m} restarts are {expect}")
        check.append(f"{m}: {pct(got / chk['seeds'], 0)} %")
    claim = (
        f"(Checked: with `--vary workload.spec.failurePolicy.maxRestarts="
        f"{','.join(v['name'].rsplit('=', 1)[1] for v in chk['variants'])}` over seeds "
        f"{chk['firstSeed']}–{chk['firstSeed'] + chk['seeds'] - 1} the sweep reports P(Failed) "
        f"{' and '.join(check)}: exactly the share of the unlimited variant's runs that needed "
        f"more restarts; `make docs-sweeps` fails if it does not.)"
    )
    in_place_failed = inp["phases"]["Failed"]
    tail_text = (
        f"So `maxRestarts: {below_1}` keeps the chance that the 30-day JobSet fails below 1 % "
        f"(upper end of the interval under 1 %); every value below {never} failed all "
        f"{n(total)} runs. With in-place restarts `maxRestarts` is not spent at all "
        f"({inp['measures']['jobsetRestarts']['max']:.0f} JobSet restarts in "
        f"{len(inp['values'])} runs; the JobSet failed in {in_place_failed['runs']}, 95 % Wilson "
        f"interval [{pct(in_place_failed['low'], 1)}, {pct(in_place_failed['high'], 1)} %]). "
        f"Each recreate run took about {tail['cost']['cpuSeconds'] / tail['seeds']:.2f} "
        f"CPU-seconds here, against {head['cost']['cpuSeconds'] / (2 * head['seeds']):.2f} on "
        f"average over both variants of the 100-seed sweep; for 10,000 runs use Ray (above)."
    )
    readme = (
        f"Worked example in [docs/sweeps.md](docs/sweeps.md): for 1,024 workers over 30 days with "
        f"one failure per 1,000 node-hours, `maxRestarts: {below_1}` keeps P(the JobSet fails) "
        f"under 1 % when every failure recreates it, and restarting the trainer in place instead "
        f"saves about {n(round(lost_rec - lost_inp, -2))} GPU-hours."
    )
    return {"t1024-variants": variants_block, "t1024-check": claim,
            "t1024-max-restarts": "\n".join(table) + "\n\n" + tail_text,
            "readme-sweeps": readme}


def wrap(block: str) -> str:
    """Prose paragraphs wrapped as the docs are (100 columns); tables and lists left alone."""
    out = []
    for para in block.split("\n\n"):
        if para.startswith("|"):
            out.append(para)
        else:
            out.append(textwrap.fill(para, 100, break_long_words=False, break_on_hyphens=False))
    return "\n\n".join(out)


def render_blocks(data: dict) -> dict[str, str]:
    return {name: wrap(text) for name, text in {**llama_blocks(data), **t1024_blocks(data)}.items()}


BLOCK = re.compile(r"(<!-- BEGIN generated:(?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)"
                   r"(<!-- END generated:(?P=name) -->)", re.S)


def render_files(data: dict) -> dict[Path, tuple[str, str]]:
    """Each file with generated blocks: (its text now, its text rendered from data)."""
    blocks = render_blocks(data)
    seen: set[str] = set()
    out = {}
    for path in (DOC, README):
        text = path.read_text()

        def sub(m: re.Match) -> str:
            name = m["name"]
            if name not in blocks:
                raise SystemExit(f"docs_sweeps: {path.name} has a block {name!r} nothing renders")
            seen.add(name)
            return m.group(1) + blocks[name] + "\n" + m.group(4)

        out[path] = (text, BLOCK.sub(sub, text))
    missing = set(blocks) - seen
    if missing:
        raise SystemExit(f"docs_sweeps: no file has the blocks {sorted(missing)}")
    return out


def check(rk: str, seeds: int) -> int:
    if not DATA.exists():
        print(f"docs_sweeps: {DATA.relative_to(ROOT)} is missing: run make docs-sweeps", file=sys.stderr)
        return 1
    data = json.loads(DATA.read_text())
    for path, (text, want) in render_files(data).items():
        if want != text:
            import difflib
            name = str(path.relative_to(ROOT))
            sys.stderr.writelines(difflib.unified_diff(
                text.splitlines(True), want.splitlines(True), name, "rendered from data"))
            print(f"docs_sweeps: {name} differs from what docs/sweeps-data.json renders: run "
                  "make docs-sweeps (or tools/docs_sweeps.py render)", file=sys.stderr)
            return 1
    bad = 0
    for name, s in data["sweeps"].items():
        args = list(s["args"])
        i = args.index("--seeds")
        args[i + 1] = str(seeds)
        out, cost = run_sweep(rk, s["scenario"], args)
        differs = False
        for v, stored in zip(out["variants"], s["variants"], strict=True):
            fresh, old = v["rows"], rows(stored)[:seeds]
            if fresh != old:
                differs = True
                bad += 1
                for a, b in zip(fresh, old):
                    if a != b:
                        print(f"docs_sweeps: {name} / {v['name']}, seed {a['seed']}: the CLI gives "
                              f"{a}, the docs' data {b}", file=sys.stderr)
                        break
        print(f"docs_sweeps: {name}: seeds {s['firstSeed']}–{s['firstSeed'] + seeds - 1} of "
              f"{len(s['variants'])} variant(s) re-run in {cost['cpuSeconds']} CPU-s: "
              f"{'differ' if differs else 'identical'}", file=sys.stderr)
    if bad:
        print("docs_sweeps: the simulator's figures moved: run make docs-sweeps and review "
              "docs/sweeps.md", file=sys.stderr)
        return 1
    print("docs_sweeps: docs/sweeps.md matches its data and the CLI", file=sys.stderr)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--restartkit", required=True, help="the restartkit binary (a release build)")
    ap.add_argument("--seeds", type=int, default=2, help="check: seeds re-run per sweep")
    ap.add_argument("mode", choices=["generate", "render", "check"],
                    help="render: rewrite the blocks from the stored data, running nothing")
    a = ap.parse_args()
    rk = os.path.abspath(a.restartkit)
    if a.mode == "generate":
        generate(rk)
        return 0
    if a.mode == "render":
        render(json.loads(DATA.read_text()))
        return 0
    return check(rk, a.seeds)


if __name__ == "__main__":
    sys.exit(main())
