#!/usr/bin/env bash
# Session 30 run 1: the tile exchanged in parts from registers, places packed two to a word (trial knobs),
# against HEAD (584db0d), alternating; CUB in the same machine session.
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)|sweep_|scatter_|radix_pass|radix_hist|radix sort" $O/$name.txt | grep -v "tiles per" | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq | head -30; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.mem --format=csv
c H1 rill-bench-head RILL_VK_PIPELINE_STATS=1
c N1 rill-bench-bandwidth RILL_VK_PIPELINE_STATS=1
c P1 rill-bench-bandwidth RILL_TRIAL_PARTS=1 RILL_VK_PIPELINE_STATS=1
c U2 rill-bench-bandwidth RILL_TRIAL_PACK=0 RILL_VK_PIPELINE_STATS=1
cd $OUT && tar czf run1.tgz run1 && cd - > /dev/null
c H2 rill-bench-head
c N2 rill-bench-bandwidth
cd $OUT && tar czf run1.tgz run1 && cd - > /dev/null
nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub && /tmp/cub 28 > $O/cub.json 2>&1; echo "cub rc=$? at $(el) s"; cat $O/cub.json | head -20
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
