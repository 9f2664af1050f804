#!/usr/bin/env bash
# Session 47, run 5 (H200): every GPU test with the final code (the new SharedOnlyBarriersOrderSharedMemory included), Vulkan and OpenGL in two processes at once.
source .device/env.sh
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
timeout 450 rill-tests --gtest_filter='Backends/*/vulkan' > $O/tests_vulkan.txt 2>&1 &
timeout 450 rill-tests --gtest_filter='Backends/*/opengl' > $O/tests_opengl.txt 2>&1; echo "opengl tests rc=$? at $(el) s"
wait; echo "vulkan tests done at $(el) s"
for b in vulkan opengl; do echo $b; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $O/tests_$b.txt | head -20; grep -c "^\[       OK" $O/tests_$b.txt; grep -m3 -E "device|Vulkan|OpenGL" $O/tests_$b.txt; done
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
