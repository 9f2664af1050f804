#!/usr/bin/env bash
# Session 32 run 7: OneSweep's look-back reads its first window (2 or 4 tiles) early, right after the tile publishes its
# own counts, so that the read is in flight during the ranking's last steps and the exchange (trial knob RILL_T_EARLY).
source .device/env.sh
O=$OUT/run7; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1; shift; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_sweep|^\| radix sort" $O/$name.txt | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq; grep -E "radix_sweep" $O/$name.txt | grep calls | head -4; }
c E0 RILL_T_EARLY=0
c E4 RILL_T_EARLY=4
c E2 RILL_T_EARLY=2
c E4b RILL_T_EARLY=4
c E0b RILL_T_EARLY=0
cd $OUT && tar czf run7.tgz run7 && rm -rf run7
