#!/usr/bin/env bash
# Session 43, run 5: why OneSweep's explicit pairs (timed after Auto's, with the same kernels) run 5% slower:
# Auto's sorts timed again afterwards (RILL_TRIAL_AGAIN=1), 4 GB of streams made before the sorts
# (RILL_TRIAL_BALLAST=4), stream buffers in dedicated allocations (RILL_TRIAL_DEDICATED=1); CUB.
source .device/env.sh
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1; shift
  env RILL_BENCH_SORT_RUNS= "$@" RILL_TRIAL_AGAIN=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "^  (radix sort|OneSweep) (keys|pairs)(, again)?: span" $O/$name.txt | sed -E 's/, kernels.*//' | tr '\n' ' '; echo; grep -E "^    radix_sweep_pairs " $O/$name.txt | awk '{print $4}' | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt; }
c D0
c D1 RILL_TRIAL_BALLAST=4
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c D2 RILL_TRIAL_DEDICATED=1
c D3 RILL_TRIAL_DEDICATED=1 RILL_TRIAL_BALLAST=4
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
