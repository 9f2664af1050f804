#!/usr/bin/env bash
# Session 44, run 6: OpenGL's radix algorithms over n with the landed code (rill-bench-sorts 28), to re-measure
# where Auto takes OneSweep through OpenGL (keys below 2^27 since session 32).
source .device/env.sh
O=$OUT/run6; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
RILL_BACKEND=opengl RILL_BENCH_ONLY=radix timeout 280 rill-bench-sorts 28 $O/sorts_opengl.json > $O/sorts_opengl.txt 2>&1; echo "sorts rc=$? at $(el) s"; tail -12 $O/sorts_opengl.txt
cd $OUT && tar czf run6.tgz run6 && rm -rf run6
