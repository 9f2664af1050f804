#!/usr/bin/env python3
"""rill's FFT beside cuFFT from one run: rill-bench-fft's fft_{backend}.json and
torch_fft.py's peer_torch_fft.json in FOLDER. Ratios are speed (peer time / rill time)."""
import json
import math
import pathlib
import sys

folder = pathlib.Path(sys.argv[1])
peer = json.loads((folder / "peer_torch_fft.json").read_text().strip().splitlines()[-1])
for path in sorted(folder.glob("fft_*.json")):
    rill = json.loads(path.read_text().strip().splitlines()[-1])
    print(f"\n{rill['backend']} ({rill['device']}) against {peer['peer']}: first transform "
          f"{rill['first_transform_ms']:.1f} ms, a new shape's plan {rill['new_plan_ms']:.2f} ms")
    print("| workload | rill ms | cuFFT ms | rill / cuFFT (speed) |\n|---|---|---|---|")
    batched = []
    for key, ms in rill.items():
        if not key.endswith("_ms") or key.startswith("fftw_") or key in ("first_transform_ms", "new_plan_ms"):
            continue
        if key in peer:
            ratio = peer[key] / ms
            print(f"| {key[:-3]} | {ms:.4f} | {peer[key]:.4f} | {ratio:.3f} |")
            if key.startswith("fft_batched_"):
                batched.append(ratio)
    if batched:
        gm = math.exp(sum(map(math.log, batched)) / len(batched))
        print(f"| batched 1D, geometric mean of {len(batched)} lengths | | | {gm:.3f} (min {min(batched):.3f}) |")
