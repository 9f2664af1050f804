#!/usr/bin/env python3
"""One table from a folder of benchmark JSON files (bench/gpu/run.sh writes them).

Every rill figure is shown beside the peer measured in the same run, as a ratio.
"""
import json
import pathlib
import sys


def load(folder):
    results = {}
    for path in sorted(pathlib.Path(folder).glob("*.json")):
        try:
            results[path.stem] = json.loads(path.read_text().strip().splitlines()[-1])
        except (ValueError, IndexError):
            print(f"skipping {path.name}: not one JSON object", file=sys.stderr)
    return results


# Workloads timed in ms by rill and PyTorch (same keys in both JSON files).
TORCH_MS = (("sum_float4_2e20_ms", "sum of 2^20 float4"), ("sgemv_1024_ms", "SGEMV 1024^2"),
            ("scatter_add_u32_2e24_into_2e10_ms", "ScatterOp add uint32 2^24 -> 2^10 bins"),
            ("scatter_add_f32_2e24_into_2e10_ms", "ScatterOp add float 2^24 -> 2^10 bins"),
            ("scatter_add_u32_2e24_into_2e20_ms", "ScatterOp add uint32 2^24 -> 2^20 bins"),
            ("scatter_add_f32_2e24_into_2e20_ms", "ScatterOp add float 2^24 -> 2^20 bins"),
            ("scatter_add_f32x4_2e24_into_2e10_ms", "ScatterOp add float4 2^24 -> 2^10 bins"),
            ("scatter_add_f32x4_2e24_into_2e20_ms", "ScatterOp add float4 2^24 -> 2^20 bins"))
# Throughputs of rill and CUB: rill's key, label, peer, CUB's key (default: rill's).
CUB_RATES = (("scan_gelems", "exclusive sum scan uint32 (G elem/s)", "CUB DeviceScan"),
             ("reduce_gelems", "reduce (sum) uint32 (G elem/s)", "CUB DeviceReduce"),
             ("select_gelems", "compaction keeping 50% uint32 (G elem/s)", "CUB DeviceSelect"),
             ("sort_keys_gkeys", "radix sort uint32 keys (G keys/s)", "CUB DeviceRadixSort keys"),
             ("sort_pairs_gpairs", "radix sort uint32 pairs (G pairs/s)", "CUB DeviceRadixSort pairs"),
             ("sweep_keys_gkeys", "radix sort uint32 keys, OneSweep (G keys/s)", "CUB DeviceRadixSort keys",
              "sort_keys_gkeys"),
             ("sweep_pairs_gpairs", "radix sort uint32 pairs, OneSweep (G pairs/s)", "CUB DeviceRadixSort pairs",
              "sort_pairs_gpairs"))


def ratios(results):
    """(workload, backend, rill figure, peer name, peer figure, ratio, short) rows,
    every rill figure against every peer of the same run; the ratio is higher when
    rill is better. short: the peer takes under 0.1 ms, where launch overhead and
    clocks make run-to-run spreads of tens of percent. bench/compare.py compares
    these ratios between runs."""
    rows = []
    peers = {name: r for name, r in results.items() if name.startswith("peer_")}
    torch = results.get("peer_torch", {})
    cub = results.get("peer_cub", {})
    for name, r in results.items():
        if not name.startswith("rill_"):
            continue
        backend = name[len("rill_"):]
        for workload, key in (("copy", "copy_gbs"), ("saxpy", "saxpy_gbs"), ("reduce (bytes read)", "reduce_gbs")):
            if key not in r:
                continue
            for peer_name, p in peers.items():
                # The same workload in the peer; a peer that only copies is the
                # bandwidth roof every streaming workload is measured against.
                peer_key = key if key in p else ("copy_gbs" if "saxpy_gbs" not in p and "copy_gbs" in p else None)
                if key == "reduce_gbs" and peer_name != "peer_vk_copy":
                    continue  # the roof is the hand-written copy
                if peer_key:
                    label = peer_name[len("peer_"):] + ("" if peer_key == key else " (copy roof)")
                    rows.append((workload, backend, f"{r[key]:.1f} GB/s", label, f"{p[peer_key]:.1f} GB/s",
                                 r[key] / p[peer_key], False))
        backend = r.get("backend", backend)
        labels = dict(TORCH_MS)
        # Times in ms of the same workload (the same key) in a PyTorch peer
        # file: TORCH_MS's of peer_torch, every key of the others (peer_torch_blas).
        for peer_name, p in peers.items():
            if not peer_name.startswith("peer_torch"):
                continue
            for key, value in r.items():
                if peer_name == "peer_torch" and key not in labels:
                    continue
                if key.endswith("_ms") and key in p and isinstance(value, (int, float)) and value > 0:
                    rows.append((labels.get(key, key[:-3]), backend, f"{value:.4f} ms", "torch", f"{p[key]:.4f} ms",
                                 p[key] / value, p[key] < 0.1))
        for key, label, peer, *cub_key in CUB_RATES:
            ck = cub_key[0] if cub_key else key
            if key in r and ck in cub and r[key] > 0:
                rows.append((label, backend, f"{r[key]:.2f}", peer, f"{cub[ck]:.2f}", r[key] / cub[ck], False))
    return rows


def main():
    folder = sys.argv[1]
    results = load(folder)
    print("| workload | rill backend | rill | peer | peer | ratio (higher: rill better) |")
    print("|---|---|---|---|---|---|")
    for w, b, rv, pn, pv, ratio, _ in ratios(results):
        print(f"| {w} | {b} | {rv} | {pn} | {pv} | {ratio:.3f} |")
    for name, r in results.items():
        if "dependent_kernel_us" in r:
            print(f"| 1000 dependent kernels | {name[5:]} | {r['dependent_kernel_us']:.2f} us/kernel | | | |")
    cub = results.get("peer_cub")
    if cub:
        print(f"\nCUB same run: scan {cub['scan_gelems']:.1f} G elem/s, select {cub['select_gelems']:.1f}, "
              f"reduce {cub['reduce_gelems']:.1f}, radix sort keys {cub['sort_keys_gkeys']:.2f} G keys/s, "
              f"pairs {cub['sort_pairs_gpairs']:.2f} G pairs/s")


if __name__ == "__main__":
    main()
