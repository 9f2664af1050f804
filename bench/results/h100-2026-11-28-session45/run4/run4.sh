#!/usr/bin/env bash
# Session 45, run 4: the landed code (ca1e082, pairs' look-back in windows of 2) at 2^28 through Vulkan with CUB;
# the trial binary (runs 2-3: HEAD's code by default) with windows of 1 (RILL_TRIAL_PW=1); through OpenGL the trial
# binary with 4 (the code before) and 2; then every GPU test, Vulkan and OpenGL in two processes at once.
source .device/env.sh
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 api=$2 bin=$3; shift 3
  env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=$api RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 150 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | sed -E 's/, kernels.*//' | tr '\n' ' '; echo; grep -E "^    radix_" $O/$name.txt | awk '{print $1, $4}' | head -6 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt | head -3
  grep -E "statistics of 'radix_(sweep|pass)" $O/$name.txt | sed -E "s/.*of .(radix_[a-z_]*).: Register Count = ([0-9]+);.*Shared Memory Size = ([0-9]+);.*/\1 \2 regs \3 B/" | sort | uniq | tr '\n' ' '; echo; }
c N1 vulkan rill-bench-bandwidth
c W1 vulkan rill-bench-bandwidth-trial RILL_TRIAL_PW=1
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c N2 vulkan rill-bench-bandwidth
c GO opengl rill-bench-bandwidth-trial
c GN opengl rill-bench-bandwidth-trial RILL_TRIAL_PW=2
timeout 400 rill-tests --gtest_filter='Backends/*/vulkan' > $O/tests_vulkan.txt 2>&1 &
timeout 400 rill-tests --gtest_filter='Backends/*/opengl' > $O/tests_opengl.txt 2>&1; echo "opengl tests rc=$? at $(el) s"
wait; echo "vulkan tests done at $(el) s"
for b in vulkan opengl; do echo $b; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $O/tests_$b.txt | head -20; grep -c "^\[       OK" $O/tests_$b.txt; done
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
