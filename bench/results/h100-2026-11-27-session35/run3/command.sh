#!/usr/bin/env bash
# Session 35 run 3: how the sweep reads the tile states. Run 2 found each extra tile in a look-back step's window adding
# ~50 ns to the step (pairs: 370 / 512 / 714 / 1068 ns per step with windows of 2 / 4 / 8 / 16): the loads do not overlap.
# Trials (GLSL of radix_sweep kernels only): RILL_T_AL=1 atomicLoad (relaxed, device scope) of a coherent (not volatile) buffer
# inside the bounds check's if; 2 the same without the if (index clamped, as plain loads); 3 volatile loads without the if;
# RILL_T_AS=1 publish with atomicStore (relaxed) instead of atomicExchange; RILL_T_WIN windows.
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix sort, OneSweep" $O/$name.txt; grep -E "radix_sweep_keys|radix_sweep_pairs" $O/$name.txt | grep -E "ms per" | head -2; }
B=rill-bench-bandwidth-trial
c T1 $B
c A2 $B RILL_T_AL=2
c A1 $B RILL_T_AL=1
c A3 $B RILL_T_AL=3
c A2S $B RILL_T_AL=2 RILL_T_AS=1
c A2W8 $B RILL_T_AL=2 RILL_T_WIN=8
c A2W16 $B RILL_T_AL=2 RILL_T_WIN=16
c CA2 $B RILL_T_AL=2 RILL_T_CLOCK=6 RILL_T_CLOCK_DIR=$O
python3 .device/clock_analysis.py $O/clock_pairs_268435456.bin 4 > $O/clock_pairs_CA2.txt 2>&1
sed -n '/pass 1:/,/pass 2:/p' $O/clock_pairs_CA2.txt | grep -E "kernel span|tile time \(|rank|exchange|look-back \(|other|write|steps lid0|distance|per step|share"
rm -f $O/*.bin
c T2 $B
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
