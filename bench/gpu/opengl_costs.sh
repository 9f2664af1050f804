#!/usr/bin/env bash
# Where NVIDIA's OpenGL pays more than Vulkan for the same calls, on the GPU machine, after the recipe in
# ../shared/device/README.md (rill-tests, rill-bench-bandwidth, rill-bench-subdivide, rill-bench-raytrace
# and rill-bench-occupancy carried in .device/, spot and the bunny gzip'ed in .device/meshes; bench/gpu/pack.sh):
#
#   bench/gpu/opengl_costs.sh [runs = 2]
#
# The workgroups an SM holds by their shared memory through each API (rill-bench-occupancy); the host's
# time by kind of work (RILL_VK_HOST_TIMES, RILL_GL_HOST_TIMES) for spot's subdivision to level 5
# and the subdivided bunny's BVH builds through each API; then RILL_GL_BARRIER_BITS=buffers against the
# default (every bit): the OpenGL tests that read back between short dispatches with it, the cost of a
# dependent kernel (rill-bench-bandwidth's chain), spot's subdivision and the bunny's rays and builds,
# alternated `runs` times; RILL_GL_POOL_FENCED=1 and RILL_GL_INFO_RANGES=1: the OpenGL tests with each,
# then the dependent-kernel cost and spot's subdivision with each against the default, alternated.
# Packs everything as $OUT/opengl_costs.tgz.
set -uo pipefail
source bench/gpu/device_prologue.sh opengl_costs
runs=${1:-2}
# The OpenGL tests each knob runs first: those that read back between short dispatches, reuse pooled
# buffers and order their accesses (the whole GL suite takes over 200 s).
subset='Backends/RadixSort*/opengl:Backends/Scan*/opengl:Backends/Subdivision.*/opengl:Backends/Bvh*/opengl:Backends/Scatter*/opengl:Backends/Compact*/opengl:Backends/Streams*/opengl:Backends/VariableOutputs*/opengl'
spot=.device/meshes/spot.obj
bunny=.device/meshes/stanford-bunny.obj
# How many workgroups an SM holds by their shared memory, through each API (Vulkan's: about 48 KB an SM on
# the H100 and H200, docs/PERFORMANCE.md#radix-sort; OpenGL's not yet measured): the FFT's short lines
# run 2.0-2.6x slower through OpenGL from the same GLSL.
for api in vulkan opengl; do
    RILL_BACKEND=$api rill-bench-occupancy 132 "$O/occupancy_$api.json" > "$O/occupancy_$api.txt" 2>&1 || echo "rill-bench-occupancy on $api failed"
    echo "$api:"; grep -E "^\| [0-9]+ KB" "$O/occupancy_$api.txt"
done
el
for api in vulkan opengl; do
    RILL_VK_HOST_TIMES=1 RILL_GL_HOST_TIMES=1 RILL_BACKEND=$api rill-bench-subdivide "$spot" --levels 5 --adaptive-level 1 --no-peers \
        > "$O/host_times_spot_$api.txt" 2>&1 || echo "rill-bench-subdivide (spot) on $api failed"
    echo "spot through $api:"; grep -A10 "host times" "$O/host_times_spot_$api.txt"
    RILL_VK_HOST_TIMES=1 RILL_GL_HOST_TIMES=1 RILL_BACKEND=$api rill-bench-raytrace "$bunny" --subdivide 2 --size 320x180 \
        > "$O/host_times_bunny_$api.txt" 2>&1 || echo "rill-bench-raytrace (bunny) on $api failed"
    echo "the bunny's builds and rays through $api:"; grep -A10 "host times" "$O/host_times_bunny_$api.txt"
done
el
RILL_GL_BARRIER_BITS=buffers RILL_GL_DEBUG=1 rill-tests --gtest_filter="$subset" > "$O/tests_barrier_buffers.txt" 2>&1 && echo "OpenGL tests with RILL_GL_BARRIER_BITS=buffers passed" \
    || { echo "OpenGL tests with RILL_GL_BARRIER_BITS=buffers FAILED"; grep -E "^\[  FAILED" "$O/tests_barrier_buffers.txt" | head; }
