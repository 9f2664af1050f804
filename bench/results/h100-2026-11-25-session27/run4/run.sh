#!/usr/bin/env bash
# Session 27 run 4 (H100): OneSweep publishing each tile's digit counts before the tile is ranked (E, early counts)
# against after (L, RILL_TRY_LATE=1), one trial binary, alternating; GPU tests of the sorts with early counts.
source .device/env.sh
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name --format=csv,noheader > $O/gpu.txt
r() { local name=$1 backend=$2; shift 2; env "$@" RILL_BACKEND=$backend RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth-trial 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "radix sort, (OneSweep|count-then-scatter, 0)|radix_sweep" $O/$name.txt; }
r E1 vulkan X=1
r L1 vulkan RILL_TRY_LATE=1
r E2 vulkan X=1
r L2 vulkan RILL_TRY_LATE=1
timeout 200 rill-tests --gtest_filter='*RadixSort*:*SortBy*:*SegmentedSort*:*Merging*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt
left=$(( 520 - $(el) )); [ $left -gt 90 ] && r E_gl opengl X=1
left=$(( 520 - $(el) )); [ $left -gt 90 ] && r L_gl opengl RILL_TRY_LATE=1
left=$(( 560 - $(el) )); [ $left -gt 40 ] && { RILL_BACKEND=vulkan RILL_BENCH_ONLY=radix timeout $left rill-bench-sorts 26 $O/sorts_vulkan.json > $O/sorts_vulkan.txt 2>&1; echo "sorts rc=$? at $(el) s"; cat $O/sorts_vulkan.txt; }
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
