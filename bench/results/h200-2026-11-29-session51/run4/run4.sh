#!/usr/bin/env bash
# Session 51, run 4 (H200): the CUB peer as bench/gpu/run.sh now takes it (cub_sort.sh build, then time into
# peer_cub.json) beside rill's sorts (rill_vulkan.json), and bench/table.py's ratios from the two; the run
# script's prologue from bench/gpu/device_prologue.sh (new).
source bench/gpu/device_prologue.sh run4
bench/gpu/cub_sort.sh build && bench/gpu/cub_sort.sh time "$O" 28 peer_cub.json; echo "cub rc=$?"; el
bench/gpu/sort_variant.sh "$O" rill_vulkan; el
python3 bench/table.py "$O" > "$O/table.txt" 2>&1; echo "table rc=$?"; cat "$O/table.txt"; el
finish
