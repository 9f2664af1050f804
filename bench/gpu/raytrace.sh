#!/usr/bin/env bash
# rill's ray tracer on the GPU machine, after the recipe in ../shared/device/README.md
# (rill-tests, rill-app-tests, rill-raytrace, rill-bench-raytrace and rill-vkrt-peer
# carried in .device/, Embree among the libraries):
#
#   bench/gpu/raytrace.sh ["triangle counts" = "1000000 10000000"] [WxH = 1920x1080]
#
# The BVH, Local-array and app tests on Vulkan and OpenGL (real drivers), the app on
# both (its PNGs kept), the first render's compile cost (empty caches against filled
# ones, each kernel's build logged by RILL_LOG_COMPILES), then rill-bench-raytrace on
# both against Embree on the machine's 16 cores, on the built-in scene and the test
# meshes where carried (.device/meshes, plain or gzip'ed; the bunny also
# Loop-subdivided twice, 1.11M triangles); after each Vulkan bench, the Vulkan
# ray-tracing-pipeline peer (rill-vkrt-peer) on the same scene and rays; then the
# bunny once more with RILL_VK_HOST_TIMES (where a build's host wall goes), through the
# other front end of each API (RILL_GL_SPIRV, RILL_VK_GLSL_MODULES) and with
# RILL_GLSL_UNCHECKED (what the bounds checks cost), and through OpenGL with RILL_GL_NATIVE_MIN_MAX=none and
# =float (what NVIDIA's min/max workarounds cost); packs everything as $OUT/raytrace.tgz.
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
# The first render's compile cost: a small render with empty rill and driver kernel
# caches, then the same from the filled caches; the difference over the kernels cached.
for backend in vulkan opengl; do
    cold=$(mktemp -d)
    for run in cold warm; do
        start=$(date +%s%N)
        RILL_LOG_COMPILES=1 RILL_CACHE_DIR=$cold/rill __GL_SHADER_DISK_CACHE_PATH=$cold RILL_BACKEND=$backend \
            rill-raytrace --size 64x64 --samples 1 --out "$cold/small.png" > "$O/compile_${backend}_$run.txt" 2>&1 \
            || echo "rill-raytrace ($run caches) on $backend failed"
        echo "$backend, $run caches: $(( ($(date +%s%N) - start) / 1000000 )) ms, $(find "$cold/rill" -type f | wc -l) kernels in rill's cache; the slowest builds:"
        slowest_builds "$O/compile_${backend}_$run.txt"
    done
    rm -rf "$cold"
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
# Where a BVH build's host wall goes beyond its kernels (docs/PERFORMANCE.md#ray-tracing): the bunny
# again through Vulkan, each repeat's device time, span and host wall, and the backend's host times.
[ -e "$bunny" ] && RILL_VK_HOST_TIMES=1 RILL_BENCH_VERBOSE=1 RILL_PROFILE=1 RILL_BACKEND=vulkan \
    rill-bench-raytrace "$bunny" --subdivide 2 --size 320x180 > "$O/bench_vulkan_host_times.txt" 2>&1 \
    && grep -E "build|repeat|host times|^  " "$O/bench_vulkan_host_times.txt" | grep -v "rill profile" | head -60
el
# Whether the front end makes OpenGL's rays 1.5x slower than Vulkan's (docs/PERFORMANCE.md#ray-tracing): the
# bunny through OpenGL from glslang's SPIR-V (RILL_GL_SPIRV) and through Vulkan from the driver's own GLSL front
# end (RILL_VK_GLSL_MODULES, VK_NV_glsl_shader), each its own kernel cache.
[ -e "$bunny" ] && RILL_GL_SPIRV=1 RILL_CACHE_DIR=/tmp/rill-rt-glspirv bench opengl stanford-bunny-loop2-gl-spirv "$bunny" --subdivide 2
[ -e "$bunny" ] && RILL_VK_GLSL_MODULES=1 RILL_CACHE_DIR=/tmp/rill-rt-vkglsl bench vulkan stanford-bunny-loop2-vk-glsl "$bunny" --subdivide 2
el
# What NVIDIA's min/max workarounds cost OpenGL's float-heavy kernels (docs/TUNING.md, RILL_GL_NATIVE_MIN_MAX):
# the bunny's rays and PLOC build through OpenGL with the workaround for every float min and max (none, as
# before the default became clamps) and for none of them (float), beside the default run above; and the
# built-in tests that the workarounds exist for with each (ClampIsMinOfMaxForAnyBounds is expected to fail
# with float).
if [ -e "$bunny" ]; then
    for native in none float; do
        RILL_GL_NATIVE_MIN_MAX=$native bench opengl "stanford-bunny-loop2-native-min-max-$native" "$bunny" --subdivide 2
        RILL_GL_NATIVE_MIN_MAX=$native RILL_GL_DEBUG=1 rill-tests --gtest_filter="Backends/Builtins.*/opengl:Backends/Bvh.*/opengl" \
            > "$O/tests_opengl_native_min_max_$native.txt" 2>&1 && echo "OpenGL tests with RILL_GL_NATIVE_MIN_MAX=$native passed" \
            || { echo "OpenGL tests with RILL_GL_NATIVE_MIN_MAX=$native FAILED"; grep -E "^\[  FAILED" "$O/tests_opengl_native_min_max_$native.txt" | head; }
    done
fi
el
# What rill's bounds checks cost each API's rows (docs/TUNING.md, RILL_GLSL_UNCHECKED): the subdivided bunny without them.
for backend in vulkan opengl; do
    [ -e "$bunny" ] && RILL_GLSL_UNCHECKED=1 bench "$backend" stanford-bunny-loop2-unchecked "$bunny" --subdivide 2
done
el
finish
