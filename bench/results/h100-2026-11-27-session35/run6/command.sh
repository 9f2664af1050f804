#!/usr/bin/env bash
# Session 35 run 6: run 5 found ~0.75 us between the end of a tile and the entry of the workgroup that takes its SM slot.
# RILL_T_PERSIST=G: OneSweep's passes in G persistent workgroups, each taking its next tile by a ticket (an atomic add,
# issued at the start of the tile before, read from shared memory after the look-back's barrier). T: knobs off.
source .device/env.sh
O=$OUT/run6; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix sort, OneSweep" $O/$name.txt; grep -E "radix_sweep_keys|radix_sweep_pairs" $O/$name.txt | grep -E "ms per" | head -2; }
B=rill-bench-bandwidth-trial
c T1 $B
c P264 $B RILL_T_PERSIST=264
c P1024 $B RILL_T_PERSIST=1024
c P4096 $B RILL_T_PERSIST=4096
c P528 $B RILL_T_PERSIST=528
c T2 $B
c P1024b $B RILL_T_PERSIST=1024
c CP $B RILL_T_PERSIST=1024 RILL_T_CLOCK=100 RILL_T_SMID=1 RILL_T_CLOCK_DIR=$O
python3 .device/clock_analysis.py $O/clock_keys_268435456.bin 2 > $O/clock_keys_CP.txt 2>&1
python3 .device/clock_analysis.py $O/clock_pairs_268435456.bin 4 > $O/clock_pairs_CP.txt 2>&1
for k in keys pairs; do echo "== $k CP"; sed -n '/pass 1:/,/pass 2:/p' $O/clock_${k}_CP.txt | grep -E "tile time \(|look-back \(|steps lid0|share"; tail -4 $O/clock_${k}_CP.txt; done
rm -f $O/*.bin
cd $OUT && tar czf run6.tgz run6 && rm -rf run6
