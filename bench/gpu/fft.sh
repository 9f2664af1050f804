#!/usr/bin/env bash
# rill's FFT on the GPU machine, after the recipe in ../shared/device/README.md
# (rill-tests, rill-app-tests, rill-bench-fft and rill-vkfft-peer carried in .device/):
#
#   bench/gpu/fft.sh [log2 elements per batched workload = 26] [all | main | ab | strided3]
#
# (all of it takes more than a call's 10 minutes: `main` runs all but the A/B knobs, `ab` the
# default bench on both APIs and the A/B knobs beside it; `strided3`, a few minutes, the FFT
# tests of the strided three-step kernel and then Brook's FFT, 4096^2, the 2D R2C and 2^24
# with RILL_FFT_STRIDED3_LINES=4, 0 (the default) and 2, alternated twice on both APIs, and
# cuFFT's times of the same; then Brook's FFT with its columns sixteen lines a workgroup,
# RILL_FFT_STRIDED_INVOCATIONS=512 and RILL_FFT_STRIDED_PARTS=4, against eight in two parts
# (the default) and in four, alternated twice on both APIs.)
# The FFT tests on Vulkan and OpenGL (real drivers), then rill-bench-fft on
# both, cuFFT through PyTorch (its kernels listed by bench/gpu/cufft_kernels_probe.py) and
# VkFFT through Vulkan in the same run; prints the ratios
# (bench/gpu/fft_table.py) and packs everything as $OUT/fft.tgz. Each API's bench runs
# with empty kernel caches (the cold builds logged), then once more in a new process
# from the filled caches at 2^20 elements (the warm loads logged). Through Vulkan,
# beside the default run, the A/B knobs of docs/TUNING.md: RILL_VK_SPIRV_OPT=1, cold
# (fft_vulkan_spirv_opt.txt: the FFT's kernels skip spirv-opt on NVIDIA's driver), then
# RILL_FFT_EXCHANGE_HALVES=0 (fft_vulkan_whole.txt) and =16 (fft_vulkan_above16.txt),
# RILL_FFT_STRIDED_PARTS=1 and =4 (fft_vulkan_parts1.txt, fft_vulkan_parts4.txt); through
# OpenGL, RILL_GL_NATIVE_MIN_MAX=all (fft_opengl_native_min_max.txt), RILL_GLSL_UNCHECKED=1
# (fft_opengl_unchecked.txt) and RILL_GL_SPIRV=1 (fft_opengl_gl_spirv.txt); on both APIs, cold,
# RILL_QUICK_BUILDS=0 (fft_*_slow_generic.txt: the first transform's generic kernel built for speed).
set -uo pipefail
source bench/gpu/device_prologue.sh fft
e=${1:-26}
part=${2:-all}
if [ "$part" = strided3 ]; then
    run_gpu_tests FFT "Backends/Fft.StridedLinesOf4096InOnePass/BACKEND:Backends/Fft.SpecializedKernelsFromTheSecondCall/BACKEND" ""
    python3 bench/gpu/torch_fft.py 12 > "$O/peer_torch_fft.json" || echo "PyTorch FFT peer failed"
    tail -1 "$O/peer_torch_fft.json"
    for rep in 1 2; do
        for lines in 4 0 2; do
            for backend in vulkan opengl; do
                f=$O/strided3_${backend}_${lines}_$rep
                RILL_FFT_STRIDED3_LINES=$lines RILL_BENCH_ONLY=2d,2e24 RILL_BACKEND=$backend rill-bench-fft --elements-log2 24 --no-fftw "$f.json" > "$f.txt" 2>&1 \
                    || echo "rill-bench-fft with RILL_FFT_STRIDED3_LINES=$lines on $backend failed: $(tail -2 "$f.txt")"
                python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(sys.argv[2], *(f'{k[:-3]} {d[k]:.4f} ms' for k in ('fft2_4x1024x1024_ms', 'fft2_4096x4096_ms', 'rfft2_1024x1024_ms', 'fft_2e24_ms') if k in d))" \
                    "$f.json" "$backend, $lines lines a workgroup:" 2>/dev/null
                [ "$rep" = 1 ] && grep -E "^(2D C2C 4096|1D C2C 2\^24).* ms in " "$f.txt"
            done
        done
        el
    done
    # The strided split kernel's columns sixteen lines a workgroup (512 invocations, four parts)
    # against eight (the default's two parts, and four parts alone): Brook's FFT, alternated twice.
    for rep in 1 2; do
        for knobs in "RILL_FFT_STRIDED_PARTS=2" "RILL_FFT_STRIDED_PARTS=4" "RILL_FFT_STRIDED_PARTS=4 RILL_FFT_STRIDED_INVOCATIONS=512"; do
            for backend in vulkan opengl; do
                f=$O/columns_${backend}_$(echo "$knobs" | tr -cd '0-9')_$rep
                env $knobs RILL_BENCH_ONLY=2d RILL_BACKEND=$backend rill-bench-fft --elements-log2 22 --no-fftw "$f.json" > "$f.txt" 2>&1 \
                    || echo "rill-bench-fft with $knobs on $backend failed: $(tail -2 "$f.txt")"
                echo "$backend, $knobs: $(grep -E "^2D C2C 4 x 1024.* ms in " "$f.txt")"
            done
        done
    done
    el
    finish
    exit 0
