#!/usr/bin/env bash
# The CPU SAXPY figure (docs/PERFORMANCE.md#the-cpu-backend) on a noisy machine: runs rill-bench-spine's
# BM_SaxpyOverCopy (TBB copy, rill SAXPY and the hand-written SAXPY take turns
# iteration by iteration, 2^26 floats) N times, alternating between the given
# environment settings, and prints per setting the median of the runs' ratios.
#
#   bench/cpu_saxpy_ratio.sh N [SETTING ...]      e.g. 9 "" "RILL_CPU_STREAMING_BYTES=0"
set -euo pipefail
n=${1:?usage: bench/cpu_saxpy_ratio.sh N [SETTING ...]}
shift
[ $# -gt 0 ] || set -- ""
bench=${RILL_BENCH_SPINE:-build/bench/rill-bench-spine}
for i in $(seq "$n"); do
    for setting in "$@"; do
        env $setting RILL_BACKEND=cpu "$bench" --benchmark_filter='SaxpyOverCopy' --benchmark_min_time=2 \
            --benchmark_format=json 2> /dev/null | python3 -c "
import json, sys
b = json.load(sys.stdin)['benchmarks'][0]
print('$setting|%.3f %.3f %.1f' % (b['rill_over_copy'], b['hand_over_copy'], b['copy_GBps']))"
    done
done | python3 -c "
import statistics as st, sys
runs = {}
for line in sys.stdin:
    setting, values = line.rstrip('\n').split('|')
    runs.setdefault(setting, []).append([float(v) for v in values.split()])
for setting, v in runs.items():
    rill = [x[0] for x in v]
    print('%-40s rill/copy median %.3f (min %.3f, max %.3f), hand-written SAXPY/copy median %.3f, copy median %.1f GB/s, %d runs'
          % (setting or 'defaults', st.median(rill), min(rill), max(rill), st.median(x[1] for x in v), st.median(x[2] for x in v), len(v)))"
