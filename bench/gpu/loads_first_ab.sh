#!/usr/bin/env bash
# The A/Bs that putting loads in flight together leaves open (docs/PERFORMANCE.md#opengl-against-vulkan),
# on the GPU machine after the recipe in ../shared/device/README.md (rill-tests, rill-bench-bandwidth,
# rill-bench-blas and rill-bench-segment carried in .device/; bench/gpu/pack.sh):
#
#   bench/gpu/loads_first_ab.sh [elements | parameters | steps | gemv | selects | all (default)] [runs = 1]
#
# elements (about 4 minutes with one run): element kernels as four interleaved copies of their body
# (RILL_GLSL_INTERLEAVED_ELEMENTS=1) against the four calls, through both APIs: the GPU tests that run
# element kernels most with it first, then the copy and SAXPY of 2^24 and 2^28 floats
# (rill-bench-bandwidth), BLAS level 1 and the segmentation, alternated `runs` times.
# parameters (about 3 minutes): group kernels' scalar parameters read once at the top
# (RILL_GLSL_PARAMETERS_FIRST=1) against each use, the same way: the tests first, then Segment's diffusion
# and the SGEMV and SGEMM sweep (rill-bench-blas to 2^26).
# steps (about 4 minutes): the blocked stencil's iterations a pass (RILL_STENCIL_STEPS 3 to 8), rows and
# columns an invocation, on Segment's diffusion through both APIs, now that a pass's tile loads are in
# flight together.
# gemv (about 2 minutes): SGEMV A^T x with 16 loads in flight (RILL_BLAS_GEMV_T_IN_FLIGHT=16) against 8,
# through both APIs, after the BLAS tests with it.
# selects (about 2 minutes; rill-bench-raytrace and the bunny in .device/meshes too): scalar selects as
# mix() (RILL_GLSL_SELECTS_AS_MIX=1) against ?:, the subdivided bunny's rays through OpenGL, and the
# closest-hit kernel's OpenGL assembly each way (IF blocks counted).
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
[ "$part" = elements ] || [ "$part" = all ] && tests_with RILL_GLSL_INTERLEAVED_ELEMENTS
for run in $( { [ "$part" = elements ] || [ "$part" = all ]; } && seq "$runs"); do
    for knob in 0 1; do
        for api in vulkan opengl; do
            for log2n in 24 28; do
                f="$O/bandwidth_${api}_${log2n}_interleaved${knob}_$run.txt"
                RILL_GLSL_INTERLEAVED_ELEMENTS=$knob RILL_BENCH_ONLY=none RILL_BACKEND=$api rill-bench-bandwidth "$log2n" > "$f" 2>&1 \
                    || echo "bandwidth $api 2^$log2n knob $knob failed: $(tail -2 "$f")"
                echo "$api 2^$log2n interleaved=$knob: $(rows "$f")"
            done
            f="$O/level1_${api}_interleaved${knob}_$run.json"
            RILL_GLSL_INTERLEAVED_ELEMENTS=$knob RILL_BENCH_ONLY=level1 RILL_BACKEND=$api rill-bench-blas --max-log2 28 "$f" \
                > "${f%.json}.txt" 2>&1 || echo "level 1 $api knob $knob failed"
            f="$O/segment_${api}_interleaved${knob}_$run.txt"
            segment "$f" RILL_GLSL_INTERLEAVED_ELEMENTS=$knob RILL_BACKEND=$api
            echo "$api interleaved=$knob segmentation: $(grep -E '^\| segmentation' "$f" | cut -d'|' -f3-5)"
        done
    done
    for api in vulkan opengl; do
        python3 bench/gpu/compare_runs.py "$O/level1_${api}_interleaved0_$run.json" "$O/level1_${api}_interleaved1_$run.json" calls interleaved
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
        python3 bench/gpu/compare_runs.py "$O/blas_${api}_parameters0_$run.json" "$O/blas_${api}_parameters1_$run.json" each-use first
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
if [ "$part" = gemv ] || [ "$part" = all ]; then
    for api in vulkan opengl; do
        RILL_BLAS_GEMV_T_IN_FLIGHT=16 RILL_GL_DEBUG=1 rill-tests --gtest_filter="Backends/Blas.*/$api" > "$O/tests_gemv16_$api.txt" 2>&1 \
            && echo "BLAS tests with 16 loads in flight passed on $api" || echo "BLAS tests with 16 loads in flight FAILED on $api"
    done
    for run in $(seq "$runs"); do
        for api in vulkan opengl; do
            for v in 8 16; do
                RILL_BLAS_GEMV_T_IN_FLIGHT=$v RILL_BENCH_ONLY=gemv RILL_BACKEND=$api rill-bench-blas --max-log2 28 "$O/gemv_${api}_${v}_$run.json" \
                    > "$O/gemv_${api}_${v}_$run.txt" 2>&1 || echo "SGEMV $api with $v in flight failed"
            done
            python3 bench/gpu/compare_runs.py "$O/gemv_${api}_8_$run.json" "$O/gemv_${api}_16_$run.json" 8 16
        done
        el
    done
fi
if [ "$part" = selects ] || [ "$part" = all ]; then
    tests_with RILL_GLSL_SELECTS_AS_MIX
    for run in $(seq "$runs"); do
        for knob in 0 1; do
            RILL_GLSL_SELECTS_AS_MIX=$knob RILL_DUMP="$O/rt_dump$knob" RILL_BACKEND=opengl rill-bench-raytrace .device/meshes/stanford-bunny.obj \
                --subdivide 2 --size 1920x1080 > "$O/rays_opengl_mix${knob}_$run.txt" 2>&1 || echo "rays with mix=$knob failed"
            echo "selects as mix=$knob: $(grep -E '^\| (primary|shadow|diffuse)' "$O/rays_opengl_mix${knob}_$run.txt" | cut -d'|' -f2,3 | tr '\n' ' ')"
            python3 bench/gpu/nv_gl_binary_code.py "$O/rt_dump$knob" "$O/rt_asm$knob" > /dev/null
            echo "  closest-hit assembly: $(grep -c '^IF' "$O"/rt_asm$knob/bvh_closest_hit*.nvasm) IF blocks"
            rm -rf "$O/rt_dump$knob"
        done
    done
fi
finish
