#!/usr/bin/env bash
# Session 35 run 4: the sweep timed from inside at full clocks (the 100th OneSweep sort of keys and of pairs, after the
# bench's one-second warm-up began), with each tile's SM (gl_SMIDNV): how many tiles an SM holds, and how often all of them wait in the look-back.
source .device/env.sh
O=$OUT/run4; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix sort, OneSweep" $O/$name.txt; grep -E "radix_sweep_keys|radix_sweep_pairs" $O/$name.txt | grep -E "ms per" | head -2; }
c C1 rill-bench-bandwidth-trial RILL_T_CLOCK=100 RILL_T_SMID=1 RILL_T_CLOCK_DIR=$O
python3 .device/clock_analysis.py $O/clock_keys_268435456.bin 2 > $O/clock_keys.txt 2>&1
python3 .device/clock_analysis.py $O/clock_pairs_268435456.bin 4 > $O/clock_pairs.txt 2>&1
for k in keys pairs; do echo "== $k"; sed -n '/pass 1:/,/pass 2:/p' $O/clock_$k.txt; tail -3 $O/clock_$k.txt; done
zstd -q -12 $O/clock_keys_268435456.bin -o $OUT/clock_keys.bin.zst; zstd -q -12 $O/clock_pairs_268435456.bin -o $OUT/clock_pairs.bin.zst; rm -f $O/*.bin
cd $OUT && tar czf run4.tgz run4 && rm -rf run4
