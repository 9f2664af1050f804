#!/usr/bin/env bash
# Session 31 run 3: why the scatter at 256 x 24 takes 159-178 registers (128 at HEAD); run 2 ruled out the final
# barrier, the scan and where the counters are zeroed. Trial switches: a barrier between the counter lookups and the
# exchange (LOOKUP_BARRIER), a word per counter (UNPACKED), both, both with the two-barrier scan (SCAN). Registers
# from a sort of 2^16 keys; variants whose scatter or sweep fits 128 registers then sorted at 2^28, against HEAD.
# OneSweep keys at 256 x 24 in every variant (SWEEP24).
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
stats() { grep -E "statistics of 'radix_(sweep|scatter)" $1 | sed -E 's/Binary Size = [0-9]+; Stack Size = 0; Local Memory Size = [0-9]+; //' | sort | uniq; }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "sweep_|scatter_|radix_hist|radix sort" $O/$name.txt | sort | uniq | head -30; }
declare -A V=([V0]="RILL_TRIAL_LOOKUP_BARRIER=1" [V1]="RILL_TRIAL_UNPACKED=1" [V2]="RILL_TRIAL_LOOKUP_BARRIER=1 RILL_TRIAL_UNPACKED=1" [V3]="RILL_TRIAL_LOOKUP_BARRIER=1 RILL_TRIAL_UNPACKED=1 RILL_TRIAL_SCAN=1" [V4]="RILL_TRIAL_UNPACKED=1 RILL_TRIAL_SCAN=1")
for v in V0 V1 V2 V3 V4; do
  env ${V[$v]} RILL_TRIAL_SWEEP24=1 RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort timeout 60 rill-bench-bandwidth 16 $O/s$v.json > $O/s$v.txt 2>&1
  echo "$v (${V[$v]}) rc=$? at $(el) s"; stats $O/s$v.txt
done
cd $OUT && tar czf run3.tgz run3 && cd - > /dev/null
c H1 rill-bench-head
for v in V0 V1 V2 V3 V4; do
  r=$(grep "statistics of 'radix_scatter_keys'" $O/s$v.txt | head -1 | sed -E 's/.*Register Count = ([0-9]+).*/\1/')
  s=$(grep "statistics of 'radix_sweep_keys'" $O/s$v.txt | head -1 | sed -E 's/.*Register Count = ([0-9]+).*/\1/')
  if [ "${r:-999}" -le 128 ] || [ "${s:-999}" -le 128 ]; then c B$v rill-bench-bandwidth ${V[$v]} RILL_TRIAL_SWEEP24=1; fi
  cd $OUT && tar czf run3.tgz run3 && cd - > /dev/null
done
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
