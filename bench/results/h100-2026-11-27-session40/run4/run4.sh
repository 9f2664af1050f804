#!/usr/bin/env bash
# Session 40, run 4: HEAD (28e32a9, rill-bench-bandwidth-p) against trial knobs (rill-bench-bandwidth-t, trials_run4.patch):
# RILL_TRIAL_PLAIN=1 (word counters counted by a load and a store, a subgroup barrier after each row), 2 (no barrier;
# timing only), RILL_TRIAL_KI=28 (OneSweep's keys in tiles of 256 x 28). Then the sort tests with PLAIN=1 KI=28.
source .device/env.sh
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
for f in .device/bin/*.zst; do zstd -q -d "$f" -o "${f%.zst}" && chmod +x "${f%.zst}"; done
c() { local name=$1 bin=$2; shift 2; env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep_(keys|pairs)|pass_counts)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+|Shared Memory Size = [0-9]+" | paste - - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_(sweep_(keys|pairs)|pass_counts)" $O/$name.txt | grep -E "ms per" | head -6 | awk '{print $1, $4}' | tr '\n' ' '; echo; grep -E "^\| radix sort, uint32 (keys|pairs) \||wrong|rror|differ" $O/$name.txt; }
P=rill-bench-bandwidth-p; T=rill-bench-bandwidth-t
c V1 $P
c PL1 $T RILL_TRIAL_PLAIN=1
c PL2 $T RILL_TRIAL_PLAIN=2
c KI28 $T RILL_TRIAL_KI=28
c V2 $P
c PL1b $T RILL_TRIAL_PLAIN=1
c KI28PL1 $T RILL_TRIAL_KI=28 RILL_TRIAL_PLAIN=1
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
RILL_TRIAL_PLAIN=1 RILL_TRIAL_KI=28 timeout 200 rill-tests-t --gtest_filter='Backends/RadixSort.*:Backends/SegmentedSort.*-*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.txt | head -20
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
