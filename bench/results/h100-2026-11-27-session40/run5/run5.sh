#!/usr/bin/env bash
# Session 40, run 5: every GPU test through Vulkan and OpenGL with HEAD's rill-tests (28e32a9).
source .device/env.sh
O=$OUT/run5; mkdir -p $O
[ -x .device/bin/rill-tests-p ] || { zstd -q -d .device/bin/rill-tests-p.zst -o .device/bin/rill-tests-p && chmod +x .device/bin/rill-tests-p; }
t0=$(date +%s)
timeout 450 rill-tests-p --gtest_filter='Backends/*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
