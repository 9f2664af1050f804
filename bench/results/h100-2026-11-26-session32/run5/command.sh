#!/usr/bin/env bash
# Session 32 run 5: the kept code (OneSweep's counting kernel pass by pass over full tiles of 256 x 16, in at most 4096
# workgroups) alternating with HEAD (58840de), CUB in the same machine session, and Auto's crossover (rill-bench-sorts 26).
source .device/env.sh
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter|pass)|^\| radix sort" $O/$name.txt | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq; grep -E "radix_pass_counts|radix_sweep" $O/$name.txt | head -4; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.mem --format=csv
c N1 rill-bench-bandwidth RILL_VK_PIPELINE_STATS=1
c H1 rill-bench-head
c N2 rill-bench-bandwidth
c H2 rill-bench-head
nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub && /tmp/cub 28 > $O/cub.json 2>&1; echo "cub rc=$? at $(el) s"; cat $O/cub.json
RILL_BACKEND=vulkan RILL_BENCH_ONLY=radix timeout 150 rill-bench-sorts 26 $O/sorts_vulkan.json > $O/sorts_vulkan.txt 2>&1; echo "sorts rc=$? at $(el) s"; tail -14 $O/sorts_vulkan.txt
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
