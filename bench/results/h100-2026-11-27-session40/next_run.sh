#!/usr/bin/env bash
# For session 41: next_trials.patch (against de2c015; binaries rill-bench-bandwidth-t, rill-tests-t built from it, and
# rill-bench-bandwidth-p from 28e32a9, HEAD's code): RILL_TRIAL_EARLY=1 (OneSweep zeroes its counters once the tile's keys
# are loaded, the loads in flight across the barrier), RILL_TRIAL_MATCH=1 (subgroup_match, NV's MATCH.ANY, instead of
# 8 ballots), RILL_TRIAL_KI=16/20 with RILL_TRIAL_KRD=1 (OneSweep's keys in smaller tiles with digits recomputed: fewer
# registers, maybe 3 workgroups per SM). Through OpenGL, OneSweep's keys at 256 x 16 (taken by Auto below 2^27) with
# rill-bench-bandwidth-o (b4e617b: counters in halves apart) against -p (28e32a9: words in the exchange), at 2^26.
# Then the sort tests with EARLY, MATCH, KI=16, KRD.
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
for f in .device/bin/*.zst; do zstd -q -d "$f" -o "${f%.zst}" && chmod +x "${f%.zst}"; done
c() { local name=$1 bin=$2; shift 2; env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep_(keys|pairs)|pass_counts)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+|Shared Memory Size = [0-9]+" | paste - - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_(sweep_(keys|pairs)|pass_counts)" $O/$name.txt | grep -E "ms per" | head -6 | awk '{print $1, $4}' | tr '\n' ' '; echo; grep -E "^\| radix sort, uint32 (keys|pairs) \||wrong|rror|differ" $O/$name.txt; }
P=rill-bench-bandwidth-p; T=rill-bench-bandwidth-t
c V1 $P
c E1 $T RILL_TRIAL_EARLY=1
c M1 $T RILL_TRIAL_MATCH=1
c KI16 $T RILL_TRIAL_KI=16 RILL_TRIAL_KRD=1
c KI20 $T RILL_TRIAL_KI=20 RILL_TRIAL_KRD=1
c V2 $P
c E2 $T RILL_TRIAL_EARLY=1
c() { local name=$1 bin=$2; shift 2; env RILL_BENCH_SORT_RUNS= "$@" RILL_BACKEND=opengl RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 26 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "radix_sweep_keys" $O/$name.txt | grep -E "ms per" | head -2 | awk '{print $1, $4}' | tr '\n' ' '; echo; grep -E "^\| radix sort, uint32 (keys|pairs)|wrong|rror|differ" $O/$name.txt; }
c GO1 rill-bench-bandwidth-o
c GP1 $P
c GO2 rill-bench-bandwidth-o
c GP2 $P
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
RILL_TRIAL_EARLY=1 RILL_TRIAL_MATCH=1 RILL_TRIAL_KI=16 RILL_TRIAL_KRD=1 timeout 200 rill-tests-t --gtest_filter='Backends/RadixSort.*:Backends/SegmentedSort.*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
