#!/usr/bin/env bash
# Session 32 run 9: OneSweep's sweep loads the keys of tile group_id() while the ticket is taken (loaded again where
# the ticket differs), alternating with a98f393 (rill-bench-head: run 8's binary, its trial knobs unset).
source .device/env.sh
O=$OUT/run9; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_sweep|^\| radix sort" $O/$name.txt | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq; grep -E "radix_sweep" $O/$name.txt | grep calls | head -4; }
c N1 rill-bench-bandwidth
c H1 rill-bench-head
c N2 rill-bench-bandwidth
c H2 rill-bench-head
cd $OUT && tar czf run9.tgz run9 && rm -rf run9
