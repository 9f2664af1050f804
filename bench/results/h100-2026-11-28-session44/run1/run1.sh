#!/usr/bin/env bash
# Session 44, run 1: the machine code of OneSweep's sweeps as they are (c25dfab), for where the pairs' value loads
# sit against the look-back; the sorts timed twice, CUB between.
source .device/env.sh
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1; shift
  env RILL_BENCH_SORT_RUNS= "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | sed -E 's/, kernels.*//' | tr '\n' ' '; echo; grep -E "^    radix_" $O/$name.txt | awk '{print $1, $4}' | head -6 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt; }
mkdir -p $O/dump
c D RILL_VK_PIPELINE_STATS=1 RILL_VK_PIPELINE_DUMP=$O/dump
grep -E "statistics of 'radix_(sweep|pass)" $O/D.txt | sort | uniq
python3 bench/gpu/nv_cache_code.py $O/dump $O/D.txt $O/code > $O/cut.txt 2>&1; cat $O/cut.txt | grep radix
for f in $O/code/radix_*.bin; do [ -f "$f" ] && nvdisasm -b SM90 -hex $f > ${f%.bin}.sass 2>&1; done; rm -f $O/code/*.bin; rm -rf $O/dump
ls -la $O/code | head
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c G2
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
