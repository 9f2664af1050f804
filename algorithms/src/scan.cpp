// Reduce-then-scan over tiles of kScanTile elements: 256 invocations per
// workgroup, 16 elements each. Loads and stores are striped across the
// workgroup (coalesced) and transposed through shared memory, so that each
// invocation scans 16 consecutive elements in registers; the workgroup then
// scans the invocations' totals with subgroup scans plus a scan of the
// subgroup totals in shared memory (any subgroup size, 1 included).
#include "rill/algorithms/scan.h"

#include <limits>
#include <map>
#include <mutex>

namespace rill {

namespace {

constexpr int kWg = 256;
constexpr int kItems = static_cast<int>(kScanTile) / kWg;
static_assert(kWg * kItems == kScanTile);

const char* op_name(ScanOp op) {
    static const char* names[] = {"add", "mul", "min", "max", "and", "or", "xor"};
    return names[static_cast<int>(op)];
}

template <class T>
void check_op(ScanOp op) {
    if (std::is_same_v<T, float> && (op == ScanOp::And || op == ScanOp::Or || op == ScanOp::Xor))
        throw Error(std::string("rill scan: ScanOp::") + op_name(op) + " needs int32 or uint32 elements, not float");
}

template <class T>
Expr<T> combine(ScanOp op, const Expr<T>& a, const Expr<T>& b) {
    switch (op) {
        case ScanOp::Add: return a + b;
        case ScanOp::Mul: return a * b;
        case ScanOp::Min: return min(a, b);
        case ScanOp::Max: return max(a, b);
        case ScanOp::And: case ScanOp::Or: case ScanOp::Xor:
            if constexpr (std::is_integral_v<T>) {
                if (op == ScanOp::And) return a & b;
                if (op == ScanOp::Or) return a | b;
                return a ^ b;
            }
            break;
    }
    RILL_UNREACHABLE("scan op without a combiner");
}

template <class T>
Expr<T> subgroup_scan(ScanOp op, const Expr<T>& x, bool inclusive) {
    switch (op) {
        case ScanOp::Add: return inclusive ? subgroup_inclusive_add(x) : subgroup_exclusive_add(x);
        case ScanOp::Mul: return inclusive ? subgroup_inclusive_mul(x) : subgroup_exclusive_mul(x);
        case ScanOp::Min: return inclusive ? subgroup_inclusive_min(x) : subgroup_exclusive_min(x);
        case ScanOp::Max: return inclusive ? subgroup_inclusive_max(x) : subgroup_exclusive_max(x);
        case ScanOp::And: return inclusive ? subgroup_inclusive_and(x) : subgroup_exclusive_and(x);
        case ScanOp::Or: return inclusive ? subgroup_inclusive_or(x) : subgroup_exclusive_or(x);
        case ScanOp::Xor: return inclusive ? subgroup_inclusive_xor(x) : subgroup_exclusive_xor(x);
    }
    RILL_UNREACHABLE("bad scan op");
}

/// Shared-memory slot of tile element i: one pad word per 32 keeps the
/// invocations' 16-element rows in different banks.
Expr<std::int32_t> padded(const Expr<std::int32_t>& i) { return i + (i >> 5); }
constexpr std::int64_t kPaddedTile = kScanTile + kScanTile / 32;

/// The workgroup-wide exclusive scan of one value per invocation; also gives
/// the workgroup's total. Every invocation must call it (it has barriers).
template <class T>
std::pair<Expr<T>, Expr<T>> workgroup_exclusive(ScanOp op, const Expr<T>& x, T identity) {
    Int S = subgroup_size();
    Int sg = local_id() / S;
    Int count = kWg / S;  // subgroups in the workgroup
    Expr<T> inclusive = subgroup_scan(op, x, true);
    Shared<T> totals(kWg);
    If(subgroup_invocation() == S - 1, [&] { totals.store(sg, inclusive); });
    barrier();
    If(count <= S, [&] {
        // One subgroup holds all the totals (S >= 16): one more subgroup scan.
        If(sg == 0, [&] {
            Expr<T> v = select(local_id() < count, totals.load(local_id()), Expr<T>(identity));
            Expr<T> scanned = subgroup_scan(op, v, true);
            If(local_id() < count, [&] { totals.store(local_id(), scanned); });
        });
        barrier();
    }).Else([&] {
        // Narrow subgroups (8 on lavapipe, 1 without subgroup operations):
        // Hillis-Steele over the totals, log2(count) steps, all reads before any write.
        Int d = 1;
        While([&] { return d < count; }, [&] {
            Var<T> left = identity;
            Var<T> self = identity;
            If(local_id() < count, [&] {
                self = totals.load(local_id());
                If(local_id() >= d, [&] { left = totals.load(local_id() - d); });
            });
            barrier();
            If(local_id() < count, [&] { totals.store(local_id(), combine<T>(op, left, self)); });
            barrier();
            d = d * 2;
        });
    });
    Var<T> before = identity;
    If(sg > 0, [&] { before = totals.load(sg - 1); });
    Expr<T> exclusive = combine<T>(op, before, subgroup_scan(op, x, false));
    return {exclusive, totals.load(count - 1)};
}

template <class T>
struct ScanKernels {
    using Reduce = decltype(group_kernel<kWg>("", [](Array<T>, Array<T>, Int) {}));
    using Tiles = decltype(group_kernel<kWg>("", [](Array<T>, Array<T>, Array<T>, Int, Var<T>) {}));
    Reduce reduce;
    Tiles tiles;
};

template <class T>
ScanKernels<T> make_kernels(ScanOp op, bool inclusive) {
    const T id = scan_identity<T>(op);
    const std::string suffix = std::string(op_name(op)) + (inclusive ? "_inclusive" : "_exclusive");
    auto reduce = group_kernel<kWg>("scan_reduce_" + std::string(op_name(op)) + "(in, sums, n)",
                                    [op, id](Array<T> in, Array<T> sums, Int n) {
        Int base = group_id() * static_cast<std::int32_t>(kScanTile);
        Var<T> acc = id;
        for (int j = 0; j < kItems; ++j) {
            Int i = base + j * kWg + local_id();
            acc = combine<T>(op, acc, select(i < n, in.load(i), Expr<T>(id)));
        }
        auto [unused, total] = workgroup_exclusive<T>(op, acc, id);
        (void)unused;
        If(local_id() == 0, [&] { sums.store(group_id(), total); });
    });
    auto tiles = group_kernel<kWg>("scan_tiles_" + suffix + "(in, out, offsets, n, init)",
                                   [op, id, inclusive](Array<T> in, Array<T> out, Array<T> offsets, Int n, Var<T> init) {
        Shared<T> tile(kPaddedTile);
        Int base = group_id() * static_cast<std::int32_t>(kScanTile);
        for (int j = 0; j < kItems; ++j) {
            Int i = j * kWg + local_id();
            tile.store(padded(i), select(base + i < n, in.load(base + i), Expr<T>(id)));
        }
        barrier();
        std::vector<Var<T>> x;
        Int row = local_id() * kItems;
        for (int j = 0; j < kItems; ++j) x.emplace_back(tile.load(padded(row + j)));
        std::vector<Var<T>> running;  // inclusive within the invocation's 16 elements
        running.emplace_back(x[0]);
        for (int j = 1; j < kItems; ++j) running.emplace_back(combine<T>(op, running[j - 1], x[j]));
        auto [exclusive, unused] = workgroup_exclusive<T>(op, running.back(), id);
        (void)unused;
        Var<T> prefix = combine<T>(op, combine<T>(op, init, offsets.load(group_id())), exclusive);
        barrier();  // every invocation has read its row before any row is overwritten
        for (int j = 0; j < kItems; ++j) {
            Expr<T> v = inclusive ? combine<T>(op, prefix, running[j])
                                  : (j == 0 ? Expr<T>(prefix) : combine<T>(op, prefix, running[j - 1]));
            tile.store(padded(row + j), v);
        }
        barrier();
        for (int j = 0; j < kItems; ++j) {
            Int i = j * kWg + local_id();
            out.store(base + i, tile.load(padded(i)));  // past n: no effect
        }
    });
    return ScanKernels<T>{reduce, tiles};
}

template <class T>
const ScanKernels<T>& kernels(ScanOp op, bool inclusive) {
    static std::mutex mutex;
    static std::map<std::pair<int, bool>, ScanKernels<T>> cache;
    std::lock_guard lock(mutex);
    const auto key = std::make_pair(static_cast<int>(op), inclusive);
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, make_kernels<T>(op, inclusive)).first;
    return it->second;
}

template <class T>
void scan(const Stream<T>& in, const Stream<T>& out, ScanOp op, T init, bool inclusive) {
    check_op<T>(op);
    if (!(in.shape() == out.shape()))
        throw Error("rill scan: the input has shape " + in.shape().str() + " but the output has shape " +
                    out.shape().str() + "; scan into a stream of the input's shape");
    const std::int64_t n = in.size();
    if (n == 0) return;
    if (n > std::numeric_limits<std::int32_t>::max() - kScanTile)
        throw Error("rill scan: " + std::to_string(n) + " elements is more than 2^31 - 4097; split the stream");
    Runtime rt = Runtime::of(in);
    const ScanKernels<T>& k = kernels<T>(op, inclusive);
    const std::int64_t tiles = (n + kScanTile - 1) / kScanTile;
    const T id = scan_identity<T>(op);
    if (tiles == 1) {
        auto offsets = rt.stream<T>({1}, std::vector<T>{id});
        k.tiles(Groups{1}, in, out, offsets, static_cast<std::int32_t>(n), init);
        return;
    }
    auto sums = rt.stream<T>({tiles});
    k.reduce(Groups{tiles}, in, sums, static_cast<std::int32_t>(n));
    scan(sums, sums, op, id, false);
    k.tiles(Groups{tiles}, in, out, sums, static_cast<std::int32_t>(n), init);
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
void exclusive_scan(const Stream<T>& in, const Stream<T>& out, ScanOp op, T init) {
    scan(in, out, op, init, false);
}

template <class T>
void inclusive_scan(const Stream<T>& in, const Stream<T>& out, ScanOp op) {
    scan(in, out, op, scan_identity<T>(op), true);
}

#define RILL_SCAN_INSTANTIATE(T)                                                            \
    template T scan_identity<T>(ScanOp);                                                    \
    template void exclusive_scan<T>(const Stream<T>&, const Stream<T>&, ScanOp, T);         \
    template void inclusive_scan<T>(const Stream<T>&, const Stream<T>&, ScanOp);
RILL_SCAN_INSTANTIATE(std::int32_t)
RILL_SCAN_INSTANTIATE(std::uint32_t)
RILL_SCAN_INSTANTIATE(float)
#undef RILL_SCAN_INSTANTIATE

}  // namespace rill
