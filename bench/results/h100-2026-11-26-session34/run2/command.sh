#!/usr/bin/env bash
# Session 34 run 2: the kept code (N) alternating with pairs in tiles of 256 x 24 without spirv-opt (Q, RILL_T_PAIRS24); CUB; the radix sort tests of large sizes.
source .device/env.sh
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq; grep -E "radix sort, (OneSweep|count-then-scatter, 0 )" $O/$name.txt; grep -E "radix_sweep_keys|radix_sweep_pairs" $O/$name.txt | grep -E "ms per" | head -2; }
c N1 rill-bench-bandwidth
c Q1 rill-bench-bandwidth RILL_T_PAIRS24=1
c N2 rill-bench-bandwidth
c Q2 rill-bench-bandwidth RILL_T_PAIRS24=1
wait
cat $O/nvcc.txt
timeout 60 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; cat $O/cub.json
timeout 200 rill-tests --gtest_filter='Backends/RadixSort.LargeSizes*:Backends/*OneSweep*LargeSizes*-*/cpu' > $O/tests_large.txt 2>&1; echo "large tests rc=$? at $(el) s"; grep -E "^\[  (FAILED|PASSED)|tests ran" $O/tests_large.txt
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
