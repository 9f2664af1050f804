#!/usr/bin/env bash
# Every GPU test of rill-tests and rill-app-tests, the Vulkan and the OpenGL ones in two processes at once, each
# within a time limit, summed up: passed / failed / skipped lines, tests that ran to OK, and the
# device each API reported. Full logs: OUTDIR/tests_vulkan.txt, OUTDIR/app_tests_vulkan.txt and the OpenGL ones.
# RILL_TESTS_BIN and RILL_APP_TESTS_BIN name other builds of the two. The app tests read every test mesh:
# pack them all (bench/gpu/pack.sh --meshes "spot stanford-bunny cow fandisk teapot" ...), or the
# mesh tests fail on the missing files.
# Usage (on the GPU machine, after ../shared/device/README.md):
#   bench/gpu/gpu_tests.sh OUTDIR [seconds per API = 450] [extra gtest filter, e.g. -*LargeSizes*]
set -uo pipefail
out=${1:?usage: bench/gpu/gpu_tests.sh OUTDIR [seconds] [filter]}
limit=${2:-450}
extra=${3:-}
bin=${RILL_TESTS_BIN:-rill-tests}
app_bin=${RILL_APP_TESTS_BIN:-rill-app-tests}
mkdir -p "$out"
t0=$(date +%s)
for api in vulkan opengl; do
    filter="Backends/*/$api"
    [ -n "$extra" ] && filter="$filter:$extra"
    { timeout "$limit" "$bin" --gtest_filter="$filter" > "$out/tests_$api.txt" 2>&1
      timeout "$limit" "$app_bin" --gtest_filter="$filter" > "$out/app_tests_$api.txt" 2>&1; } &
done
wait
echo "GPU tests done in $(( $(date +%s) - t0 )) s"
for api in vulkan opengl; do
    for log in "$out/tests_$api.txt" "$out/app_tests_$api.txt"; do
        echo "$(basename "$log"): $(grep -c '^\[       OK' "$log") OK"
        grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" "$log" | head -20
    done
    grep -m3 -E "device|Vulkan|OpenGL" "$out/tests_$api.txt"
done
