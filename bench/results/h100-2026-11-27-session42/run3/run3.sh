#!/usr/bin/env bash
# Session 42, run 3: KA (OneSweep's keys-only sweep with word counters apart from the exchange, 24 KB, the subgroup
# totals in the exchange, no zeroing for a next tile) against HEAD's paths (knobs off), alternating; CUB twice; tests.
source .device/env.sh
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1; shift
  env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "statistics of 'radix_(sweep|pass)" $O/$name.txt | sed -E 's/.*of .(radix_[a-z_]+).: Register Count = ([0-9]+);.*Shared Memory Size = ([0-9]+);/\1 r\2 s\3/' | sort -u | tr '\n' ' '; echo
  grep -E "^    (radix_|fill)" $O/$name.txt | awk '{print $1, $4}' | head -6 | tr '\n' ' '; grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | head -2 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt; }
c H1
c K1 RILL_TRIAL_KA=1
c H2
c K2 RILL_TRIAL_KA=1
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c H3
c K3 RILL_TRIAL_KA=1
c H4
c K4 RILL_TRIAL_KA=1
timeout 40 /tmp/cub 28 > $O/cub2.json 2> $O/cub2.txt; echo "cub2 rc=$? at $(el) s"; grep -iE "sort" $O/cub2.json | head -4
RILL_TRIAL_KA=1 timeout 150 rill-tests --gtest_filter='*OneSweep*:*RadixSort.*:*SortBy*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
