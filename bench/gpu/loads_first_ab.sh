#!/usr/bin/env bash
# The A/Bs of putting loads in flight together (docs/PERFORMANCE.md#opengl-against-vulkan), on the GPU
# machine after the recipe in ../shared/device/README.md (rill-tests, rill-bench-bandwidth, rill-bench-blas
# and rill-bench-segment carried in .device/; bench/gpu/pack.sh):
#
#   bench/gpu/loads_first_ab.sh [elements | parameters | steps | all (default)] [runs = 1]
#
# elements (about 5 minutes with one run): element kernels as four calls of their body
# (RILL_GLSL_ELEMENT_CALLS=1) against the default, four interleaved copies of it, through both APIs: the GPU
# tests that run element kernels most with the calls first, then the copy and SAXPY of 2^24 and 2^28
# floats (rill-bench-bandwidth), BLAS level 1 and the segmentation, alternated `runs` times.
# parameters (about 3 minutes): every group kernel's scalar parameters read once at the top
# (RILL_GLSL_PARAMETERS_FIRST=1) against none (=0; by default only the kernels that ask,
# GroupOptions::parameters_at_start), the same way: the tests first, then Segment's diffusion and the SGEMV
# and SGEMM sweep (rill-bench-blas to 2^26).
# steps (about 4 minutes): the blocked stencil's iterations a pass (RILL_STENCIL_STEPS 3 to 8), rows and
# columns an invocation, on Segment's diffusion through both APIs.
# Packs everything as $OUT/loads_first_ab.tgz.
set -uo pipefail
source bench/gpu/device_prologue.sh loads_first_ab
part=${1:-all}
runs=${2:-1}
tests_with() {  # tests_with VAR: the GPU tests that exercise it most, with VAR=1, on both APIs
    local api
    for api in vulkan opengl; do
        env "$1=1" RILL_GL_DEBUG=1 rill-tests \
            --gtest_filter="Backends/Streams*/$api:Backends/Blas.*/$api:Backends/Segment*/$api:Backends/Stencil*/$api:Backends/Subdivision.*/$api:Backends/Builtins*/$api:Backends/Fft.*/$api" \
            > "$O/tests_$1_$api.txt" 2>&1 \
            && echo "tests with $1=1 passed on $api" \
            || { echo "tests with $1=1 FAILED on $api"; grep -E "Failure|FAILED" "$O/tests_$1_$api.txt" | head; }
    done
    el
}
rows() {  # the copy and SAXPY rows of a bandwidth run
    grep -E "^\| (copy|saxpy) " "$1" | cut -d'|' -f2,4,6 | tr '\n' ' '
}
segment() {  # segment FILE VAR=VALUE...: rill-bench-segment on 2048^2, 200 iterations, with those variables
    local f=$1
    shift
    env "$@" rill-bench-segment --size-log2 11 --iterations 200 > "$f" 2>&1 || echo "rill-bench-segment with $* failed: $(tail -2 "$f")"
}
[ "$part" = elements ] || [ "$part" = all ] && tests_with RILL_GLSL_ELEMENT_CALLS
for run in $( { [ "$part" = elements ] || [ "$part" = all ]; } && seq "$runs"); do
    for knob in 0 1; do
        for api in vulkan opengl; do
            for log2n in 24 28; do
                f="$O/bandwidth_${api}_${log2n}_calls${knob}_$run.txt"
                RILL_GLSL_ELEMENT_CALLS=$knob RILL_BENCH_ONLY=none RILL_BACKEND=$api rill-bench-bandwidth "$log2n" > "$f" 2>&1 \
                    || echo "bandwidth $api 2^$log2n knob $knob failed: $(tail -2 "$f")"
                echo "$api 2^$log2n calls=$knob: $(rows "$f")"
            done
            f="$O/level1_${api}_calls${knob}_$run.json"
            RILL_GLSL_ELEMENT_CALLS=$knob RILL_BENCH_ONLY=level1 RILL_BACKEND=$api rill-bench-blas --max-log2 28 "$f" \
                > "${f%.json}.txt" 2>&1 || echo "level 1 $api knob $knob failed"
            f="$O/segment_${api}_calls${knob}_$run.txt"
            segment "$f" RILL_GLSL_ELEMENT_CALLS=$knob RILL_BACKEND=$api
            echo "$api calls=$knob segmentation: $(grep -E '^\| segmentation' "$f" | cut -d'|' -f3-5)"
        done
    done
    for api in vulkan opengl; do
        python3 bench/gpu/compare_runs.py "$O/level1_${api}_calls1_$run.json" "$O/level1_${api}_calls0_$run.json" calls interleaved
    done
    el
done
[ "$part" = parameters ] || [ "$part" = all ] && tests_with RILL_GLSL_PARAMETERS_FIRST
for run in $( { [ "$part" = parameters ] || [ "$part" = all ]; } && seq "$runs"); do
    for knob in 0 1; do
        for api in vulkan opengl; do
            f="$O/segment_${api}_parameters${knob}_$run.txt"
            segment "$f" RILL_GLSL_PARAMETERS_FIRST=$knob RILL_BACKEND=$api
            echo "$api parameters-first=$knob: $(grep -E '^\| (diffusion|linear)' "$f" | cut -d'|' -f2,3,5 | tr '\n' ' ')"
            f="$O/blas_${api}_parameters${knob}_$run.json"
            RILL_GLSL_PARAMETERS_FIRST=$knob RILL_BENCH_ONLY=gemv,gemm RILL_BACKEND=$api rill-bench-blas --max-log2 26 "$f" \
                > "${f%.json}.txt" 2>&1 || echo "SGEMV and SGEMM $api knob $knob failed"
        done
    done
    for api in vulkan opengl; do
        python3 bench/gpu/compare_runs.py "$O/blas_${api}_parameters0_$run.json" "$O/blas_${api}_parameters1_$run.json" none all
    done
    el
done
# The blocked passes' shape: the diffusion's iteration against the copy of the image, each API, by
# iterations a pass (RILL_STENCIL_STEPS), rows an invocation (RILL_STENCIL_BLOCK_ROWS) and columns
# (RILL_STENCIL_BLOCK_COLUMNS), the default (4, 4, 1) first.
for api in $( { [ "$part" = steps ] || [ "$part" = all ]; } && echo vulkan opengl); do
    for knobs in "RILL_STENCIL_STEPS=4" "RILL_STENCIL_STEPS=3" "RILL_STENCIL_STEPS=5" "RILL_STENCIL_STEPS=6" "RILL_STENCIL_STEPS=8" \
                 "RILL_STENCIL_BLOCK_ROWS=8" "RILL_STENCIL_BLOCK_COLUMNS=2"; do
        name=${knobs#RILL_STENCIL_}
        f="$O/segment_${api}_${name//=/_}.txt"
        segment "$f" "$knobs" RILL_BACKEND=$api
        echo "$api, $knobs: $(grep -E '^\| (diffusion|linear)' "$f" | cut -d'|' -f2,3,5 | tr '\n' ' ')"
    done
    el
done
finish
