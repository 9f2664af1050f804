#!/usr/bin/env bash
# Session 31 run 8: the bench now checks the keys-only sorts (both algorithms) before timing, which makes their
# scratch first (run 7: that cured the slow first bench once). The first bench on the fresh machine, and a second.
source .device/env.sh
O=$OUT/run8; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1; shift; env "$@" RILL_BENCH_VERBOSE=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "differs|wrong|sweep_keys|scatter_keys|radix sort" $O/$name.txt | head -24; }
c K1
c K2
cd $OUT && tar czf run8.tgz run8 && rm -rf run8
