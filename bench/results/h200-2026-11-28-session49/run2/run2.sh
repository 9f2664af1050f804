#!/usr/bin/env bash
# Session 49, run 2 (H200): RILL_TRIAL_VIDX (pairs' values' load indices apart from the keys': 1 tile_base | n >> 31,
# 2 + a zero known after the ranking, 4 the sorted places from that zero too), RILL_TRIAL_PAIRS_ITEMS (pairs' tile),
# RILL_TRIAL_ONEPART (run 1). One binary, alternating.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
bench/gpu/cub_sort.sh build &
V=bench/gpu/sort_variant.sh
cnt() { for f in $O/$1_sass/radix_sweep_pairs*.sass; do echo "$1 $(basename $f): $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $f) instructions; $(grep -oE '(BAR|BSSY|STL|LDL)[.A-Z0-9]*' $f | sort | uniq -c | tr -s ' ' | tr '\n' ';')"; done; }
$V $O B1 28 RILL_VK_PIPELINE_DUMP=/tmp/dB; cnt B1; el
$V $O V1 28 RILL_TRIAL_VIDX=1 RILL_VK_PIPELINE_DUMP=/tmp/d1; cnt V1; el
$V $O V2 28 RILL_TRIAL_VIDX=2 RILL_VK_PIPELINE_DUMP=/tmp/d2; cnt V2; el
$V $O V6 28 RILL_TRIAL_VIDX=6 RILL_VK_PIPELINE_DUMP=/tmp/d6; cnt V6; el
$V $O I24V6 28 RILL_TRIAL_PAIRS_ITEMS=24 RILL_TRIAL_VIDX=6 RILL_VK_PIPELINE_DUMP=/tmp/d24; cnt I24V6; el
$V $O B2; el
$V $O O11V6 28 RILL_TRIAL_ONEPART=11 RILL_TRIAL_VIDX=6; el
$V $O I24 28 RILL_TRIAL_PAIRS_ITEMS=24; el
$V $O V2b 28 RILL_TRIAL_VIDX=2; el
$V $O V6b 28 RILL_TRIAL_VIDX=6; el
$V $O V1b 28 RILL_TRIAL_VIDX=1; el
$V $O B3; el
bench/gpu/cub_sort.sh time $O; el
for s in B1 V1 V2 V6 I24V6; do tar czf $O/${s}_sass.tgz -C $O ${s}_sass 2>/dev/null; done
rm -rf $O/*_sass
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
