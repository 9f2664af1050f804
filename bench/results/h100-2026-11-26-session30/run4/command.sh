#!/usr/bin/env bash
# Session 30 run 4: keys-only tiles of 256 x 24 (the new default; pairs 256 x 16) against 256 x 20 and an exchange in 3 parts; HEAD alternating.
source .device/env.sh
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)|sweep_|scatter_|radix_pass|radix_hist|radix sort" $O/$name.txt | grep -v "tiles per" | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq | head -30; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.mem --format=csv
c H1 rill-bench-head
c K24 rill-bench-bandwidth RILL_VK_PIPELINE_STATS=1
c K20 rill-bench-bandwidth RILL_TRIAL_KEY_ITEMS=20 RILL_VK_PIPELINE_STATS=1
c K24P3 rill-bench-bandwidth RILL_TRIAL_PARTS=3 RILL_VK_PIPELINE_STATS=1
cd $OUT && tar czf run4.tgz run4 && cd - > /dev/null
c H2 rill-bench-head
c K24b rill-bench-bandwidth
c K20b rill-bench-bandwidth RILL_TRIAL_KEY_ITEMS=20
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
