#!/usr/bin/env bash
# Session 30 run 7: the kept code (count-then-scatter keys in tiles of 256 x 24 and runs of 1 tile; pairs and OneSweep
# 256 x 16): the sort bench through Vulkan twice and OpenGL once, CUB, and the sort tests through Vulkan and OpenGL.
source .device/env.sh
O=$OUT/run7; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 backend=$2; shift 2; env "$@" RILL_BACKEND=$backend RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)|sweep_|scatter_|radix_pass|radix_hist|radix sort" $O/$name.txt | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq | head -30; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.mem --format=csv
c V1 vulkan RILL_VK_PIPELINE_STATS=1
nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub && /tmp/cub 28 > $O/cub.json 2>&1; echo "cub rc=$? at $(el) s"; cat $O/cub.json
c V2 vulkan
c G1 opengl
cd $OUT && tar czf run7.tgz run7 && cd - > /dev/null
timeout 200 rill-tests --gtest_filter='Backends/*Radix*:Backends/*Sort*:Backends/*Merg*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt
cd $OUT && tar czf run7.tgz run7 && rm -rf run7
