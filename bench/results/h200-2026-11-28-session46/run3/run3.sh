#!/usr/bin/env bash
# Session 46, run 3 (H200): trial knobs (trial_knobs.patch), read at trace time: the look-back windows of Vulkan's
# pairs' (RILL_TRIAL_PW) and keys' (RILL_TRIAL_KW) sweeps, and the counting kernel's workgroups (RILL_TRIAL_CG) and
# keys per invocation (RILL_TRIAL_CI). Sweep and counting-kernel figures are separate per-kernel lines, so one process
# tries one of each. B1/B2: no knob (HEAD's code). CUB in the same machine session.
source .device/env.sh
O=$OUT/run3; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1; shift
  env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 150 rill-bench-bandwidth 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name $* rc=$? at $(el) s"
  grep -E "^  (radix sort|OneSweep) (keys|pairs): span" $O/$name.txt | sed -E 's/, kernels.*//; s/radix sort/A/; s/OneSweep/O/' | tr '\n' ' '; echo; grep -E "^    radix_" $O/$name.txt | awk '{print $1, $4}' | tail -6 | tr '\n' ' '; echo; grep -E "wrong|rror|differ" $O/$name.txt | head -3
  grep -E "statistics of 'radix_pass_counts" $O/$name.txt | sed -E "s/.*of .(radix_[a-z_]*).: Register Count = ([0-9]+);.*Shared Memory Size = ([0-9]+);.*/\1 \2 regs \3 B/" | sort | uniq | tr '\n' ' '; echo; }
c B1
c X1 RILL_TRIAL_PW=1 RILL_TRIAL_KW=2 RILL_TRIAL_CG=528
c X2 RILL_TRIAL_PW=3 RILL_TRIAL_KW=3 RILL_TRIAL_CG=1056
c X3 RILL_TRIAL_PW=4 RILL_TRIAL_KW=8 RILL_TRIAL_CG=4224
c X4 RILL_TRIAL_CI=8 RILL_TRIAL_CG=8448
c X5 RILL_TRIAL_CI=24 RILL_TRIAL_CG=2112
c X6 RILL_TRIAL_CI=32 RILL_TRIAL_CG=528
wait; tail -1 $O/nvcc.txt
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -oE "\"sort_(keys|pairs)_ms\":[0-9.]+" $O/cub.json | tr '\n' ' '; echo
c B2
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
