#!/usr/bin/env bash
# Session 29 run 3: OneSweep publishes each digit count at once and looks back only after the tile's exchange (late), against looking back at once (RILL_TRIAL_EARLY_LOOKBACK, the code before) and tile = group_id (RILL_TRIAL_GROUPID, unsafe bound on the ticket's cost).
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1; shift; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "Register Count = .*(sweep|scatter)|sweep_|scatter_|radix_pass|radix sort" $O/$name.txt | grep -v "tiles per" | sed 's/Binary.*//' | sort | uniq | head -30; }
c L1 RILL_VK_PIPELINE_STATS=1
timeout 150 rill-tests --gtest_filter='*RadixSort*:*OneSweep*:*SortBy*:*SegmentedSort*:*ScatterSorted*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head; grep -c "       OK \]" $O/tests.txt
c E1 RILL_TRIAL_EARLY_LOOKBACK=1
c G1 RILL_TRIAL_GROUPID=1
c L2 X=1
c E2 RILL_TRIAL_EARLY_LOOKBACK=1
c U1 RILL_VK_UNCHECKED_BUFFERS=1
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
