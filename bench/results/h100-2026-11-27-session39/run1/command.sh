#!/usr/bin/env bash
# Session 39 run 1: trial knobs (trials_run1.patch against 866b411): OneSweep pairs' tile (PI), pairs unchecked (PUA), without spirv-opt (PNO), look-back with selects (PSEL), one-word values fetched by place (PBP), digits recomputed (PRD); keys' window (KW); count-then-scatter pairs' tile (PCI). Then the sort tests with knobs on.
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; if [ $(el) -gt 470 ]; then echo "$name skipped at $(el) s"; return; fi; env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_sweep_(keys|pairs)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+|Shared Memory Size = [0-9]+" | paste - - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_sweep_(keys|pairs)" $O/$name.txt | grep -E "ms per" | head -4 | awk '{print $1, $4}' | tr '\n' ' '; echo; grep -E "^\| radix sort, uint32 (keys|pairs) \||count-then-scatter, 0|wrong|rror|differ" $O/$name.txt; }
T=rill-bench-bandwidth-t
c V1 $T
c PI18 $T RILL_TRIAL_PI=18
c PI22 $T RILL_TRIAL_PI=22
c PBP $T RILL_TRIAL_PBP=1
c PBP24 $T RILL_TRIAL_PBP=1 RILL_TRIAL_PI=24
c PUA $T RILL_TRIAL_PUA=1
c PSEL $T RILL_TRIAL_PSEL=1
c PNO $T RILL_TRIAL_PNO=1
c PRD $T RILL_TRIAL_PRD=1
c KW2 $T RILL_TRIAL_KW=2
c KW6 $T RILL_TRIAL_KW=6
c PBP30 $T RILL_TRIAL_PBP=1 RILL_TRIAL_PI=30
c V2 $T RILL_BENCH_SORT_RUNS=0
c PCI20 $T RILL_TRIAL_PCI=20 RILL_BENCH_SORT_RUNS=0
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
if [ $(el) -lt 510 ]; then
RILL_TRIAL_PBP=1 RILL_TRIAL_PI=24 RILL_TRIAL_PSEL=1 RILL_TRIAL_PUA=1 RILL_TRIAL_PNO=1 RILL_TRIAL_PRD=1 RILL_TRIAL_KW=6 RILL_TRIAL_PCI=20 timeout $((590 - $(el))) rill-tests-t --gtest_filter='Backends/RadixSort.*:Backends/SegmentedSort.*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|tests ran" $O/tests.txt | head -20
fi
