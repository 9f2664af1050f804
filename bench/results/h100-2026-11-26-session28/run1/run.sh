#!/usr/bin/env bash
# Session 28 run 1: the compaction's single pass ranked by ballots (RILL_TRIAL_BALLOT=WgxItems) against the vector tiles.
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1) &
c() { local name=$1; shift; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=scan timeout 90 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "compaction" $O/$name.txt | head -8; }
c base1 RILL_VK_PIPELINE_STATS=1
c b256x16 RILL_TRIAL_BALLOT=256x16 RILL_VK_PIPELINE_STATS=1
c b256x8 RILL_TRIAL_BALLOT=256x8
wait
/tmp/cub 28 > $O/cub.json 2> $O/cub.err; echo "cub at $(el) s"; grep -i select $O/cub.json
RILL_TRIAL_BALLOT=256x16 timeout 120 rill-tests --gtest_filter='*Compaction*:*VariableOutputs*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head; grep -c "       OK \]" $O/tests.txt
c b256x24 RILL_TRIAL_BALLOT=256x24
c b512x16 RILL_TRIAL_BALLOT=512x16
c b128x16 RILL_TRIAL_BALLOT=128x16
c b256x12 RILL_TRIAL_BALLOT=256x12
c base2 X=1
c b256x16_2 RILL_TRIAL_BALLOT=256x16
c b512x8 RILL_TRIAL_BALLOT=512x8
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
