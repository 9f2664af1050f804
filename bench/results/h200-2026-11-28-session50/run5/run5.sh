#!/usr/bin/env bash
# Session 50, run 5 (H200): the pairs' look-back retimed at 256 x 24 (timed with windows of 2 only in session 49):
# windows of 1 / 3 / 4 tiles (RILL_TRIAL_WINDOW), a window added up with selects (RILL_TRIAL_SELECTS, windows of 2
# and 4), against the landed code (B).
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
V=bench/gpu/sort_variant.sh
$V $O B1; el
$V $O W1 28 RILL_TRIAL_WINDOW=1; el
$V $O W3 28 RILL_TRIAL_WINDOW=3; el
$V $O W4 28 RILL_TRIAL_WINDOW=4; el
$V $O S2 28 RILL_TRIAL_SELECTS=1; el
$V $O S4 28 RILL_TRIAL_SELECTS=1 RILL_TRIAL_WINDOW=4; el
$V $O B2; el
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
