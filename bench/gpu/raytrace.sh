#!/usr/bin/env bash
# rill's ray tracer on the GPU machine, after the recipe in ../shared/device/README.md
# (rill-tests, rill-app-tests, rill-raytrace, rill-bench-raytrace and rill-vkrt-peer
# carried in .device/, Embree among the libraries):
#
#   bench/gpu/raytrace.sh ["triangle counts" = "1000000 10000000"] [WxH = 1920x1080]
#
# The BVH, Local-array and app tests on Vulkan and OpenGL (real drivers), the app on
# both (its PNGs kept), then rill-bench-raytrace on both against Embree on the
# machine's 16 cores, on the built-in scene and the test meshes where carried
# (.device/meshes, plain or gzip'ed; the bunny also Loop-subdivided twice, 1.11M
# triangles); after each Vulkan bench, the Vulkan ray-tracing-pipeline peer
# (rill-vkrt-peer) on the same scene and rays; packs everything as $OUT/raytrace.tgz.
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
# bench BACKEND NAME ARGS...: rill-bench-raytrace ARGS at $size, and on Vulkan the peer on its rays.
bench() {
    local backend=$1 name=$2 rays=/tmp/rays_$2
    shift 2
    local out=()
    [ "$backend" = vulkan ] && rm -rf "$rays" && mkdir -p "$rays" && out=(--rays-out "$rays")
    RILL_BACKEND=$backend rill-bench-raytrace "$@" --size "$size" "${out[@]}" > "$O/bench_${backend}_$name.txt" 2>&1 \
        || echo "rill-bench-raytrace $* on $backend failed: $(tail -2 "$O/bench_${backend}_$name.txt")"
    cat "$O/bench_${backend}_$name.txt"
    if [ "$backend" = vulkan ]; then
        rill-vkrt-peer "$rays" > "$O/peer_vkrt_$name.txt" 2>&1 || echo "rill-vkrt-peer on $name failed: $(tail -2 "$O/peer_vkrt_$name.txt")"
        cat "$O/peer_vkrt_$name.txt"
        rm -rf "$rays"
    fi
}
for backend in vulkan opengl; do
    for count in $triangles; do
        bench "$backend" "$count" --triangles "$count"
    done
    for mesh in .device/meshes/*.obj; do
        [ -e "$mesh" ] || continue
        bench "$backend" "$(basename "$mesh" .obj)" "$mesh"
    done
    bunny=.device/meshes/stanford-bunny.obj
    [ -e "$bunny" ] && bench "$backend" stanford-bunny-loop2 "$bunny" --subdivide 2
    el
done
finish
