#!/usr/bin/env bash
# Session 36 run 3: what the look-back's wait really costs. Session 34's no-wait bound (LB1 here) placed every tile's digits as if
# no tile came before it, so every tile wrote each digit's keys over the same few places; LB2 places them as if each tile before
# had one key fewer of the digit than the mean (writes spread over the output as the real ones). Both unchecked (wrong output).
# Against HEAD 7569c62 (H) and keys counted first (CF1, RILL_TRIAL_CF=1).
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_sweep_keys|radix_sweep_pairs|radix_scatter_keys" $O/$name.txt | grep -E "ms per" | head -3; grep -E "^\| radix sort, uint32 (keys|pairs) \||OneSweep: keys|count-then-scatter, 0 tiles" $O/$name.txt; }
c H1 rill-bench-bandwidth-h
c LB1 rill-bench-bandwidth-cf RILL_TRIAL_LB=1 RILL_TRIAL_NOCHECK=1
c LB2 rill-bench-bandwidth-cf RILL_TRIAL_LB=2 RILL_TRIAL_NOCHECK=1
c CF1 rill-bench-bandwidth-cf RILL_TRIAL_CF=1
c H2 rill-bench-bandwidth-h
c LB2b rill-bench-bandwidth-cf RILL_TRIAL_LB=2 RILL_TRIAL_NOCHECK=1
c CF1b rill-bench-bandwidth-cf RILL_TRIAL_CF=1
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
