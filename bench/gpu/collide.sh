#!/usr/bin/env bash
# Collision detection on the GPU machine, after the recipe in ../shared/device/README.md
# (rill-tests, rill-collide and rill-bench-collide carried in .device/, FCL among the
# libraries, the bunny gzip'ed in .device/meshes):
#
#   bench/gpu/collide.sh [poses = 10000] [build triangles = 1000000]
#
# The collision and BVH tests on Vulkan and OpenGL (real drivers), rill-collide on both
# (its PNGs kept), then rill-bench-collide on both: the bunny against itself under the
# pose batch against FCL on 1 thread and the machine's 16 cores, and both walks by pose
# count and limit; packs everything as $OUT/collide.tgz.
set -uo pipefail
source bench/gpu/device_prologue.sh collide
poses=${1:-10000}
build=${2:-1000000}
bunny=.device/meshes/stanford-bunny.obj
run_gpu_tests Collide "Backends/Collision.*/BACKEND:Backends/Bvh.*/BACKEND" "-*"
el
for backend in vulkan opengl; do
    RILL_BACKEND=$backend rill-collide "$bunny" --poses 1000 --size 1280x720 --out "$O/collide_$backend.png" > "$O/app_$backend.txt" 2>&1 \
        || echo "rill-collide on $backend failed"
    cat "$O/app_$backend.txt"
done
el
for backend in vulkan opengl; do
    RILL_BACKEND=$backend rill-bench-collide "$bunny" --poses "$poses" --build-triangles "$build" > "$O/bench_$backend.txt" 2>&1 \
        || echo "rill-bench-collide on $backend failed: $(tail -2 "$O/bench_$backend.txt")"
    cat "$O/bench_$backend.txt"
    el
done
finish
