#!/usr/bin/env bash
# Session 31 run 6: the kept code as the first bench on a fresh machine (is it slow again, as in runs 4 and 5?),
# then trials: pairs whose values are loaded only when their part is exchanged (LATE_VALUES), at 256 x 16 and, with
# PAIRS24, at 256 x 24; the kept code again.
source .device/env.sh
O=$OUT/run6; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2 backend=$3; shift 3; env "$@" RILL_BACKEND=$backend RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)|sweep_|scatter_|radix_pass|radix_hist|scan_add|radix sort" $O/$name.txt | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq | head -34; }
tarit() { cd $OUT && tar czf run6.tgz run6 && cd - > /dev/null; }
c K1 rill-bench-bandwidth vulkan
c L16 rill-bench-bandwidth vulkan RILL_VK_PIPELINE_STATS=1 RILL_TRIAL_LATE_VALUES=1
c L24 rill-bench-bandwidth vulkan RILL_VK_PIPELINE_STATS=1 RILL_TRIAL_LATE_VALUES=1 RILL_TRIAL_PAIRS24=1
tarit
c K2 rill-bench-bandwidth vulkan
cd $OUT && tar czf run6.tgz run6 && rm -rf run6
