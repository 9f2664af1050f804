#!/usr/bin/env bash
# Session 48, run 2 (H200): the ranking's per-key code, pairs' and keys' sweeps apart (RILL_TRIAL_RANK: pairs,
# RILL_TRIAL_RANK_KEYS: keys; 8 = on; 1 every lane adds, non-leaders 0 to a counter of their own subgroup, no branch
# per key; 2 the active mask a constant; 4 the highest peer leads). One binary, alternating; CUB in the same session.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
V=bench/gpu/sort_variant.sh
cnt() { for f in $O/$1_sass/*.sass; do echo "$1 $(basename $f): $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $f) instructions; $(grep -oE '(BAR|BSSY|VOTEU?|ATOMS)[.A-Z0-9]*' $f | sort | uniq -c | tr -s ' ' | tr '\n' ';')"; done; }
$V $O B1; el
$V $O P11 28 RILL_TRIAL_RANK=11; el
$V $O P15 28 RILL_TRIAL_RANK=15; el
$V $O K9 28 RILL_TRIAL_RANK_KEYS=9; el
$V $O K11 28 RILL_TRIAL_RANK_KEYS=11 RILL_VK_PIPELINE_DUMP=/tmp/dK; cnt K11; el
$V $O K10 28 RILL_TRIAL_RANK_KEYS=10; el
$V $O B2; el
$V $O P15b 28 RILL_TRIAL_RANK=15; el
$V $O P11b 28 RILL_TRIAL_RANK=11; el
$V $O K9b 28 RILL_TRIAL_RANK_KEYS=9; el
$V $O K11b 28 RILL_TRIAL_RANK_KEYS=11; el
$V $O B3; el
wait; tail -1 $O/nvcc.txt
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$?"; el; grep -oE "\"sort_(keys|pairs)_ms\":[0-9.]+" $O/cub.json | tr '\n' ' '; echo
rm -rf $O/*_sass
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
