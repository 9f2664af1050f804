// Scans over tiles of workgroups of 128 invocations, 8 or 16 elements each
// (by default; ScanTile gives other shapes): single pass with decoupled look-back (Merrill and Garland,
// 2016), or reduce-then-scan (see ScanAlgorithm). Loads and stores are striped across the
// workgroup (coalesced) and transposed through shared memory, so that each
// invocation scans its consecutive elements in registers; the workgroup then
// scans the invocations' totals with subgroup scans plus a scan of the
// subgroup totals in shared memory (any subgroup size, 1 included). In the
// single pass a tile's prefix comes from the tiles before it (detail/look_back.h),
// so the input is read once and the output written once: 8 bytes moved per
// 4-byte element, against 12 for reduce-then-scan.
#include "rill/algorithms/scan.h"

#include "rill/algorithms/reduce.h"

#include <rill/algorithms/detail/kernel_cache.h>
#include <rill/algorithms/detail/look_back.h>
#include <rill/algorithms/detail/rows.h>
#include <rill/algorithms/detail/workgroup_scan.h>

#include "classic_scans.h"

#include <limits>

namespace rill {

namespace {

using detail::combine;
namespace look_back = detail::look_back;
using detail::padded;

/// A tile: `wg` invocations of `items` elements each (ScanTile). Rows: each
/// invocation reads and writes its consecutive elements itself (kRowShape)
/// rather than striped across the workgroup through shared memory. Vectors:
/// in vectors of 4, rows of them striped across each subgroup
/// (TileLoad::Vectors). A value, not a template argument: the kernels are
/// traced for the shape asked for, and one function traces every shape.
struct Shape {
    int wg = 0, items = 0;
    bool rows = false, vectors = false;
    constexpr std::int32_t size() const { return wg * items; }
    auto operator<=>(const Shape&) const = default;
};
/// The CPU backend's tile (detail/rows.h): each invocation reduces its row,
/// the workgroup scans those totals, and each invocation scans its row again
/// from its start, reading it a second time from cache rather than keeping it.
constexpr Shape kRowShape{detail::kRowWorkgroup, detail::kRowItems, true};
/// rill::reduce's tile (at the copy roof on the H100) and the Variant default.
constexpr Shape kReduceShape{256, 16};
static_assert(kReduceShape.size() == kScanTile);

using detail::scan_op_name;

/// Loads the tile of sh.size() elements from `base` (identity past n)
/// striped across the workgroup, so that loads are coalesced, and transposes
/// it through `tile`: invocation l gets elements sh.items l .. sh.items (l + 1) - 1,
/// returned scanned (inclusive) within those.
template <class T>
std::vector<Var<T>> load_rows(const Shape& sh, ScanOp op, T id, const Array<T>& in, const Int& base, const Int& n,
                              const Shared<T>& tile) {
    for (int j = 0; j < sh.items; ++j) {
        Int i = j * sh.wg + local_id();
        tile.store(padded(i), select(base + i < n, in.load(base + i), Expr<T>(id)));
    }
    barrier();
    std::vector<Var<T>> x;
    Int row = local_id() * sh.items;
    for (int j = 0; j < sh.items; ++j) x.emplace_back(tile.load(padded(row + j)));
    std::vector<Var<T>> running;
    running.emplace_back(x[0]);
    for (int j = 1; j < sh.items; ++j) running.emplace_back(combine<T>(op, running[j - 1], x[j]));
    return running;
}

/// The way back: each invocation's results (start combined with its running
/// values) go through `tile` and out striped. Every invocation must have read
/// its row (a barrier) before the call.
template <class T>
void store_rows(const Shape& sh, ScanOp op, bool inclusive, const Expr<T>& start, const std::vector<Var<T>>& running,
                const Array<T>& out, const Int& base, const Shared<T>& tile) {
    Int row = local_id() * sh.items;
    for (int j = 0; j < sh.items; ++j) {
        Expr<T> v = inclusive ? combine<T>(op, start, running[j])
                              : (j == 0 ? start : combine<T>(op, start, running[j - 1]));
        tile.store(padded(row + j), v);
    }
    barrier();
    for (int j = 0; j < sh.items; ++j) {
        Int i = j * sh.wg + local_id();
        out.store(base + i, tile.load(padded(i)));  // past n: no effect
    }
}

// --- TileLoad::Vectors -------------------------------------------------------

/// An invocation's part of a tile of vectors: subgroup w of the workgroup
/// takes items / 4 rows of S vectors of 4 elements in turn, from vector
/// tile wg items / 4 + w S items / 4 on, one vector per invocation a row
/// (16-byte loads, coalesced). Each vector is scanned in registers, each row
/// with one subgroup scan of the vectors' totals; no shared memory.
template <class T>
struct VectorRows {
    std::vector<Int> at;                  // the invocation's vector in each row
    std::vector<Var<vec<T, 4>>> scanned;  // its elements, scanned within it (inclusive)
    std::vector<Var<T>> before;           // everything before that vector in the subgroup's rows
    Var<T> total;                         // the subgroup's rows, combined
};

/// Subgroups wider than the workgroup hold the whole workgroup.
Int subgroup_width(int wg) { return min(subgroup_size(), Int(wg)); }

/// Vector `at`'s elements past n as the identity (zero, which loads give
/// there, is not every operator's).
template <class T>
Expr<vec<T, 4>> past_n_as_identity(ScanOp, T id, const Expr<vec<T, 4>>& x, const Int& at, const Int& n) {
    if (id == T(0)) return x;  // add, or, xor
    Int e = at * 4;
    return Expr<vec<T, 4>>(select(e < n, x.x(), Expr<T>(id)), select(e + 1 < n, x.y(), Expr<T>(id)),
                           select(e + 2 < n, x.z(), Expr<T>(id)), select(e + 3 < n, x.w(), Expr<T>(id)));
}

template <class T>
VectorRows<T> load_vector_rows(const Shape& sh, ScanOp op, T id, const Array<T>& in, const Int& tile, const Int& n) {
    const int V = sh.items / 4;
    Int S = subgroup_width(sh.wg);
    Int lane = subgroup_invocation();
    Int first = tile * (sh.wg * V) + (local_id() / S) * (S * V) + lane;
    VectorRows<T> r;
    for (int j = 0; j < V; ++j) r.at.push_back(first + j * S);
    for (int j = 0; j < V; ++j) r.scanned.emplace_back(in.template load_vector<4>(r.at[j]));  // all loads first
    r.total = id;
    for (int j = 0; j < V; ++j) {
        Var<vec<T, 4>> x = past_n_as_identity<T>(op, id, r.scanned[j], r.at[j], n);
        Var<T> b = combine<T>(op, x.x(), x.y());
        Var<T> c = combine<T>(op, b, x.z());
        Var<T> d = combine<T>(op, c, x.w());
        r.scanned[j] = Expr<vec<T, 4>>(x.x(), b, c, d);
        Var<T> row = detail::subgroup_scan<T>(op, d, true);
        r.before.emplace_back(combine<T>(op, r.total, select(lane == 0, Expr<T>(id), subgroup_shuffle_up(row, 1))));
        r.total = combine<T>(op, r.total, subgroup_shuffle(row, S - 1));
    }
    return r;
}

/// The subgroup's total at its last invocation, the identity elsewhere: the
/// workgroup's exclusive scan of these is what comes before each subgroup.
template <class T>
Expr<T> subgroup_total_at_last(int wg, const VectorRows<T>& r, T id) {
    return select(subgroup_invocation() == subgroup_width(wg) - 1, Expr<T>(r.total), Expr<T>(id));
}

/// Writes the rows, `start` being everything before the subgroup's first.
template <class T>
void store_vector_rows(ScanOp op, bool inclusive, const Expr<T>& start, const VectorRows<T>& r, const Array<T>& out) {
    for (std::size_t j = 0; j < r.at.size(); ++j) {
        Var<T> p = combine<T>(op, start, r.before[j]);
        const Var<vec<T, 4>>& x = r.scanned[j];
        Expr<vec<T, 4>> v = inclusive ? Expr<vec<T, 4>>(combine<T>(op, p, x.x()), combine<T>(op, p, x.y()),
                                                         combine<T>(op, p, x.z()), combine<T>(op, p, x.w()))
                                      : Expr<vec<T, 4>>(p, combine<T>(op, p, x.x()), combine<T>(op, p, x.y()),
                                                         combine<T>(op, p, x.z()));
        out.template store_vector<4>(r.at[j], v);
    }
}

/// The combination of the tile's elements of this invocation (any order:
/// every ScanOp is commutative), for the reduce pass.
template <class T>
Expr<T> reduce_vector_rows(const Shape& sh, ScanOp op, T id, const Array<T>& in, const Int& tile, const Int& n) {
    const int V = sh.items / 4;
    Int S = subgroup_width(sh.wg);
    Int first = tile * (sh.wg * V) + (local_id() / S) * (S * V) + subgroup_invocation();
    std::vector<Var<vec<T, 4>>> x;
    for (int j = 0; j < V; ++j) x.emplace_back(in.template load_vector<4>(first + j * S));
    Var<T> acc = id;
    for (int j = 0; j < V; ++j) {
        Var<vec<T, 4>> v = past_n_as_identity<T>(op, id, x[j], first + j * S, n);
        acc = combine<T>(op, acc, combine<T>(op, combine<T>(op, v.x(), v.y()), combine<T>(op, v.z(), v.w())));
    }
    return acc;
}

/// in[first] op ... op in[end - 1]; the identity for an empty row.
template <class T>
Expr<T> row_total(ScanOp op, T id, const Array<T>& in, const Int& first, const Int& end) {
    Var<T> acc = id;
    For(first, end, [&](Int i) { acc = combine<T>(op, acc, in.load(i)); });
    return acc;
}

/// out[first .. end - 1] = the scan of in[first .. end - 1] after `start`.
template <class T>
void scan_row(ScanOp op, bool inclusive, const Expr<T>& start, const Array<T>& in, const Array<T>& out, const Int& first,
              const Int& end) {
    Var<T> running = start;
    For(first, end, [&](Int i) {
        Expr<T> x = in.load(i);  // before the store: the scan may be in place
        if (inclusive) running = combine<T>(op, running, x);
        out.store(i, running);
        if (!inclusive) running = combine<T>(op, running, x);
    });
}

/// Which kernels a scan needs: per operator, inclusive or not, and the tile.
struct Variant {
    ScanOp op;
    bool inclusive;
    Shape shape = kReduceShape;
    auto operator<=>(const Variant&) const = default;
};

// --- ReduceThenScan ---------------------------------------------------------

template <class T>
struct TwoPassKernels {
    // A kernel's type does not depend on its workgroup size.
    using Reduce = decltype(group_kernel<1>("", [](Array<T>, Array<T>, Int) {}));
    using Tiles = decltype(group_kernel<1>("", [](Array<T>, Array<T>, Array<T>, Int, Var<T>) {}));
    Reduce reduce;
    Tiles tiles;
};

template <class T>
TwoPassKernels<T> make_two_pass_rows(const Shape& sh, ScanOp op, bool inclusive, T id, const std::string& suffix) {
    auto reduce = group_kernel(sh.wg, "scan_rows_reduce_" + std::string(scan_op_name(op)) + "(in, sums, n)",
                               [sh, op, id](Array<T> in, Array<T> sums, Int n) {
        auto [first, end] = detail::row_of(group_id() * sh.size(), n, sh.items);
        auto [unused, total] = detail::workgroup_exclusive<T>(sh.wg, op, row_total<T>(op, id, in, first, end), id);
        (void)unused;
        If(local_id() == 0, [&] { sums.store(group_id(), total); });
    });
    auto tiles = group_kernel(sh.wg, "scan_rows_tiles_" + suffix + "(in, out, offsets, n, init)",
                              [sh, op, id, inclusive](Array<T> in, Array<T> out, Array<T> offsets, Int n, Var<T> init) {
        auto [first, end] = detail::row_of(group_id() * sh.size(), n, sh.items);
        auto [exclusive, unused] = detail::workgroup_exclusive<T>(sh.wg, op, row_total<T>(op, id, in, first, end), id);
        (void)unused;
        scan_row<T>(op, inclusive, combine<T>(op, combine<T>(op, init, offsets.load(group_id())), exclusive), in, out,
                    first, end);
    });
    return TwoPassKernels<T>{reduce, tiles};
}

template <class T>
TwoPassKernels<T> make_two_pass_striped(const Shape& sh, ScanOp op, bool inclusive, T id, const std::string& suffix) {
    auto reduce = group_kernel(sh.wg, "scan_reduce_" + std::string(scan_op_name(op)) + "(in, sums, n)",
                               [sh, op, id](Array<T> in, Array<T> sums, Int n) {
        Int base = group_id() * sh.size();
        Var<T> acc = id;
        for (int j = 0; j < sh.items; ++j) {
            Int i = base + j * sh.wg + local_id();
            acc = combine<T>(op, acc, select(i < n, in.load(i), Expr<T>(id)));
        }
        auto [unused, total] = detail::workgroup_exclusive<T>(sh.wg, op, acc, id);
        (void)unused;
        If(local_id() == 0, [&] { sums.store(group_id(), total); });
    });
    auto tiles = group_kernel(sh.wg, "scan_two_pass_tiles_" + suffix + "(in, out, offsets, n, init)",
                              [sh, op, id, inclusive](Array<T> in, Array<T> out, Array<T> offsets, Int n, Var<T> init) {
        Shared<T> tile(detail::padded_size(sh.size()));
        Int base = group_id() * sh.size();
        std::vector<Var<T>> running = load_rows<T>(sh, op, id, in, base, n, tile);
        auto [exclusive, unused] = detail::workgroup_exclusive<T>(sh.wg, op, running.back(), id);
        (void)unused;
        Var<T> prefix = combine<T>(op, combine<T>(op, init, offsets.load(group_id())), exclusive);
        barrier();  // every invocation has read its row before any row is overwritten
        store_rows<T>(sh, op, inclusive, prefix, running, out, base, tile);
    });
    return TwoPassKernels<T>{reduce, tiles};
}

template <class T>
TwoPassKernels<T> make_two_pass_vectors(const Shape& sh, ScanOp op, bool inclusive, T id, const std::string& suffix) {
    auto reduce = group_kernel(sh.wg, "scan_vectors_reduce_" + std::string(scan_op_name(op)) + "(in, sums, n)",
                               [sh, op, id](Array<T> in, Array<T> sums, Int n) {
        auto [unused, total] =
            detail::workgroup_exclusive<T>(sh.wg, op, reduce_vector_rows<T>(sh, op, id, in, group_id(), n), id);
        (void)unused;
        If(local_id() == 0, [&] { sums.store(group_id(), total); });
    });
    auto tiles = group_kernel(sh.wg, "scan_vectors_tiles_" + suffix + "(in, out, offsets, n, init)",
                              [sh, op, id, inclusive](Array<T> in, Array<T> out, Array<T> offsets, Int n, Var<T> init) {
        VectorRows<T> r = load_vector_rows<T>(sh, op, id, in, group_id(), n);
        auto [exclusive, unused] = detail::workgroup_exclusive<T>(sh.wg, op, subgroup_total_at_last<T>(sh.wg, r, id), id);
        (void)unused;
        store_vector_rows<T>(op, inclusive, combine<T>(op, combine<T>(op, init, offsets.load(group_id())), exclusive), r, out);
    });
    return TwoPassKernels<T>{reduce, tiles};
}

template <class T>
TwoPassKernels<T> make_two_pass(Variant variant) {
    const Shape sh = variant.shape;
    const ScanOp op = variant.op;
    const T id = scan_identity<T>(op);
    const std::string suffix = std::string(scan_op_name(op)) + (variant.inclusive ? "_inclusive" : "_exclusive");
    if (sh.rows) return make_two_pass_rows<T>(sh, op, variant.inclusive, id, suffix);
    if (sh.vectors) return make_two_pass_vectors<T>(sh, op, variant.inclusive, id, suffix);
    return make_two_pass_striped<T>(sh, op, variant.inclusive, id, suffix);
}

// --- SinglePass (detail/look_back.h) -------------------------------------------

template <class T>
struct ScanKernel {  // a struct: GCC 12 mistypes a lambda's decltype in an alias template
    using Type = decltype(group_kernel<1>("", [](Array<T>, Array<T>, Array<std::uint32_t>, Int, Var<T>) {}));
};
template <class T>
using TilesKernel = typename ScanKernel<T>::Type;

template <class T>
TilesKernel<T> make_kernel(Variant variant) {
    const Shape sh = variant.shape;
    const ScanOp op = variant.op;
    const bool inclusive = variant.inclusive;
    const T id = scan_identity<T>(op);
    const std::string name = std::string("scan_") + scan_op_name(op) + (inclusive ? "_inclusive" : "_exclusive");
    return group_kernel(sh.wg, name + "(in, out, state, n, init)", [sh, op, id, inclusive](Array<T> in, Array<T> out,
                                                                                           Array<std::uint32_t> state,
                                                                                           Int n, Var<T> init) {
        Int t = look_back::ticket(state);
        Int base = t * sh.size();
        if (sh.vectors) {
            VectorRows<T> r = load_vector_rows<T>(sh, op, id, in, t, n);
            look_back::scan_tile<T>(sh.wg, op, id, state, t, subgroup_total_at_last<T>(sh.wg, r, id), [&](const Expr<T>& start) {
                store_vector_rows<T>(op, inclusive, combine<T>(op, init, start), r, out);
            });
        } else if (sh.rows) {
            auto [first, end] = detail::row_of(base, n, sh.items);
            look_back::scan_tile<T>(sh.wg, op, id, state, t, row_total<T>(op, id, in, first, end),
                                    [&](const Expr<T>& start) {
                scan_row<T>(op, inclusive, combine<T>(op, init, start), in, out, first, end);
            });
        } else {
            Shared<T> tile(detail::padded_size(sh.size()));
            std::vector<Var<T>> running = load_rows<T>(sh, op, id, in, base, n, tile);
            look_back::scan_tile<T>(sh.wg, op, id, state, t, running.back(), [&](const Expr<T>& start) {
                store_rows<T>(sh, op, inclusive, combine<T>(op, init, start), running, out, base, tile);
            });
        }
        look_back::clear_states(sh.wg, state, look_back::state_words(num_groups()), num_groups());
    });
}

template <class T>
void reduce_then_scan(const Shape& sh, const Stream<T>& in, const Stream<T>& out, ScanOp op, T init, bool inclusive) {
    Runtime rt = Runtime::of(in);
    const TwoPassKernels<T>& k = detail::traced_once(Variant{op, inclusive, sh}, make_two_pass<T>);
    const std::int64_t n = in.size();
    const std::int64_t tiles = (n + sh.size() - 1) / sh.size();
    const T id = scan_identity<T>(op);
    if (tiles == 1) {
        // The one tile's offset is the identity: for a sum, the zero that a
        // load past an empty stream reads, with no upload (a GPU copy that the
        // tile waits for, and through OpenGL a staging buffer object).
        auto offsets = op == ScanOp::Add ? rt.scratch<T>({0}) : rt.stream<T>({1}, std::vector<T>{id});
        k.tiles(Groups{1}, in, out, offsets, static_cast<std::int32_t>(n), init);
        return;
    }
    auto sums = rt.scratch<T>({tiles});  // the reduce writes every tile's
    k.reduce(Groups{tiles}, in, sums, static_cast<std::int32_t>(n));
    reduce_then_scan<T>(sh, sums, sums, op, id, false);
    k.tiles(Groups{tiles}, in, out, sums, static_cast<std::int32_t>(n), init);
}

template <class T>
void scan_tiles(const Shape& sh, const Stream<T>& in, const Stream<T>& out, ScanOp op, T init, bool inclusive,
                ScanAlgorithm algorithm) {
    const std::int64_t n = in.size();
    if (n > std::numeric_limits<std::int32_t>::max() - sh.size())
        throw Error("rill scan: " + std::to_string(n) + " elements is more than 2^31 - 1 - " + std::to_string(sh.size()) +
                    " (the tile); split the stream");
    Runtime rt = Runtime::of(in);
    const std::int64_t shared =
        sh.rows ? 0 : tile_shared_bytes<T>({sh.wg, sh.items, sh.vectors ? TileLoad::Vectors : TileLoad::Transposed});
    if (static_cast<std::uint64_t>(shared) > rt.info().limits.shared_memory_bytes)
        throw Error("rill scan: ScanOptions::tile of " + std::to_string(sh.wg) + " x " + std::to_string(sh.items) +
                    " elements takes " + std::to_string(shared) + " bytes of shared memory per workgroup, but " +
                    rt.info().device + " has " + std::to_string(rt.info().limits.shared_memory_bytes) +
                    " bytes of shared memory per workgroup; use a smaller ScanOptions::tile");
    if (algorithm != ScanAlgorithm::SinglePass) return reduce_then_scan<T>(sh, in, out, op, init, inclusive);
    const std::int64_t tiles = (n + sh.size() - 1) / sh.size();
    auto state = look_back::states_for(rt, look_back::state_words(tiles));
    detail::traced_once(Variant{op, inclusive, sh}, make_kernel<T>)(Groups{tiles}, in, out, state,
                                                                       static_cast<std::int32_t>(n), init);
}

/// Calls scan_tiles with `tile`, one of the shapes ScanTile lists.
template <class T>
void scan_with_tile(ScanTile tile, const Stream<T>& in, const Stream<T>& out, ScanOp op, T init, bool inclusive,
                    ScanAlgorithm algorithm) {
    const bool vectors = tile.load == TileLoad::Vectors;
    const bool listed = (tile.workgroup == 64 || tile.workgroup == 128 || tile.workgroup == 256 || tile.workgroup == 512) &&
                        (tile.items == 4 || tile.items == 8 || tile.items == 12 || tile.items == 16 ||
                         (tile.items == 24 && !vectors));
    if (!listed)
        throw Error("rill scan: ScanOptions::tile is " + std::to_string(tile.workgroup) + " invocations of " +
                    std::to_string(tile.items) + " elements" + (vectors ? " in vectors" : "") +
                    "; use a workgroup of 64, 128, 256 or 512 invocations and " +
                    (vectors ? "4, 8, 12 or 16" : "4, 8, 12, 16 or 24") + " elements each (or leave the default)");
    scan_tiles<T>(Shape{tile.workgroup, tile.items, false, vectors}, in, out, op, init, inclusive, algorithm);
}

/// Whether the scan can move `in` and `out` as vectors of 4: views that
/// start at a multiple of 4 elements (Array::load_vector).
bool vectors_fit(const StreamBase& in, const StreamBase& out) { return in.offset() % 4 == 0 && out.offset() % 4 == 0; }

/// What Auto runs, from H100 measurements (docs/PERFORMANCE.md#scan
/// and 18): the single pass where its look-back is exact, through OpenGL and
/// Vulkan at every size (Vulkan 2^24: 0.081 against 0.112 ms for
/// reduce-then-scan; 2^28: a tie). Mesa's software devices (which end long
/// loops) take reduce-then-scan; the CPU backend the single pass over rows,
/// which reads each element once from memory.
ScanAlgorithm auto_algorithm(const BackendInfo& info) {
    if (!look_back::exact_on(info)) return ScanAlgorithm::ReduceThenScan;
    if (detail::rows_pay(info)) return ScanAlgorithm::SinglePass;  // over rows: 1.2-1.4x reduce-then-scan
    if (info.name == "opengl" || info.name == "vulkan") return ScanAlgorithm::SinglePass;
    return ScanAlgorithm::ReduceThenScan;
}

/// The fastest striped tile measured on the H100 (docs/PERFORMANCE.md#scan):
/// 128 x 8 for reduce-then-scan; for the single pass
/// 256 x 8 through Vulkan (3-4% faster than 128 x 16 from 2^24 to 2^28) and
/// 128 x 16 elsewhere. The CPU backend takes kRowShape unless a tile is given.
ScanTile default_tile(ScanAlgorithm algorithm, const BackendInfo& info, bool vectors) {
    if (vectors) return ScanTile{128, 16, TileLoad::Vectors};
    if (algorithm != ScanAlgorithm::SinglePass) return ScanTile{128, 8};
    return info.name == "vulkan" ? ScanTile{256, 8} : ScanTile{128, 16};
}

template <class T>
void scan(const Stream<T>& in, const Stream<T>& out, ScanOp op, T init, bool inclusive, ScanOptions options) {
    detail::check_scan_op<T>(op);
    if (!(in.shape() == out.shape()))
        throw Error("rill scan: the input has shape " + in.shape().str() + " but the output has shape " +
                    out.shape().str() + "; scan into a stream of the input's shape");
    const std::int64_t n = in.size();
    if (n == 0) return;
    Runtime rt = Runtime::of(in);
    if (options.algorithm == ScanAlgorithm::SinglePass)
        look_back::check_exact(rt.info(), "rill scan", "ScanAlgorithm::ReduceThenScan or Auto");
    if (options.algorithm == ScanAlgorithm::HillisSteele) return detail::hillis_steele_scan(in, out, op, init, inclusive);
    if (options.algorithm == ScanAlgorithm::Blelloch) return detail::blelloch_scan(in, out, op, init, inclusive);
    if (options.algorithm == ScanAlgorithm::Auto) options.algorithm = auto_algorithm(rt.info());
    ScanTile tile = options.tile;
    if (tile.load == TileLoad::Ballots)
        throw Error("rill scan: ScanOptions::tile has TileLoad::Ballots, a tile of the compaction (CompactOptions); "
                    "scans take TileLoad::Transposed or Vectors");
    if (tile.workgroup == 0 && tile.items == 0) {
        if (detail::rows_pay(rt.info()))
            return scan_tiles<T>(kRowShape, in, out, op, init, inclusive, options.algorithm);
        tile = default_tile(options.algorithm, rt.info(), vectors_fit(in, out));
    }
    if (tile.load == TileLoad::Vectors && !vectors_fit(in, out))
        throw Error("rill scan: ScanOptions::tile moves vectors of 4 elements, but the " +
                    std::string(in.offset() % 4 ? "input" : "output") + " is a view that starts at element " +
                    std::to_string(in.offset() % 4 ? in.offset() : out.offset()) +
                    " of its buffer; give views that start at a multiple of 4, or TileLoad::Transposed");
    scan_with_tile(tile, in, out, op, init, inclusive, options.algorithm);
}

}  // namespace

template <class T>
T scan_identity(ScanOp op) {
    using L = std::numeric_limits<T>;
    switch (op) {
        case ScanOp::Add: case ScanOp::Or: case ScanOp::Xor: return T(0);
        case ScanOp::Mul: return T(1);
        case ScanOp::And: return static_cast<T>(~std::uint32_t{0});
        case ScanOp::Min: return L::has_infinity ? L::infinity() : L::max();
        case ScanOp::Max: return L::has_infinity ? -L::infinity() : L::lowest();
    }
    RILL_UNREACHABLE("bad scan op");
}

template <class T>
void reduce(const Stream<T>& in, const Stream<T>& result, ScanOp op) {
    detail::check_scan_op<T>(op);
    if (result.size() != 1)
        throw Error("rill reduce: the result stream has " + std::to_string(result.size()) +
                    " elements; reduce into a stream of exactly one element");
    const std::int64_t n = in.size();
    Runtime rt = Runtime::of(in);
    // Row tiles where they pay (each invocation sums its own run; the CPU
    // backend), else the striped tile at the copy roof.
    const auto sh = detail::rows_pay(rt.info()) ? kRowShape : kReduceShape;
    if (n > std::numeric_limits<std::int32_t>::max() - sh.size())
        throw Error("rill reduce: " + std::to_string(n) + " elements is more than 2^31 - 1 - " + std::to_string(sh.size()) +
                    " (the tile); split the stream");
    if (n == 0) {
        Stream<T>(result).upload(std::vector<T>{scan_identity<T>(op)});  // a handle: the same buffer
        return;
    }
    const auto& reduce_tiles = detail::traced_once(Variant{op, false, sh}, make_two_pass<T>).reduce;
    Stream<T> level = in;
    std::int64_t m = n;
    while (m > sh.size()) {  // each pass leaves one total per tile
        const std::int64_t tiles = (m + sh.size() - 1) / sh.size();
        auto totals = rt.scratch<T>({tiles});  // one written by each tile
        reduce_tiles(Groups{tiles}, level, totals, static_cast<std::int32_t>(m));
        level = totals;
        m = tiles;
    }
    reduce_tiles(Groups{1}, level, result, static_cast<std::int32_t>(m));
}

template <class T>
T reduce(const Stream<T>& in, ScanOp op) {
    auto result = Runtime::of(in).template scratch<T>({1});  // reduce writes it
    reduce(in, result, op);
    return result.download()[0];
}

template <class T>
void exclusive_scan(const Stream<T>& in, const Stream<T>& out, ScanOp op, T init, ScanOptions options) {
    scan(in, out, op, init, false, options);
}

template <class T>
void inclusive_scan(const Stream<T>& in, const Stream<T>& out, ScanOp op, ScanOptions options) {
    scan(in, out, op, scan_identity<T>(op), true, options);
}

#define RILL_SCAN_INSTANTIATE(T)                                                            \
    template T scan_identity<T>(ScanOp);                                                    \
    template void exclusive_scan<T>(const Stream<T>&, const Stream<T>&, ScanOp, T, ScanOptions); \
    template void inclusive_scan<T>(const Stream<T>&, const Stream<T>&, ScanOp, ScanOptions); \
    template void reduce<T>(const Stream<T>&, const Stream<T>&, ScanOp);                       \
    template T reduce<T>(const Stream<T>&, ScanOp);
RILL_SCAN_INSTANTIATE(std::int32_t)
RILL_SCAN_INSTANTIATE(std::uint32_t)
RILL_SCAN_INSTANTIATE(float)
#undef RILL_SCAN_INSTANTIATE

}  // namespace rill
