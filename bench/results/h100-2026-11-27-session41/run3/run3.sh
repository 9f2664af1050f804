#!/usr/bin/env bash
# Session 41, run 3: OneSweep's counting kernel also zeroes the look-back states (a scratch stream now, no fill)
# and its last workgroup scans the counts (no scan kernel): -b (that code) against -a (5ff6594: scratch key/value
# streams, fills timed), alternating, 2^28 through Vulkan; OpenGL at 2^26; CUB; the sort tests through Vulkan and OpenGL.
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2 be=$3 lg=$4; shift 4; env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=$be RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 $bin $lg $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "^    (radix_|fill|copy|scan_)" $O/$name.txt | awk '{print $1, $2, $4}' | head -8 | tr '\n' ' '; echo; grep -E "^\| (radix sort, uint32 (keys|pairs) \||new stream)|wrong|rror|differ" $O/$name.txt; }
A=rill-bench-bandwidth-a; B=rill-bench-bandwidth
c A1 $A vulkan 28
c B1 $B vulkan 28
c A2 $A vulkan 28
c B2 $B vulkan 28
c GA1 $A opengl 26
c GB1 $B opengl 26
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
timeout 200 rill-tests --gtest_filter='Backends/RadixSort.*:Backends/SegmentedSort.*:Backends/Streams.*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
