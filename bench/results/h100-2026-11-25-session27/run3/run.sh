#!/usr/bin/env bash
# Session 27 run 3 (H100): Auto's radix sort, count-then-scatter and OneSweep at 2^28 against CUB, Vulkan twice, OpenGL once.
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name --format=csv,noheader > $O/gpu.txt
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1) &
r() { local name=$1 backend=$2 only=$3; env RILL_BACKEND=$backend RILL_BENCH_ONLY=$only RILL_PROFILE=1 timeout 120 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "radix sort, (OneSweep|count-then-scatter, 0)|^\| (radix|exclusive|compaction|reduce)" $O/$name.txt; }
r A_vk vulkan sort,scan
wait
/tmp/cub 28 > $O/cub.json 2> $O/cub.err; echo "cub at $(el) s"; cat $O/cub.json
r B_vk vulkan sort
r A_gl opengl sort
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
