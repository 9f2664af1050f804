#!/usr/bin/env bash
# Random kernels (tests/random_kernels) on the GPU machine through Vulkan and OpenGL at once,
# in chunks of 200 seeds from FIRST on until COUNT kernels or the time limit (a chunk reports only when it
# ends: through NVIDIA's OpenGL a chunk of 1000 did not end within 90 s, where Vulkan's did), each API's
# summary lines and failures in OUTDIR/random_<api>.txt, the totals printed last.
# RILL_RANDOM_KERNELS_BIN names another build of rill-random-kernels.
# Usage (on the GPU machine, after ../shared/device/README.md):
#   bench/gpu/random_kernels.sh OUTDIR [count = 10000] [seconds = 420] [first seed = 1]
set -uo pipefail
out=${1:?usage: bench/gpu/random_kernels.sh OUTDIR [count] [seconds]}
count=${2:-10000}
limit=${3:-420}
first=${4:-1}
bin=${RILL_RANDOM_KERNELS_BIN:-rill-random-kernels}
mkdir -p "$out"
t0=$(date +%s)
for api in vulkan opengl; do
    (
        seed=$first
        last=$(( first + count - 1 ))
        while [ "$seed" -le "$last" ] && [ $(( $(date +%s) - t0 )) -lt "$limit" ]; do
            chunk=$(( last - seed + 1 < 200 ? last - seed + 1 : 200 ))
            timeout $(( limit - ($(date +%s) - t0) + 5 )) "$bin" --seed "$seed" --count "$chunk" --backend "$api"
            seed=$(( seed + chunk ))
        done
    ) > "$out/random_$api.txt" 2>&1 &
done
wait
echo "random kernels done in $(( $(date +%s) - t0 )) s"
for api in vulkan opengl; do
    awk -v api="$api" '/kernels, .* elements compared/ {
            k += $(NF-8); e += $(NF-6); u += $(NF-3); f += $(NF-1); dev = $0; sub(/: [0-9]+ kernels.*/, "", dev) }
        END { printf "%s: %d kernels, %d elements compared, %d undetermined, %d failed  %s\n", api, k, e, u, f, dev }' \
        "$out/random_$api.txt"
    grep -m5 "^seed " "$out/random_$api.txt"
done
