#!/usr/bin/env bash
# Session 30 run 2: tiles of 256 x 8 keys (kItems = 8, a trial build) against 256 x 16, exchanged whole, places packed; HEAD alternating.
source .device/env.sh
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)|sweep_|scatter_|radix_pass|radix_hist|radix sort" $O/$name.txt | grep -v "tiles per" | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq | head -30; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.mem --format=csv
c H1 rill-bench-head
c A1 rill-bench-bandwidth RILL_TRIAL_PARTS=1
c E1 rill-bench-i8 RILL_TRIAL_PARTS=1 RILL_VK_PIPELINE_STATS=1
c F1 rill-bench-i8 RILL_TRIAL_PARTS=1 RILL_TRIAL_PACK=0 RILL_VK_PIPELINE_STATS=1
cd $OUT && tar czf run2.tgz run2 && cd - > /dev/null
c H2 rill-bench-head
c A2 rill-bench-bandwidth RILL_TRIAL_PARTS=1
c E2 rill-bench-i8 RILL_TRIAL_PARTS=1
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
