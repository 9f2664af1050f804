#!/usr/bin/env bash
# Session 32 run 8: OneSweep's look-back before the barrier after the exchange's first part (one barrier fewer per tile;
# RILL_T_LATE_BEFORE), and look-back windows of 2 and 8 tiles (RILL_T_WINDOW; 4 is the default). Trial knobs at trace time.
source .device/env.sh
O=$OUT/run8; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1; shift; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_sweep|^\| radix sort" $O/$name.txt | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq; grep -E "radix_sweep" $O/$name.txt | grep calls | head -4; }
c A
c L RILL_T_LATE_BEFORE=1
c W2 RILL_T_WINDOW=2
c W8 RILL_T_WINDOW=8
c L2 RILL_T_LATE_BEFORE=1
c A2
cd $OUT && tar czf run8.tgz run8 && rm -rf run8
