#!/usr/bin/env bash
# Session 26 run 5: OneSweep's look-back reading W tiles per step (trial knob RILL_TRY_LOOKBACK_W).
source .device/env.sh
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
for w in 1 4 8; do
  RILL_TRY_LOOKBACK_W=$w RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 60 rill-bench-bandwidth 28 $O/W$w.json > $O/W$w.txt 2>&1; echo "W$w rc=$? at $(( $(date +%s) - t0 )) s $(grep 'OneSweep: keys' $O/W$w.txt)"
done
for w in 4 8; do
  RILL_TRY_LOOKBACK_W=$w timeout 40 rill-tests --gtest_filter='*OneSweep*-*/cpu' > $O/tests_W$w.txt 2>&1; echo "tests W$w rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/tests_W$w.txt)"
done
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
