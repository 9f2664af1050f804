#!/usr/bin/env bash
# Session 52, run 4 (H200): next_trials.patch's other knobs (.device/bin/rill-bench-bandwidth-trials): the pairs'
# write-out in groups of rows through OpenGL (RPW, any tile), the keys' write-out fenced through OpenGL, and
# Vulkan's pairs' exchanges fenced every XG items; each beside the same binary with the knobs off.
source bench/gpu/device_prologue.sh run4
V=bench/gpu/sort_variant.sh
export RILL_BENCH_BIN=.device/bin/rill-bench-bandwidth-trials
$V $O GB1 28 RILL_BACKEND=opengl; el
$V $O GR2 28 RILL_BACKEND=opengl RILL_TRIAL_RPW=2; el
$V $O GR4 28 RILL_BACKEND=opengl RILL_TRIAL_RPW=4; el
$V $O GK2 28 RILL_BACKEND=opengl RILL_TRIAL_KEYS_RPW=2; el
$V $O GB2 28 RILL_BACKEND=opengl; el
$V $O VB1; el
$V $O X6 28 RILL_TRIAL_XG=6; el
$V $O X12 28 RILL_TRIAL_XG=12; el
$V $O VB2; el
finish
