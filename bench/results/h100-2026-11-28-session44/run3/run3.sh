#!/usr/bin/env bash
# Session 44, run 3: OneSweep's sweeps prefetch a later tile into L2. Trial knobs: RILL_TRIAL_PF=D (tile t reads
# the keys of tile t + D once per 32-byte sector, folded through an opaque zero into a store that never happens),
# RILL_TRIAL_PFAT (where: 0 before the ranking, 1 once the tile's digits are counted, 2 at the look-back),
# RILL_TRIAL_PFV=1 (the pairs' values too).
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1; shift
  env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | sed -E 's/, kernels.*//' | tr '\n' ' '; echo; grep -E "^    radix_" $O/$name.txt | awk '{print $1, $4}' | head -6 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt
  grep -E "statistics of 'radix_sweep" $O/$name.txt | sed -E 's/.*of .(radix_sweep[a-z_]*).: Register Count = ([0-9]+);.*Local Memory Size = ([0-9]+);.*/\1 \2 regs/' | sort | uniq | tr '\n' ' '; echo; }
c B
c P1 RILL_TRIAL_PF=264 RILL_TRIAL_PFAT=1
c P0 RILL_TRIAL_PF=264 RILL_TRIAL_PFAT=0
c P2 RILL_TRIAL_PF=264 RILL_TRIAL_PFAT=2
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c P1V RILL_TRIAL_PF=264 RILL_TRIAL_PFAT=1 RILL_TRIAL_PFV=1
c P1L RILL_TRIAL_PF=528 RILL_TRIAL_PFAT=1
c P1S RILL_TRIAL_PF=132 RILL_TRIAL_PFAT=1
c B2
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