el
RILL_GL_POOL_FENCED=1 RILL_GL_DEBUG=1 rill-tests --gtest_filter="$subset" > "$O/tests_pool_fenced.txt" 2>&1 \
    && echo "OpenGL tests with RILL_GL_POOL_FENCED=1 passed" \
    || { echo "OpenGL tests with RILL_GL_POOL_FENCED=1 FAILED"; grep -E "^\[  FAILED" "$O/tests_pool_fenced.txt" | head; }
RILL_GL_POOL_FENCED=1 RILL_GL_HOST_TIMES=1 RILL_BACKEND=opengl rill-bench-subdivide "$spot" --levels 5 --adaptive-level 1 --no-peers \
    > "$O/host_times_spot_fenced.txt" 2>&1
echo "spot through OpenGL, the pool fenced: $(grep -E '^\| [0-9] \|' "$O/host_times_spot_fenced.txt" | awk -F'|' '{printf "%s", $4}')"
grep -A10 "host times" "$O/host_times_spot_fenced.txt"
el
RILL_GL_INFO_RANGES=1 RILL_GL_DEBUG=1 rill-tests --gtest_filter="$subset" > "$O/tests_info_ranges.txt" 2>&1 \
    && echo "OpenGL tests with RILL_GL_INFO_RANGES=1 passed" \
    || { echo "OpenGL tests with RILL_GL_INFO_RANGES=1 FAILED"; grep -E "^\[  FAILED" "$O/tests_info_ranges.txt" | head; }
for run in $(seq "$runs"); do
    for knob in RILL_AB=default RILL_GL_INFO_RANGES=1 RILL_GL_POOL_FENCED=1; do
        env "$knob" RILL_BENCH_ONLY=chain RILL_BACKEND=opengl rill-bench-bandwidth 24 > "$O/chain_${knob%%=*}_$run.txt" 2>&1
        echo "dependent kernels, $knob: $(grep 'dependent kernels' "$O/chain_${knob%%=*}_$run.txt" | cut -d'|' -f4)"
        env "$knob" RILL_BACKEND=opengl rill-bench-subdivide "$spot" --levels 5 --adaptive-level 1 --no-peers > "$O/spot_${knob%%=*}_$run.txt" 2>&1
        echo "spot, $knob: $(grep -E '^\| [0-9] \|' "$O/spot_${knob%%=*}_$run.txt" | awk -F'|' '{printf "%s", $4}')"
    done
done
el
for run in $(seq "$runs"); do
    for bits in all buffers; do
        RILL_GL_BARRIER_BITS=$bits RILL_BENCH_ONLY=chain RILL_BACKEND=opengl rill-bench-bandwidth 24 > "$O/chain_${bits}_$run.txt" 2>&1
        echo "dependent kernels, $bits bits: $(grep 'dependent kernels' "$O/chain_${bits}_$run.txt" | cut -d'|' -f4)"
        RILL_GL_BARRIER_BITS=$bits RILL_BACKEND=opengl rill-bench-subdivide "$spot" --levels 5 --adaptive-level 1 --no-peers > "$O/spot_${bits}_$run.txt" 2>&1
        echo "spot, $bits bits: $(grep -E '^\| [0-9] \|' "$O/spot_${bits}_$run.txt" | awk -F'|' '{printf "%s", $4}')"
        RILL_GL_BARRIER_BITS=$bits RILL_BACKEND=opengl rill-bench-raytrace "$bunny" --subdivide 2 --size 1920x1080 > "$O/rays_${bits}_$run.txt" 2>&1
        echo "the bunny, $bits bits:"; grep -E "Mrays|build, " "$O/rays_${bits}_$run.txt" | head -5 | cut -d'|' -f2,3
    done
    el
done
finish
