#!/usr/bin/env bash
# Session 35 run 2: the sweep timed from inside (RILL_T_CLOCK at the 6th OneSweep sort of keys and of pairs, past the GPU's clock ramp)
# with look-back windows of 2, 4, 8 and 16 tiles (RILL_T_WIN) for both keys and pairs.
source .device/env.sh
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq; grep -E "radix sort, OneSweep" $O/$name.txt; grep -E "radix_sweep_keys|radix_sweep_pairs" $O/$name.txt | grep -E "ms per" | head -2; }
for w in 2 4 8 16; do
  c W$w rill-bench-bandwidth-trial RILL_T_CLOCK=6 RILL_T_CLOCK_DIR=$O RILL_T_WIN=$w
  for kind in keys pairs; do
    python3 .device/clock_analysis.py $O/clock_${kind}_268435456.bin $w > $O/clock_${kind}_W$w.txt 2>&1
    echo "== $kind W$w pass 1"; sed -n '/pass 1:/,/pass 2:/p' $O/clock_${kind}_W$w.txt | grep -E "kernel span|tile time \(|rank|exchange|look-back \(|other|write|steps lid0|distance|per step|share"
  done
  rm -f $O/*.bin
done
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
