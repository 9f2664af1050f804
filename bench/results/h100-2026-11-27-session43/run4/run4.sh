#!/usr/bin/env bash
# Session 43, run 4: the look-back's window (RILL_TRIAL_KW keys, RILL_TRIAL_PW pairs) and the pairs' steps added up with
# selects (RILL_TRIAL_PS=1) against the landed 4 / 4 / branches (B), 2^28 through Vulkan; CUB.
source .device/env.sh
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1; shift
  env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "statistics of 'radix_(sweep|pass)" $O/$name.txt | sed -E 's/.*of .(radix_[a-z_]+).: Register Count = ([0-9]+);.*Shared Memory Size = ([0-9]+);/\1 r\2 s\3/' | sort -u | tr '\n' ' '; echo
  grep -E "^    (radix_|fill)" $O/$name.txt | awk '{print $1, $4}' | head -8 | tr '\n' ' '; grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | head -2 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt; }
c B1
c X1 RILL_TRIAL_KW=2 RILL_TRIAL_PW=2
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c Y1 RILL_TRIAL_KW=8 RILL_TRIAL_PW=8
c Z1 RILL_TRIAL_PS=1
c Z2 RILL_TRIAL_PS=1 RILL_TRIAL_PW=2 RILL_TRIAL_KW=3
c B2
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
