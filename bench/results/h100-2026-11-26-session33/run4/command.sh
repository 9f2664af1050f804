#!/usr/bin/env bash
# Session 33 run 4: the final code (OneSweep's keys-only sweep through Vulkan recomputes the digits after the scan): every GPU test
# through Vulkan and OpenGL, and the radix sort's large sizes (2^22 +- 1, 2^24 +- 1) on both.
source .device/env.sh
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
timeout 60 rill-tests --gtest_filter='Backends/RadixSort.LargeSizes*:Backends/*OneSweep*LargeSizes*-*/cpu' > $O/large.txt 2>&1; echo "large rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/large.txt | head; tail -1 $O/large.txt
timeout $((560 - $(el))) rill-tests --gtest_filter='Backends/*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt; tail -2 $O/tests.txt
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
