#!/usr/bin/env bash
# Session 30 run 3: tiles of 256 x 32 and 256 x 24 keys (trial builds), exchanged in 2 or 4 parts, places packed; HEAD alternating.
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)|sweep_|scatter_|radix_pass|radix_hist|radix sort" $O/$name.txt | grep -v "tiles per" | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq | head -30; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.mem --format=csv
c H1 rill-bench-head
c T2 rill-bench-i32 RILL_TRIAL_PARTS=2 RILL_VK_PIPELINE_STATS=1
c T4 rill-bench-i32 RILL_TRIAL_PARTS=4 RILL_VK_PIPELINE_STATS=1
c Q2 rill-bench-i24 RILL_TRIAL_PARTS=2 RILL_VK_PIPELINE_STATS=1
cd $OUT && tar czf run3.tgz run3 && cd - > /dev/null
c H2 rill-bench-head
c T2b rill-bench-i32 RILL_TRIAL_PARTS=2
c T4b rill-bench-i32 RILL_TRIAL_PARTS=4
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
