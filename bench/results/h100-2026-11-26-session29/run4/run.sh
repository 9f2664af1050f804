#!/usr/bin/env bash
# Session 29 run 4: the late look-back kept, driver bounds checks off by default (RILL_VK_DRIVER_CHECKS=1 keeps them);
# trials: look-back window (RILL_TRIAL_WINDOW), pairs' values loaded before the look-back (RILL_TRIAL_VALUES_FIRST); CUB; every GPU test.
source .device/env.sh
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1) &
c() { local name=$1; shift; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "Register Count = .*(sweep|scatter)|sweep_|scatter_|radix_pass|radix_hist|radix sort" $O/$name.txt | grep -v "tiles per" | sed 's/Binary.*//' | sort | uniq | head -30; }
c W4 RILL_VK_PIPELINE_STATS=1
c W8 RILL_TRIAL_WINDOW=8
c VF RILL_TRIAL_VALUES_FIRST=1 RILL_VK_PIPELINE_STATS=1
c D1 RILL_VK_DRIVER_CHECKS=1
c W2 RILL_TRIAL_WINDOW=2
wait
/tmp/cub 28 > $O/cub.json 2> $O/cub.err; echo "cub at $(el) s"; grep -o '"sort[^,]*' $O/cub.json
cd $OUT && tar czf run4.tgz run4 && cd - > /dev/null
timeout 290 rill-tests --gtest_filter='Backends/*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
