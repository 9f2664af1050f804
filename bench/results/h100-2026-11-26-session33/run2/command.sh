#!/usr/bin/env bash
# Session 33 run 2: the ranking's registers. NVIDIA's compiler keeps each key's digit, peer mask and shared-atomic
# result live to the end of the ranking (liveness of session 32's machine code). Trial knobs: RILL_T_EARLY=k makes
# key j's counter address depend on key j-k's place through an opaque zero (the rank computed before), RILL_T_REDIGIT
# recomputes the digit after the scan through an opaque shift, RILL_T_PARTS=p packs the counters and exchanges
# tiles of 256 x 24 in p parts (less shared memory). Registers, time, machine code.
source .device/env.sh
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
tarit() { cd $OUT && tar czf run2.tgz run2 && cd - > /dev/null; }
c() { local name=$1; shift; mkdir -p $O/dump_$name; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_VK_PIPELINE_DUMP=$O/dump_$name RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)|^\| radix sort" $O/$name.txt | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq; grep -E "radix_(scatter|sweep)_keys|radix_sweep_pairs|radix_scatter_pairs" $O/$name.txt | grep -E "ms per" | head -4
  python3 bench/gpu/nv_cache_code.py $O/dump_$name $O/$name.txt $O/code_$name > $O/cut_$name.txt 2>&1; for f in $O/code_$name/radix_s*keys*.bin; do [ -f "$f" ] && nvdisasm -b SM90 -hex $f > ${f%.bin}.sass 2>&1; done; rm -f $O/code_$name/*.bin; rm -rf $O/dump_$name; tarit; }
c A
c E2D RILL_T_EARLY=2 RILL_T_REDIGIT=1
c E1D RILL_T_EARLY=1 RILL_T_REDIGIT=1
c D RILL_T_REDIGIT=1
c E2DP3 RILL_T_EARLY=2 RILL_T_REDIGIT=1 RILL_T_PARTS=3
c P3 RILL_T_PARTS=3
c E2DP4 RILL_T_EARLY=2 RILL_T_REDIGIT=1 RILL_T_PARTS=4
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
