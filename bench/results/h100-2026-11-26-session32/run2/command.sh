#!/usr/bin/env bash
# Session 32 run 2: keys reloaded from the cache for the exchange (digits packed 4 to a register), so that a ranked
# tile holds fewer registers; with more exchange parts (3 workgroups per SM?) and other tiles. Trial knobs at trace time.
source .device/env.sh
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
tarit() { cd $OUT && tar czf run2.tgz run2 && cd - > /dev/null; }
c() { local name=$1; shift; mkdir -p $O/dump_$name; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_VK_PIPELINE_DUMP=$O/dump_$name RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)|^\| radix sort" $O/$name.txt | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq; grep -E "radix_(scatter|sweep)_keys|radix_sweep_pairs|radix_histogram|radix_pass_counts" $O/$name.txt | grep -E "ms" | head -6
  python3 bench/gpu/nv_cache_code.py $O/dump_$name $O/$name.txt $O/code_$name > /dev/null 2>&1; for f in $O/code_$name/radix_s*.bin; do [ -f "$f" ] && nvdisasm -b SM90 -hex $f > ${f%.bin}.sass 2>&1; rm -f $f; done; rm -rf $O/dump_$name; }
c A
c R RILL_T_RELOAD=1
tarit
c R3 RILL_T_RELOAD=1 RILL_T_PACKED=1 RILL_T_PARTS=3
c R32 RILL_T_RELOAD=1 RILL_T_KEYS_ITEMS=32
tarit
c R16 RILL_T_RELOAD=1 RILL_T_KEYS_ITEMS=16 RILL_T_PACKED=1 RILL_T_PARTS=2
c A2
tarit
