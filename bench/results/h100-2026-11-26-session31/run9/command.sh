#!/usr/bin/env bash
# Session 31 run 9: OneSweep's counting kernel in fewer, longer runs (each workgroup adds its 1024 counts to the same
# 1024 words with atomics): trial RILL_TRIAL_COUNT_GROUPS = 65536 (as kept), 4096, 1024, 512, alternating; Auto's
# crossover at 2048 groups.
source .device/env.sh
O=$OUT/run9; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1; shift; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "differs|radix_pass_counts|OneSweep: keys|radix sort, uint32" $O/$name.txt | head -12; }
c G65536
c G1024 RILL_TRIAL_COUNT_GROUPS=1024
c G4096 RILL_TRIAL_COUNT_GROUPS=4096
c G512 RILL_TRIAL_COUNT_GROUPS=512
cd $OUT && tar czf run9.tgz run9 && cd - > /dev/null
RILL_TRIAL_COUNT_GROUPS=1024 RILL_BACKEND=vulkan RILL_BENCH_ONLY=radix timeout 90 rill-bench-sorts 26 $O/sorts_vulkan.json > $O/sorts_vulkan.txt 2>&1; echo "sorts rc=$? at $(el) s"; tail -12 $O/sorts_vulkan.txt
cd $OUT && tar czf run9.tgz run9 && rm -rf run9
