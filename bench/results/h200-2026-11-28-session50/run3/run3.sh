#!/usr/bin/env bash
# Session 50, run 3 (H200): each part's values through the counters' words beside its keys (3 parts of 256 x 8,
# keys and values written together; RILL_TRIAL_VAPART=1 the first part's values exchanged before the look-back,
# 2 after it) against the landed code (B); CUB in the same session.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
bench/gpu/cub_sort.sh build &
V=bench/gpu/sort_variant.sh
$V $O B1; el
$V $O VA1 28 RILL_TRIAL_VAPART=1 RILL_VK_PIPELINE_DUMP=/tmp/d1; el
$V $O VA2 28 RILL_TRIAL_VAPART=2; el
$V $O B2; el
$V $O VA1b 28 RILL_TRIAL_VAPART=1; el
$V $O VA2b 28 RILL_TRIAL_VAPART=2; el
bench/gpu/cub_sort.sh time $O; el
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
