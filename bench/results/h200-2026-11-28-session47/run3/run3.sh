#!/usr/bin/env bash
# Session 47, run 3 (H200): the landed barriers (N: Vulkan's shared-only barriers one controlBarrier with shared
# semantics; the radix sweeps' barriers shared-only, GroupOptions::shared_only_barriers) against HEAD 905a594's build
# (H, run 2's binary with no knob set), alternating: the sorts twice each, then the whole bandwidth table through
# Vulkan once each (RILL_BENCH_SORT_RUNS=0, as bench/gpu/run.sh), CUB in the same machine session.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run3; mkdir -p $O/full_H $O/full_N
t0=$(date +%s)
el() { echo "at $(( $(date +%s) - t0 )) s"; }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
V=bench/gpu/sort_variant.sh
ops() { for f in $O/$1_sass/*.sass; do echo "$1 $(basename $f): $(grep -oE '(BAR|MEMBAR)[.A-Z0-9]*' $f | sort | uniq -c | tr -s ' ' | tr '\n' ';')"; done; rm -rf $O/$1_sass; }
RILL_BENCH_BIN=rill-bench-bandwidth-head $V $O H1 28 RILL_VK_PIPELINE_DUMP=/tmp/dH; ops H1; el
$V $O N1 28 RILL_VK_PIPELINE_DUMP=/tmp/dN; ops N1; el
RILL_BENCH_BIN=rill-bench-bandwidth-head $V $O H2; el
$V $O N2; el
full() { RILL_BENCH_SORT_RUNS=0 RILL_BACKEND=vulkan timeout 150 $2 28 $O/full_$1/rill_vulkan.json > $O/full_$1/rill_vulkan.txt 2>&1; echo "full $1 rc=$?"; el; }
full H rill-bench-bandwidth-head
full N rill-bench-bandwidth
wait; tail -1 $O/nvcc.txt
timeout 40 /tmp/cub 28 > $O/cub.json 2> $O/cub.txt; echo "cub rc=$?"; el; grep -oE "\"sort_(keys|pairs)_ms\":[0-9.]+" $O/cub.json | tr '\n' ' '; echo
cp $O/cub.json $O/full_H/peer_cub.json; cp $O/cub.json $O/full_N/peer_cub.json
for s in H N; do python3 bench/table.py $O/full_$s > $O/table_$s.txt 2>&1; done
paste -d'|' <(grep '| vulkan |' $O/table_H.txt | cut -d'|' -f2,4,7) <(grep '| vulkan |' $O/table_N.txt | cut -d'|' -f4,7)
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
