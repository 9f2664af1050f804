#!/usr/bin/env bash
# Session 39 run 2: trials_run2.patch (against 866b411): pairs' sweep with digits recomputed after the scan (PRD) alone, with tiles of 256 x 22 and 24 (PI), unchecked (PUA), full tiles' key loads apart (PFULL=1) and key writes too (PFULL=2), against no knob; count-then-scatter pairs' tile 256 x 20 (PCI) with its registers.
source .device/env.sh
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
c() { local name=$1 bin=$2; shift 2; if [ $(el) -gt 480 ]; then echo "$name skipped at $(el) s"; return; fi; env RILL_BENCH_SORT_RUNS= "$@" RILL_VK_PIPELINE_STATS=1 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "statistics of 'radix_(sweep|scatter)_(keys|pairs)" $O/$name.txt | grep -oE "'radix_[a-z_]+'|Register Count = [0-9]+|Shared Memory Size = [0-9]+" | paste - - - | sort | uniq | tr '\n' ' '; echo; grep -E "radix_sweep_(keys|pairs)" $O/$name.txt | grep -E "ms per" | head -4 | awk '{print $1, $4}' | tr '\n' ' '; echo; grep -E "^\| radix sort, uint32 (keys|pairs) \||count-then-scatter, 0|wrong|rror|differ" $O/$name.txt; }
T=rill-bench-bandwidth-t
c V1 $T
c PRD1 $T RILL_TRIAL_PRD=1
c PRD22 $T RILL_TRIAL_PRD=1 RILL_TRIAL_PI=22
c PRD24 $T RILL_TRIAL_PRD=1 RILL_TRIAL_PI=24
c PRDUA $T RILL_TRIAL_PRD=1 RILL_TRIAL_PUA=1
c PRDF1 $T RILL_TRIAL_PRD=1 RILL_TRIAL_PFULL=1
c PRDF2 $T RILL_TRIAL_PRD=1 RILL_TRIAL_PFULL=2
c V2 $T RILL_BENCH_SORT_RUNS=0
c PRD2 $T RILL_TRIAL_PRD=1 RILL_TRIAL_PCI=20 RILL_BENCH_SORT_RUNS=0
wait
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"; grep -iE "sort" $O/cub.json | head -4
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
