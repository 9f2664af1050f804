#!/usr/bin/env bash
# Session 39 run 3: V = the commit (OneSweep's pairs in tiles of 256 x 22 with digits recomputed after the scan; count-then-scatter's pairs in 256 x 20, through Vulkan) against H = 866b411's sort (run 2's trial binary without knobs), V H V; then every GPU test of V's rill-tests through Vulkan and OpenGL.
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env RILL_BENCH_SORT_RUNS=0 "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)_(keys|pairs)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+|Shared Memory Size = [0-9]+" | paste - - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_sweep_(keys|pairs)" $O/$name.txt | grep -E "ms per" | head -4 | awk '{print $1, $4}' | tr '\n' ' '; echo; grep -E "^\| radix sort, uint32 (keys|pairs) \||count-then-scatter, 0|wrong|rror|differ" $O/$name.txt; }
c V1 rill-bench-bandwidth-v
c H1 rill-bench-bandwidth-t
c V2 rill-bench-bandwidth-v
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
timeout $((585 - $(el))) rill-tests --gtest_filter='Backends/*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|tests ran" $O/tests.txt | head -20; tail -3 $O/tests.txt
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
