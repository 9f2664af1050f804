#!/usr/bin/env bash
# Session 52, run 3 (H200, run 2's machine still held): OpenGL's bandwidth part twice more, with CUB and PyTorch
# again, to see whether the OpenGL ratios compare.py flagged in run 2 (scan, reduce, SAXPY) fell or are the
# run-to-run spread. (Run as one command line; written out here as it ran.)
source bench/gpu/device_prologue.sh run3; mkdir -p $O/full; ls /tmp/rill_cub_peers*
for i in 1 2; do
    RILL_BENCH_SORT_RUNS=0 RILL_BACKEND=opengl timeout 170 rill-bench-bandwidth 28 "$O/full/rill_opengl.json" > "$O/full/rill_opengl$i.txt" 2>&1
    echo "gl$i rc=$?"; cp $O/full/rill_opengl.json $O/full/rill_opengl$i.json.txt; el
done
bench/gpu/cub_sort.sh time "$O/full" 28 peer_cub.json
timeout 90 python3 bench/gpu/torch_peers.py 28 > "$O/full/peer_torch.json" 2> "$O/torch.txt"
python3 bench/table.py "$O/full" 2>&1 | grep opengl | grep -v "ScatterOp\|radix"
grep -h "scan\|saxpy\|reduce" $O/full/rill_opengl1.txt | head -20; finish
