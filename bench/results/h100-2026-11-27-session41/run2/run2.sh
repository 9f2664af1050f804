#!/usr/bin/env bash
# Session 41, run 2: the sort's scratch streams no longer zeroed (Runtime::scratch), and fills and copies timed
# as device work ("fill", "copy" in the profile, counted by the bench). 2^28 keys through Vulkan twice, a new
# stream's zero-fill, CUB, OneSweep keys through OpenGL at 2^26, then every GPU test.
source .device/env.sh
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 be=$2 lg=$3; shift 3; env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=$be RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 rill-bench-bandwidth $lg $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "^    (radix_|fill|copy|scan_)" $O/$name.txt | awk '{print $1, $2, $4}' | tr '\n' ' '; echo; grep -E "^\| (radix sort, uint32 (keys|pairs) \||new stream|copy )|wrong|rror|differ" $O/$name.txt; }
c V1 vulkan 28
c V2 vulkan 28
c G1 opengl 26
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
timeout 420 rill-tests --gtest_filter='Backends/*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
