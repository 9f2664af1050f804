#!/usr/bin/env bash
# Session 41, run 5: HEAD (8ce55ad): 2^28 through Vulkan three times, OpenGL at 2^26, CUB, then every GPU test.
source .device/env.sh
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2 be=$3 lg=$4; shift 4; env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=$be RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 $bin $lg $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "^    (radix_|fill|copy|scan_)" $O/$name.txt | awk '{print $1, $2, $4}' | head -6 | tr '\n' ' '; echo; grep -E "^\| (radix sort, uint32 (keys|pairs) \|)|wrong|rror|differ" $O/$name.txt; }
c H1 rill-bench-bandwidth vulkan 28
c H2 rill-bench-bandwidth vulkan 28
c G1 rill-bench-bandwidth opengl 26
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c H3 rill-bench-bandwidth vulkan 28
timeout 420 rill-tests --gtest_filter='Backends/*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
