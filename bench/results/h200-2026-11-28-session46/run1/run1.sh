#!/usr/bin/env bash
# Session 46, run 1 (first on an H200): HEAD's sorts at 2^28 through Vulkan, CUB, and the placement census
# (trial section "placement": ten rounds, each on new keys, values and scratch streams, timing the pairs' and
# keys' sorts, a random gather and a copy).
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi > $O/smi.txt 2>&1; head -12 $O/smi.txt | tail -4
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
s() { local name=$1
  RILL_BENCH_SORT_RUNS= RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 150 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | sed -E 's/, kernels.*//' | tr '\n' ' '; echo; grep -E "^    radix_" $O/$name.txt | awk '{print $1, $4}' | head -6 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt | head -3; }
s S1
RILL_TRIAL_ROUNDS=10 RILL_BACKEND=vulkan RILL_BENCH_ONLY=placement RILL_PROFILE=1 timeout 200 rill-bench-bandwidth 28 $O/C1.json > $O/C1.txt 2>&1; echo "C1 rc=$? at $(el) s"
grep -A12 "^| round" $O/C1.txt
wait; tail -1 $O/nvcc.txt
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
s S2
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
