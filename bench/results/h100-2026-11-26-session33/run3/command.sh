#!/usr/bin/env bash
# Session 33 run 3: OneSweep's keys-only sweep recomputing the digits after the scan (N) alternating with HEAD 8db3319
# (H), CUB in the same machine session, then OpenGL's sort bench with each.
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
tarit() { cd $OUT && tar czf run3.tgz run3 && cd - > /dev/null; }
c() { local name=$1 bin=$2 be=$3; shift 3; env "$@" RILL_BACKEND=$be RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)|^\| radix sort" $O/$name.txt | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq; grep -E "radix_sweep_keys|radix_sweep_pairs" $O/$name.txt | grep -E "ms per" | head -4; tarit; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.mem --format=csv
c N1 rill-bench-bandwidth vulkan RILL_VK_PIPELINE_STATS=1
c H1 rill-bench-head vulkan RILL_VK_PIPELINE_STATS=1
c N2 rill-bench-bandwidth vulkan
c H2 rill-bench-head vulkan
nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub && /tmp/cub 28 > $O/cub.json 2>&1; echo "cub rc=$? at $(el) s"; cat $O/cub.json
c G_N rill-bench-bandwidth opengl
c G_H rill-bench-head opengl
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
