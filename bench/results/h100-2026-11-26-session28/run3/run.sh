#!/usr/bin/env bash
# Session 28 run 3: shared memory as the limit? The ballot single pass staged with RILL_TRIAL_PAD_KB of unused shared memory,
# and without staging (RILL_TRIAL_DIRECT=1: each kept element written from registers, a row's kept ones consecutive).
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1; shift; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=scan RILL_VK_PIPELINE_STATS=1 timeout 150 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "compaction single pass|statistics of 'even_compact_(ballot|vector)_single" $O/$name.txt | sed 's/rill vulkan: pipeline statistics of//; s/Binary Size.*Shared/Shared/' | head -6; }
c base X=1
c b256x8 RILL_TRIAL_BALLOT=256x8
c b256x8_pad8 RILL_TRIAL_BALLOT=256x8 RILL_TRIAL_PAD_KB=8
c b256x8_pad16 RILL_TRIAL_BALLOT=256x8 RILL_TRIAL_PAD_KB=16
c b256x8_pad32 RILL_TRIAL_BALLOT=256x8 RILL_TRIAL_PAD_KB=32
c d256x8 RILL_TRIAL_BALLOT=256x8 RILL_TRIAL_DIRECT=1
c d256x16 RILL_TRIAL_BALLOT=256x16 RILL_TRIAL_DIRECT=1
c d256x24 RILL_TRIAL_BALLOT=256x24 RILL_TRIAL_DIRECT=1
c d512x16 RILL_TRIAL_BALLOT=512x16 RILL_TRIAL_DIRECT=1
c d128x16 RILL_TRIAL_BALLOT=128x16 RILL_TRIAL_DIRECT=1
c d256x12 RILL_TRIAL_BALLOT=256x12 RILL_TRIAL_DIRECT=1
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
