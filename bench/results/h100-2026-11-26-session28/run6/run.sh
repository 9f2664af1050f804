#!/usr/bin/env bash
# Session 28 run 6 (H100): every invocation stores its subgroup's count (no ballot count in one invocation's branch);
# Compaction and VariableOutputs tests with a trial way of 512 x 16 ballots (not offered); the compaction's tiles at 2^28.
source .device/env.sh
O=$OUT/run6; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
timeout 150 rill-tests --gtest_filter='*Compaction*:*VariableOutputs*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head; grep -c "       OK \]" $O/tests.txt
grep -B2 -A10 "Failure" $O/tests.txt | head -60
RILL_BACKEND=vulkan RILL_BENCH_ONLY=scan RILL_BENCH_TILES=compact RILL_VK_PIPELINE_STATS=1 timeout 90 rill-bench-bandwidth 28 $O/tiles.json > $O/tiles.txt 2>&1; echo "tiles rc=$? at $(el) s"; grep -E "compaction.*ballots|compaction keeping|wrong" $O/tiles.txt; grep "ballot_single_pass" $O/tiles.txt | sed 's/rill vulkan: pipeline statistics of//; s/Binary Size.*Shared/Shared/'
cd $OUT && tar czf run6.tgz run6 && rm -rf run6
