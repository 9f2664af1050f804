#!/usr/bin/env bash
# Session 37 run 3: H = the landed keys-only passes without Array bounds checks (HEAD + UA, built here);
# T = trial binary of run 2: bigger keys' tiles at two workgroups per SM (KI keys per invocation, XW exchange words, CW=1
# word counters, RD recompute digits; UA=1 as H). Then the sort-related GPU tests of H's rill-tests through Vulkan and OpenGL.
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)_keys" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+|Shared Memory Size = [0-9]+" | paste - - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_sweep_keys|radix_scatter_keys" $O/$name.txt | grep -E "ms per" | head -4; grep -E "^\| radix sort, uint32 (keys|pairs) \||OneSweep: keys|count-then-scatter, 0 tiles|wrong" $O/$name.txt; }
c H1 rill-bench-bandwidth-h
c K28 rill-bench-bandwidth-t RILL_TRIAL_UA=1 RILL_TRIAL_KI=28 RILL_TRIAL_XW=5632 RILL_TRIAL_CW=1 RILL_TRIAL_RD=1
c K28n rill-bench-bandwidth-t RILL_TRIAL_UA=1 RILL_TRIAL_KI=28 RILL_TRIAL_XW=5632 RILL_TRIAL_CW=1 RILL_TRIAL_RD=0
c K26 rill-bench-bandwidth-t RILL_TRIAL_UA=1 RILL_TRIAL_KI=26 RILL_TRIAL_XW=5376 RILL_TRIAL_CW=1 RILL_TRIAL_RD=1
c H2 rill-bench-bandwidth-h
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
timeout 280 rill-tests --gtest_filter='Backends/GroupKernels.*:Backends/RadixSort.*:Backends/SegmentedSort.*:Backends/ScatterOps.*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|tests ran" $O/tests.txt | head -20
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
