#!/usr/bin/env bash
# Session 50, run 2 (H200): the ranking's rows chained (row j's digit takes a zero from row j - D's counter add,
# RILL_TRIAL_CHAIN=D*16 for pairs, D for keys), the values' load indices from a late lane (RILL_TRIAL_LATELANE),
# and larger pairs' tiles with them (RILL_TRIAL_PAIRS_ITEMS), against the landed code (B); CUB in the same session.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
bench/gpu/cub_sort.sh build &
V=bench/gpu/sort_variant.sh
$V $O B1; el
$V $O C1 28 RILL_TRIAL_CHAIN=16; el
$V $O C2 28 RILL_TRIAL_CHAIN=32; el
$V $O C4 28 RILL_TRIAL_CHAIN=64; el
$V $O L 28 RILL_TRIAL_LATELANE=1; el
$V $O C2L 28 RILL_TRIAL_CHAIN=32 RILL_TRIAL_LATELANE=1 RILL_VK_PIPELINE_DUMP=/tmp/d1; el
$V $O I26C2L 28 RILL_TRIAL_PAIRS_ITEMS=26 RILL_TRIAL_CHAIN=32 RILL_TRIAL_LATELANE=1; el
$V $O I28C1L 28 RILL_TRIAL_PAIRS_ITEMS=28 RILL_TRIAL_CHAIN=16 RILL_TRIAL_LATELANE=1; el
$V $O K2 28 RILL_TRIAL_CHAIN=2; el
$V $O B2; el
bench/gpu/cub_sort.sh time $O; el
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
