#!/usr/bin/env bash
# Session 48, run 1 (H200): the ranking's per-key code (RILL_TRIAL_RANK, read at trace time; 8 = OneSweep's sweeps
# only): 1 every lane adds (non-leaders 0 to a word of their own; pairs only, where 32 words fit), no branch per key;
# 2 the subgroup's active mask a constant; 4 the highest peer leads (find_msb, no bit reverse). One binary, alternating.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
V=bench/gpu/sort_variant.sh
cnt() { for f in $O/$1_sass/*.sass; do echo "$1 $(basename $f): $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $f) instructions; $(grep -oE '(BAR|BSSY|VOTEU?|ATOMS)[.A-Z0-9]*' $f | sort | uniq -c | tr -s ' ' | tr '\n' ';')"; done; }
$V $O B1 28 RILL_VK_PIPELINE_DUMP=/tmp/dB; cnt B1; el
$V $O R15 28 RILL_TRIAL_RANK=15 RILL_VK_PIPELINE_DUMP=/tmp/dR; cnt R15; el
$V $O R9 28 RILL_TRIAL_RANK=9; el
$V $O R10 28 RILL_TRIAL_RANK=10; el
$V $O R12 28 RILL_TRIAL_RANK=12; el
$V $O B2; el
$V $O R15b 28 RILL_TRIAL_RANK=15; el
$V $O R14 28 RILL_TRIAL_RANK=14; el
$V $O B3; el
wait; tail -1 $O/nvcc.txt
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$?"; el; grep -oE "\"sort_(keys|pairs)_ms\":[0-9.]+" $O/cub.json | tr '\n' ' '; echo
for s in B1 R15; do gzip -c $O/${s}_sass/radix_sweep_pairs*.sass > $O/${s}_sweep_pairs.sass.gz 2>/dev/null; done
rm -rf $O/*_sass
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