fi
if [ "$part" != ab ]; then
    run_gpu_tests FFT "Backends/Fft.*/BACKEND:Backends/Builtins.ComplexHelpers/BACKEND:Backends/GroupKernels.QuickBuilds*/BACKEND" "Backends/FftApp.*/BACKEND"
    el
    python3 bench/gpu/torch_fft.py "$e" > "$O/peer_torch_fft.json" || echo "PyTorch FFT peer failed"
    python3 bench/gpu/cufft_kernels_probe.py > "$O/cufft_kernels.txt" 2>&1 || echo "cuFFT kernel probe failed"
    el
    rill-vkfft-peer "$e" --check > "$O/peer_vkfft.json" 2> "$O/peer_vkfft.txt" || echo "VkFFT peer failed: $(tail -2 "$O/peer_vkfft.txt")"
    el
    # Empty kernel caches (rill's and the driver's), so that the plan cost is the cold one on any machine.
    for backend in vulkan opengl; do
        cold=$(mktemp -d)
        RILL_LOG_COMPILES=1 RILL_CACHE_DIR=$cold/rill __GL_SHADER_DISK_CACHE_PATH=$cold RILL_BACKEND=$backend rill-bench-fft --elements-log2 "$e" --no-fftw "$O/fft_$backend.json" > "$O/fft_$backend.txt" 2>&1 \
            || echo "rill-bench-fft on $backend failed: $(tail -2 "$O/fft_$backend.txt")"
        echo "$backend, empty caches: the slowest kernel builds"; slowest_builds "$O/fft_$backend.txt"
        echo "$backend: where the transforms of several passes or long lines go"; grep -E "^(2D|1D).* ms in " "$O/fft_$backend.txt"
        RILL_LOG_COMPILES=1 RILL_CACHE_DIR=$cold/rill __GL_SHADER_DISK_CACHE_PATH=$cold RILL_BACKEND=$backend rill-bench-fft --elements-log2 20 --no-fftw "$O/fft_${backend}_warm.json" > "$O/fft_${backend}_warm.txt" 2>&1 \
            || echo "rill-bench-fft on $backend from the filled caches failed: $(tail -2 "$O/fft_${backend}_warm.txt")"
        echo "$backend, filled caches, a new process: the slowest kernel loads"; slowest_builds "$O/fft_${backend}_warm.txt"
        el
    done
    python3 bench/gpu/fft_table.py "$O"
    el
    # The process's first transform cold with the generic kernel built for speed (RILL_QUICK_BUILDS=0)
    # against the default quick build (the cold runs above): its build and the first transform's time.
    for backend in vulkan opengl; do
        cold=$(mktemp -d)
        RILL_QUICK_BUILDS=0 RILL_BENCH_ONLY=2d RILL_LOG_COMPILES=1 RILL_CACHE_DIR=$cold/rill __GL_SHADER_DISK_CACHE_PATH=$cold RILL_BACKEND=$backend \
            rill-bench-fft --elements-log2 20 --no-fftw "$O/fft_${backend}_slow_generic.json" > "$O/fft_${backend}_slow_generic.txt" 2>&1 \
            || echo "rill-bench-fft with RILL_QUICK_BUILDS=0 on $backend failed: $(tail -2 "$O/fft_${backend}_slow_generic.txt")"
        echo "$backend, the generic kernel quick (default) and built for speed, cold:"
        grep -h -E "kernel fft_lines_|plan cost" "$O/fft_$backend.txt" "$O/fft_${backend}_slow_generic.txt"
    done
    # Cold through Vulkan again with every kernel through spirv-opt: where the builds' time goes
    # then, and the kernels' speed beside the default run's (docs/PERFORMANCE.md#dispatch-and-compile-cost).
    cold=$(mktemp -d)
    RILL_VK_SPIRV_OPT=1 RILL_LOG_COMPILES=1 RILL_CACHE_DIR=$cold/rill __GL_SHADER_DISK_CACHE_PATH=$cold RILL_BACKEND=vulkan \
        rill-bench-fft --elements-log2 "$e" --no-fftw "$O/fft_vulkan_spirv_opt.json" > "$O/fft_vulkan_spirv_opt.txt" 2>&1 \
        || echo "rill-bench-fft with RILL_VK_SPIRV_OPT=1 failed: $(tail -2 "$O/fft_vulkan_spirv_opt.txt")"
    echo "vulkan with spirv-opt, empty caches: the slowest kernel builds"; slowest_builds "$O/fft_vulkan_spirv_opt.txt"
    python3 bench/gpu/compare_runs.py "$O/fft_vulkan.json" "$O/fft_vulkan_spirv_opt.json" default spirv-opt
    el
