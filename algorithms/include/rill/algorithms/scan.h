// Prefix sums (scans) of streams, written only in rill's DSL (group kernels).
//
//   rill::exclusive_scan(in, out);                       // out[i] = in[0] + ... + in[i-1]
//   rill::inclusive_scan(in, out, rill::ScanOp::Max);    // out[i] = max(in[0..i])
//   rill::exclusive_scan(in, out, rill::ScanOp::Add, 100u);  // starts at 100
//
// Elements are int32, uint32 or float; `in` and `out` may be the same stream
// (in place). Tiles of 4096 elements per workgroup are scanned as in GPU Gems 3
// ch. 39; the tiles' prefixes come from a scan of their totals
// (reduce-then-scan) or, on request, from a single pass with decoupled
// look-back (Merrill and Garland 2016), whose tiles are numbered in the order
// workgroups start, so that a tile only ever waits for tiles already running.
// Neither depends on how many workgroups the device runs at once.
// Float results differ from a sequential scan by rounding only (the tree order
// of the additions differs).
#pragma once

#include <rill/rill.h>

namespace rill {

/// Associative operators a scan combines with (all commutative too).
enum class ScanOp { Add, Mul, Min, Max, And, Or, Xor };

/// How a scan runs. ReduceThenScan (GPU Gems 3 ch. 39.2.4): tile totals, a
/// scan of the totals, then the tiles; it reads the input twice, and no
/// workgroup ever waits for another. SinglePass: decoupled look-back, each
/// element read once and written once; refused on devices that end long
/// loops (DeviceLimits::loop_iterations: llvmpipe, lavapipe), where a
/// look-back that waits for a descheduled tile could be cut short. Auto: the
/// faster of the two as measured (docs/PERFORMANCE.md#scan): SinglePass through
/// Vulkan and OpenGL on the H100 and on the CPU backend
///; ReduceThenScan where SinglePass is refused.
/// Float sums: ReduceThenScan adds in the same order every run; SinglePass
/// adds a tile's predecessors as far back as its look-back had to go, which
/// depends on timing, so the last bits may differ from run to run (as with
/// CUB's decoupled look-back). Choose ReduceThenScan where bits must repeat.
/// The textbook scans, for teaching and for the published tables (slower):
/// HillisSteele, ceil(log2 n) passes over the whole stream, O(n log n) work,
/// as Horn used it (GPU Gems 2 ch. 36); Blelloch, the work-efficient
/// up-sweep / down-sweep in shared memory of GPU Gems 3 ch. 39.2.
enum class ScanAlgorithm { Auto, SinglePass, ReduceThenScan, HillisSteele, Blelloch };

/// How a scan's tile moves between memory and the invocations' registers.
/// Transposed: each invocation's consecutive elements are loaded striped
/// across the workgroup (coalesced) and transposed through shared memory.
/// Vectors: 16-byte loads of 4 elements, each subgroup taking rows of one
/// vector per invocation in turn, scanned with subgroup scans; no shared
/// memory for the tile, and streams that start at a multiple of 4 elements
/// (Array::load_vector): 1.35x Transposed on the H100 (docs/PERFORMANCE.md#scan).
/// Ballots (compaction only, CompactOptions::tile): each subgroup takes rows
/// of consecutive elements, one per invocation, and ranks the kept ones of a
/// row with one subgroup ballot; the single pass only, on devices with
/// subgroup ballots; the elements stay in registers (no shared memory for
/// the tile). Scans refuse it.
enum class TileLoad { Transposed, Vectors, Ballots };

/// The tile of SinglePass and ReduceThenScan: a workgroup of `workgroup`
/// invocations (64, 128, 256 or 512) scans `items` elements per invocation
/// (Transposed: 4, 8, 12, 16 or 24 consecutive ones; Vectors: 4, 8, 12 or 16,
/// in vectors of 4). A tuning knob; zeros take the fastest measured
/// (docs/PERFORMANCE.md#scan): on the H100 Vectors of 128 x 16 where both streams
/// start at a multiple of 4 elements, else Transposed (128 x 8 for
/// ReduceThenScan, for SinglePass 256 x 8 through Vulkan and 128 x 16 through
/// OpenGL); on the CPU backend 64 invocations that each read and write a row
/// of 256 elements themselves (its invocations run one after another, so a row
/// is consecutive memory and the transposition through shared memory only
/// costs; detail/rows.h).
struct ScanTile {
    int workgroup = 0;
    int items = 0;
    TileLoad load = TileLoad::Transposed;
};

/// Shared memory a workgroup of a scan of T with `tile` takes, at most, in
/// bytes: a tile larger than DeviceLimits::shared_memory_bytes allows is refused.
template <class T>
constexpr std::int64_t tile_shared_bytes(ScanTile tile) {
    const std::int64_t elements = tile.load == TileLoad::Vectors ? 0 : std::int64_t{tile.workgroup} * tile.items;
    return static_cast<std::int64_t>(sizeof(T)) * (elements + elements / 32 + tile.workgroup + 1) + 4;
}

struct ScanOptions {
    ScanAlgorithm algorithm = ScanAlgorithm::Auto;
    ScanTile tile = {};
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

/// Elements per workgroup tile of rill::reduce.
inline constexpr std::int64_t kScanTile = 4096;

}  // namespace rill
