#!/usr/bin/env bash
# Session 37 run 4: H = landed: keys-only passes without Array bounds checks, OneSweep's keys' tile 256 x 26 (exchange 5376 words).
# T = run 2's trial binary: KI=27 (3 parts, 4352 words), KI=30 (3 parts, 4608 words), word counters, digits recomputed, UA=1.
# Then the sort-related GPU tests of H's rill-tests through Vulkan and OpenGL.
source .device/env.sh
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)_keys" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+|Shared Memory Size = [0-9]+" | paste - - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_sweep_keys|radix_scatter_keys" $O/$name.txt | grep -E "ms per" | head -4; grep -E "^\| radix sort, uint32 (keys|pairs) \||OneSweep: keys|count-then-scatter, 0 tiles|wrong" $O/$name.txt; }
c H1 rill-bench-bandwidth-h
c K27 rill-bench-bandwidth-t RILL_TRIAL_UA=1 RILL_TRIAL_KI=27 RILL_TRIAL_XW=4352 RILL_TRIAL_CW=1 RILL_TRIAL_RD=1
c K30 rill-bench-bandwidth-t RILL_TRIAL_UA=1 RILL_TRIAL_KI=30 RILL_TRIAL_XW=4608 RILL_TRIAL_CW=1 RILL_TRIAL_RD=1
c H2 rill-bench-bandwidth-h
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
timeout 250 rill-tests --gtest_filter='Backends/GroupKernels.*:Backends/RadixSort.*:Backends/SegmentedSort.*:Backends/ScatterOps.*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|tests ran" $O/tests.txt | head -20
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
