#!/usr/bin/env bash
# CUB's peers (bench/gpu/cub_peers.cu) for a run on the GPU machine: `build` compiles them once
# (start it in the background while other work runs); `time OUTDIR [log2 n = 28] [JSON = cub.json]`
# waits for the build, times them into OUTDIR/JSON and prints CUB's sort times. bench/gpu/run.sh
# takes its CUB peer from here too.
# Usage (on the GPU machine, after ../shared/device/README.md):
#   bench/gpu/cub_sort.sh build &  ...  bench/gpu/cub_sort.sh time OUTDIR [28] [cub.json]
set -uo pipefail
bin=/tmp/rill_cub_peers
log=/tmp/rill_cub_peers.build.txt
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in
build)
    # An earlier build's log and binary go first, so that `time` waits for this build's result and a
    # failed build cannot leave an earlier binary to be timed.
    : > "$log"
    rm -f "$bin"
    PATH=$PATH:/usr/local/cuda/bin nvcc -O3 -std=c++17 -arch=sm_90 "$here/cub_peers.cu" -o "$bin.tmp" > "$log" 2>&1 &&
        mv "$bin.tmp" "$bin"
    rc=$?
    echo "nvcc rc=$rc" >> "$log"
    exit $rc
    ;;
time)
    out=${2:?usage: bench/gpu/cub_sort.sh time OUTDIR [log2 n] [JSON]}
    json=$out/${4:-cub.json}
    mkdir -p "$out"
    # At most 10 minutes: with no `build` started, the log never comes.
    for ((i = 0; i < 600; ++i)); do grep -q "nvcc rc=" "$log" 2>/dev/null && break; sleep 1; done
    cp "$log" "$out/nvcc.txt" 2>/dev/null
    [ -x "$bin" ] || { echo "CUB peers not built: was 'bench/gpu/cub_sort.sh build' started? its log: $out/nvcc.txt"; exit 1; }
    timeout 60 "$bin" "${3:-28}" > "$json" 2> "$out/cub.txt"
    rc=$?
    echo "cub rc=$rc $(grep -oE '"sort_(keys|pairs)_ms":[0-9.]+' "$json" | tr '\n' ' ')"
    exit $rc
    ;;
*)
    echo "usage: bench/gpu/cub_sort.sh build | time OUTDIR [log2 n] [JSON]" >&2
    exit 2
    ;;
esac
