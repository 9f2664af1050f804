#!/usr/bin/env bash
# Session 42, run 2: the bench times a sort by its span (first command's start to last one's end) beside its kernels'
# sum; counting-kernel knobs: CI (keys per invocation of its tiles, 16 in HEAD), CS (the scan's shared totals in the
# counts' own shared memory: 4 KB less per workgroup); HEAD with the knobs off twice; CUB; tests.
source .device/env.sh
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1; shift
  env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "statistics of 'radix_(sweep|pass)" $O/$name.txt | sed -E 's/.*of .(radix_[a-z_]+).: Register Count = ([0-9]+);.*Shared Memory Size = ([0-9]+);/\1 r\2 s\3/' | sort -u | tr '\n' ' '; echo
  grep -E "^    (radix_pass|fill)" $O/$name.txt | awk '{print $1, $4}' | head -4 | tr '\n' ' '; grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | head -2 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt; }
c H1
c I8 RILL_TRIAL_CI=8
c S16 RILL_TRIAL_CS=1
c S8 RILL_TRIAL_CS=1 RILL_TRIAL_CI=8
c S12 RILL_TRIAL_CS=1 RILL_TRIAL_CI=12
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c H2
c S4 RILL_TRIAL_CS=1 RILL_TRIAL_CI=4
c S8b RILL_TRIAL_CS=1 RILL_TRIAL_CI=8
c S8g RILL_TRIAL_CS=1 RILL_TRIAL_CI=8 RILL_TRIAL_CG=8192
RILL_TRIAL_CS=1 RILL_TRIAL_CI=8 timeout 150 rill-tests --gtest_filter='*OneSweep*:*Streams.*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
