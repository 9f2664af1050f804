#!/usr/bin/env bash
# Session 43, run 6: the landed code (keys' first pass claims; stream buffers of 64 MB and more in dedicated
# allocations): 2^28 through Vulkan twice, CUB between; the stream, radix and OneSweep tests through Vulkan and OpenGL.
source .device/env.sh
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run6; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1; shift
  env RILL_BENCH_SORT_RUNS= "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | sed -E 's/, kernels.*//' | tr '\n' ' '; echo; grep -E "^    radix_" $O/$name.txt | awk '{print $1, $4}' | head -4 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt; }
c G1
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c G2
timeout 100 rill-tests --gtest_filter='Backends/Streams*-*/cpu:*OneSweep*-*/cpu:Backends/RadixSort.*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run6.tgz run6 && rm -rf run6
