#!/usr/bin/env bash
# Session 38 run 3: H = HEAD bfe5302's sort (run 2's trial binary without knobs) against V = full tiles traced apart in the keys-only passes (the commit), alternating, through Vulkan; then once each through OpenGL; CUB in the same session.
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2 backend=$3; shift 3; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=$backend RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)_(keys|pairs)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+|Shared Memory Size = [0-9]+" | paste - - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_sweep_(keys|pairs)|radix_pass_counts" $O/$name.txt | grep -E "ms per" | head -6; grep -E "^\| radix sort, uint32 (keys|pairs) \||OneSweep: keys|count-then-scatter, 0 tiles|wrong|rror|differ" $O/$name.txt; }
H=rill-bench-bandwidth-t; V=rill-bench-bandwidth-v
c H1 $H vulkan
c V1 $V vulkan
c H2 $H vulkan
c V2 $V vulkan
c GH $H opengl
c GV $V opengl
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
