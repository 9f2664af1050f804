#!/usr/bin/env bash
# Session 51, run 7 (H200, the machine of run 6, warm): smaller fenced chunks, in one part at 256 x 22 (OP2F, OP3F,
# OP4F again) and in the landed tile's 2 parts (C4F, C2F).
source bench/gpu/device_prologue.sh run7
V=bench/gpu/sort_variant.sh
$V $O OP4F 28 RILL_TRIAL_PAIRS_ITEMS=22 RILL_TRIAL_ONEPART=4 RILL_TRIAL_FENCE=1; el
$V $O OP2F 28 RILL_TRIAL_PAIRS_ITEMS=22 RILL_TRIAL_ONEPART=2 RILL_TRIAL_FENCE=1; el
$V $O C4F 28 RILL_TRIAL_CHUNK=4 RILL_TRIAL_FENCE=1; el
$V $O OP3F 28 RILL_TRIAL_PAIRS_ITEMS=22 RILL_TRIAL_ONEPART=3 RILL_TRIAL_FENCE=1; el
$V $O C2F 28 RILL_TRIAL_CHUNK=2 RILL_TRIAL_FENCE=1; el
bench/gpu/cub_sort.sh time $O; el
finish
