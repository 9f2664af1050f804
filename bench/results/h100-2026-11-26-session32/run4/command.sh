#!/usr/bin/env bash
# Session 32 run 4: OneSweep's counting kernel pass by pass over full tiles (COUNTS=1), in 1024 to 16384 workgroups
# (fewer global atomics on the same 1024 words). Trial knobs at trace time.
source .device/env.sh
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
tarit() { cd $OUT && tar czf run4.tgz run4 && cd - > /dev/null; }
c() { local name=$1; shift; mkdir -p $O/dump_$name; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_VK_PIPELINE_DUMP=$O/dump_$name RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter|pass|hist)|^\| radix sort" $O/$name.txt | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq; grep -E "radix_(scatter|sweep)_keys|radix_sweep_pairs|radix_histogram|radix_pass_counts" $O/$name.txt | grep -E "ms" | head -6
  python3 bench/gpu/nv_cache_code.py $O/dump_$name $O/$name.txt $O/code_$name > $O/cut_$name.txt 2>&1; for f in $O/code_$name/radix_NONE*.bin; do [ -f "$f" ] && nvdisasm -b SM90 -hex $f > ${f%.bin}.sass 2>&1; done; rm -f $O/code_$name/*.bin; rm -rf $O/dump_$name; }
export PATH=$PWD/.device/bin:$PATH
c C1 RILL_T_COUNTS=1
c G1k RILL_T_COUNTS=1 RILL_T_COUNT_GROUPS=1024
tarit
c G4k RILL_T_COUNTS=1 RILL_T_COUNT_GROUPS=4096
c G16k RILL_T_COUNTS=1 RILL_T_COUNT_GROUPS=16384
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
