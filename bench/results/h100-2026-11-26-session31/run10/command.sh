#!/usr/bin/env bash
# Session 31 run 10: keys-only tiles of 256 x 28 (trial RILL_TRIAL_KEYS_ITEMS=28), with the exchange in 4 parts
# (20 KB with the counters) and in 2 parts (RILL_TRIAL_EXCHANGE_WORDS=5632: 22 KB), against the kept 256 x 24.
source .device/env.sh
O=$OUT/run10; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1; shift; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "differs|statistics of 'radix_(sweep_keys|scatter_keys)|sweep_keys|scatter_keys|radix sort, uint32 keys" $O/$name.txt | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq | head -12; }
c K24
c T28P4 RILL_TRIAL_KEYS_ITEMS=28
c T28P2 RILL_TRIAL_KEYS_ITEMS=28 RILL_TRIAL_EXCHANGE_WORDS=5632
cd $OUT && tar czf run10.tgz run10 && rm -rf run10
