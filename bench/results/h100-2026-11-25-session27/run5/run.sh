#!/usr/bin/env bash
# Session 27 run 5 (H100): every GPU test of the final code (Auto taking OneSweep, one-word compaction states), Vulkan and OpenGL.
source .device/env.sh
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name --format=csv,noheader > $O/gpu.txt
timeout 500 rill-tests --gtest_filter='Backends/*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt
grep -E "tests from .* \(" $O/tests.txt | tail -25
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
