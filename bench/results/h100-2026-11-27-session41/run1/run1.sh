#!/usr/bin/env bash
# Session 41, run 1: trial knobs (bench/results/h100-2026-11-27-session41/trials_run1.patch, against 5fd5354) on 2^28 keys through Vulkan.
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep_(keys|pairs)|pass_counts)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+|Local Memory Size = [0-9]+|Shared Memory Size = [0-9]+" | paste - - - - | sort | uniq | sed 's/Local Memory Size = 687194767/L/' | tr '\n' ' '; echo; grep -E "radix_(sweep_(keys|pairs)|pass_counts)" $O/$name.txt | grep -E "ms per" | head -6 | awk '{print $1, $4}' | tr '\n' ' '; echo; grep -E "^\| radix sort, uint32 (keys|pairs) \||wrong|rror|differ" $O/$name.txt; }
T=rill-bench-bandwidth-t
c V1 $T
c PD1 $T RILL_TRIAL_PD=1
c PX1 $T RILL_TRIAL_PX=1 RILL_TRIAL_XW=5760
c PXD1 $T RILL_TRIAL_PX=1 RILL_TRIAL_XW=5760 RILL_TRIAL_PD=1
c PFD1 $T RILL_TRIAL_PFA=1 RILL_TRIAL_PD=1
c E1 $T RILL_TRIAL_EARLY=1
c M1 $T RILL_TRIAL_MATCH=1
c KI16 $T RILL_TRIAL_KI=16 RILL_TRIAL_KRD=1
c KI20 $T RILL_TRIAL_KI=20 RILL_TRIAL_KRD=1
c V2 $T
c PXD2 $T RILL_TRIAL_PX=1 RILL_TRIAL_XW=5760 RILL_TRIAL_PD=1
c E2 $T RILL_TRIAL_EARLY=1
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
RILL_TRIAL_EARLY=1 RILL_TRIAL_PD=1 RILL_TRIAL_PX=1 RILL_TRIAL_XW=5760 RILL_TRIAL_PFA=1 timeout 150 rill-tests-t --gtest_filter='Backends/RadixSort.*:Backends/SegmentedSort.*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
