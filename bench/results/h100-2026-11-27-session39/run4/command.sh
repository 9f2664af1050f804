#!/usr/bin/env bash
# Session 39 run 4: trials_run4.patch (against a176ba2's code): OneSweep's keys in tiles of 256 x 32 (KI), digits recomputed; pairs at 256 x 22 (HEAD) with full tiles' keys loaded and written apart (PFULL=2), look-back with selects (PSEL), unchecked (PUA), without spirv-opt (PNO); against no knob (HEAD). Then the sort tests with knobs on.
source .device/env.sh
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; if [ $(el) -gt 300 ]; then echo "$name skipped at $(el) s"; return; fi; env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)_(keys|pairs)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+|Shared Memory Size = [0-9]+" | paste - - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_sweep_(keys|pairs)" $O/$name.txt | grep -E "ms per" | head -4 | awk '{print $1, $4}' | tr '\n' ' '; echo; grep -E "^\| radix sort, uint32 (keys|pairs) \||wrong|rror|differ" $O/$name.txt; }
T=rill-bench-bandwidth-t
c V1 $T
c KI32 $T RILL_TRIAL_KI=32
c PF2 $T RILL_TRIAL_PFULL=2
c PSEL $T RILL_TRIAL_PSEL=1
c PUA $T RILL_TRIAL_PUA=1
c PNO $T RILL_TRIAL_PNO=1
c V2 $T
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
if [ $(el) -lt 320 ]; then
RILL_TRIAL_KI=32 RILL_TRIAL_PFULL=2 RILL_TRIAL_PSEL=1 RILL_TRIAL_PUA=1 RILL_TRIAL_PNO=1 timeout $((420 - $(el))) rill-tests-t --gtest_filter='Backends/RadixSort.*:Backends/SegmentedSort.*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|tests ran" $O/tests.txt | head -20
fi
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
