#!/usr/bin/env bash
# One variant of the radix sort through Vulkan at 2^n keys, timed and summed up in two
# lines: the sorts' spans (A: Auto, O: RadixAlgorithm::OneSweep; keys and pairs), the
# last sort's per-kernel times, and each radix kernel's registers and shared memory
# (pipeline statistics). Knobs go in as NAME=VALUE environment settings. With
# RILL_VK_PIPELINE_DUMP set among them, the radix kernels' machine code is cut out and
# disassembled too (needs zstd and nvdisasm): OUTDIR/NAME_sass/*.sass. RILL_BENCH_BIN
# names another build of rill-bench-bandwidth to time (an A/B in one machine session).
# Usage (on the GPU machine, after ../shared/device/README.md):
#   bench/gpu/sort_variant.sh OUTDIR NAME [log2 n = 28] [NAME=VALUE...]
set -uo pipefail
out=${1:?usage: bench/gpu/sort_variant.sh OUTDIR NAME [log2 n] [NAME=VALUE...]}
name=${2:?usage: bench/gpu/sort_variant.sh OUTDIR NAME [log2 n] [NAME=VALUE...]}
shift 2
n=28
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then n=$1; shift; fi
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
txt=$out/$name.txt
env RILL_BENCH_SORT_RUNS= RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 "$@" \
    timeout 150 "${RILL_BENCH_BIN:-rill-bench-bandwidth}" "$n" "$out/$name.json" > "$txt" 2>&1
echo "$name $* rc=$?"
grep -E "^  (radix sort|OneSweep) (keys|pairs): span" "$txt" | sed -E 's/, kernels.*//; s/radix sort/A/; s/OneSweep/O/' | tr '\n' ' '
echo
grep -E "^    radix_" "$txt" | awk '{print $1, $4}' | tail -6 | tr '\n' ' '
echo
grep -E "wrong|rror|differ" "$txt" | head -3
grep -E "statistics of 'radix_" "$txt" |
    sed -E "s/.*of .(radix_[a-z_]*).: Register Count = ([0-9]+);.*Shared Memory Size = ([0-9]+);.*/\1 \2 regs \3 B/" |
    sort | uniq | tr '\n' ' '
echo
for kv in "$@"; do
    [[ $kv == RILL_VK_PIPELINE_DUMP=* ]] || continue
    dump=${kv#*=}
    python3 "$here/nv_cache_code.py" "$dump" "$txt" "$out/${name}_sass" > /dev/null 2>&1
    for f in "$out/${name}_sass"/radix_*.bin; do
        [ -f "$f" ] && nvdisasm -b SM90 -hex "$f" > "${f%.bin}.sass" 2>&1
        rm -f "$f"
    done
    rm -rf "$dump"
done
