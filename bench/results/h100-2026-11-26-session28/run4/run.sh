#!/usr/bin/env bash
# Session 28 run 4: the ballot single pass written from registers (RILL_TRIAL_DIRECT=1) at more shapes; 512 x 16's wrong
# result with and without the fallback; its tests on the H100; OpenGL; CUB in the same machine session.
source .device/env.sh
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1) &
c() { local name=$1; shift; env "$@" RILL_BENCH_ONLY=scan RILL_VK_PIPELINE_STATS=1 timeout 150 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "wrong|compaction single pass|compaction keeping|statistics of 'even_compact_(ballot|vector)_single" $O/$name.txt | sed 's/rill vulkan: pipeline statistics of//; s/Binary Size.*Shared/Shared/' | head -6; }
V=RILL_BACKEND=vulkan
D="RILL_TRIAL_DIRECT=1"
c base $V
c d128x16 $V $D RILL_TRIAL_BALLOT=128x16
wait
/tmp/cub 28 > $O/cub.json 2> $O/cub.err; echo "cub at $(el) s"; cat $O/cub.json
c d128x24 $V $D RILL_TRIAL_BALLOT=128x24
c d128x32 $V $D RILL_TRIAL_BALLOT=128x32
c d64x32 $V $D RILL_TRIAL_BALLOT=64x32
c d128x12 $V $D RILL_TRIAL_BALLOT=128x12
c d512x16_noFB $V $D RILL_TRIAL_BALLOT=512x16 RILL_TRIAL_FALLBACK_READS=1000000000
c d512x16 $V $D RILL_TRIAL_BALLOT=512x16
c gl_base RILL_BACKEND=opengl
c gl_d128x16 RILL_BACKEND=opengl $D RILL_TRIAL_BALLOT=128x16
for s in 128x16 512x16; do
RILL_TRIAL_DIRECT=1 RILL_TRIAL_BALLOT=$s timeout 100 rill-tests --gtest_filter='*Compaction*:*VariableOutputs*-*LargeSizes*:*/cpu:*ClearErrors*' > $O/tests_$s.txt 2>&1; echo "tests $s rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests_$s.txt | head; grep -c "       OK \]" $O/tests_$s.txt
done
c d128x16_2 $V $D RILL_TRIAL_BALLOT=128x16
c base_2 $V
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
