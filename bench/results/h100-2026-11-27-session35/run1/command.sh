#!/usr/bin/env bash
# Session 35 run 1: OneSweep's sweep timed from inside (RILL_T_CLOCK: device and SM clocks at six points of every tile, trial patch),
# and the sweep's barriers ordering shared memory only (RILL_T_SHBAR). N: session 34's final code; T: the trial binary, knobs off.
source .device/env.sh
O=$OUT/run1; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 120 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+" | paste - - | sort | uniq; grep -E "radix sort, OneSweep" $O/$name.txt; grep -E "radix_sweep_keys|radix_sweep_pairs" $O/$name.txt | grep -E "ms per" | head -2; }
c N1 rill-bench-bandwidth
c C1 rill-bench-bandwidth-trial RILL_T_CLOCK=4 RILL_T_CLOCK_DIR=$O
python3 .device/clock_analysis.py $O/clock_keys_268435456.bin 2 > $O/clock_keys.txt 2>&1; python3 .device/clock_analysis.py $O/clock_pairs_268435456.bin 4 > $O/clock_pairs.txt 2>&1
cat $O/clock_keys.txt | head -44; cat $O/clock_pairs.txt | head -24
c S1 rill-bench-bandwidth-trial RILL_T_SHBAR=1
c T1 rill-bench-bandwidth-trial
c S2 rill-bench-bandwidth-trial RILL_T_SHBAR=1
c N2 rill-bench-bandwidth
zstd -q -12 $O/clock_keys_268435456.bin -o $OUT/clock_keys.bin.zst; zstd -q -12 $O/clock_pairs_268435456.bin -o $OUT/clock_pairs.bin.zst; rm -f $O/*.bin
ls -la $OUT
cd $OUT && tar czf run1.tgz run1 && rm -rf run1
