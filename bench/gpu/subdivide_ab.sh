#!/usr/bin/env bash
# Loop subdivision's A/B knobs (docs/TUNING.md) on the GPU machine, after the recipe in
# ../shared/device/README.md (rill-bench-subdivide carried in .device/, OpenSubdiv's libraries among
# the libraries, spot and the bunny gzip'ed in .device/meshes; bench/gpu/pack.sh):
#
#   bench/gpu/subdivide_ab.sh [uniform level = 5] [runs = 2]
#
# rill-bench-subdivide without the peers on spot and the bunny to the level, each knob against the
# default, alternated `runs` times: the stores before they were laid out for whole sectors, the points
# and the derived connectivity as one dispatch each never and always (by default on levels of up to 2^21
# faces), the first Vulkan batch after a wait as large as
# the others, the input level's sort in the backend's large tiles; through Vulkan, then the knobs
# that are not Vulkan's through OpenGL once. Prints each level's host wall per run (the bench's
# table), packs the outputs as $OUT/subdivide_ab.tgz.
set -uo pipefail
source bench/gpu/device_prologue.sh subdivide_ab
uniform=${1:-5}
runs=${2:-2}
# ab BACKEND RUN KNOB: one bench of spot and the bunny with KNOB (default: none).
ab() {
    local backend=$1 run=$2 knob=$3 mesh name
    for mesh in .device/meshes/spot.obj .device/meshes/stanford-bunny.obj; do
        name=$(basename "$mesh" .obj)_${backend}_${knob/=/_}_$run
        env "${knob/default/RILL_AB=default}" RILL_BACKEND=$backend rill-bench-subdivide "$mesh" --levels "$uniform" --adaptive-level 1 \
            --no-peers > "$O/$name.txt" 2>&1 || echo "rill-bench-subdivide $knob on $backend failed: $(tail -2 "$O/$name.txt")"
        echo "$name: $(grep -E '^\| [0-9] \|' "$O/$name.txt" | awk -F'|' '{printf "%s", $4}')"
    done
}
knobs="default RILL_SUBDIVISION_SCATTERED_STORES=1 RILL_SUBDIVISION_JOINED_KERNELS=0 RILL_SUBDIVISION_JOINED_KERNELS=1 RILL_VK_FIRST_SUBMIT=64 RILL_RADIX_SMALL_TILES=0"
for run in $(seq "$runs"); do
    for knob in $knobs; do ab vulkan "$run" "$knob"; done
    el
done
for knob in $knobs; do
    [ "$knob" = RILL_VK_FIRST_SUBMIT=64 ] || ab opengl 1 "$knob"
done
el
finish
