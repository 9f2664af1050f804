#!/usr/bin/env bash
# Session 32 run 10: OpenGL with the faster counting kernel (9e4353b): the sort bench and Auto's crossover
# (rill-bench-sorts 26), to re-measure OpenGL's thresholds; Vulkan's sort bench once more.
source .device/env.sh
O=$OUT/run10; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
RILL_BACKEND=opengl RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 rill-bench-bandwidth 28 $O/G1.json > $O/G1.txt 2>&1; echo "G1 rc=$? at $(el) s"; grep -E "^\| radix sort|OneSweep:" $O/G1.txt
RILL_BACKEND=opengl RILL_BENCH_ONLY=radix timeout 150 rill-bench-sorts 26 $O/sorts_opengl.json > $O/sorts_opengl.txt 2>&1; echo "sorts rc=$? at $(el) s"; tail -12 $O/sorts_opengl.txt
RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/V1.json > $O/V1.txt 2>&1; echo "V1 rc=$? at $(el) s"; grep -E "^\| radix sort" $O/V1.txt
cd $OUT && tar czf run10.tgz run10 && rm -rf run10
