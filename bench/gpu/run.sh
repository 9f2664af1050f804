#!/usr/bin/env bash
# The whole GPU benchmark run, on the GPU machine, after the recipe in
# ../shared/device/README.md (binaries built here and carried in .device/):
#
#   bench/gpu/run.sh OUTDIR [log2 n = 28]
#
# Runs rill on every GPU backend and its peers in one go (a hand-written Vulkan
# copy kernel, CUB through nvcc when CUDA is there, PyTorch when it is there),
# writes every result as JSON into OUTDIR and prints one table of ratios.
set -uo pipefail
out=${1:?usage: bench/gpu/run.sh OUTDIR [log2 n]}
n=${2:-28}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
[ -f .device/env.sh ] && source .device/env.sh

# The peers first: on the H200 the whole script ran past a 7-minute limit before
# reaching them (docs/PERFORMANCE.md#all-gpu-figures), and without them no ratio is left.
if command -v nvcc > /dev/null; then
    "$here/cub_sort.sh" build && "$here/cub_sort.sh" time "$out" "$n" peer_cub.json || echo "CUB peer failed" >&2
fi
if python3 -c "import torch" 2> /dev/null; then
    python3 "$here/torch_peers.py" "$n" > "$out/peer_torch.json" || echo "PyTorch peer failed" >&2
    python3 "$here/torch_blas.py" "$n" > "$out/peer_torch_blas.json" || echo "PyTorch BLAS peer failed" >&2
fi
rill-vk-copy-peer "$n" > "$out/peer_vk_copy.json" || echo "hand-written Vulkan peer failed" >&2
# The same copy by hand on OpenGL, with buffer creation, barrier and timing varied.
if command -v rill-gl-copy-probe > /dev/null; then
    rill-gl-copy-probe "$n" > "$out/probe_gl_copy.json" 2> "$out/probe_gl_copy.txt" || echo "GL copy probe failed" >&2
fi
for backend in vulkan opengl; do
    RILL_BACKEND=$backend rill-bench-bandwidth "$n" "$out/rill_$backend.json" > "$out/rill_$backend.txt" 2>&1 \
        || echo "rill on $backend failed: $(tail -1 "$out/rill_$backend.txt")" >&2
done
# OpenGL once more in the GL driver's own buffers (RILL_GL_VULKAN_MEMORY=0, docs/PERFORMANCE.md#opengl-against-vulkan),
# beside the default run; named ab_* so that the table leaves it out.
RILL_GL_VULKAN_MEMORY=0 RILL_BENCH_ONLY=scan RILL_BACKEND=opengl rill-bench-bandwidth "$n" "$out/ab_opengl_gl_buffers.json" \
    > "$out/ab_opengl_gl_buffers.txt" 2>&1 || echo "rill on opengl (GL's buffers) failed" >&2
python3 "$here/compare_runs.py" "$out/rill_opengl.json" "$out/ab_opengl_gl_buffers.json" "Vulkan's memory" "GL's buffers" || true
# Summed-area tables (GPU Gems 3 Table 39-1); bitonic against radix sort over n, and UberFlow's Table 1 (tables in sorts_*.txt).
for backend in vulkan opengl; do
    RILL_BACKEND=$backend rill-bench-sat "$out/sat_$backend.json" > "$out/sat_$backend.txt" 2>&1 \
        || echo "rill summed-area tables on $backend failed: $(tail -1 "$out/sat_$backend.txt")" >&2
    RILL_BACKEND=$backend rill-bench-sorts 26 "$out/sorts_$backend.json" > "$out/sorts_$backend.txt" 2>&1 \
        || echo "rill sorts on $backend failed: $(tail -1 "$out/sorts_$backend.txt")" >&2
    # GPU Gems 3 Fig. 39-7 and GPU Gems 2 Table 36-1 (textbook scans and compactions).
    RILL_BACKEND=$backend rill-bench-classic 24 "$out/classic_$backend.json" > "$out/classic_$backend.txt" 2>&1 \
        || echo "rill textbook scans on $backend failed: $(tail -1 "$out/classic_$backend.txt")" >&2
    # BLAS (docs/PERFORMANCE.md#blas); its peers are in peer_torch_blas.json.
    RILL_BACKEND=$backend rill-bench-blas --max-log2 "$n" "$out/rill_blas_$backend.json" > "$out/blas_$backend.txt" 2>&1 \
        || echo "rill BLAS on $backend failed: $(tail -1 "$out/blas_$backend.txt")" >&2
done
python3 "$here/../table.py" "$out"
