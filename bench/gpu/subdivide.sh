#!/usr/bin/env bash
# Loop subdivision on the GPU machine, after the recipe in ../shared/device/README.md
# (rill-tests, rill-app-tests, rill-subdivide and rill-bench-subdivide carried in
# .device/, OpenSubdiv's libosdCPU and libosdGPU among the libraries, the bunny and spot
# gzip'ed in .device/meshes):
#
#   bench/gpu/subdivide.sh [adaptive level = 8] [uniform level = 4]
#
# The subdivision tests (uniform, adaptive, the test meshes) and the renderer's on Vulkan
# and OpenGL (real drivers), rill-subdivide --adaptive on the bunny on both (its PNGs
# kept), then rill-bench-subdivide on both: the bunny and spot (closed) uniform to the
# given level (beside OpenSubdiv's Far refinement and its precomputed stencils by OpenMP
# and GL compute), the bunny adaptive to the given level, spot adaptive to level 5 (where
# OpenSubdiv's uniform refinement with limit positions is the peer; under each adaptive
# row the kernels of one call, longest first); packs everything as $OUT/subdivide.tgz.
# The A/B knobs that bear on it: bench/gpu/subdivide_ab.sh.
# The peers' times do not depend on rill's backend: the OpenGL run leaves them out
# (--no-peers), its rows compare with the Vulkan run's peers.
set -uo pipefail
source bench/gpu/device_prologue.sh subdivide
level=${1:-8}
uniform=${2:-4}
bunny=.device/meshes/stanford-bunny.obj
spot=.device/meshes/spot.obj
run_gpu_tests Subdivision \
    "Backends/Subdivision.*/BACKEND:Backends/AdaptiveSubdivision.*/BACKEND:Backends/Builtins.ClampsOfANegatedAbsoluteValue/BACKEND" \
    "Backends/SubdivisionMeshes.*/BACKEND:Backends/RaytraceApp.*/BACKEND"
el
for backend in vulkan opengl; do
    peers=; [ "$backend" = opengl ] && peers=--no-peers
    RILL_BACKEND=$backend rill-subdivide "$bunny" --adaptive 0.002 --max-level "$level" --size 1280x720 --samples 16 \
        --out "$O/bunny_adaptive_$backend.png" > "$O/app_$backend.txt" 2>&1 || echo "rill-subdivide on $backend failed"
    cat "$O/app_$backend.txt"
    el
    RILL_BACKEND=$backend rill-bench-subdivide "$bunny" --levels "$uniform" --adaptive-level "$level" $peers > "$O/bench_bunny_$backend.txt" 2>&1 \
        || echo "rill-bench-subdivide (bunny) on $backend failed: $(tail -2 "$O/bench_bunny_$backend.txt")"
    cat "$O/bench_bunny_$backend.txt"
    el
    RILL_BACKEND=$backend rill-bench-subdivide "$spot" --levels "$uniform" --adaptive-level 5 $peers > "$O/bench_spot_$backend.txt" 2>&1 \
        || echo "rill-bench-subdivide (spot) on $backend failed: $(tail -2 "$O/bench_spot_$backend.txt")"
    sed -n "/^adaptive/,\$p" "$O/bench_spot_$backend.txt"
    el
    # What rill's bounds checks cost (docs/TUNING.md, RILL_GLSL_UNCHECKED): the bunny again without them and
    # without the peers (they do not change). Its loop_vertex_points then read a one-element stream past its
    # end (the checks read 0 there): that kernel's figure is no measurement (docs/PERFORMANCE.md#loop-subdivision).
    RILL_GLSL_UNCHECKED=1 RILL_BACKEND=$backend rill-bench-subdivide "$bunny" --levels "$uniform" --adaptive-level "$level" --no-peers \
        > "$O/bench_bunny_${backend}_unchecked.txt" 2>&1 || echo "rill-bench-subdivide unchecked on $backend failed"
    cat "$O/bench_bunny_${backend}_unchecked.txt"
    el
done
finish
