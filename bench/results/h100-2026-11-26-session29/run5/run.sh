#!/usr/bin/env bash
# Session 29 run 5 (run 4's binaries were stale: its build had been cut short): driver bounds checks off by default;
# window and values-first trials; every GPU test with the default.
source .device/env.sh
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1; shift; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "bounds|Register Count = .*(sweep|scatter)|sweep_|scatter_|radix_pass|radix_hist|radix sort" $O/$name.txt | grep -v "tiles per" | sed 's/Binary.*//' | sort | uniq | head -30; }
c W4 RILL_VK_PIPELINE_STATS=1
c W8 RILL_TRIAL_WINDOW=8
c VF RILL_TRIAL_VALUES_FIRST=1 RILL_VK_PIPELINE_STATS=1
c D1 RILL_VK_DRIVER_CHECKS=1
cd $OUT && tar czf run5.tgz run5 && cd - > /dev/null
timeout 290 rill-tests --gtest_filter='Backends/*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
