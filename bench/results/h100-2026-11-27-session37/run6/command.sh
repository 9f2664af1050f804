#!/usr/bin/env bash
# Session 37 run 6: HEAD (OneSweep keys tile 256 x 30, keys-only passes unchecked; binaries built at run 5's V, same code):
# every GPU test through Vulkan and OpenGL, and the sort bench once more.
source .device/env.sh
O=$OUT/run6; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
timeout 450 rill-tests --gtest_filter='Backends/*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|tests ran" $O/tests.txt | head -20
RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth-h 28 $O/H.json > $O/H.txt 2>&1; echo "H rc=$? at $(el) s"; grep -E "radix_sweep_keys|radix_sweep_pairs" $O/H.txt | grep -E "ms per" | head -4; grep -E "^\| radix sort, uint32 (keys|pairs) \||OneSweep: keys|wrong" $O/H.txt
cd $OUT && tar czf run6.tgz run6 && rm -rf run6
