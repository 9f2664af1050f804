#!/usr/bin/env bash
# Session 26 run 2: GLSL buffer qualifiers and barriers, one binary (HEAD + env knobs).
source .device/env.sh
O=$OUT/run2; mkdir -p $O
t0=$(date +%s)
r() { local name=$1 only=$2; shift 2; env RILL_BACKEND=vulkan RILL_BENCH_ONLY=$only RILL_PROFILE=1 "$@" timeout 100 rill-bench-bandwidth-knobs 28 $O/$name.json > $O/$name.txt 2>&1; echo "$name rc=$? at $(( $(date +%s) - t0 )) s"; }
N() { r N$1 $2; }
A() { r A$1 $2 RILL_TRY_RESTRICT=0 RILL_TRY_READONLY=0 RILL_TRY_SHAREDBAR=0; }
C() { r C$1 $2 RILL_TRY_RESTRICT=0 RILL_TRY_READONLY=0; }
D() { r D$1 $2 RILL_TRY_RESTRICT=0; }
E() { r E$1 $2 RILL_TRY_READONLY=0; }
N 1 sort,scan; A 1 sort,scan; C 1 sort,scan; D 1 sort,scan; E 1 sort,scan
for v in E D C A N; do [ $(( $(date +%s) - t0 )) -lt 500 ] && $v 2 sort; done
RILL_TRY_RESTRICT=0 RILL_TRY_READONLY=0 RILL_BACKEND=vulkan RILL_BENCH_ONLY=sort RILL_VK_PIPELINE_STATS=1 timeout 60 rill-bench-bandwidth-knobs 20 $O/statsC.json > $O/pipeline_stats_C.txt 2>&1
cd $OUT && tar czf run2.tgz run2 && rm -rf run2
