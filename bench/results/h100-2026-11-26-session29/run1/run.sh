#!/usr/bin/env bash
# Session 29 run 1: radix scatter, next tile's keys loaded ahead (prefetch) and the ranking's ballots by predicate, A/B by trial knobs.
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1) &
c() { local name=$1; shift; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "radix sort|scatter_keys|scatter_pairs|sweep_keys|sweep_pairs" $O/$name.txt | head -30; }
c A1 RILL_TRIAL_OLDRANK=1 RILL_TRIAL_NOPREFETCH=1 RILL_VK_PIPELINE_STATS=1
c D1 RILL_VK_PIPELINE_STATS=1
timeout 150 rill-tests --gtest_filter='*RadixSort*:*OneSweep*:*SortBy*:*SegmentedSort*:*ScatterSorted*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head; grep -c "       OK \]" $O/tests.txt
c B1 RILL_TRIAL_NOPREFETCH=1 RILL_VK_PIPELINE_STATS=1
c C1 RILL_TRIAL_OLDRANK=1 RILL_VK_PIPELINE_STATS=1
wait
/tmp/cub 28 > $O/cub.json 2> $O/cub.err; echo "cub at $(el) s"; grep -i sort $O/cub.json
c D2 X=1
c A2 RILL_TRIAL_OLDRANK=1 RILL_TRIAL_NOPREFETCH=1
