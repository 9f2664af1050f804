#!/usr/bin/env bash
# Session 36 run 5: every GPU test through Vulkan and OpenGL at HEAD 7569c62 (rill-tests built at 621bcba; 7569c62 changed no kernel).
source .device/env.sh
O=$OUT/run5; mkdir -p $O
timeout 560 rill-tests --gtest_filter='Backends/*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$?"
grep -E "FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt; tail -3 $O/tests.txt
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
