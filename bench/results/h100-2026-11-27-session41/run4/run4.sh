#!/usr/bin/env bash
# Session 41, run 4: OneSweep's state zeroing, three ways, alternating: -b (07329bf: the counting kernel zeroes every
# pass's states in 4-byte stores), -c (16-byte stores; the sorts' placeholder count stream is scratch), -d (as -c, but
# the passes take turns with two regions of states: the counting kernel zeroes pass 0's, each pass zeroes the next's,
# one word per invocation). 2^28 through Vulkan; -d through OpenGL at 2^26; CUB; the sort tests of -d.
source .device/env.sh
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2 be=$3 lg=$4; shift 4; env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=$be RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 $bin $lg $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "^    (radix_|fill|copy|scan_)" $O/$name.txt | awk '{print $1, $2, $4}' | head -6 | tr '\n' ' '; echo; grep -E "^\| (radix sort, uint32 (keys|pairs) \|)|wrong|rror|differ" $O/$name.txt; }
B=rill-bench-bandwidth-b; C=rill-bench-bandwidth-c; D=rill-bench-bandwidth-d
c B1 $B vulkan 28
c C1 $C vulkan 28
c D1 $D vulkan 28
c B2 $B vulkan 28
c C2 $C vulkan 28
c D2 $D vulkan 28
c B3 $B vulkan 28
c D3 $D vulkan 28
c GD1 $D opengl 26
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
timeout 200 rill-tests --gtest_filter='Backends/RadixSort.*:Backends/SegmentedSort.*:Backends/Streams.*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
