#!/usr/bin/env bash
# Session 30 run 6: the kept code again (run 5 timed OneSweep keys at 38 ms once, its counting kernel 4x slower too):
# the sort bench through Vulkan twice, and Auto's choice over n (rill-bench-sorts, radix only, up to 2^26).
source .device/env.sh
O=$OUT/run6; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 backend=$2; shift 2; env "$@" RILL_BACKEND=$backend RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "sweep_|scatter_|radix_pass|radix_hist|radix sort" $O/$name.txt | sort | uniq | head -30; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
c V2 vulkan
c V3 vulkan
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv
RILL_BACKEND=vulkan RILL_BENCH_ONLY=radix timeout 150 rill-bench-sorts 26 $O/sorts_vulkan.json > $O/sorts_vulkan.txt 2>&1; echo "sorts rc=$? at $(el) s"; tail -25 $O/sorts_vulkan.txt
cd $OUT && tar czf run6.tgz run6 && rm -rf run6
