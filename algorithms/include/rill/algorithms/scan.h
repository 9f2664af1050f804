// Prefix sums (scans) of streams, written only in rill's DSL (group kernels).
//
//   rill::exclusive_scan(in, out);                       // out[i] = in[0] + ... + in[i-1]
//   rill::inclusive_scan(in, out, rill::ScanOp::Max);    // out[i] = max(in[0..i])
//   rill::exclusive_scan(in, out, rill::ScanOp::Add, 100u);  // starts at 100
//
// Elements are int32, uint32 or float; `in` and `out` may be the same stream
// (in place). The scheme is a single pass with decoupled look-back (Merrill
// and Garland 2016; tiles of 4096 elements per workgroup, each scanned as in
// GPU Gems 3 ch. 39): a tile publishes its total, then finds its prefix from
// the totals and prefixes the tiles before it published, so every element is
// read once and written once. Tiles are numbered in the order workgroups
// start, so a tile only ever waits for tiles that are already running;
// correctness does not depend on how many workgroups the device runs at once
// (ScanAlgorithm says where the classic reduce-then-scan runs instead).
// Float results differ from a sequential scan by rounding only (the tree order
// of the additions differs).
#pragma once

#include <rill/rill.h>

namespace rill {

/// Associative operators a scan combines with (all commutative too).
enum class ScanOp { Add, Mul, Min, Max, And, Or, Xor };

/// How a scan runs. SinglePass: decoupled look-back, each element read once
/// and written once. ReduceThenScan (GPU Gems 3 ch. 39.2.4): tile totals, a
/// scan of the totals, then the tiles: it reads the input twice but no
/// workgroup ever waits for another. Auto: SinglePass, except on devices that
/// end long loops (DeviceLimits::loop_iterations: llvmpipe, lavapipe), where a
/// look-back that waits for a descheduled tile could be cut short.
enum class ScanAlgorithm { Auto, SinglePass, ReduceThenScan };

struct ScanOptions {
    ScanAlgorithm algorithm = ScanAlgorithm::Auto;
};

/// The identity of `op` on T: what an exclusive scan starts from by default.
template <class T>
T scan_identity(ScanOp op);

template <class T>
void exclusive_scan(const Stream<T>& in, const Stream<T>& out, ScanOp op, T init, ScanOptions options = {});
template <class T>
void exclusive_scan(const Stream<T>& in, const Stream<T>& out, ScanOp op = ScanOp::Add, ScanOptions options = {}) {
    exclusive_scan(in, out, op, scan_identity<T>(op), options);
}
template <class T>
void inclusive_scan(const Stream<T>& in, const Stream<T>& out, ScanOp op = ScanOp::Add, ScanOptions options = {});

/// Elements per workgroup tile (the unit of the scan's passes).
inline constexpr std::int64_t kScanTile = 4096;

}  // namespace rill
