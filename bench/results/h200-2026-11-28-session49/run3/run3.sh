#!/usr/bin/env bash
# Session 49, run 3 (H200): the pairs tile (RILL_TRIAL_PAIRS_ITEMS) with RILL_TRIAL_VIDX 6 or 4 (run 2). Same binary as run 2.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
bench/gpu/cub_sort.sh build &
V=bench/gpu/sort_variant.sh
cnt() { for f in $O/$1_sass/radix_sweep_pairs*.sass; do echo "$1 $(basename $f): $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $f) instructions; $(grep -oE '(BAR|BSSY|STL|LDL)[.A-Z0-9]*' $f | sort | uniq -c | tr -s ' ' | tr '\n' ';')"; done; }
$V $O B1; el
$V $O I24V6 28 RILL_TRIAL_PAIRS_ITEMS=24 RILL_TRIAL_VIDX=6; el
$V $O I24V4 28 RILL_TRIAL_PAIRS_ITEMS=24 RILL_TRIAL_VIDX=4; el
$V $O I26V6 28 RILL_TRIAL_PAIRS_ITEMS=26 RILL_TRIAL_VIDX=6 RILL_VK_PIPELINE_DUMP=/tmp/d26; cnt I26V6; el
$V $O V4 28 RILL_TRIAL_VIDX=4; el
$V $O B2; el
$V $O I20V6 28 RILL_TRIAL_PAIRS_ITEMS=20 RILL_TRIAL_VIDX=6; el
$V $O I24V6b 28 RILL_TRIAL_PAIRS_ITEMS=24 RILL_TRIAL_VIDX=6; el
$V $O I26V6b 28 RILL_TRIAL_PAIRS_ITEMS=26 RILL_TRIAL_VIDX=6; el
$V $O B3; el
bench/gpu/cub_sort.sh time $O; el
rm -rf $O/*_sass
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
