// Prefix sums (scans) of streams, written only in rill's DSL (group kernels).
//
//   rill::exclusive_scan(in, out);                       // out[i] = in[0] + ... + in[i-1]
//   rill::inclusive_scan(in, out, rill::ScanOp::Max);    // out[i] = max(in[0..i])
//   rill::exclusive_scan(in, out, rill::ScanOp::Add, 100u);  // starts at 100
//
// Elements are int32, uint32 or float; `in` and `out` may be the same stream
// (in place). The scheme is reduce-then-scan (GPU Gems 3 ch. 39 with tiles of
// 4096 elements per workgroup): per-tile totals, a scan of the totals (the same
// algorithm, recursively), then each tile scanned from its offset. No
// workgroup ever waits for another, so correctness does not depend on how the
// device schedules workgroups. Float results differ from a sequential scan by
// rounding only (the tree order of the additions differs).
#pragma once

#include <rill/rill.h>

namespace rill {

/// Associative operators a scan combines with (all commutative too).
enum class ScanOp { Add, Mul, Min, Max, And, Or, Xor };

/// The identity of `op` on T: what an exclusive scan starts from by default.
template <class T>
T scan_identity(ScanOp op);

template <class T>
void exclusive_scan(const Stream<T>& in, const Stream<T>& out, ScanOp op, T init);
template <class T>
void exclusive_scan(const Stream<T>& in, const Stream<T>& out, ScanOp op = ScanOp::Add) {
    exclusive_scan(in, out, op, scan_identity<T>(op));
}
template <class T>
void inclusive_scan(const Stream<T>& in, const Stream<T>& out, ScanOp op = ScanOp::Add);

/// Elements per workgroup tile (the unit of the scan's passes).
inline constexpr std::int64_t kScanTile = 4096;

}  // namespace rill
