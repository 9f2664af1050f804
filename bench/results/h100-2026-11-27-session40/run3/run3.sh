#!/usr/bin/env bash
# Session 40, run 3: RILL_TRIAL_NEXT=1 (the counting kernel counts pass 0; sweep p counts the digits of pass p + 1; a scan before each pass) against 28e32a9.
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep_(keys|pairs)|pass_counts)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+|Shared Memory Size = [0-9]+" | paste - - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_(sweep_(keys|pairs)|pass_counts)" $O/$name.txt | grep -E "ms per" | head -6 | awk '{print $1, $4}' | tr '\n' ' '; echo; grep -E "^\| radix sort, uint32 (keys|pairs) \||wrong|rror|differ" $O/$name.txt; }
T=rill-bench-bandwidth-t
c V1 $T
c N1 $T RILL_TRIAL_NEXT=1
c V2 $T
c N2 $T RILL_TRIAL_NEXT=1
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
RILL_TRIAL_NEXT=1 timeout 200 rill-tests-t --gtest_filter='Backends/RadixSort.*:Backends/SegmentedSort.*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
