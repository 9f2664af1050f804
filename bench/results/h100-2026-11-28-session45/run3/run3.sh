#!/usr/bin/env bash
# Session 45, run 3: the pairs' look-back in windows of 2 and 3 tiles (RILL_TRIAL_PW) against 4, alternating.
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1; shift
  env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 150 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | sed -E 's/, kernels.*//' | tr '\n' ' '; echo; grep -E "^    radix_" $O/$name.txt | awk '{print $1, $4}' | head -6 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt | head -3
  grep -E "statistics of 'radix_(sweep|pass)" $O/$name.txt | sed -E "s/.*of .(radix_[a-z_]*).: Register Count = ([0-9]+);.*Shared Memory Size = ([0-9]+);.*/\1 \2 regs \3 B/" | sort | uniq | tr '\n' ' '; echo; }
c W2a RILL_TRIAL_PW=2
c Ba
c W3a RILL_TRIAL_PW=3
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c W2b RILL_TRIAL_PW=2
c Bb
c W3b RILL_TRIAL_PW=3
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
