#!/usr/bin/env bash
# Session 35 run 8: the final code (N: keys' look-back adds up windows of 4 tiles with selects; pairs windows of 4 with branches, as before)
# alternating with HEAD 3aaead8 (H, session 34's final code); CUB; the sort tests through Vulkan and OpenGL, large sizes included.
source .device/env.sh
O=$OUT/run8; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix sort, OneSweep" $O/$name.txt; grep -E "radix_sweep_keys|radix_sweep_pairs" $O/$name.txt | grep -E "ms per" | head -2; grep -E "^\| radix sort, uint32 (keys|pairs) \|" $O/$name.txt; }
c H1 rill-bench-bandwidth
c N1 rill-bench-bandwidth-new
c H2 rill-bench-bandwidth
c N2 rill-bench-bandwidth-new
wait
timeout 60 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
timeout $((560 - $(el))) rill-tests --gtest_filter='Backends/*RadixSort*:Backends/*OneSweep*:Backends/*SortBy*:Backends/*Segmented*:Backends/*WhateverOrder*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt; tail -3 $O/tests.txt
cd $OUT && tar czf run8.tgz run8 && rm -rf run8
