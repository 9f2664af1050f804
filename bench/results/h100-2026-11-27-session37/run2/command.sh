#!/usr/bin/env bash
# Session 37 run 2: three workgroups per SM for the keys' sweep? (run 1: an SM holds 3 workgroups of <= 16 KB, 2 of <= 24 KB).
# T = HEAD + wip trials + knobs: KI keys per invocation, XW exchange words (items + counters), CW 1 word counters / 2 halves,
# RD recompute digits, UA=1 keys-only kernels without Array bounds checks. H = HEAD.
source .device/env.sh
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)_keys" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+|Shared Memory Size = [0-9]+" | paste - - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_sweep_keys|radix_scatter_keys" $O/$name.txt | grep -E "ms per" | head -4; grep -E "^\| radix sort, uint32 (keys|pairs) \||OneSweep: keys|count-then-scatter, 0 tiles|wrong" $O/$name.txt; }
c U1 rill-bench-bandwidth-t RILL_TRIAL_UA=1
c A rill-bench-bandwidth-t RILL_TRIAL_UA=1 RILL_TRIAL_KI=24 RILL_TRIAL_XW=3584 RILL_TRIAL_CW=1
c B rill-bench-bandwidth-t RILL_TRIAL_UA=1 RILL_TRIAL_KI=16 RILL_TRIAL_XW=3072 RILL_TRIAL_CW=1
c C rill-bench-bandwidth-t RILL_TRIAL_UA=1 RILL_TRIAL_KI=16 RILL_TRIAL_XW=3584 RILL_TRIAL_CW=2
c D rill-bench-bandwidth-t RILL_TRIAL_UA=1 RILL_TRIAL_KI=20 RILL_TRIAL_XW=3584 RILL_TRIAL_CW=1
c E rill-bench-bandwidth-t RILL_TRIAL_UA=1 RILL_TRIAL_KI=12 RILL_TRIAL_XW=3584 RILL_TRIAL_CW=1 RILL_TRIAL_RD=1
c F rill-bench-bandwidth-t RILL_TRIAL_UA=1 RILL_TRIAL_KI=16
c H rill-bench-bandwidth-h
c U2 rill-bench-bandwidth-t RILL_TRIAL_UA=1
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
