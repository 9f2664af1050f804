#!/usr/bin/env bash
# Session 30 run 9: the kept code (keys-only tiles of 256 x 24 through Vulkan only): sort bench through Vulkan and
# OpenGL, and the sort tests on both.
source .device/env.sh
O=$OUT/run9; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 backend=$2; shift 2; env "$@" RILL_BACKEND=$backend RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "scatter_keys|radix_hist|uint32 (keys|pairs)" $O/$name.txt | sort | uniq | head -30; }
c V1 vulkan
c G1 opengl
timeout 200 rill-tests --gtest_filter='Backends/*Radix*:Backends/*Sort*:Backends/*Merg*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt
cd $OUT && tar czf run9.tgz run9 && rm -rf run9
