#!/usr/bin/env bash
# For session 40: next_trials.patch (against 9543201; binaries rill-bench-bandwidth-t, rill-tests-t built from it):
# OneSweep's sweep with its counters aliased into the exchange (ALIAS=1: pairs at 256 x 22 in 1 part, keys at 256 x 30 with word counters in 2 parts;
# ALIAS=2 halves; ALIAS=3 words), and keys at 256 x 32 (KI) with it, against no knob (HEAD's sort). Then the sort tests with ALIAS=1 KI=32.
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)_(keys|pairs)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+|Shared Memory Size = [0-9]+" | paste - - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_sweep_(keys|pairs)" $O/$name.txt | grep -E "ms per" | head -4 | awk '{print $1, $4}' | tr '\n' ' '; echo; grep -E "^\| radix sort, uint32 (keys|pairs) \||wrong|rror|differ" $O/$name.txt; }
T=rill-bench-bandwidth-t
c V1 $T
c A1 $T RILL_TRIAL_ALIAS=1
c A2 $T RILL_TRIAL_ALIAS=2
c A3 $T RILL_TRIAL_ALIAS=3
c KI32A3 $T RILL_TRIAL_KI=32 RILL_TRIAL_ALIAS=3
c KI32A1 $T RILL_TRIAL_KI=32 RILL_TRIAL_ALIAS=1
c V2 $T
c A1b $T RILL_TRIAL_ALIAS=1
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
RILL_TRIAL_ALIAS=1 RILL_TRIAL_KI=32 timeout 200 rill-tests-t --gtest_filter='Backends/RadixSort.*:Backends/SegmentedSort.*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
