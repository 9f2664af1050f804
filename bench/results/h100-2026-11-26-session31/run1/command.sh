#!/usr/bin/env bash
# Session 31 run 1: the ranking with fewer barriers (counters apart from the exchange, zeroed during the previous
# tile; one-barrier digit scan; one lookup per key) against HEAD (7fc7bbc), alternating; trials: OneSweep keys
# and pairs at 256 x 24; CUB; the sort tests through Vulkan and OpenGL.
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2 backend=$3; shift 3; env "$@" RILL_BACKEND=$backend RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)|sweep_|scatter_|radix_pass|radix_hist|radix sort" $O/$name.txt | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq | head -30; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.mem --format=csv
c H1 rill-bench-head vulkan
c N1 rill-bench-bandwidth vulkan RILL_VK_PIPELINE_STATS=1
c H2 rill-bench-head vulkan
c N2 rill-bench-bandwidth vulkan
c T1 rill-bench-bandwidth vulkan RILL_VK_PIPELINE_STATS=1 RILL_TRIAL_SWEEP24=1 RILL_TRIAL_PAIRS24=1
c T2 rill-bench-bandwidth vulkan RILL_TRIAL_SWEEP24=1 RILL_TRIAL_PAIRS24=1
cd $OUT && tar czf run1.tgz run1 && cd - > /dev/null
nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub && /tmp/cub 28 > $O/cub.json 2>&1; echo "cub rc=$? at $(el) s"; cat $O/cub.json
cd $OUT && tar czf run1.tgz run1 && cd - > /dev/null
timeout 150 rill-tests --gtest_filter='Backends/*Radix*:Backends/*Sort*:Backends/*Merg*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20; grep -c "       OK \]" $O/tests.txt
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
