#!/usr/bin/env bash
# Session 51, run 1 (H200): counting-kernel trials (CG: tiles by grid stride, CV: full tiles in 16-byte loads),
# the pairs' sweep with full tiles' loads unclamped (FL=1 keys, FL=3 keys and values); machine code of every
# radix kernel (B1); CUB in the same session.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
bench/gpu/cub_sort.sh build &
V=bench/gpu/sort_variant.sh
$V $O B1 28 RILL_VK_PIPELINE_DUMP=/tmp/d1; el
$V $O CG 28 RILL_TRIAL_CG=1; el
$V $O CV 28 RILL_TRIAL_CV=1; el
$V $O CGV 28 RILL_TRIAL_CG=1 RILL_TRIAL_CV=1 RILL_VK_PIPELINE_DUMP=/tmp/d2; el
$V $O FL1 28 RILL_TRIAL_FL=1 RILL_VK_PIPELINE_DUMP=/tmp/d3; el
$V $O FL3 28 RILL_TRIAL_FL=3; el
$V $O B2; el
$V $O CGV2 28 RILL_TRIAL_CG=1 RILL_TRIAL_CV=1; el
bench/gpu/cub_sort.sh time $O; el
for f in $O/*_sass/*.sass; do gzip -f "$f"; done
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
