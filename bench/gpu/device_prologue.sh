# Sourced from the project root at the start of a run script on the GPU machine, after the
# recipe in ../shared/device/README.md (loaders in .gl/, binaries in .device/, both carried):
#
#   source bench/gpu/device_prologue.sh NAME
#
# Unpacks the libraries and binaries carried gzip'ed in .device/lib and .device/bin (whole
# builds are over the carry limit; bench/gpu/pack.sh packs them), the loaders
# (.device/env.sh), puts CUDA's tools on PATH, and sets O to
# $OUT/NAME (made), el to print the seconds since, and finish to pack $O as $OUT/NAME.tgz
# (machine code gzip'ed) for the trip back.
for f in .device/lib/*.gz; do  # libraries gzip'ed by bench/gpu/pack.sh
    [ -e "$f" ] && gunzip -f "$f"
done
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do
    [ -e "$f" ] || continue
    gunzip -f "$f" && chmod +x "${f%.gz}"
done
# The test meshes, carried gzip'ed in .device/meshes, for the scripts and the app tests.
for f in .device/meshes/*.obj.gz; do
    [ -e "$f" ] && gunzip -kf "$f" && export RILL_TEST_MESHES=$PWD/.device/meshes
done
run_name=${1:?usage: source bench/gpu/device_prologue.sh NAME}
O=$OUT/$run_name
mkdir -p "$O"
run_start=$(date +%s)
el() { echo "at $(($(date +%s) - run_start)) s"; }
finish() {
    for f in "$O"/*_sass/*.sass; do [ -e "$f" ] && gzip -f "$f"; done
    (cd "$OUT" && tar czf "$run_name.tgz" "$run_name" && rm -rf "$run_name")
}
# slowest_builds FILE: the three slowest kernel builds RILL_LOG_COMPILES=1 logged in FILE, then
# how many there were and where their time went on average (the phases the backend timed).
slowest_builds() {
    grep "ready in" "$1" | sed -E 's/.* ready in ([0-9.]+) ms.*/\1 &/' | sort -g -r | head -3 | cut -d' ' -f2-
    python3 - "$1" <<'PY'
import collections, re, sys
phases, builds, total = collections.defaultdict(float), 0, 0.0
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r" ready in ([0-9.]+) ms \((.*)\)$", line.rstrip())
    if not m:
        continue
    builds, total = builds + 1, total + float(m.group(1))
    for part in m.group(2).split(", "):
        p = re.match(r"(.*) ([0-9.]+) ms$", part)
        if p:
            phases[p.group(1)] += float(p.group(2))
if builds:
    print(f"{builds} builds, {total / builds:.1f} ms each on average: " + ", ".join(f"{k} {v / builds:.1f} ms" for k, v in phases.items()))
PY
}
# run_gpu_tests LABEL TESTS APP_TESTS: the gtest filters TESTS (rill-tests) and APP_TESTS
# (rill-app-tests; none where APP_TESTS is empty) on Vulkan and OpenGL, BACKEND in a filter standing for each; GL debug
# output on (the GPU machine's image has no Vulkan validation layer). Output in $O.
# RILL_SKIP_GPU_TESTS=1 leaves them out (a call after bench/gpu/gpu_tests.sh ran them all).
run_gpu_tests() {
    local label=$1 tests=$2 app_tests=$3 backend
    [ "${RILL_SKIP_GPU_TESTS:-0}" = 1 ] && { echo "$label tests left out (RILL_SKIP_GPU_TESTS=1)"; return; }
    for backend in vulkan opengl; do
        RILL_GL_DEBUG=1 rill-tests --gtest_filter="${tests//BACKEND/$backend}" > "$O/tests_$backend.txt" 2>&1 \
            && echo "$label tests on $backend passed" \
            || { echo "$label tests on $backend FAILED"; grep -E "FAILED|Failure" "$O/tests_$backend.txt" | head; }
        [ -n "$app_tests" ] || continue
        RILL_GL_DEBUG=1 rill-app-tests --gtest_filter="${app_tests//BACKEND/$backend}" > "$O/app_tests_$backend.txt" 2>&1 \
            && echo "$label app tests on $backend passed" || echo "$label app tests on $backend FAILED"
    done
}
