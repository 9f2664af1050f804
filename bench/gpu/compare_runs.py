#!/usr/bin/env python3
"""Two runs of one benchmark side by side: every *_ms key of the JSON object on the
last line of A and of B, A's time, B's time and A / B (B's speed against A's), with
the geometric mean of the ratios of the keys named fft_batched_* when there are any.
Used for one binary with and without a knob, or two binaries, in one GPU run.

    bench/gpu/compare_runs.py A.json B.json [label A] [label B]"""
import json
import math
import pathlib
import sys


def last_json(path):
    return json.loads(pathlib.Path(path).read_text().strip().splitlines()[-1])


a, b = last_json(sys.argv[1]), last_json(sys.argv[2])
la = sys.argv[3] if len(sys.argv) > 3 else "A"
lb = sys.argv[4] if len(sys.argv) > 4 else "B"
print(f"| workload | {la} ms | {lb} ms | {la} / {lb} |\n|---|---|---|---|")
batched = []
for key, ms in a.items():
    if not key.endswith("_ms") or not isinstance(ms, (int, float)) or not isinstance(b.get(key), (int, float)) or b[key] <= 0:
        continue
    ratio = ms / b[key]
    if key.startswith("fft_batched_"):
        batched.append(ratio)
    print(f"| {key[:-3]} | {ms:.4f} | {b[key]:.4f} | {ratio:.3f} |")
if batched:
    print(f"| batched, geometric mean of {len(batched)} | | | {math.exp(sum(map(math.log, batched)) / len(batched)):.3f} |")
