#!/usr/bin/env bash
# Session 34 run 8: the final code (N) alternating with the look-back run as soon as the tile has published its own counts, before the exchange (E, RILL_T_EARLY=1).
source .device/env.sh
O=$OUT/run8; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq; grep -E "radix sort, (OneSweep|count-then-scatter, 0 )" $O/$name.txt; grep -E "radix_sweep_keys|radix_sweep_pairs" $O/$name.txt | grep -E "ms per" | head -2; }
c N1 rill-bench-bandwidth
c E1 rill-bench-bandwidth RILL_T_EARLY=1
c N2 rill-bench-bandwidth
c E2 rill-bench-bandwidth RILL_T_EARLY=1
cd $OUT && tar czf run8.tgz run8 && rm -rf run8
