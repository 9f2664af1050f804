#!/usr/bin/env bash
# Session 44, run 2: the pairs' sweep writes its rows one at a time (a branch per row, each row's shared loads
# inside it). Trial knobs: RILL_TRIAL_WB=1 (keys' rows: every key and place loaded, then the stores), 2 (values'
# rows the same), 3 (both); RILL_TRIAL_PUA=1 (the pairs' sweep without rill's Array bounds checks).
source .device/env.sh
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1; shift; mkdir -p $O/dump_$name
  env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_VK_PIPELINE_DUMP=$O/dump_$name RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"
  grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | sed -E 's/, kernels.*//' | tr '\n' ' '; echo; grep -E "^    radix_" $O/$name.txt | awk '{print $1, $4}' | head -6 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt
  grep -E "statistics of 'radix_sweep_pairs" $O/$name.txt | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq
  python3 bench/gpu/nv_cache_code.py $O/dump_$name $O/$name.txt $O/code_$name > /dev/null 2>&1; for f in $O/code_$name/radix_sweep_pairs*.bin; do [ -f "$f" ] && nvdisasm -b SM90 -hex $f > ${f%.bin}.sass 2>&1; done; rm -f $O/code_$name/*.bin; rm -rf $O/dump_$name; }
c B
c W3 RILL_TRIAL_WB=3
c U RILL_TRIAL_PUA=1
c W3U RILL_TRIAL_WB=3 RILL_TRIAL_PUA=1
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
c B2
c W1 RILL_TRIAL_WB=1
c W2 RILL_TRIAL_WB=2
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
