#!/usr/bin/env bash
# Session 51, run 3 (H200): the pairs' sweep with this tile's values' lines fetched into L1 at the tile's start
# (VP: 3 loads per invocation, lanes 4 q .. 4 q + 3 one line's 4 sectors, their OR folded into the keys' fill
# past n through an opaque zero), against B in one machine session; machine code; CUB.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
bench/gpu/cub_sort.sh build &
V=bench/gpu/sort_variant.sh
$V $O B1; el
$V $O VP 28 RILL_TRIAL_VP=1 RILL_VK_PIPELINE_DUMP=/tmp/d2; el
$V $O B2; el
$V $O VP2 28 RILL_TRIAL_VP=1; el
bench/gpu/cub_sort.sh time $O; el
for f in $O/*_sass/*.sass; do gzip -f "$f"; done
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
