#!/usr/bin/env bash
# The CPU SAXPY figure of issue 7 on a noisy machine: runs rill-bench-spine's
# TBB copy, hand-written TBB SAXPY and rill SAXPY (2^26 floats) back to back N
# times, alternating between the given environment settings, and prints per
# setting the median ratio of rill SAXPY and of the TBB SAXPY to the copy.
#
#   bench/cpu_saxpy_ratio.sh N [SETTING ...]      e.g. 9 "" "RILL_CPU_STREAMING_BYTES=0"
set -euo pipefail
n=${1:?usage: bench/cpu_saxpy_ratio.sh N [SETTING ...]}
shift
[ $# -gt 0 ] || set -- ""
bench=${RILL_BENCH_SPINE:-build/bench/rill-bench-spine}
for i in $(seq "$n"); do
    for setting in "$@"; do
        env $setting RILL_BACKEND=cpu "$bench" --benchmark_filter='TbbCopy|Saxpy/67108864' --benchmark_min_time=0.3 \
            --benchmark_format=csv 2> /dev/null | python3 -c "
import csv, sys
rows = {r['name']: float(r['bytes_per_second']) for r in csv.DictReader(l for l in sys.stdin if l.startswith(('name', '\"BM')))}
copy = rows['BM_TbbCopy/real_time']
print('$setting|%.3f %.3f %.1f' % (rows['BM_RillSaxpy/67108864/real_time'] / copy, rows['BM_TbbSaxpy/67108864/real_time'] / copy, copy / 1e9))"
    done
done | python3 -c "
import statistics as st, sys
runs = {}
for line in sys.stdin:
    setting, values = line.rstrip('\n').split('|')
    runs.setdefault(setting, []).append([float(v) for v in values.split()])
for setting, v in runs.items():
    rill = [x[0] for x in v]
    print('%-40s rill/copy median %.3f (min %.3f, max %.3f), TBB SAXPY/copy median %.3f, copy median %.1f GB/s, %d runs'
          % (setting or 'defaults', st.median(rill), min(rill), max(rill), st.median(x[1] for x in v), st.median(x[2] for x in v), len(v)))"
