#!/usr/bin/env bash
# The radix sort's ways against each other and CUB, in one machine session:
# the default (Auto), count-then-scatter and RadixAlgorithm::OneSweep, keys and pairs
# (rill-bench-bandwidth times both and checks both first), each through Vulkan
# without the driver's bounds checks (the default) and with them (RILL_VK_DRIVER_CHECKS=1),
# alternating, twice; then OpenGL once, and CUB.
# Usage (on the GPU machine, after ../shared/device/README.md): bench/gpu/sort_ab.sh OUTDIR [log2 n = 28]
set -uo pipefail
out=${1:?usage: bench/gpu/sort_ab.sh OUTDIR [log2 n]}
n=${2:-28}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
run() {  # name, backend, env...
    local name=$1 backend=$2
    shift 2
    env RILL_BACKEND="$backend" RILL_BENCH_ONLY=sort RILL_PROFILE=1 "$@" rill-bench-bandwidth "$n" "$out/$name.json" \
        > "$out/$name.txt" 2>&1 || echo "$name failed: $(tail -2 "$out/$name.txt")" >&2
}
for i in 1 2; do
    run "vulkan_$i" vulkan
    run "vulkan_driver_checks_$i" vulkan RILL_VK_DRIVER_CHECKS=1
done
run opengl_1 opengl
if command -v nvcc > /dev/null; then
    nvcc -O3 -std=c++17 -arch=sm_90 "$here/cub_peers.cu" -o /tmp/rill_cub_peers \
        && /tmp/rill_cub_peers "$n" > /tmp/rill_cub.json && mv /tmp/rill_cub.json "$out/cub.json" || echo "CUB peer failed" >&2
fi
python3 - "$out" "$here/.." <<'EOF'
import pathlib, sys
sys.path.insert(0, sys.argv[2])
from table import load
out = pathlib.Path(sys.argv[1])
results = load(out)
cub = results.pop("cub", {})
print("| run | keys G/s | pairs G/s | OneSweep keys | OneSweep pairs | / CUB keys, pairs, OneSweep keys, pairs |")
print("|---|---|---|---|---|---|")
for name, r in results.items():
    keys, pairs = r.get("sort_keys_gkeys", 0), r.get("sort_pairs_gpairs", 0)
    sk, sp = r.get("sweep_keys_gkeys", 0), r.get("sweep_pairs_gpairs", 0)
    ratio = ""
    if cub:
        ck, cp = cub["sort_keys_gkeys"], cub["sort_pairs_gpairs"]
        ratio = f"{keys / ck:.3f}, {pairs / cp:.3f}, {sk / ck:.3f}, {sp / cp:.3f}"
    print(f"| {name} | {keys:.4g} | {pairs:.4g} | {sk:.4g} | {sp:.4g} | {ratio} |")
if cub:
    print(f"CUB: {cub['sort_keys_gkeys']:.2f} G keys/s, {cub['sort_pairs_gpairs']:.2f} G pairs/s")
EOF
