#!/usr/bin/env bash
# Packs built binaries for a run on the GPU machine (../shared/device/README.md), under the 64 MiB a
# call carries: strips them, runs ../shared/device/prepare.sh on them (.device/bin, .device/lib, .gl),
# gzips the libraries (bench/gpu/device_prologue.sh unpacks both there) and the named test meshes of
# ../shared/data/meshes into .device/meshes. Run from the project root:
#
#   bench/gpu/pack.sh [--meshes "spot stanford-bunny"] build/tests/rill-tests build/bench/rill-bench-fft ...
#
# then carry .device and .gl (and the run script) and start it with `source bench/gpu/device_prologue.sh NAME`.
set -euo pipefail
meshes=
if [ "${1:-}" = --meshes ]; then
    meshes=$2
    shift 2
fi
[ $# -gt 0 ] || { echo "usage: bench/gpu/pack.sh [--meshes \"NAME ...\"] BINARY..." >&2; exit 2; }
stripped=$(mktemp -d)
trap 'rm -rf "$stripped"' EXIT
for b in "$@"; do strip -o "$stripped/$(basename "$b")" "$b"; done
rm -rf .device .gl
../shared/device/prepare.sh "$stripped"/* > /dev/null
gzip -9 .device/lib/*
if [ -n "$meshes" ]; then
    mkdir -p .device/meshes
    for m in $meshes; do gzip -9c "../shared/data/meshes/$m.obj" > ".device/meshes/$m.obj.gz"; done
fi
size=$(du -sm .device .gl | awk '{s += $1} END {print s}')
echo "packed: ${size} MiB to carry (at most 64)"
[ "$size" -le 64 ] || { echo "over the carry limit: pack fewer binaries" >&2; exit 1; }
