#!/usr/bin/env bash
# Session 28 run 7 (H100): the kept code (ballot tiles of 128 or 256 x 8 or 16): Compaction and VariableOutputs tests twice
# through Vulkan and OpenGL; the compaction's tiles at 2^28; CUB select in the same machine session.
source .device/env.sh
O=$OUT/run7; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1) &
timeout 200 rill-tests --gtest_repeat=2 --gtest_filter='*Compaction*:*VariableOutputs*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head; grep -c "       OK \]" $O/tests.txt
grep -B2 -A10 "Failure" $O/tests.txt | head -40
wait
/tmp/cub 28 > $O/cub.json 2> $O/cub.err; echo "cub at $(el) s"; cat $O/cub.json
RILL_BACKEND=vulkan RILL_BENCH_ONLY=scan RILL_BENCH_TILES=compact timeout 90 rill-bench-bandwidth 28 $O/tiles.json > $O/tiles.txt 2>&1; echo "tiles rc=$? at $(el) s"; grep -E "compaction.*ballots|compaction keeping|wrong" $O/tiles.txt
cd $OUT && tar czf run7.tgz run7 && rm -rf run7
