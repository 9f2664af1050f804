#!/usr/bin/env bash
# Are scattered stores and subgroup ballots slower through Vulkan than through
# OpenGL on the same GPU, outside rill too (docs/PERFORMANCE.md#opengl-against-vulkan)? Runs the
# hand-written probes (rill-vk-copy-peer / rill-gl-copy-probe LOG2N scatter),
# then rill's radix sort through Vulkan and through OpenGL.
# (The probe's first use also ran the sort with switches of an experimental Vulkan backend,
# commit aec61a9: dedicated allocations, host-visible device memory, device
# extensions left off. None changed it; the switches are gone.)
# SCATTER_GAP_PROBES_ONLY=1: the probes only; SCATTER_GAP_NO_PROBES=1: the sorts only.
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
    sort_run sort_opengl opengl
fi
cat "$out"/vk_probe_*.json "$out"/gl_probe_*.json 2>/dev/null | sed 's/"probe"://; s/"log2n"/n/'
for f in sort_vulkan sort_opengl; do
    echo "== $f"
    [ -f "$out/$f.txt" ] && grep -E "radix_(histogram|scatter)|radix sort" "$out/$f.txt" | head -8
done
