#!/usr/bin/env bash
# Session 36 run 2: OneSweep look-back over block aggregates (RILL_TRIAL_B tiles a block, each tile adding its own counts to its block's word per digit;
# the look-back walks its own block tile by tile, then whole blocks, RILL_TRIAL_W2 a step, while complete). All with RILL_TRIAL_CF=1 (keys counted first)
# against HEAD 7569c62 (H) and CF=1 alone (B=0).
source .device/env.sh
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_sweep_keys|radix_sweep_pairs|radix_scatter_keys" $O/$name.txt | grep -E "ms per" | head -3; grep -E "^\| radix sort, uint32 (keys|pairs) \||OneSweep: keys|count-then-scatter, 0 tiles" $O/$name.txt; }
c H1 rill-bench-bandwidth-h
c B0 rill-bench-bandwidth-cf RILL_TRIAL_CF=1 RILL_TRIAL_B=0
c B4w2 rill-bench-bandwidth-cf RILL_TRIAL_CF=1 RILL_TRIAL_B=4 RILL_TRIAL_W2=2
c B8w2 rill-bench-bandwidth-cf RILL_TRIAL_CF=1 RILL_TRIAL_B=8 RILL_TRIAL_W2=2
c B16w2 rill-bench-bandwidth-cf RILL_TRIAL_CF=1 RILL_TRIAL_B=16 RILL_TRIAL_W2=2
c H2 rill-bench-bandwidth-h
c B16w1 rill-bench-bandwidth-cf RILL_TRIAL_CF=1 RILL_TRIAL_B=16 RILL_TRIAL_W2=1
c B8w4 rill-bench-bandwidth-cf RILL_TRIAL_CF=1 RILL_TRIAL_B=8 RILL_TRIAL_W2=4
c B4w4 rill-bench-bandwidth-cf RILL_TRIAL_CF=1 RILL_TRIAL_B=4 RILL_TRIAL_W2=4
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
