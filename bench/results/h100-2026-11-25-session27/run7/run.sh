#!/usr/bin/env bash
# Session 27 run 7 (H100): the compaction's single pass against its two passes through OpenGL (and Vulkan) over n, final code.
source .device/env.sh
O=$OUT/run7; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name --format=csv,noheader > $O/gpu.txt
for b in opengl vulkan; do for n in 16 18 20 22 24 26 28; do
  RILL_BACKEND=$b RILL_BENCH_ONLY=scan timeout 90 rill-bench-bandwidth $n $O/${b}_$n.json > $O/${b}_$n.txt 2>&1
  echo "$b 2^$n rc=$? at $(el) s: $(grep -E 'compaction (single pass|two passes), default' $O/${b}_$n.txt | sed 's/.*compaction //' | tr '\n' ' ')"
done; done
cd $OUT && tar czf run7.tgz run7 && rm -rf run7
