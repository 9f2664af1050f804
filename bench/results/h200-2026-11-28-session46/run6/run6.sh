#!/usr/bin/env bash
# Session 46, run 6 (H200): run 5's harness ran out of its time before its peers; here the bandwidth part of
# bench/gpu/run.sh alone (rill through Vulkan and OpenGL, the hand-written Vulkan copy, CUB, PyTorch) in one machine
# session, as run.sh runs it, then the table; and the showcase on the real driver (its OBJ loader library carried).
source .device/env.sh
for f in .device/bin/*.gz; do gunzip -f "$f"; chmod +x "${f%.gz}"; done
O=$OUT/run6; mkdir -p $O/full
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(nvcc -O3 -std=c++17 -arch=sm_90 bench/gpu/cub_peers.cu -o /tmp/cub > $O/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $O/nvcc.txt) &
timeout 30 rill-vk-copy-peer 28 > $O/full/peer_vk_copy.json; echo "vk copy rc=$? at $(el) s"
for b in vulkan opengl; do
  RILL_BENCH_SORT_RUNS=0 RILL_BACKEND=$b timeout 150 rill-bench-bandwidth 28 $O/full/rill_$b.json > $O/full/rill_$b.txt 2>&1; echo "$b rc=$? at $(el) s"
done
wait; tail -1 $O/nvcc.txt
timeout 40 /tmp/cub 28 > $O/full/peer_cub.json 2> $O/cub.txt; echo "cub rc=$? at $(el) s"
timeout 90 python3 bench/gpu/torch_peers.py 28 > $O/full/peer_torch.json 2> $O/torch.txt; echo "torch rc=$? at $(el) s"
python3 bench/table.py $O/full > $O/table.txt 2>&1; echo "table rc=$?"; cat $O/table.txt
timeout 60 rill-showcase --out $O/showcase.png > $O/showcase.txt 2>&1; echo "showcase rc=$? at $(el) s"; tail -5 $O/showcase.txt
cd $OUT && tar czf run6.tgz run6 && rm -rf run6
