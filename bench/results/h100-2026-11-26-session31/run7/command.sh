#!/usr/bin/env bash
# Session 31 run 7: why the first bench on a fresh machine is slow (runs 4-6). Each timed repeat printed
# (RILL_BENCH_VERBOSE); the first process sorts keys only by both algorithms once, untimed, before timing
# (RILL_BENCH_PREWARM: their scratch streams allocated and touched first); a second process without it.
source .device/env.sh
O=$OUT/run7; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1; shift; env "$@" RILL_BENCH_VERBOSE=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "repeat|per kernel|sweep_keys|scatter_keys|radix sort" $O/$name.txt | head -60; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,persistence_mode,temperature.gpu --format=csv
c P1 RILL_BENCH_PREWARM=1
nvidia-smi --query-gpu=clocks.sm,persistence_mode --format=csv
c V2
cd $OUT && tar czf run7.tgz run7 && rm -rf run7
