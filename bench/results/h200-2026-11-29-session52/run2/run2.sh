#!/usr/bin/env bash
# Session 52, run 2 (H200): the bandwidth part of bench/gpu/run.sh with the landed build (session 51's
# grouped pairs' write-out): rill through Vulkan and OpenGL, the hand-written Vulkan copy, CUB, PyTorch, in
# one machine session, then bench/table.py and bench/compare.py against session 46's run 6.
source bench/gpu/device_prologue.sh run2
mkdir -p "$O/full"
bench/gpu/cub_sort.sh build &
timeout 30 rill-vk-copy-peer 28 > "$O/full/peer_vk_copy.json"; echo "vk copy rc=$?"; el
for b in vulkan opengl; do
    RILL_BENCH_SORT_RUNS=0 RILL_BACKEND=$b timeout 170 rill-bench-bandwidth 28 "$O/full/rill_$b.json" > "$O/full/rill_$b.txt" 2>&1
    echo "$b rc=$?"; el
done
bench/gpu/cub_sort.sh time "$O/full" 28 peer_cub.json; echo "cub rc=$?"; el
timeout 90 python3 bench/gpu/torch_peers.py 28 > "$O/full/peer_torch.json" 2> "$O/torch.txt"; echo "torch rc=$?"; el
python3 bench/table.py "$O/full" > "$O/table.txt" 2>&1; echo "table rc=$?"; cat "$O/table.txt"
python3 bench/compare.py bench/results/h200-2026-11-28-session46/run6/full "$O/full" > "$O/compare.txt" 2>&1; echo "compare rc=$?"; tail -30 "$O/compare.txt"
finish
