#!/usr/bin/env bash
# Session 49, run 1 (H200): RILL_TRIAL_ONEPART=R (pairs: counters in the exchange, one part, rows written R at a
# time); RILL_TRIAL_BALLOTS=P*16+K (1: ballots combined by select(set, vote, ~vote); 2: the bit moved to the sign).
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
bench/gpu/cub_sort.sh build &
V=bench/gpu/sort_variant.sh
cnt() { for f in $O/$1_sass/*.sass; do echo "$1 $(basename $f): $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $f) instructions; $(grep -oE '(BAR|BSSY|VOTEU?|ATOMS|STS|LDS|STL|LDL)[.A-Z0-9]*' $f | sort | uniq -c | tr -s ' ' | tr '\n' ';')"; done; }
$V $O B1 28 RILL_VK_PIPELINE_DUMP=/tmp/dB; cnt B1; el
$V $O O11 28 RILL_TRIAL_ONEPART=11 RILL_VK_PIPELINE_DUMP=/tmp/dO; cnt O11; el
$V $O P1 28 RILL_TRIAL_BALLOTS=17 RILL_VK_PIPELINE_DUMP=/tmp/dP; cnt P1; el
$V $O O22 28 RILL_TRIAL_ONEPART=22; el
$V $O P2 28 RILL_TRIAL_BALLOTS=34; el
$V $O B2; el
$V $O O8 28 RILL_TRIAL_ONEPART=8; el
$V $O O11b 28 RILL_TRIAL_ONEPART=11; el
$V $O P1b 28 RILL_TRIAL_BALLOTS=17; el
$V $O C1 28 RILL_TRIAL_ONEPART=11 RILL_TRIAL_BALLOTS=17; el
$V $O B3; el
bench/gpu/cub_sort.sh time $O; el
for s in B1 O11 P1; do tar czf $O/${s}_sass.tgz -C $O ${s}_sass 2>/dev/null; done
rm -rf $O/*_sass
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
