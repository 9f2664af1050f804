#!/usr/bin/env bash
# Session 35 run 7: run 2 found each tile in a look-back step's window adding ~50 ns to the step, whatever the loads
# (run 3). RILL_T_BL=1: the window's states added up without branches (selects), with windows of 2, 4, 8, 16 (RILL_T_WIN).
source .device/env.sh
O=$OUT/run7; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix sort, OneSweep" $O/$name.txt; grep -E "radix_sweep_keys|radix_sweep_pairs" $O/$name.txt | grep -E "ms per" | head -2; }
B=rill-bench-bandwidth-trial
c T1 $B
c B2 $B RILL_T_BL=1 RILL_T_WIN=2
c B4 $B RILL_T_BL=1 RILL_T_WIN=4
c B8 $B RILL_T_BL=1 RILL_T_WIN=8
c B16 $B RILL_T_BL=1 RILL_T_WIN=16
c CB8 $B RILL_T_BL=1 RILL_T_WIN=8 RILL_T_CLOCK=100 RILL_T_CLOCK_DIR=$O
python3 .device/clock_analysis.py $O/clock_keys_268435456.bin 8 > $O/clock_keys_CB8.txt 2>&1
python3 .device/clock_analysis.py $O/clock_pairs_268435456.bin 8 > $O/clock_pairs_CB8.txt 2>&1
for k in keys pairs; do echo "== $k CB8"; sed -n '/pass 1:/,/pass 2:/p' $O/clock_${k}_CB8.txt | grep -E "tile time \(|look-back \(|steps lid0|per step|share"; done
rm -f $O/*.bin
cd $OUT && tar czf run7.tgz run7 && rm -rf run7
