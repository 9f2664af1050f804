#!/usr/bin/env bash
# Session 27 run 6 (H100): the compaction's single pass with tiles by group_id and the look-back's fallback (G)
# against tiles by ticket (T, RILL_TRY_TICKET=1), one trial binary, alternating; tests with G; CUB.
source .device/env.sh
O=$OUT/run6; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name --format=csv,noheader > $O/gpu.txt
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1) &
c() { local name=$1; shift; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=scan timeout 100 rill-bench-bandwidth-trial 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "compaction" $O/$name.txt; }
c G1 X=1
c T1 RILL_TRY_TICKET=1
c G2 X=1
c T2 RILL_TRY_TICKET=1
wait
/tmp/cub 28 > $O/cub.json 2> $O/cub.err; echo "cub at $(el) s"; cat $O/cub.json
timeout 150 rill-tests-trial --gtest_filter='*Compaction*:*VariableOutputs*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head; grep -c "       OK \]" $O/tests.txt
RILL_TRY_MUTATE=1 timeout 100 rill-tests-trial --gtest_filter='*Compaction.FilterKeepsOrderAndCount*-*/cpu' > $O/tests_mutated.txt 2>&1; echo "mutated (fallback counts off by one) rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests_mutated.txt | head -4
left=$(( 540 - $(el) )); [ $left -gt 60 ] && { env RILL_BACKEND=opengl RILL_BENCH_ONLY=scan timeout 100 rill-bench-bandwidth-trial 28 $O/G_gl.json > $O/G_gl.txt 2>&1; grep compaction $O/G_gl.txt; RILL_TRY_TICKET=1 RILL_BACKEND=opengl RILL_BENCH_ONLY=scan timeout 100 rill-bench-bandwidth-trial 28 $O/T_gl.json > $O/T_gl.txt 2>&1; grep compaction $O/T_gl.txt; }
cd $OUT && tar czf run6.tgz run6 && rm -rf run6
