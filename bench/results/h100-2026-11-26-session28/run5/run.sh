#!/usr/bin/env bash
# Session 28 run 5 (H100): the committed code (6527e6e): every GPU test; the full bench through Vulkan; the compaction's tiles;
# OpenGL; compaction over n; CUB in the same machine session.
source .device/env.sh
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name --format=csv,noheader > $O/gpu.txt
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1) &
timeout 330 rill-tests --gtest_filter='Backends/*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt
wait
/tmp/cub 28 > $O/cub.json 2> $O/cub.err; echo "cub at $(el) s"; cat $O/cub.json
RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort,scan RILL_PROFILE=1 timeout 80 rill-bench-bandwidth 28 $O/vk.json > $O/vk.txt 2>&1; echo "vk rc=$? at $(el) s"; grep -E "^\|" $O/vk.txt | head -20
RILL_BACKEND=vulkan RILL_BENCH_ONLY=scan RILL_BENCH_TILES=compact timeout 90 rill-bench-bandwidth 28 $O/tiles.json > $O/tiles.txt 2>&1; echo "tiles rc=$? at $(el) s"; grep compaction $O/tiles.txt
RILL_BACKEND=opengl RILL_BENCH_ONLY=scan timeout 50 rill-bench-bandwidth 28 $O/gl.json > $O/gl.txt 2>&1; echo "gl rc=$? at $(el) s"; grep compaction $O/gl.txt
for n in 16 20 24 26; do RILL_BACKEND=vulkan RILL_BENCH_ONLY=scan RILL_BENCH_TILES=compact timeout 40 rill-bench-bandwidth $n $O/tiles_$n.json > $O/tiles_$n.txt 2>&1; echo "n=2^$n rc=$? at $(el) s"; grep -E "single pass, tile 256 x 8 in vectors|single pass, tile 128 x 16 ranked|two passes, default|compaction keeping" $O/tiles_$n.txt; done
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
