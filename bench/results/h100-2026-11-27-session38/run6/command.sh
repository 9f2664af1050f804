#!/usr/bin/env bash
# Session 38 run 6: pairs load their values after the first part of the keys is exchanged (RILL_TRIAL_VLATE=1), and pairs' sweep tiles of 256 x RILL_TRIAL_PI, against 51bbdf0 (no knobs), one binary.
source .device/env.sh
O=$OUT/run6; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_sweep_(keys|pairs)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+|Shared Memory Size = [0-9]+" | paste - - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_sweep_(keys|pairs)|radix_pass_counts" $O/$name.txt | grep -E "ms per" | head -6; grep -E "^\| radix sort, uint32 (keys|pairs) \||OneSweep: keys|wrong|rror" $O/$name.txt; }
T=rill-bench-bandwidth-t3
c H1 $T
c VL $T RILL_TRIAL_VLATE=1
c P20 $T RILL_TRIAL_PI=20
c VL20 $T RILL_TRIAL_VLATE=1 RILL_TRIAL_PI=20
c VL24 $T RILL_TRIAL_VLATE=1 RILL_TRIAL_PI=24
c H2 $T
c VLb $T RILL_TRIAL_VLATE=1
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
RILL_TRIAL_VLATE=1 RILL_TRIAL_PI=24 timeout 150 rill-tests --gtest_filter='Backends/RadixSort.*:Backends/SegmentedSort.*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|tests ran" $O/tests.txt | head -20
cd $OUT && tar czf run6.tgz run6 && rm -rf run6
