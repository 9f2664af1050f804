#!/usr/bin/env bash
# Session 42, run 1: trial knobs in one binary (trials_run1.patch): PV (pairs' keys and values through shared memory
# together, counters in the exchange) at 256 x 20 / 22 / 24, CL (counting in 8-bit lane slots, 16 or 32), HEAD's
# paths with the knobs off; SASS of the sweeps and counting kernels; CUB; sort tests with PV and CL on.
source .device/env.sh
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 dump=$2; shift 2; local d=""; [ "$dump" = 1 ] && { mkdir -p $O/dump_$name; d="RILL_VK_PIPELINE_DUMP=$O/dump_$name"; }
  env RILL_BENCH_SORT_RUNS= "$@" $d RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "statistics of 'radix_(sweep|pass)" $O/$name.txt | sed -E 's/.*of .(radix_[a-z_]+).: Register Count = ([0-9]+);.*Shared Memory Size = ([0-9]+);/\1 r\2 s\3/' | sort -u | tr '\n' ' '; echo
  grep -E "^    (radix_|fill)" $O/$name.txt | awk '{print $1, $4}' | head -6 | tr '\n' ' '; echo; grep -E "^\| (radix sort, uint32 (keys|pairs) \|)|wrong|rror|differ" $O/$name.txt
  if [ "$dump" = 1 ]; then python3 bench/gpu/nv_cache_code.py $O/dump_$name $O/$name.txt $O/code_$name > $O/cut_$name.txt 2>&1
    for f in $O/code_$name/radix_*.bin; do [ -f "$f" ] && nvdisasm -b SM90 -hex $f > ${f%.bin}.sass 2>&1; done; rm -f $O/code_$name/*.bin; rm -rf $O/dump_$name; fi; }
c H1 1
c A22 1 RILL_TRIAL_PV=1
c C32 1 RILL_TRIAL_CL=32
c C16 0 RILL_TRIAL_CL=16
c A24 0 RILL_TRIAL_PV=1 RILL_TRIAL_PI=24
c A20 0 RILL_TRIAL_PV=1 RILL_TRIAL_PI=20
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c H2 0
c AC 0 RILL_TRIAL_PV=1 RILL_TRIAL_CL=32
c C32b 0 RILL_TRIAL_CL=32
RILL_TRIAL_PV=1 RILL_TRIAL_CL=32 timeout 200 rill-tests --gtest_filter='*OneSweep*:*RadixSort*:*SortBy*:*SegmentedSort*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
