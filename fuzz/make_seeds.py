#!/usr/bin/env python3
"""Writes the committed seed corpus fuzz/corpus/<target>/ from the conformance vectors,
examples/ and a few hand-picked edge cases. Re-run after adding vectors; the files are small
(a few dozen per target) and named by content hash, as libFuzzer names its own."""
import glob, hashlib, json, os, struct, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "corpus")
EVAL_OPS = ["validate", "crrValidate", "containerRestart", "containerRestartable", "matchRestartRule",
            "statusTransition", "podFailurePolicy", "jobsetFailurePolicy", "backoff", "whatIf", "simulate",
            "backoffCompare", "checkVector", "vectorExpect"]
PER_OP = 4  # seeds per op: enough for every input shape, few enough to stay small

def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)

def compact(v):
    return json.dumps(v, separators=(",", ":"))

vectors = []
for f in sorted(glob.glob(os.path.join(ROOT, "conformance/vectors/*.json"))):
    vectors += json.load(open(f))

# (a) source text: examples, a few real-world manifests, scenario files, edge cases.
for f in sorted(glob.glob(os.path.join(ROOT, "examples/*.yaml")))[:6]:
    put("source_reader", open(f, "rb").read())
for f in sorted(glob.glob(os.path.join(ROOT, "conformance/realworld/*.yaml")))[::6]:
    put("source_reader", open(f, "rb").read())
for s in ["a: &x [1, 2]\nb: *x\n", "---\na: 1\n---\nb: 2\n...\n", "{\"kind\": \"Pod\", \"spec\": {}}",
          "a: 0x1F\nb: 1e3\nc: -0o17\nd: '1'\ne: !!str 5\n", "? complex\n: key\n", "a: |\n  text\n  more\n"]:
    put("source_reader", s)

# (b) objects from validate / crrValidate vectors.
seen = 0
for v in vectors:
    obj = v.get("input", {}).get("object")
    if v["op"] in ("validate", "crrValidate") and obj is not None and seen < 30:
        put("validate_object", compact(obj))
        seen += 1

# (c) op byte + input JSON.
count = {}
for v in vectors:
    op = v["op"]
    if op in EVAL_OPS and count.get(op, 0) < PER_OP:
        count[op] = count.get(op, 0) + 1
        put("eval_ops", bytes([EVAL_OPS.index(op)]) + compact(v["input"]).encode())
put("eval_ops", bytes([EVAL_OPS.index("backoffCompare")]) + b'{"kubernetesVersion":"1.35"}')
put("eval_ops", bytes([EVAL_OPS.index("whatIf")]) + b'{}')
put("eval_ops", bytes([200]) + b'{"op":"describe","input":{}}')
put("eval_ops", bytes([200]) + b'{"op":"nope"}')

# (d) plugin ABI: 0 = request bytes, 1 = raw (ptr, len), 2 = prepare + decisions, 3 = raw handle.
for v in vectors[::12]:
    put("plugin_abi", b"\x00" + compact({"op": v["op"], "input": v["input"]}).encode())
put("plugin_abi", b"\x00" + b'{"op":"describe","input":{},"contractVersion":"2.0"}')
put("plugin_abi", b"\x00\xff\xfe")
put("plugin_abi", b"\x01" + struct.pack("<II", 0xFFFFFFF0, 64))
put("plugin_abi", b"\x01" + struct.pack("<II", 1024, 16))
pods = [v["input"]["pod"] for v in vectors if v["op"] == "containerRestart" and "pod" in v.get("input", {})][:3]
jobs = [v["input"]["job"] for v in vectors if v["op"] == "podFailurePolicy" and "job" in v.get("input", {})][:3]
for obj in pods + jobs:
    codes = b"".join(bytes([i]) + struct.pack("<i", c) for i, c in [(0, 0), (0, 42), (1, -1), (9, 137)])
    put("plugin_abi", b"\x02" + bytes([len(codes)]) + codes + compact({"object": obj}).encode())
put("plugin_abi", b"\x03" + struct.pack("<iii", 1, 0, 1))
put("plugin_abi", b"\x03" + struct.pack("<iii", -5, 2**31 - 1, -(2**31)))
for t in sorted(os.listdir(OUT)):
    print(t, len(os.listdir(os.path.join(OUT, t))), file=sys.stderr)

# simulate: the example scenarios as JSON (PyYAML only when present; the seeds are committed).
try:
    import yaml
    for f in sorted(glob.glob(os.path.join(ROOT, "examples/scenarios/*.yaml")))[:3]:
        sc = yaml.safe_load(open(f))
        put("eval_ops", bytes([EVAL_OPS.index("simulate")]) + compact({"scenario": sc}).encode())
except ImportError:
    pass
