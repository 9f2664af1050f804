#!/usr/bin/env bash
# Session 27 run 2: RadixAlgorithm::Auto takes OneSweep (small sorts, pairs) on the GPU backends;
# sorts, scan, compaction and reduce against CUB; GPU tests of the sorts and compaction.
source .device/env.sh
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1) &
r() { local name=$1 backend=$2 only=$3; env RILL_BACKEND=$backend RILL_BENCH_ONLY=$only RILL_PROFILE=1 timeout 120 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "radix sort, (OneSweep|count-then-scatter, 0)|^\| (radix|exclusive|compaction|reduce)" $O/$name.txt; }
r A_vk vulkan sort,scan
wait
/tmp/cub 28 > $O/cub.json 2> $O/cub.err; echo "cub at $(el) s"; cat $O/cub.json
r A_gl opengl sort
timeout 300 rill-tests --gtest_filter='*RadixSort*:*SortBy*:*SegmentedSort*:*ScatterSorted*:*Merging*:*Compaction*:*VariableOutputs*:*BitonicSorting*:*Errors*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt
left=$(( 540 - $(el) )); [ $left -gt 60 ] && r B_vk vulkan sort
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
