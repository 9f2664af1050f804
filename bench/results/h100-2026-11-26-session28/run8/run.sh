#!/usr/bin/env bash
# Session 28 run 8 (H100): every GPU test of the kept code through Vulkan and OpenGL; the default compaction at 2^28.
source .device/env.sh
O=$OUT/run8; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name --format=csv,noheader > $O/gpu.txt
timeout 360 rill-tests --gtest_filter='Backends/*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt
grep -B2 -A10 "Failure" $O/tests.txt | head -40
RILL_BACKEND=vulkan RILL_BENCH_ONLY=scan timeout 60 rill-bench-bandwidth 28 $O/vk.json > $O/vk.txt 2>&1; echo "vk rc=$? at $(el) s"; grep -E "compaction" $O/vk.txt
cd $OUT && tar czf run8.tgz run8 && rm -rf run8
