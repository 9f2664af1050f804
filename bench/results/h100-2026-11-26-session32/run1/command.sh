#!/usr/bin/env bash
# Session 32 run 1: where CUB's sort spends its time and what its kernels are (nsys, ncu, cuobjdump), against rill's
# HEAD in the same machine session (bench with pipeline statistics and the machine code of the radix kernels).
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
tarit() { cd $OUT && tar czf run1.tgz run1 && cd - > /dev/null; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.mem --format=csv
which ncu nsys cuobjdump nvdisasm zstd 2>&1 | tr '\n' ' '; echo
RILL_VK_PIPELINE_STATS=1 RILL_VK_PIPELINE_DUMP=$O/dump RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/V1.json > $O/V1.txt 2>&1; echo "V1 rc=$? at $(el) s"
grep -E "radix sort|statistics of 'radix" $O/V1.txt | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq | head -20
python3 bench/gpu/nv_cache_code.py $O/dump $O/V1.txt $O/code > $O/cut.txt 2>&1; echo "cut rc=$?"
for f in $O/code/*.bin; do nvdisasm -b SM90 -hex $f > ${f%.bin}.sass 2>&1; done; ls $O/code | head -30
rm -rf $O/dump
tarit
nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo bench/gpu/cub_peers.cu -o /tmp/cub && /tmp/cub 28 > $O/cub.json 2>&1; echo "cub rc=$? at $(el) s"; cat $O/cub.json | head -30
cuobjdump -sass /tmp/cub > $O/cub_all.sass 2>&1; echo "cuobjdump rc=$?"; grep -n "Function :" $O/cub_all.sass | grep -i -E "onesweep|histogram|exclusive" | head
timeout 120 nsys profile -t cuda -o $O/cubprof --stats=false /tmp/cub 28 > $O/nsys.txt 2>&1; echo "nsys rc=$? at $(el) s"
timeout 60 nsys stats -r cuda_gpu_kern_sum -f csv -o $O/kern $O/cubprof.nsys-rep > /dev/null 2>&1; echo "stats rc=$?"; cut -c1-250 $O/kern*.csv | head -20
rm -f $O/cubprof.nsys-rep $O/cubprof.sqlite
tarit
timeout 200 ncu --kernel-name regex:"Onesweep|Histogram" --launch-count 5 --section LaunchStats --section Occupancy --section SpeedOfLight --section SchedulerStats --section WarpStateStats --metrics smsp__inst_executed.sum,smsp__sass_inst_executed_op_shared_atom.sum,launch__shared_mem_config_size /tmp/cub 28 > $O/ncu.txt 2>&1; echo "ncu rc=$? at $(el) s"
grep -E "onesweep|Onesweep|Histogram|Registers Per|Shared Memory Config|Block Size|Grid Size|Achieved Occ|Theoretical Occ|Block Limit|Duration|inst_executed|Memory Throughput|Compute \(SM\)|Issued Warp|No Eligible|Warp Cycles Per Issued|Dynamic Shared|Static Shared" $O/ncu.txt | cut -c1-150 | head -90
tarit
