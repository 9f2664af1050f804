#!/usr/bin/env bash
# Session 43, run 1: keys-only first pass claims its places by atomics (RILL_TRIAL_NOCLAIM=1: looks back as before),
# alternating twice; CUB; the sort tests through Vulkan and OpenGL.
source .device/env.sh
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1; shift
  env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "statistics of 'radix_(sweep|pass)" $O/$name.txt | sed -E 's/.*of .(radix_[a-z_]+).: Register Count = ([0-9]+);.*Shared Memory Size = ([0-9]+);/\1 r\2 s\3/' | sort -u | tr '\n' ' '; echo
  grep -E "^    (radix_|fill)" $O/$name.txt | awk '{print $1, $4}' | head -7 | tr '\n' ' '; grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | head -2 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt; }
c N1 RILL_TRIAL_NOCLAIM=1
c C1
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c N2 RILL_TRIAL_NOCLAIM=1
c C2
timeout 200 rill-tests --gtest_filter='*OneSweep*:*RadixSort.*:*SortBy*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
