#!/usr/bin/env bash
# Session 35 run 5: run 4 found an SM holding one tile instead of two 18% of the time. Is it the start of each workgroup?
# Every radix kernel loads the device-side count (elements_to_sort) before it knows n, even where there is none, and the
# tile's first loads wait for it. RILL_T_COND=1: that load only where there is a count. Clock runs record the kernel's entry too.
source .device/env.sh
O=$OUT/run5; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix sort, (OneSweep|count-then-scatter, 0 )" $O/$name.txt; grep -E "radix_sweep_keys|radix_sweep_pairs|radix_pass_counts" $O/$name.txt | grep -E "ms per" | head -3; }
B=rill-bench-bandwidth-trial
c T1 $B
c D1 $B RILL_T_COND=1
for v in CC CD; do
  if [ $v = CD ]; then X=RILL_T_COND=1; else X=RILL_T_NONE=1; fi
  c $v $B $X RILL_T_CLOCK=100 RILL_T_SMID=1 RILL_T_CLOCK_DIR=$O
  python3 .device/clock_analysis.py $O/clock_keys_268435456.bin 2 > $O/clock_keys_$v.txt 2>&1
  python3 .device/clock_analysis.py $O/clock_pairs_268435456.bin 4 > $O/clock_pairs_$v.txt 2>&1
  for k in keys pairs; do echo "== $k $v"; sed -n '/pass 1:/,/pass 2:/p' $O/clock_${k}_$v.txt | grep -E "tile time \(|look-back \(|share"; tail -4 $O/clock_${k}_$v.txt; done
  rm -f $O/*.bin
done
c T2 $B
c D2 $B RILL_T_COND=1
cd $OUT && tar czf run5.tgz run5 && rm -rf run5
