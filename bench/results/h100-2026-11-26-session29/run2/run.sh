#!/usr/bin/env bash
# Session 29 run 2: the ranking's counters updated by each digit's leader with a load and a store (subgroup barrier per row) instead of a shared atomic; A/B by RILL_TRIAL_ATOMICRANK.
source .device/env.sh
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1; shift; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "Register|calls|radix sort" $O/$name.txt | grep -v "tiles per" | head -30; }
c N1 RILL_VK_PIPELINE_STATS=1
timeout 150 rill-tests --gtest_filter='*RadixSort*:*OneSweep*:*SortBy*:*SegmentedSort*:*ScatterSorted*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head; grep -c "       OK \]" $O/tests.txt
c O1 RILL_TRIAL_ATOMICRANK=1
c O2 RILL_TRIAL_ATOMICRANK=1
c N2 X=1
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
