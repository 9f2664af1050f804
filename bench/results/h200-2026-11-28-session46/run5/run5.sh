#!/usr/bin/env bash
# Session 46, run 5 (H200): HEAD's (1b1379b) whole GPU benchmark run (bench/gpu/run.sh OUT 28, count-then-scatter's
# tile runs cut to 0 and 1 to fit the call), the occupancy probe by declared shared memory (session 37's), and the
# showcase on the real driver; compare.py against the recorded H100 baseline (session 18).
source .device/env.sh
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
RILL_BACKEND=vulkan timeout 90 rill-bench-occupancy 132 $O/occupancy_vulkan.json > $O/occupancy_vulkan.txt 2>&1; echo "occupancy rc=$? at $(el) s"; tail -12 $O/occupancy_vulkan.txt
timeout 60 rill-showcase --out $O/showcase.png > $O/showcase.txt 2>&1; echo "showcase rc=$? at $(el) s"; tail -5 $O/showcase.txt
RILL_BENCH_SORT_RUNS=0,1 timeout 420 bash bench/gpu/run.sh $O/full 28 > $O/full_table.txt 2> $O/full_err.txt; echo "full rc=$? at $(el) s"
cat $O/full_table.txt | head -60; tail -5 $O/full_err.txt
python3 bench/compare.py bench/results/h100-2026-11-24-session18/run3 $O/full > $O/compare.txt 2>&1; echo "compare rc=$?"; tail -30 $O/compare.txt
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
