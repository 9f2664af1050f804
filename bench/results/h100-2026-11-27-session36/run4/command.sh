#!/usr/bin/env bash
# Session 36 run 4: a true no-wait bound (LB3): before each pass, count-then-scatter's histogram over tiles of one tile and its
# scan give every tile's exact places; the sweep reads them instead of looking back (checked: the output is right).
# Against HEAD 7569c62 (H).
source .device/env.sh
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_sweep_keys|radix_sweep_pairs|radix_scatter_keys|radix_histogram" $O/$name.txt | grep -E "ms per" | head -6; grep -E "^\| radix sort, uint32 (keys|pairs) \||OneSweep: keys|count-then-scatter, 0 tiles" $O/$name.txt; }
c H1 rill-bench-bandwidth-h
c LB3 rill-bench-bandwidth-cf RILL_TRIAL_LB=3
c H2 rill-bench-bandwidth-h
c LB3b rill-bench-bandwidth-cf RILL_TRIAL_LB=3
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
