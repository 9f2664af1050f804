#!/usr/bin/env bash
# Session 44, run 5: the landed code (OneSweep's pairs' sweep unchecked, each part's rows read before they are
# stored): 2^28 through Vulkan, CUB; through OpenGL against the code before (rill-bench-bandwidth-old, c25dfab);
# then every GPU test, the Vulkan and the OpenGL ones in two processes at once.
source .device/env.sh
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 api=$2 bin=$3; shift 3
  env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=$api RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 150 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | sed -E 's/, kernels.*//' | tr '\n' ' '; echo; grep -E "^    radix_" $O/$name.txt | awk '{print $1, $4}' | head -6 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt
  grep -E "statistics of 'radix_(sweep|pass)" $O/$name.txt | sed -E "s/.*of .(radix_[a-z_]*).: Register Count = ([0-9]+);.*Shared Memory Size = ([0-9]+);.*/\1 \2 regs \3 B/" | sort | uniq | tr '\n' ' '; echo; }
c F1 vulkan rill-bench-bandwidth
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c GN1 opengl rill-bench-bandwidth
c GO1 opengl rill-bench-bandwidth-old
timeout 400 rill-tests --gtest_filter='Backends/*/vulkan' > $O/tests_vulkan.txt 2>&1 &
timeout 400 rill-tests --gtest_filter='Backends/*/opengl' > $O/tests_opengl.txt 2>&1; echo "opengl tests rc=$? at $(el) s"
wait; echo "vulkan tests done at $(el) s"
for b in vulkan opengl; do echo $b; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $O/tests_$b.txt | head -20; grep -c "^\[       OK" $O/tests_$b.txt; done
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
