#!/usr/bin/env bash
# Session 27 run 8 (H100): tests with Auto taking the compaction's single pass through OpenGL too.
source .device/env.sh
O=$OUT/run8; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name --format=csv,noheader > $O/gpu.txt
timeout 300 rill-tests --gtest_filter='*Compaction*:*VariableOutputs*:*RadixSort*:*BitonicSorting*:*SegmentedSort*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt
RILL_BACKEND=opengl RILL_BENCH_ONLY=scan timeout 90 rill-bench-bandwidth 28 $O/opengl_28.json > $O/opengl_28.txt 2>&1; echo "bench rc=$? at $(el) s"; grep -E "compaction" $O/opengl_28.txt
cd $OUT && tar czf run8.tgz run8 && rm -rf run8
