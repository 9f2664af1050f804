#!/usr/bin/env bash
# Session 50, run 1 (H200): pairs zipped between passes (RILL_TRIAL_ZIP=1 scalar stores, 3 one 8-byte store per
# pair) against the landed layout (B), through Vulkan and OpenGL; CUB in the same session.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
bench/gpu/cub_sort.sh build &
V=bench/gpu/sort_variant.sh
$V $O B1; el
$V $O Z1 28 RILL_TRIAL_ZIP=1; el
$V $O Z3 28 RILL_TRIAL_ZIP=3; el
$V $O B2; el
$V $O Z1b 28 RILL_TRIAL_ZIP=1; el
$V $O Z3b 28 RILL_TRIAL_ZIP=3; el
$V $O GB1 28 RILL_BACKEND=opengl; el
$V $O GZ1 28 RILL_BACKEND=opengl RILL_TRIAL_ZIP=1; el
$V $O GZ3 28 RILL_BACKEND=opengl RILL_TRIAL_ZIP=3; el
bench/gpu/cub_sort.sh time $O; el
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
