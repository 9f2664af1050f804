#!/usr/bin/env bash
# Session 45, run 1: OneSweep's sweeps in workgroups of 384 and 512 (trial knobs RILL_TRIAL_SWEEP_PAIRS /
# RILL_TRIAL_SWEEP_KEYS = "wg,items", RILL_TRIAL_RD=1: digits recomputed after the scan), against 256 x 22 / 256 x 30.
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1; shift
  env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 150 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | sed -E 's/, kernels.*//' | tr '\n' ' '; echo; grep -E "^    radix_" $O/$name.txt | awk '{print $1, $4}' | head -6 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt | head -3
  grep -E "statistics of 'radix_(sweep|pass)" $O/$name.txt | sed -E "s/.*of .(radix_[a-z_]*).: Register Count = ([0-9]+);.*Shared Memory Size = ([0-9]+);.*/\1 \2 regs \3 B/" | sort | uniq | tr '\n' ' '; echo; }
c B
c A RILL_TRIAL_RD=1 RILL_TRIAL_SWEEP_PAIRS=384,14 RILL_TRIAL_SWEEP_KEYS=384,20
c C RILL_TRIAL_RD=1 RILL_TRIAL_SWEEP_PAIRS=512,10 RILL_TRIAL_SWEEP_KEYS=512,15
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c D RILL_TRIAL_RD=1 RILL_TRIAL_SWEEP_PAIRS=384,16 RILL_TRIAL_SWEEP_KEYS=512,12
c E RILL_TRIAL_RD=1 RILL_TRIAL_SWEEP_PAIRS=512,12 RILL_TRIAL_SWEEP_KEYS=384,16
c F RILL_TRIAL_RD=1 RILL_TRIAL_SWEEP_PAIRS=384,12 RILL_TRIAL_SWEEP_KEYS=384,18
c G RILL_TRIAL_RD=0 RILL_TRIAL_SWEEP_PAIRS=384,14 RILL_TRIAL_SWEEP_KEYS=384,20
c B2
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
