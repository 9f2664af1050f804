#!/usr/bin/env bash
# Session 48, run 3 (H200): the ranking's per-key code, combinations (RILL_TRIAL_RANK: pairs' sweep,
# RILL_TRIAL_RANK_KEYS: keys' sweeps; 8 = on; 1 every lane adds, no branch per key; 2 the active mask a constant;
# 4 the highest peer leads; 16 the active mask one ballot before the keys, not one per key). One binary, alternating.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
V=bench/gpu/sort_variant.sh
$V $O B1; el
$V $O X1 28 RILL_TRIAL_RANK=15 RILL_TRIAL_RANK_KEYS=11; el
$V $O X2 28 RILL_TRIAL_RANK=13 RILL_TRIAL_RANK_KEYS=13; el
$V $O X3 28 RILL_TRIAL_RANK=29 RILL_TRIAL_RANK_KEYS=25; el
$V $O X4 28 RILL_TRIAL_RANK=25 RILL_TRIAL_RANK_KEYS=29; el
$V $O B2; el
$V $O X1b 28 RILL_TRIAL_RANK=15 RILL_TRIAL_RANK_KEYS=11; el
$V $O X3b 28 RILL_TRIAL_RANK=29 RILL_TRIAL_RANK_KEYS=25; el
$V $O X2b 28 RILL_TRIAL_RANK=13 RILL_TRIAL_RANK_KEYS=13; el
$V $O B3; el
wait; tail -1 $O/nvcc.txt
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$?"; el; grep -oE "\"sort_(keys|pairs)_ms\":[0-9.]+" $O/cub.json | tr '\n' ' '; echo
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
