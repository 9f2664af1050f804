#!/usr/bin/env bash
# Session 34 run 4: trials on the final code (N): no fallback (FB0, unsafe), the fallback counting uvec4s (FBv), look-back windows of 2 and 8 tiles (W2, W8), keys-only digits kept across the scan (NR), no look-back wait at all (LB0, results wrong, unchecked: a bound).
source .device/env.sh
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq; grep -E "radix sort, (OneSweep|count-then-scatter, 0 )" $O/$name.txt; grep -E "radix_sweep_keys|radix_sweep_pairs" $O/$name.txt | grep -E "ms per" | head -2; }
c N1 rill-bench-bandwidth
c FB0 rill-bench-bandwidth RILL_T_FB=0
c FBv rill-bench-bandwidth RILL_T_FB=v
c W2 rill-bench-bandwidth RILL_T_WIN=2
c W8 rill-bench-bandwidth RILL_T_WIN=8
c NR rill-bench-bandwidth RILL_T_NOREDIGIT=1
c LB0 rill-bench-bandwidth RILL_T_LB=0 RILL_T_NOCHECK=1
c N2 rill-bench-bandwidth
wait
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
