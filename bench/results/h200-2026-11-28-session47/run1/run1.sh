#!/usr/bin/env bash
# Session 47, run 1 (H200): SPIR-V Nontemporal on the radix sweeps' plain buffer accesses (trial_nontemporal.patch,
# RILL_TRIAL_NT: 1 loads, 2 stores, 3 both; RILL_TRIAL_NT_PREFIX picks kernels by name, default radix_sweep),
# alternating with no knob (B); the machine code at 2^20 with and without, to see whether NVIDIA's compiler marks
# the accesses (LDG/STG .EF); CUB in the same machine session.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
V=bench/gpu/sort_variant.sh
$V $O D0 20 RILL_VK_PIPELINE_DUMP=/tmp/d0; el
$V $O D3 20 RILL_TRIAL_NT=3 RILL_VK_PIPELINE_DUMP=/tmp/d3; el
for s in D0 D3; do for f in $O/${s}_sass/*.sass; do echo "$s $(basename $f): $(grep -oE '(LDG|STG)[.A-Z0-9]*' $f | sort | uniq -c | tr '\n' ' ')"; done; done
$V $O B1; el
$V $O N3 28 RILL_TRIAL_NT=3; el
$V $O N1 28 RILL_TRIAL_NT=1; el
$V $O N2 28 RILL_TRIAL_NT=2; el
$V $O B2; el
$V $O N3b 28 RILL_TRIAL_NT=3; el
$V $O R1 28 RILL_TRIAL_NT=1 RILL_TRIAL_NT_PREFIX=radix_; el
wait; tail -1 $O/nvcc.txt
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$?"; el; grep -oE "\"sort_(keys|pairs)_ms\":[0-9.]+" $O/cub.json | tr '\n' ' '; echo
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
