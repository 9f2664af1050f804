#!/usr/bin/env bash
# Session 47, run 2 (H200): the radix sweeps' workgroup barriers spelled other ways (trial_barriers.patch,
# RILL_TRIAL_BAR: 1 barrier(); 2 controlBarrier(wg, wg, shared, acq_rel); 3 controlBarrier(wg, wg, 0, 0), no memory
# semantics, a bound only; 4 release fence, bare barrier, acquire fence on shared; 5 the same on buffer | shared),
# alternating with HEAD's spelling (B). Each variant's machine code: which barriers and fences NVIDIA's compiler made.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
V=bench/gpu/sort_variant.sh
ops() { for f in $O/$1_sass/*.sass; do echo "$1 $(basename $f): $(grep -oE '(BAR|MEMBAR|ERRBAR|CCTL|FENCE)[.A-Z0-9]*' $f | sort | uniq -c | tr -s ' ' | tr '\n' ';')"; done; }
v() { local name=$1; shift; $V $O $name 28 "$@" RILL_VK_PIPELINE_DUMP=/tmp/d_$name; ops $name; el; }
v B1
v T1 RILL_TRIAL_BAR=1
v T2 RILL_TRIAL_BAR=2
v T4 RILL_TRIAL_BAR=4
v T5 RILL_TRIAL_BAR=5
v T3 RILL_TRIAL_BAR=3
v B2
v T3b RILL_TRIAL_BAR=3
v T4b RILL_TRIAL_BAR=4
wait; tail -1 $O/nvcc.txt
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$?"; el; grep -oE "\"sort_(keys|pairs)_ms\":[0-9.]+" $O/cub.json | tr '\n' ' '; echo
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
