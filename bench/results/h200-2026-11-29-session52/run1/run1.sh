#!/usr/bin/env bash
# Session 52, run 1 (H200): the landed build (session 51's grouped pairs' write-out): GPU tests, the sorts twice with
# CUB; then next_trials.patch's knobs (.device/bin/rill-bench-bandwidth-trials).
source bench/gpu/device_prologue.sh run1
bench/gpu/cub_sort.sh build &
bench/gpu/gpu_tests.sh "$O" 290; el
V=bench/gpu/sort_variant.sh
$V $O N1; el
$V $O N2; el
bench/gpu/cub_sort.sh time $O; el
T=.device/bin/rill-bench-bandwidth-trials
RILL_BENCH_BIN=$T $V $O K3 28 RILL_TRIAL_KEYS_RPW=3; el
RILL_BENCH_BIN=$T $V $O I26 28 RILL_TRIAL_PAIRS_ITEMS=26; el
RILL_BENCH_BIN=$T $V $O R1 28 RILL_TRIAL_RPW=1; el
finish
