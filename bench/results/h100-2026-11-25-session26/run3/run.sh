#!/usr/bin/env bash
# Session 26 run 3: final code (group kernels without readonly), CUB, GPU tests.
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
r() { local name=$1 backend=$2 only=$3; env RILL_BACKEND=$backend RILL_BENCH_ONLY=$only RILL_PROFILE=1 timeout 110 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(( $(date +%s) - t0 )) s"; }
r F_vk vulkan sort,scan
r F_gl opengl sort
nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub && /tmp/cub 28 > $O/cub.json 2> $O/cub.err; echo "cub at $(( $(date +%s) - t0 )) s"
left=$(( 470 - ($(date +%s) - t0) ))
timeout $left rill-tests --gtest_filter='*Compaction*:*SegmentedScans*:*SummedArea*:*VariableOutputs*:*Merging*:*SegmentedSort*:*BitonicSorting*:*ScatterOps*:*Reductions*:*RadixSort*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(( $(date +%s) - t0 )) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head; grep -c "       OK \]" $O/tests.txt
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
