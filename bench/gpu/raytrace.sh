#!/usr/bin/env bash
# rill's ray tracer on the GPU machine, after the recipe in ../shared/device/README.md
# (rill-tests, rill-app-tests, rill-raytrace and rill-bench-raytrace carried in .device/,
# Embree among the libraries):
#
#   bench/gpu/raytrace.sh ["triangle counts" = "1000000 10000000"] [WxH = 1920x1080]
#
# The BVH, Local-array and app tests on Vulkan and OpenGL (real drivers), the app on
# both (its PNGs kept), then rill-bench-raytrace on both against Embree on the
# machine's 16 cores, on the built-in scene and the test meshes where carried
# (.device/meshes); packs everything as $OUT/raytrace.tgz.
set -uo pipefail
source bench/gpu/device_prologue.sh raytrace
triangles=${1:-1000000 10000000}
size=${2:-1920x1080}
run_gpu_tests Raytrace "Backends/Bvh.*/BACKEND:Backends/GroupKernels.LocalArrays*/BACKEND" "Backends/RaytraceApp.*/BACKEND"
el
for backend in vulkan opengl; do
    RILL_BACKEND=$backend rill-raytrace --size 1280x720 --samples 16 --out "$O/raytrace_$backend.png" > "$O/app_$backend.txt" 2>&1 \
        || echo "rill-raytrace on $backend failed"
    cat "$O/app_$backend.txt"
done
el
for backend in vulkan opengl; do
    for count in $triangles; do
        RILL_BACKEND=$backend rill-bench-raytrace --triangles "$count" --size "$size" > "$O/bench_${backend}_$count.txt" 2>&1 \
            || echo "rill-bench-raytrace on $backend failed: $(tail -2 "$O/bench_${backend}_$count.txt")"
        cat "$O/bench_${backend}_$count.txt"
    done
    for mesh in .device/meshes/*.obj; do
        [ -e "$mesh" ] || continue
        RILL_BACKEND=$backend rill-bench-raytrace "$mesh" --size "$size" > "$O/bench_${backend}_$(basename "$mesh" .obj).txt" 2>&1 \
            || echo "rill-bench-raytrace $mesh on $backend failed"
        cat "$O/bench_${backend}_$(basename "$mesh" .obj).txt"
    done
    el
done
finish