else
    # The A/Bs alone: the default runs warm beside them (the call before ran the rest).
    for backend in vulkan opengl; do
        RILL_BACKEND=$backend rill-bench-fft --elements-log2 "$e" --no-fftw "$O/fft_$backend.json" > "$O/fft_$backend.txt" 2>&1 \
            || echo "rill-bench-fft on $backend failed: $(tail -2 "$O/fft_$backend.txt")"
    done
fi
[ "$part" = main ] && { finish; exit 0; }
# ab NAME KNOB=VALUE BACKEND: rill-bench-fft with the knob, compared with the default run.
ab() {
    env "$2" RILL_BACKEND="$3" rill-bench-fft --elements-log2 "$e" --no-fftw "$O/fft_$3_$1.json" > "$O/fft_$3_$1.txt" 2>&1 \
        || echo "rill-bench-fft with $2 failed: $(tail -2 "$O/fft_$3_$1.txt")"
    python3 bench/gpu/compare_runs.py "$O/fft_$3.json" "$O/fft_$3_$1.json" default "$1"
    el
}
ab whole RILL_FFT_EXCHANGE_HALVES=0 vulkan
ab above16 RILL_FFT_EXCHANGE_HALVES=16 vulkan
# The strided passes' exchange whole (before the default two parts) and in four parts.
ab parts1 RILL_FFT_STRIDED_PARTS=1 vulkan
ab parts4 RILL_FFT_STRIDED_PARTS=4 vulkan
# What NVIDIA's min/max workarounds still cost OpenGL's short lines (integers keep them; docs/TUNING.md),
# and what rill's bounds checks cost them (the staged kernel's lines of 16 and 13 take 2.6x and 2.0x
# their Vulkan time through OpenGL, docs/PERFORMANCE.md#opengl-against-vulkan).
ab native_min_max RILL_GL_NATIVE_MIN_MAX=all opengl
ab unchecked RILL_GLSL_UNCHECKED=1 opengl
# The same kernels through OpenGL from glslang's SPIR-V instead of the driver's GLSL front end.
ab gl_spirv RILL_GL_SPIRV=1 opengl
finish
