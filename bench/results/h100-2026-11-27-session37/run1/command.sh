#!/usr/bin/env bash
# Session 37 run 1: occupancy by declared shared memory (rill-bench-occupancy, 84d6bb9/2218af9), then the sort:
# H = HEAD's bench (621bcba-equivalent), T = HEAD + next_trials (full /tmp/wip_all.patch): UA=1 unchecked Arrays; LB=4 tight no-wait bound.
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
for b in vulkan opengl; do RILL_BACKEND=$b timeout 120 rill-bench-occupancy 132 $O/occupancy_$b.json > $O/occupancy_$b.txt 2>&1; echo "$b rc=$? at $(el) s"; cat $O/occupancy_$b.txt; done
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_sweep_keys|radix_sweep_pairs|radix_scatter_keys|radix_histogram|trial_offsets" $O/$name.txt | grep -E "ms per" | head -8; grep -E "^\| radix sort, uint32 (keys|pairs) \||OneSweep: keys|count-then-scatter, 0 tiles" $O/$name.txt; }
c H1 rill-bench-bandwidth-h
c UA1 rill-bench-bandwidth-t RILL_TRIAL_UA=1
c LB4 rill-bench-bandwidth-t RILL_TRIAL_LB=4
c T0 rill-bench-bandwidth-t
c H2 rill-bench-bandwidth-h
c UA2 rill-bench-bandwidth-t RILL_TRIAL_UA=1
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
