#!/usr/bin/env bash
# Session 49, run 4 (H200): the landed pairs' sweep (tiles of 256 x 24, places told after the ranking). Every GPU
# test (bench/gpu/gpu_tests.sh), then the sorts timed: landed (N) against HEAD's behaviour (H: runs 2-3's binary,
# no knob), through Vulkan and OpenGL; CUB in the same session.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
bench/gpu/cub_sort.sh build &
bench/gpu/gpu_tests.sh $O 290; el
V=bench/gpu/sort_variant.sh
$V $O N1; el
RILL_BENCH_BIN=rill-bench-bandwidth-head $V $O H1; el
$V $O N2; el
$V $O GN1 28 RILL_BACKEND=opengl; el
RILL_BENCH_BIN=rill-bench-bandwidth-head $V $O GH1 28 RILL_BACKEND=opengl; el
bench/gpu/cub_sort.sh time $O; el
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
