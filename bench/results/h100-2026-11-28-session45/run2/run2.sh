#!/usr/bin/env bash
# Session 45, run 2: the pairs' look-back (RILL_TRIAL_PW: tiles a step; RILL_TRIAL_PS=1: the window added up with
# selects) and the counting kernel (RILL_TRIAL_CI: keys per invocation a tile; RILL_TRIAL_CG: workgroups at most)
# retimed on the current code. Each process traces its kernels with its knobs; kernels are timed apart.
source .device/env.sh
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1; shift
  env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 150 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | sed -E 's/, kernels.*//' | tr '\n' ' '; echo; grep -E "^    radix_" $O/$name.txt | awk '{print $1, $4}' | head -6 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt | head -3
  grep -E "statistics of 'radix_(sweep|pass)" $O/$name.txt | sed -E "s/.*of .(radix_[a-z_]*).: Register Count = ([0-9]+);.*Shared Memory Size = ([0-9]+);.*/\1 \2 regs \3 B/" | sort | uniq | tr '\n' ' '; echo; }
c B
c W2 RILL_TRIAL_PW=2 RILL_TRIAL_CI=8
c W8 RILL_TRIAL_PW=8 RILL_TRIAL_CI=24
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c S4 RILL_TRIAL_PS=1 RILL_TRIAL_CI=32
c S8 RILL_TRIAL_PS=1 RILL_TRIAL_PW=8 RILL_TRIAL_CG=2048
c S2 RILL_TRIAL_PS=1 RILL_TRIAL_PW=2 RILL_TRIAL_CG=8192
c B2
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
