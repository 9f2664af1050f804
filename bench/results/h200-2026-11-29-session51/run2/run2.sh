#!/usr/bin/env bash
# Session 51, run 2 (H200): the pairs' sweep with its keys' and values' loads at one base plus a constant, each
# predicated on its place below n (PL), and the sweeps' SPIR-V integer adds marked NoSignedWrap / NoUnsignedWrap
# (NW=3; 7 with multiplies), so that the driver may fold the constants into the loads' addresses; machine code.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
bench/gpu/cub_sort.sh build &
V=bench/gpu/sort_variant.sh
$V $O B1 28 RILL_VK_PIPELINE_DUMP=/tmp/d1; el
$V $O PL 28 RILL_TRIAL_PL=1 RILL_VK_PIPELINE_DUMP=/tmp/d2; el
$V $O NW3 28 RILL_TRIAL_NW=3 RILL_VK_PIPELINE_DUMP=/tmp/d3; el
$V $O PLNW3 28 RILL_TRIAL_PL=1 RILL_TRIAL_NW=3 RILL_VK_PIPELINE_DUMP=/tmp/d4; el
$V $O PLNW7 28 RILL_TRIAL_PL=1 RILL_TRIAL_NW=7 RILL_VK_PIPELINE_DUMP=/tmp/d5; el
$V $O B2; el
$V $O PLNW3b 28 RILL_TRIAL_PL=1 RILL_TRIAL_NW=3; el
bench/gpu/cub_sort.sh time $O; el
for f in $O/*_sass/*.sass; do gzip -f "$f"; done
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
