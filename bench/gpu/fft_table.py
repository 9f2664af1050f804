#!/usr/bin/env python3
"""rill's FFT beside its peers from one run: rill-bench-fft's fft_{backend}.json,
torch_fft.py's peer_torch_fft.json (cuFFT) and, where present, rill-vkfft-peer's
peer_vkfft.json (VkFFT through Vulkan) in FOLDER. Ratios are speed (peer time / rill
time); a length VkFFT got wrong in its own check is left out of its column."""
import json
import math
import pathlib
import sys


def last_json(path):
    return json.loads(path.read_text().strip().splitlines()[-1])


folder = pathlib.Path(sys.argv[1])
peers = [last_json(folder / "peer_torch_fft.json")]
if (folder / "peer_vkfft.json").exists():
    peers.append(last_json(folder / "peer_vkfft.json"))
names = ["cuFFT" if "cuFFT" in p["peer"] else p["peer"].split()[0] for p in peers]
for path in sorted(p for p in folder.glob("fft_*.json") if not p.stem.endswith("_warm")):  # _warm: 2^20, loads only
    rill = last_json(path)
    print(f"\n{rill['backend']} ({rill['device']}) against {', '.join(p['peer'] for p in peers)}: first transform "
          f"{rill['first_transform_ms']:.1f} ms, a new shape's plan {rill['new_plan_ms']:.2f} ms")
    print("| workload | rill ms | " + " | ".join(f"{n} ms | rill / {n} (speed)" for n in names) + " |")
    print("|---|---|" + "---|---|" * len(peers))
    batched = [[] for _ in peers]
    for key, ms in rill.items():
        if not key.endswith("_ms") or key.startswith("fftw_") or key in ("first_transform_ms", "new_plan_ms"):
            continue
        if not any(key in p for p in peers):
            continue
        cells = []
        for i, p in enumerate(peers):
            if key in p:
                cells += [f"{p[key]:.4f}", f"{p[key] / ms:.3f}"]
                if key.startswith("fft_batched_"):
                    batched[i].append(p[key] / ms)
            else:
                cells += ["-", "-"]
        print(f"| {key[:-3]} | {ms:.4f} | " + " | ".join(cells) + " |")
    for name, ratios in zip(names, batched):
        if ratios:
            gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
            print(f"| batched 1D against {name}, geometric mean of {len(ratios)} lengths | | {gm:.3f} (min {min(ratios):.3f}) |")
    for p, name in zip(peers, names):
        if p.get("wrong_lengths"):
            print(f"({name} gave wrong results at lengths {p['wrong_lengths']} in its own check: not compared there)")
