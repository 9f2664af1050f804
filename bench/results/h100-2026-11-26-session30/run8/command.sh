#!/usr/bin/env bash
# Session 30 run 8: the sort through OpenGL (run 7: keys 16.5 ms): HEAD (584db0d), the kept code, and the kept code
# with keys-only tiles of 256 x 16 (a trial build), alternating.
source .device/env.sh
O=$OUT/run8; mkdir -p $O
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
c() { local name=$1 bin=$2; shift 2; env "$@" RILL_BACKEND=opengl RILL_BENCH_ONLY=sort RILL_PROFILE=1 timeout 100 $bin 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(el) s"; grep -E "scatter_keys|radix_hist|uint32 keys \|" $O/$name.txt | sort | uniq | head -30; }
c GH rill-bench-head
c GN rill-bench-bandwidth
c G16 rill-bench-k16
cd $OUT && tar czf run8.tgz run8 && rm -rf run8
