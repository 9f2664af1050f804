#!/usr/bin/env bash
# Session 45, run 6: c540022 (run 5's binary) with RILL_BENCH_VERBOSE=1: each timed repeat's span, to see whether
# the sorts alternate between two speeds (the sort's two scratch streams of one size swap roles at every call).
source .device/env.sh
O=$OUT/run6; mkdir -p $O
for name in V1 V2; do
  RILL_BENCH_VERBOSE=1 RILL_BENCH_SORT_RUNS= RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 150 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$?"
  grep -E "repeat|span" $O/$name.txt | grep -v "per call" | sed -E 's/, host.*//' | tr '\n' ' ' | sed 's/  radix/\nradix/g; s/  OneSweep/\nOneSweep/g'; echo
done
cd $OUT && tar czf run6.tgz run6 && rm -rf run6
