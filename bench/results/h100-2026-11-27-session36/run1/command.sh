#!/usr/bin/env bash
# Session 36 run 1: ranking with counts first (CUB's early counts: count every key, scan, then rank from the subgroups' starts with
# the lowest lane of each digit moving a plain counter on) against HEAD 7569c62 (H). CF binary: RILL_TRIAL_CF bits 1 keys sweep,
# 2 pairs sweep, 4 count-then-scatter scatter; CF=0 is the old ranking reordered (past-n selects first).
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_sweep_keys|radix_sweep_pairs|radix_scatter_keys" $O/$name.txt | grep -E "ms per" | head -3; grep -E "^\| radix sort, uint32 (keys|pairs) \||OneSweep: keys|count-then-scatter, 0 tiles" $O/$name.txt; }
c H1 rill-bench-bandwidth-h
c C7 rill-bench-bandwidth-cf RILL_TRIAL_CF=7
c C0 rill-bench-bandwidth-cf RILL_TRIAL_CF=0
c H2 rill-bench-bandwidth-h
c C7b rill-bench-bandwidth-cf RILL_TRIAL_CF=7
c C5 rill-bench-bandwidth-cf RILL_TRIAL_CF=5
wait
timeout 60 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
