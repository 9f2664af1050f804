#!/usr/bin/env bash
# Session 27 run 1: compaction's one-word count states (W) against the four-word halves (H, RILL_TRY_HALVES=1),
# one trial binary, every vector tile; GPU tests of main; CUB; radix algorithms over n (Vulkan, OpenGL).
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1) &
c() { local name=$1; shift; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=scan RILL_BENCH_TILES=compact timeout 120 rill-bench-bandwidth-trial 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "compaction" $O/$name.txt | head -20; }
c W1 X=1
c H1 RILL_TRY_HALVES=1
wait
/tmp/cub 28 > $O/cub.json 2> $O/cub.err; echo "cub at $(el) s"
timeout 150 rill-tests --gtest_filter='*Compaction*:*VariableOutputs*:*OneSweep*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head; grep -c "       OK \]" $O/tests.txt
s() { local b=$1 lim=$2; RILL_BACKEND=$b RILL_BENCH_ONLY=radix timeout $lim rill-bench-sorts 28 $O/sorts_$b.json > $O/sorts_$b.txt 2>&1; echo "sorts $b rc=$? at $(el) s"; cat $O/sorts_$b.txt; }
s vulkan 130
c W2 X=1
c H2 RILL_TRY_HALVES=1
left=$(( 560 - $(el) )); [ $left -gt 20 ] && s opengl $left
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
