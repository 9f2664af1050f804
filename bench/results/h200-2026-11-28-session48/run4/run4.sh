#!/usr/bin/env bash
# Session 48, run 4 (H200): the landed ranking (every lane adds, no branch per key; the active mask one ballot per
# tile; the highest peer leads OneSweep's pairs). Every GPU test (bench/gpu/gpu_tests.sh), then the sorts timed:
# landed (N) against HEAD's behaviour (H: run 3's binary, no knob), through Vulkan and OpenGL; CUB in the same session.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
bench/gpu/gpu_tests.sh $O 300; el
V=bench/gpu/sort_variant.sh
$V $O N1; el
RILL_BENCH_BIN=rill-bench-bandwidth-head $V $O H1; el
$V $O N2; el
$V $O GN1 28 RILL_BACKEND=opengl; el
RILL_BENCH_BIN=rill-bench-bandwidth-head $V $O GH1 28 RILL_BACKEND=opengl; el
wait; tail -1 $O/nvcc.txt
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$?"; el; grep -oE "\"sort_(keys|pairs)_ms\":[0-9.]+" $O/cub.json | tr '\n' ' '; echo
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
