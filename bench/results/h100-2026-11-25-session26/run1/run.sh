#!/usr/bin/env bash
# Session 26 run 1: restrict/shared-only barriers (N, HEAD 04dc65d) against run 3's code (B, dee6019).
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
r() { local name=$1 bin=$2; shift 2; env RILL_PROFILE=1 "$@" timeout 240 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(( $(date +%s) - t0 )) s"; }
r N1 rill-bench-bandwidth RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort,scan
r B1 rill-bench-bandwidth-base RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort,scan
r N2 rill-bench-bandwidth RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort,scan
r B2 rill-bench-bandwidth-base RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort,scan
r N_gl rill-bench-bandwidth RILL_BACKEND=opengl RILL_BENCH_ONLY=sort
nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub && /tmp/cub 28 > $O/cub.json 2> $O/cub.err; echo "cub at $(( $(date +%s) - t0 )) s"
RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_VK_PIPELINE_STATS=1 timeout 120 rill-bench-bandwidth 20 $O/stats.json > $O/pipeline_stats.txt 2>&1
left=$(( 560 - ($(date +%s) - t0) ))
if [ $left -gt 30 ]; then
  timeout $left rill-tests --gtest_filter='*RadixSort*:*Compaction*:*GroupKernels*:*Scans*:*SortBy*:*SegmentedSort*-*LargeSizes*:*/cpu' > $O/tests.txt 2>&1; echo "tests rc=$? at $(( $(date +%s) - t0 )) s"
fi
tail -3 $O/tests.txt
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
for f in N1 B1 N2 B2 N_gl; do :; done
