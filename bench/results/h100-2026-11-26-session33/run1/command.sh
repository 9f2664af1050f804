#!/usr/bin/env bash
# Session 33 run 1: the bound of numbering OneSweep's tiles by group_id instead of a ticket (RILL_T_GID, unsafe trial:
# no fallback), alternating with the ticket (A), same binary.
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1; shift; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "^\| radix sort" $O/$name.txt; grep -E "radix_pass_counts|radix_sweep" $O/$name.txt | head -4; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.mem --format=csv
c A1
c G1 RILL_T_GID=1
c A2
c G2 RILL_T_GID=1
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
