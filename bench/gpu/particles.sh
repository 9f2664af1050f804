#!/usr/bin/env bash
# The particle engine on the GPU machine, after the recipe in ../shared/device/README.md
# (rill-tests, rill-app-tests, rill-particles and rill-bench-particles carried in .device/):
#
#   bench/gpu/particles.sh [step sizes = 20,22]
#
# The particle and sampling tests on Vulkan and OpenGL (real drivers), rill-particles on
# both (a frame of each scene kept), rill-bench-particles on both, then the PyTorch peer of
# the step (bench/gpu/torch_particles.py) in the same run; packs everything as
# $OUT/particles.tgz.
set -uo pipefail
source bench/gpu/device_prologue.sh particles
sizes=${1:-20,22}
run_gpu_tests Particles "Backends/Particles.*/BACKEND:Backends/Sampling.*/BACKEND" "Backends/ParticlesApp.*/BACKEND"
el
for backend in vulkan opengl; do
    for scene in fountain bowl dam; do
        RILL_BACKEND=$backend rill-particles $scene --particles 1048576 --frames 90 --every 0 --size 1280x720 \
            --out "$O/${scene}_$backend" > "$O/app_${scene}_$backend.txt" 2>&1 || echo "rill-particles $scene on $backend failed"
        tail -4 "$O/app_${scene}_$backend.txt"
    done
done
el
for backend in vulkan opengl; do
    RILL_BACKEND=$backend rill-bench-particles --sizes "$sizes" > "$O/bench_$backend.txt" 2>&1 \
        || echo "rill-bench-particles on $backend failed: $(tail -2 "$O/bench_$backend.txt")"
    cat "$O/bench_$backend.txt"
    el
done
(cd bench/gpu && python3 torch_particles.py ${sizes//,/ }) > "$O/torch.json" 2>&1 || echo "torch peer failed"
cat "$O/torch.json"
finish
