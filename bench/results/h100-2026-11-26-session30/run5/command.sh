#!/usr/bin/env bash
# Session 30 run 5: the kept code (keys-only tiles of 256 x 24, pairs 256 x 16, places packed, the exchange in parts of
# at most 4096 keys): every GPU test through Vulkan and OpenGL with the driver's bounds checks off (the default); the
# sort bench through Vulkan and OpenGL; CUB in the same machine session.
source .device/env.sh
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 backend=$2; shift 2; env "$@" RILL_BACKEND=$backend RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)|sweep_|scatter_|radix_pass|radix_hist|radix sort" $O/$name.txt | grep -v "tiles per" | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq | head -30; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.mem --format=csv
c V1 vulkan RILL_VK_PIPELINE_STATS=1
nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub && /tmp/cub 28 > $O/cub.json 2>&1; echo "cub rc=$? at $(el) s"; cat $O/cub.json
c G1 opengl
cd $OUT && tar czf run5.tgz run5 && cd - > /dev/null
timeout 330 rill-tests --gtest_filter='Backends/*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
