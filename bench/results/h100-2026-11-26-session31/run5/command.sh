#!/usr/bin/env bash
# Session 31 run 5: the kept code with OneSweep's passes sharing one stream of look-back states (cbc85cb): the sort
# bench through Vulkan three times (is OneSweep keys at 256 x 24 ever slow, as in run 4's first bench?) and through
# OpenGL once, CUB, Auto's crossover (rill-bench-sorts 26), then every GPU test through Vulkan and OpenGL.
source .device/env.sh
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2 backend=$3; shift 3; env "$@" RILL_BACKEND=$backend RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)|sweep_|scatter_|radix_pass|radix_hist|radix sort" $O/$name.txt | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq | head -30; }
tarit() { cd $OUT && tar czf run5.tgz run5 && cd - > /dev/null; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.mem --format=csv
c V1 rill-bench-bandwidth vulkan RILL_VK_PIPELINE_STATS=1
c V2 rill-bench-bandwidth vulkan
c G1 rill-bench-bandwidth opengl
c V3 rill-bench-bandwidth vulkan
tarit
nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub && /tmp/cub 28 > $O/cub.json 2>&1; echo "cub rc=$? at $(el) s"; cat $O/cub.json
RILL_BACKEND=vulkan RILL_BENCH_ONLY=radix timeout 90 rill-bench-sorts 26 $O/sorts_vulkan.json > $O/sorts_vulkan.txt 2>&1; echo "sorts rc=$? at $(el) s"; tail -12 $O/sorts_vulkan.txt
tarit
timeout $((585 - $(el))) rill-tests --gtest_filter='Backends/*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt; tail -2 $O/tests.txt
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
