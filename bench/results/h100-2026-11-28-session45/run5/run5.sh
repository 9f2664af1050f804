#!/usr/bin/env bash
# Session 45, run 5: the landed code (c540022) with the bench's phases in the usual order (Auto, then OneSweep) and
# the other way round (RILL_TRIAL_SWEEP_FIRST=1, trial_sweep_first.patch): do the same kernels time apart by phase?
source .device/env.sh
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1; shift
  env RILL_BENCH_SORT_RUNS= "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 150 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | sed -E 's/, kernels.*//' | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt | head -3; }
c F1 RILL_TRIAL_SWEEP_FIRST=1
c A1
c F2 RILL_TRIAL_SWEEP_FIRST=1
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
