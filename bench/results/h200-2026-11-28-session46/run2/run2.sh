#!/usr/bin/env bash
# Session 46, run 2 (H200): CUB's sort kernels under Nsight Compute at the machine's own clocks (each kernel's
# duration, launch shape and DRAM bytes; then the pairs' kernels in detail).
source .device/env.sh
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$? at $(el) s"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__block_size,launch__grid_size,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__shared_mem_config_size,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
timeout 200 ncu --clock-control none --kernel-name regex:"Onesweep|Histogram|ExclusiveSum" --metrics $M --csv /tmp/cub 28 > $O/ncu1.csv 2> $O/ncu1.err; echo "ncu1 rc=$? at $(el) s"
python3 - $O/ncu1.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ki = h.index("Kernel Name"); ii = h.index("ID"); mi = h.index("Metric Name"); vi = h.index("Metric Value")
k = collections.OrderedDict()
for r in rows[1:]:
    k.setdefault(r[ii], {"name": r[ki]})[r[mi]] = r[vi]
for i, d in list(k.items())[:14] + list(k.items())[-7:]:
    print(i, d["name"][:60], {m.split("__")[1][:28]: v for m, v in d.items() if m != "name"})
PY
timeout 150 ncu --clock-control none --kernel-name regex:"Onesweep|Histogram" --launch-skip 45 --launch-count 5 --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats /tmp/cub 28 > $O/ncu2.txt 2>&1; echo "ncu2 rc=$? at $(el) s"
grep -E "Onesweep|Histogram|Duration|Registers Per|Block Size|Achieved Occ|Memory Throughput|DRAM Throughput|Compute \(SM\)|Warp Cycles Per Issued|Shared Memory Config" $O/ncu2.txt | cut -c1-120 | head -60
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
