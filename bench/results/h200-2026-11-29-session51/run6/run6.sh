#!/usr/bin/env bash
# Session 51, run 6 (H200): the pairs' tile of 256 x 22 in one part (the counters in the exchange's first words,
# a barrier before the exchange: 9 barriers per tile where 2 parts take 12), its rows written R at a time, with
# (F) or without a subgroup barrier after each R rows so that NVIDIA's compiler cannot read every row from shared
# memory at once; and the landed tile with its parts written 6 rows at a time, fenced; against B.
source bench/gpu/device_prologue.sh run6
bench/gpu/cub_sort.sh build &
V=bench/gpu/sort_variant.sh
$V $O B1; el
$V $O I22 28 RILL_TRIAL_PAIRS_ITEMS=22; el
$V $O OP22 28 RILL_TRIAL_PAIRS_ITEMS=22 RILL_TRIAL_ONEPART=22; el
$V $O OP11F 28 RILL_TRIAL_PAIRS_ITEMS=22 RILL_TRIAL_ONEPART=11 RILL_TRIAL_FENCE=1; el
$V $O OP6F 28 RILL_TRIAL_PAIRS_ITEMS=22 RILL_TRIAL_ONEPART=6 RILL_TRIAL_FENCE=1 RILL_VK_PIPELINE_DUMP=/tmp/d5; el
$V $O OP4F 28 RILL_TRIAL_PAIRS_ITEMS=22 RILL_TRIAL_ONEPART=4 RILL_TRIAL_FENCE=1; el
$V $O C6F 28 RILL_TRIAL_CHUNK=6 RILL_TRIAL_FENCE=1; el
$V $O B2; el
bench/gpu/cub_sort.sh time $O; el
finish
