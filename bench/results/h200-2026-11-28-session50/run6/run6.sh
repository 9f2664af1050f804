#!/usr/bin/env bash
# Session 50, run 6 (H200): the landed build (the pairs' look-back window added up with selects at 256 x 24): the
# sort tests through Vulkan (the only API whose pairs take that tile), then the sorts timed twice, CUB in the
# same session.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run6; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
bench/gpu/cub_sort.sh build &
timeout 150 rill-tests --gtest_filter='*RadixSort*/vulkan:*SortBy*/vulkan:*SegmentedSort*/vulkan:*ScatterSorted*/vulkan:*GroupKernels*/vulkan' > $O/tests_vulkan_sorts.txt 2>&1
echo "tests rc=$? $(grep -c '^\[       OK' $O/tests_vulkan_sorts.txt) OK"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $O/tests_vulkan_sorts.txt | head; el
V=bench/gpu/sort_variant.sh
$V $O N1; el
$V $O N2; el
bench/gpu/cub_sort.sh time $O; el
cd $OUT && tar czf run6.tgz run6 && rm -rf run6
