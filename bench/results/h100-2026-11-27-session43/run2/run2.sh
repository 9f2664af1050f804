#!/usr/bin/env bash
# Session 43, run 2: the first pass without a look-back: keys claim, pairs counted by sweep tile (A, the default),
# against every first pass looking back (RILL_TRIAL_FIRST=L) and keys counted too (C); CUB; the sort tests.
source .device/env.sh
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1; shift
  env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "statistics of 'radix_(sweep|pass)" $O/$name.txt | sed -E 's/.*of .(radix_[a-z_]+).: Register Count = ([0-9]+);.*Shared Memory Size = ([0-9]+);/\1 r\2 s\3/' | sort -u | tr '\n' ' '; echo
  grep -E "^    (radix_|fill)" $O/$name.txt | awk '{print $1, $4}' | head -9 | tr '\n' ' '; grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | head -2 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt; }
c A1
c L1 RILL_TRIAL_FIRST=L
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c C1 RILL_TRIAL_FIRST=C
c A2
c L2 RILL_TRIAL_FIRST=L
timeout 150 rill-tests --gtest_filter='*OneSweep*:*RadixSort.*:*SortBy*:*Segmented*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $O/tests.txt | head -20
RILL_TRIAL_FIRST=C timeout 60 rill-tests --gtest_filter='*OneSweep*-*/cpu' > $O/tests_C.txt 2>&1; echo "tests C rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $O/tests_C.txt | head -20
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
