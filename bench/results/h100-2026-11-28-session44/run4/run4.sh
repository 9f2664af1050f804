#!/usr/bin/env bash
# Session 44, run 4: the pairs' sweep unchecked with its rows' loads before their stores (RILL_TRIAL_WB=3
# RILL_TRIAL_PUA=1, "W") against as it is (B), alternating; with the counting kernel unchecked too
# (RILL_TRIAL_CU=1), and with the pairs' sweep in tiles of 256 x 24 / 20 (RILL_TRIAL_PI).
source .device/env.sh
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1; shift
  env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | sed -E 's/, kernels.*//' | tr '\n' ' '; echo; grep -E "^    radix_" $O/$name.txt | awk '{print $1, $4}' | head -6 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt
  grep -E "statistics of 'radix_(sweep|pass)" $O/$name.txt | sed -E "s/.*of .(radix_[a-z_]*).: Register Count = ([0-9]+);.*Shared Memory Size = ([0-9]+);.*/\1 \2 regs \3 B/" | sort | uniq | tr '\n' ' '; echo; }
W="RILL_TRIAL_WB=3 RILL_TRIAL_PUA=1"
c B1
c W1 $W
c WC1 $W RILL_TRIAL_CU=1
c W24 $W RILL_TRIAL_PI=24
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c B2
c W2 $W
c WC2 $W RILL_TRIAL_CU=1
c W20 $W RILL_TRIAL_PI=20
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
