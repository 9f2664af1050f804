#!/usr/bin/env bash
# rill's Segment on the GPU machine, after the recipe in ../shared/device/README.md
# (rill-tests, rill-app-tests, rill-segment and rill-bench-segment carried in .device/):
#
#   bench/gpu/segment.sh [log2 side = 11] [iterations = 200]
#
# The stencil and segmentation tests on Vulkan and OpenGL (real drivers), the app
# on both (its log; its PNGs are too large to send back), then rill-bench-segment on both and the scheme in
# PyTorch (torch.compile) in the same run; packs everything as $OUT/segment.tgz.
# The bench runs with the stencil's defaults and again with RILL_STENCIL_STEPS=1
# and 3, RILL_STENCIL_BLOCK_COLUMNS=2 and RILL_SEGMENT_FLUXES=1
# (segment_BACKEND_rill_stencil_steps_1.json, ...), so that the run shows what temporal
# blocking, its invocations' shape and the body's form gain on the device; through
# OpenGL also with RILL_GL_NATIVE_MIN_MAX=all (NVIDIA's min/max workarounds off).
set -uo pipefail
source bench/gpu/device_prologue.sh segment
k=${1:-11}
iterations=${2:-200}
run_gpu_tests Segment "Backends/Segment.*/BACKEND" "Backends/SegmentApp.*/BACKEND"
for backend in vulkan opengl; do
    mkdir -p "$O/app_$backend"
    RILL_BACKEND=$backend rill-segment --size 2048x2048 --out-dir "$O/app_$backend" > "$O/app_$backend/log.txt" 2>&1 || echo "rill-segment on $backend failed"
    tail -3 "$O/app_$backend/log.txt"
done
el
python3 bench/gpu/torch_segment.py "$k" "$iterations" > "$O/peer_torch_segment.json" 2> "$O/peer_torch_segment.err" || echo "PyTorch Segment peer failed: $(tail -3 "$O/peer_torch_segment.err")"
cat "$O/peer_torch_segment.json"
el
for backend in vulkan opengl; do
    # The SMs' clock beside the bench (growths alone leave an H100 at its lowest, docs/PERFORMANCE.md#segment).
    smi=
    if command -v nvidia-smi > /dev/null; then
        nvidia-smi --query-gpu=timestamp,clocks.sm,utilization.gpu --format=csv,noheader -lms 20 > "$O/clocks_$backend.txt" 2>&1 &
        smi=$!
    fi
    RILL_BACKEND=$backend rill-bench-segment --size-log2 "$k" --iterations "$iterations" "$O/segment_$backend.json" > "$O/segment_$backend.txt" 2>&1 \
        || echo "rill-bench-segment on $backend failed: $(tail -2 "$O/segment_$backend.txt")"
    [ -n "$smi" ] && kill "$smi"
    cat "$O/segment_$backend.txt"
    el
    # The stencil's knobs (docs/TUNING.md): iterations a pass, invocations of two columns, and
    # Perona-Malik's fluxes instead of its edges; through
    # OpenGL also what NVIDIA's min/max workarounds cost (the clamps of the boundary rule).
    knobs="RILL_STENCIL_STEPS=1 RILL_STENCIL_STEPS=3 RILL_STENCIL_BLOCK_COLUMNS=2 RILL_SEGMENT_FLUXES=1"
    [ "$backend" = opengl ] && knobs="$knobs RILL_GL_NATIVE_MIN_MAX=all"
    for knob in $knobs; do
        name=$(echo "$knob" | tr 'A-Z=' 'a-z_')
        env "$knob" RILL_BACKEND=$backend rill-bench-segment --size-log2 "$k" --iterations "$iterations" \
            "$O/segment_${backend}_$name.json" > "$O/segment_${backend}_$name.txt" 2>&1 \
            || echo "rill-bench-segment on $backend with $knob failed: $(tail -2 "$O/segment_${backend}_$name.txt")"
        echo "$knob:"; grep -E "^\| (diffusion|linear|heat equation|segmentation)" "$O/segment_${backend}_$name.txt"
    done
    el
done
# The app's PNGs stay behind: with them the packed results are over what a run sends back.
rm -f "$O"/app_*/*.png
finish
