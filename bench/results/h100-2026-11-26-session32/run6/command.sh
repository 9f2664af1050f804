#!/usr/bin/env bash
# Session 32 run 6: the kept code (5f03df7: Auto takes OneSweep for every Vulkan sort): the sort bench, then every GPU
# test through Vulkan and OpenGL.
source .device/env.sh
O=$OUT/run6; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/V1.json > $O/V1.txt 2>&1; echo "V1 rc=$? at $(el) s"; grep -E "^\| radix sort" $O/V1.txt
timeout $((585 - $(el))) rill-tests --gtest_filter='Backends/*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt; tail -2 $O/tests.txt
cd $OUT && tar czf run6.tgz run6 && rm -rf run6
