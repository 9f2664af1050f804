# Sourced from the project root at the start of a run script on the GPU machine, after the
# recipe in ../shared/device/README.md (loaders in .gl/, binaries in .device/, both carried):
#
#   source bench/gpu/device_prologue.sh NAME
#
# Unpacks the loaders (.device/env.sh), puts CUDA's tools on PATH, unpacks the binaries
# carried gzip'ed in .device/bin (whole builds are over the carry limit), and sets O to
# $OUT/NAME (made), el to print the seconds since, and finish to pack $O as $OUT/NAME.tgz
# (machine code gzip'ed) for the trip back.
source .device/env.sh
export PATH=$PATH:/usr/local/cuda/bin
for f in .device/bin/*.gz; do
    [ -e "$f" ] || continue
    gunzip -f "$f" && chmod +x "${f%.gz}"
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
