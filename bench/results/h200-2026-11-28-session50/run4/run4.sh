#!/usr/bin/env bash
# Session 50, run 4 (H200): run 3's values through the counters' words (RILL_TRIAL_VAPART=1, 188 registers alone)
# with the ranking's rows chained every D rows (RILL_TRIAL_CHAIN=D*16) or the values' indices from a late lane, to
# bring its registers down; against the landed code (B).
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
V=bench/gpu/sort_variant.sh
$V $O B1; el
$V $O VA1C4 28 RILL_TRIAL_VAPART=1 RILL_TRIAL_CHAIN=64; el
$V $O VA1C8 28 RILL_TRIAL_VAPART=1 RILL_TRIAL_CHAIN=128; el
$V $O VA1L 28 RILL_TRIAL_VAPART=1 RILL_TRIAL_LATELANE=1; el
$V $O VA1C8L 28 RILL_TRIAL_VAPART=1 RILL_TRIAL_CHAIN=128 RILL_TRIAL_LATELANE=1; el
$V $O C8 28 RILL_TRIAL_CHAIN=128; el
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
