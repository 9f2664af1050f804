#!/usr/bin/env bash
# Are scattered stores and subgroup ballots slower through Vulkan than through
# OpenGL on the same GPU, outside rill too (session 13, issue 6)? Runs the
# hand-written probes (rill-vk-copy-peer / rill-gl-copy-probe LOG2N scatter),
# then rill's radix sort through Vulkan (pooled memory as rill allocates it,
# with dedicated allocations: RILL_VK_DEDICATED=1, and in device memory the host
# can map: RILL_VK_HOST_VISIBLE_STREAMS=1) and through OpenGL.
# SCATTER_GAP_PROBES_ONLY=1: the probes only. SCATTER_GAP_EXTENSIONS=1: also
# the sort through Vulkan with each device extension rill enables left off
# (RILL_VK_WITHOUT).
# Usage (on the GPU machine, after ../shared/device/README.md): bench/gpu/scatter_gap.sh OUTDIR [log2 n = 28]
set -uo pipefail
out=${1:?usage: bench/gpu/scatter_gap.sh OUTDIR [log2 n]}
n=${2:-28}
mkdir -p "$out"
[ -z "${SCATTER_GAP_NO_PROBES:-}" ] && for m in "$n" 24; do  # 2^24: a span of 64 MiB, inside what the address translation caches cover
    timeout 180 rill-vk-copy-peer "$m" scatter > "$out/vk_probe_$m.json" 2> "$out/vk_probe_$m.err" || echo "vulkan probe failed" >&2
    timeout 120 rill-gl-copy-probe "$m" scatter > "$out/gl_probe_$m.json" 2> "$out/gl_probe_$m.err" || echo "opengl probe failed" >&2
done
sort_run() {  # name, backend, env...
    local name=$1 backend=$2
    shift 2
    env RILL_BACKEND="$backend" RILL_BENCH_ONLY=sort "$@" timeout 200 rill-bench-bandwidth "$n" "$out/$name.json" > "$out/$name.txt" 2>&1 \
        || echo "$name failed: $(tail -2 "$out/$name.txt")" >&2
}
if [ -z "${SCATTER_GAP_PROBES_ONLY:-}" ]; then
    sort_run sort_vulkan vulkan
    sort_run sort_vulkan_dedicated vulkan RILL_VK_DEDICATED=1
    sort_run sort_vulkan_host_visible vulkan RILL_VK_HOST_VISIBLE_STREAMS=1
    sort_run sort_opengl opengl
fi
# The device extensions rill enables, left off one at a time (SCATTER_GAP_EXTENSIONS=1).
if [ -n "${SCATTER_GAP_EXTENSIONS:-}" ]; then
    for w in push size_control float_atomics push,size_control,float_atomics; do
        sort_run "sort_vulkan_without_$w" vulkan RILL_VK_WITHOUT=$w
    done
fi
cat "$out"/vk_probe_*.json "$out"/gl_probe_*.json | sed 's/"probe"://; s/"log2n"/n/'
for f in sort_vulkan sort_vulkan_dedicated sort_vulkan_host_visible sort_opengl sort_vulkan_without_push \
    sort_vulkan_without_size_control sort_vulkan_without_float_atomics sort_vulkan_without_push,size_control,float_atomics; do
    echo "== $f"
    [ -f "$out/$f.txt" ] && grep -E "radix_(histogram|scatter)|radix sort" "$out/$f.txt" | head -8
done
