#!/usr/bin/env bash
# Session 28 run 2: is it the look-back's fallback that makes large tiles slow? RILL_TRIAL_FALLBACK_READS (8 = as committed,
# 1000000000 = never in practice), RILL_TRIAL_FALLBACK_BATCH=B (the fallback's count B rows a step, all loads first).
source .device/env.sh
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1; shift; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=scan timeout 150 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "compaction" $O/$name.txt | head -20; }
N=1000000000
c base X=1
c base_noFB RILL_TRIAL_FALLBACK_READS=$N
c b256x8 RILL_TRIAL_BALLOT=256x8 RILL_VK_PIPELINE_STATS=1
c b256x8_noFB RILL_TRIAL_BALLOT=256x8 RILL_TRIAL_FALLBACK_READS=$N
c b256x16_noFB RILL_TRIAL_BALLOT=256x16 RILL_TRIAL_FALLBACK_READS=$N
c b256x16_batch8 RILL_TRIAL_BALLOT=256x16 RILL_TRIAL_FALLBACK_BATCH=8
c b256x24_noFB RILL_TRIAL_BALLOT=256x24 RILL_TRIAL_FALLBACK_READS=$N
c b256x24_batch8 RILL_TRIAL_BALLOT=256x24 RILL_TRIAL_FALLBACK_BATCH=8
c b512x16_noFB RILL_TRIAL_BALLOT=512x16 RILL_TRIAL_FALLBACK_READS=$N
c vtiles_noFB RILL_TRIAL_FALLBACK_READS=$N RILL_BENCH_TILES=compact
c vtiles_batch8 RILL_TRIAL_FALLBACK_BATCH=8 RILL_BENCH_TILES=compact
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
