#!/usr/bin/env bash
# Session 40, run 1: OneSweep's counters in the exchange (keys at 256 x 30 in words, 2 parts; pairs at 256 x 22 in words,
# 2 parts) against pairs' counters apart (RILL_TRIAL_PAIRS_APART=1: HEAD's pairs); the counting kernel's histogram in
# C copies by local_id() % C (RILL_TRIAL_HC) and its tile (RILL_TRIAL_CI). Then the sort tests.
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep_(keys|pairs)|pass_counts)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+|Shared Memory Size = [0-9]+" | paste - - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_(sweep_(keys|pairs)|pass_counts)" $O/$name.txt | grep -E "ms per" | head -6 | awk '{print $1, $4}' | tr '\n' ' '; echo; grep -E "^\| radix sort, uint32 (keys|pairs) \||wrong|rror|differ" $O/$name.txt; }
T=rill-bench-bandwidth-t
c V1 $T
c PA1 $T RILL_TRIAL_PAIRS_APART=1
c HC2 $T RILL_TRIAL_HC=2
c HC4 $T RILL_TRIAL_HC=4
c HC8 $T RILL_TRIAL_HC=8
c CI24 $T RILL_TRIAL_CI=24
c V2 $T
c PA2 $T RILL_TRIAL_PAIRS_APART=1
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
timeout 200 rill-tests-t --gtest_filter='Backends/RadixSort.*:Backends/SegmentedSort.*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
