#!/usr/bin/env bash
# Session 34 run 6: the final code (N: the fallback in a loop of its own, windows of 2 for keys) alternating with HEAD c48476b (H); CUB; every GPU test through Vulkan and OpenGL, large sizes included.
source .device/env.sh
O=$OUT/run6; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq; grep -E "radix sort, (OneSweep|count-then-scatter, 0 )" $O/$name.txt; grep -E "radix_sweep_keys|radix_sweep_pairs" $O/$name.txt | grep -E "ms per" | head -2; }
c H1 rill-bench-bandwidth-head
c N1 rill-bench-bandwidth
wait
timeout 60 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; cat $O/cub.json
timeout $((585 - $(el))) rill-tests --gtest_filter='Backends/*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt; tail -2 $O/tests.txt
cd $OUT && tar czf run6.tgz run6 && rm -rf run6
