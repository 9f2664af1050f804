#!/usr/bin/env bash
# Session 38 run 4: every GPU test of V's rill-tests (the commit) through Vulkan and OpenGL.
source .device/env.sh
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
timeout 560 rill-tests --gtest_filter='Backends/*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|tests ran" $O/tests.txt | head -20
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
