#!/usr/bin/env bash
# rill's BLAS on the GPU machine, after the recipe in ../shared/device/README.md
# (rill-tests and rill-bench-blas carried in .device/):
#
#   bench/gpu/blas.sh [log2 level-1 elements = 28] [all | short]
#
# (`short`, about two minutes: cuBLAS's level 1 and SGEMV, then RILL_BENCH_ONLY=level1,gemv
# rill-bench-blas on both APIs and the table, no tests and no knobs.)
#
# The BLAS tests on Vulkan and OpenGL (real drivers), cuBLAS through PyTorch
# (bench/gpu/torch_blas.py, TF32 off), then rill-bench-blas on both APIs in the
# same run; prints the ratios (bench/table.py) and packs everything as
# $OUT/blas.tgz. RILL_BENCH_ONLY=level1|gemv|gemm (or several with commas) passes through to rill-bench-blas
# and to the PyTorch peer.
# Then SGEMM through Vulkan with each of its A/B knobs (RILL_BLAS_GEMM_UNPADDED,
# _SCALAR_LOADS, _GUARDED_SLICES, _CHECKED) and SGEMV with each of its own
# (RILL_BLAS_GEMV_CHECKED, _INTERLEAVED, _SCALAR_FINISH, _ROW_GROUP_MAJOR), each against the default run; both
# APIs with RILL_GLSL_CHECKED_VECTOR_LOADS=1; through OpenGL both with their bounds checks, with and without RILL_GLSL_MASKED_LOADS, and every
# level through OpenGL with RILL_GL_NATIVE_MIN_MAX=all; and the SGEMM kernels' pipeline
# statistics (RILL_VK_PIPELINE_STATS).
set -uo pipefail
source bench/gpu/device_prologue.sh blas
n=${1:-28}
short=0
if [ "${2:-all}" = short ]; then
    short=1
    export RILL_BENCH_ONLY=level1,gemv
fi
if [ "$short" = 0 ]; then
    run_gpu_tests BLAS "Backends/Blas.*/BACKEND:Backends/WorkgroupFold.*/BACKEND:Backends/*Reductions.*/BACKEND" ""
    el
fi
python3 bench/gpu/torch_blas.py "$n" "${RILL_BENCH_ONLY:-}" > "$O/peer_torch_blas.json" || echo "PyTorch BLAS peer failed"
el
for backend in vulkan opengl; do
    RILL_BACKEND=$backend rill-bench-blas --max-log2 "$n" "$O/rill_blas_$backend.json" > "$O/blas_$backend.txt" 2>&1 \
        || echo "rill-bench-blas on $backend failed: $(tail -2 "$O/blas_$backend.txt")"
    el
done
python3 bench/table.py "$O"
[ "$short" = 1 ] && { finish; exit 0; }
# Each A/B knob of docs/TUNING.md beside the default run: SGEMM's, then SGEMV's.
for knob in GEMM_UNPADDED GEMM_SCALAR_LOADS GEMM_GUARDED_SLICES GEMM_CHECKED GEMV_CHECKED GEMV_INTERLEAVED GEMV_SCALAR_FINISH GEMV_ROW_GROUP_MAJOR; do
    name=$(echo "$knob" | tr 'A-Z_' 'a-z-')
    only=$(echo "${knob%%_*}" | tr 'A-Z' 'a-z')
    env "RILL_BLAS_$knob=1" RILL_BENCH_ONLY=$only RILL_BACKEND=vulkan rill-bench-blas --max-log2 "$n" "$O/rill_blas_vulkan_$name.json" \
        > "$O/blas_vulkan_$name.txt" 2>&1 || echo "rill-bench-blas $name failed: $(tail -2 "$O/blas_vulkan_$name.txt")"
    python3 bench/gpu/compare_runs.py "$O/rill_blas_vulkan.json" "$O/rill_blas_vulkan_$name.json" default "$name"
done
# What the vector loads' checks cost the unchecked SGEMV and SGEMM kernels (RILL_GLSL_CHECKED_VECTOR_LOADS,
# docs/TUNING.md), through each API beside its default run.
for backend in vulkan opengl; do
    RILL_GLSL_CHECKED_VECTOR_LOADS=1 RILL_BENCH_ONLY=gemv,gemm RILL_BACKEND=$backend rill-bench-blas --max-log2 "$n" \
        "$O/rill_blas_${backend}_checked_vector_loads.json" > "$O/blas_${backend}_checked_vector_loads.txt" 2>&1 \
        || echo "rill-bench-blas with checked vector loads on $backend failed"
    python3 bench/gpu/compare_runs.py "$O/rill_blas_$backend.json" "$O/rill_blas_${backend}_checked_vector_loads.json" default "checked vector loads"
done
# Whether the checked loads' cost through OpenGL is the select (docs/TUNING.md, RILL_GLSL_MASKED_LOADS):
# SGEMM and SGEMV with their bounds checks, selected and masked, beside the default run.
for masked in 0 1; do
    RILL_GLSL_MASKED_LOADS=$masked RILL_BLAS_GEMM_CHECKED=1 RILL_BLAS_GEMV_CHECKED=1 RILL_BENCH_ONLY=gemv,gemm RILL_BACKEND=opengl \
        rill-bench-blas --max-log2 "$n" "$O/rill_blas_opengl_checked_masked$masked.json" > "$O/blas_opengl_checked_masked$masked.txt" 2>&1 \
        || echo "rill-bench-blas checked (masked $masked) failed: $(tail -2 "$O/blas_opengl_checked_masked$masked.txt")"
    python3 bench/gpu/compare_runs.py "$O/rill_blas_opengl.json" "$O/rill_blas_opengl_checked_masked$masked.json" default "checked, masked $masked"
done
# What NVIDIA's min/max workarounds still cost OpenGL (docs/TUNING.md, RILL_GL_NATIVE_MIN_MAX): integers keep
# them (the loops' and bounds' arithmetic), float clamps too; `all` lifts every one, beside the default run.
RILL_GL_NATIVE_MIN_MAX=all RILL_BACKEND=opengl rill-bench-blas --max-log2 "$n" "$O/rill_blas_opengl_native_min_max.json" \
    > "$O/blas_opengl_native_min_max.txt" 2>&1 || echo "rill-bench-blas with RILL_GL_NATIVE_MIN_MAX=all failed"
python3 bench/gpu/compare_runs.py "$O/rill_blas_opengl.json" "$O/rill_blas_opengl_native_min_max.json" default "native min/max"
# What NVIDIA's compiler made of the SGEMM kernels (registers a thread, spills ...: of an SM's 65536
# registers, more than 128 a thread let only one workgroup of 256 fit an SM).
RILL_VK_PIPELINE_STATS=1 RILL_BENCH_ONLY=gemm RILL_BACKEND=vulkan rill-bench-blas --max-log2 "$n" "$O/rill_blas_vulkan_stats.json" 2>&1 \
    | grep "pipeline statistics of 'blas_gemm" | tee "$O/gemm_pipeline_statistics.txt"
finish
