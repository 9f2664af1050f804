#!/usr/bin/env bash
# Session 34 run 7: the final code with the look-back counted (RILL_T_STATS, run7/stats.patch): steps per look-back of digit 0, per tile, every OneSweep sort.
source .device/env.sh
O=$OUT/run7; mkdir -p $O
RILL_T_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/S1.json > $O/S1.txt 2>&1; echo "S1 rc=$?"
grep -E "TRIAL" $O/S1.txt | sort | uniq -c | sort -rn | head -3; grep -E "TRIAL look-back keys" $O/S1.txt | tail -2; grep -E "TRIAL look-back pairs" $O/S1.txt | tail -2
grep -E "radix sort, OneSweep|radix_sweep_(keys|pairs)" $O/S1.txt | head -3
cd $OUT && tar czf run7.tgz run7 && rm -rf run7
