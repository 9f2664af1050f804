#!/usr/bin/env bash
# Where the same GLSL runs slower through Vulkan than through OpenGL (the sort's
# kernels on the H100): the scan and the radix sort of 2^28 keys, per kernel,
# through each path a kernel can take to the NVIDIA driver:
#   vulkan        GLSL -> glslang -> spirv-opt -> Vulkan            (rill's default)
#   vulkan-noopt  GLSL -> glslang -> Vulkan                          (RILL_VK_SPIRV_OPT=0)
#   vulkan-glsl   GLSL -> the driver's own front end, in Vulkan      (RILL_VK_GLSL_MODULES=1, VK_NV_glsl_shader)
#   opengl        GLSL -> the driver's own front end, in OpenGL      (rill's default)
#   opengl-spirv  GLSL -> glslang -> OpenGL (GL_ARB_gl_spirv)         (RILL_GL_SPIRV=1)
# The front-end variants run with GAP_PROBE_ALL=1.
# Usage (on the GPU machine, after ../shared/device/README.md): bench/gpu/gap_probe.sh OUTDIR [log2 n = 28]
set -uo pipefail
out=${1:?usage: bench/gpu/gap_probe.sh OUTDIR [log2 n]}
n=${2:-28}
mkdir -p "$out"
run() {  # name, backend, env...
    local name=$1 backend=$2
    shift 2
    env RILL_BACKEND="$backend" RILL_BENCH_ONLY=scan,sort "$@" rill-bench-bandwidth "$n" "$out/$name.json" > "$out/$name.txt" 2>&1 \
        || echo "$name failed: $(tail -2 "$out/$name.txt")" >&2
    env RILL_BACKEND="$backend" RILL_BENCH_ONLY=scan "$@" rill-bench-bandwidth 24 "$out/${name}_scan24.json" > "$out/${name}_scan24.txt" 2>&1 \
        || echo "$name (2^24 scan) failed" >&2
}
run vulkan vulkan RILL_VK_PIPELINE_STATS=1
[ -n "${GAP_PROBE_ALL:-}" ] && run vulkan-noopt vulkan RILL_VK_SPIRV_OPT=0 RILL_CACHE_DIR=/tmp/rill-gap-noopt
[ -n "${GAP_PROBE_ALL:-}" ] && run vulkan-glsl vulkan RILL_VK_GLSL_MODULES=1 RILL_VK_PIPELINE_STATS=1 RILL_CACHE_DIR=/tmp/rill-gap-glsl
run opengl opengl
[ -n "${GAP_PROBE_ALL:-}" ] && run opengl-spirv opengl RILL_GL_SPIRV=1
for f in vulkan vulkan-noopt vulkan-glsl opengl opengl-spirv; do
    [ -f "$out/$f.txt" ] || continue
    echo "== $f"
    grep -E "ms per call|radix sort, uint32|exclusive sum scan" "$out/$f.txt"
    grep -E "exclusive sum scan" "$out/${f}_scan24.txt"
done
