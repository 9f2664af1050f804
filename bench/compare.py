#!/usr/bin/env python3
"""Regression guard (not a timed test): compares a new benchmark folder with the
recorded one and flags every ratio that fell by more than the run-to-run spread.

    bench/compare.py RECORDED_DIR NEW_DIR [--spread 0.03]

Ratios (rill / peer, same run) are compared, never absolute times, so a slower
or busier machine does not raise false alarms. Exit status 1 when a ratio fell.
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from table import load, ratios  # noqa: E402


# Spreads measured for workloads noisier than --spread, by the start of their
# name: the same code ran the OpenGL radix sort at 0.478 and 0.444 of CUB in
# two runs on the H100 (one timed sort per run), and ScatterOp float into 2^20
# bins at 0.711 and 0.689 of PyTorch.
SPREADS = {"radix sort": 0.08, "ScatterOp": 0.05}


def spread_of(workload, default):
    return max([v for k, v in SPREADS.items() if workload.startswith(k)] + [default])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("recorded")
    ap.add_argument("new")
    ap.add_argument("--spread", type=float, default=0.03,
                    help="relative run-to-run spread of a ratio (0.03 = 3%%, measured over repeated runs)")
    ap.add_argument("--short-spread", type=float, default=0.35,
                    help="the same for workloads whose peer takes under 0.1 ms (two H100 runs: torch.sum of 2^20 "
                         "float4 0.0190 and 0.0132 ms)")
    args = ap.parse_args()
    old = {(w, b, p): (r, short) for w, b, _, p, _, r, short in ratios(load(args.recorded))}
    new = {(w, b, p): r for w, b, _, p, _, r, _ in ratios(load(args.new))}
    fell = 0
    for key in sorted(old.keys() & new.keys()):
        (before, short), after = old[key], new[key]
        change = after / before - 1.0
        flag = change < -(args.short_spread if short else spread_of(key[0], args.spread))
        fell += flag
        print(f"{'FELL' if flag else 'ok  '} {key[0]:>6} {key[1]:>7} vs {key[2]:<8} {before:.3f} -> {after:.3f} ({change:+.1%})")
    for key in sorted(old.keys() - new.keys()):
        print(f"gone {key}")
    return 1 if fell else 0


if __name__ == "__main__":
    sys.exit(main())
