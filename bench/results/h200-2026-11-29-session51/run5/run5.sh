#!/usr/bin/env bash
# Session 51, run 5 (H200): the pairs' ranking in groups of RG rows with a subgroup barrier between groups (to
# bound how many rows NVIDIA's compiler ranks side by side, and so the registers), at 256 x 24 and in tiles of
# 256 x 26 / 28 (I26, I28), against B in one machine session.
source bench/gpu/device_prologue.sh run5
bench/gpu/cub_sort.sh build &
V=bench/gpu/sort_variant.sh
$V $O B1; el
$V $O RG6 28 RILL_TRIAL_RG=6 RILL_VK_PIPELINE_DUMP=/tmp/d2; el
$V $O RG8 28 RILL_TRIAL_RG=8; el
$V $O RG12 28 RILL_TRIAL_RG=12; el
$V $O I26RG6 28 RILL_TRIAL_PAIRS_ITEMS=26 RILL_TRIAL_RG=6; el
$V $O I26RG13 28 RILL_TRIAL_PAIRS_ITEMS=26 RILL_TRIAL_RG=13; el
$V $O I28RG4 28 RILL_TRIAL_PAIRS_ITEMS=28 RILL_TRIAL_RG=4; el
$V $O I28RG7 28 RILL_TRIAL_PAIRS_ITEMS=28 RILL_TRIAL_RG=7; el
$V $O B2; el
bench/gpu/cub_sort.sh time $O; el
finish
