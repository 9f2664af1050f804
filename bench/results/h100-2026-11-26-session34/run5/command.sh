#!/usr/bin/env bash
# Session 34 run 5: the final code (N) against the fallback in a loop of its own around the look-back (FBn, RILL_T_FB=n), look-back windows of 2 tiles (W2), both (FBnW2), and no fallback with windows of 2 (FB0W2, unsafe: a bound).
source .device/env.sh
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq; grep -E "radix sort, (OneSweep|count-then-scatter, 0 )" $O/$name.txt; grep -E "radix_sweep_keys|radix_sweep_pairs" $O/$name.txt | grep -E "ms per" | head -2; }
c N1 rill-bench-bandwidth
c W2 rill-bench-bandwidth RILL_T_WIN=2
c FBn rill-bench-bandwidth RILL_T_FB=n
c FBnW2 rill-bench-bandwidth RILL_T_FB=n RILL_T_WIN=2
c FB0W2 rill-bench-bandwidth RILL_T_FB=0 RILL_T_WIN=2
c N2 rill-bench-bandwidth
c FBn2 rill-bench-bandwidth RILL_T_FB=n
c FBnW2b rill-bench-bandwidth RILL_T_FB=n RILL_T_WIN=2
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
