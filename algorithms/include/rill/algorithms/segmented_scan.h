// Scans of any element type with a combiner written in the DSL, and
// segmented scans (head flags), written only in the DSL.
//
//   rill::Scan<Affine> compose("compose", [](const Var<Affine>& f, const Var<Affine>& g) { return then(f, g); },
//                              Affine{1, 0});                 // combiner, and its identity
//   compose.inclusive(in, out);                               // out[i] = in[0] + ... + in[i]
//   compose.exclusive(in, out, init);                         // out[i] = init + in[0] + ... + in[i-1]
//   compose.inclusive(in, out, heads);                        // restarts wherever heads[i] != 0
//   rill::inclusive_scan(in, out, heads, rill::ScanOp::Max);  // built-in operators, segmented
//
// The combiner must be associative; it need not be commutative (elements are
// combined in stream order). Segmented: heads is a Stream<uint32_t> of the
// input's size; an element with a nonzero head starts a segment, and scans
// run within segments (an exclusive scan gives the identity at a head).
//
// How: reduce-then-scan over tiles of 256 x R elements (GPU Gems 3 ch. 39.2.4),
// each invocation scanning R consecutive elements in registers and the
// workgroup scanning their totals in shared memory (Hillis-Steele, so any
// element type works without subgroup operations). A segmented scan is the
// same scan under the lifted operator (f, a) + (g, b) = (f | g, g ? b : a + b)
// (Schwartz 1980; Sengupta et al. 2007), which is associative whenever + is;
// the tiles' carries are the inclusive scan of the tiles' (flag, total) pairs,
// by the same code, so segments may span any number of tiles. The built-in
// ScanOp scans without heads (scan.h) use subgroup operations and are faster.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include <rill/algorithms/detail/workgroup_scan.h>

namespace rill {

namespace detail::segmented {

constexpr int kWg = 256;

/// Elements an invocation scans in registers: fewer for large elements.
template <class T>
constexpr int items_per_invocation() {
    return sizeof(T) <= 16 ? 8 : 4;
}

template <class T>
using Combiner = std::function<dsl::read_t<T>(const dsl::read_t<T>&, const dsl::read_t<T>&)>;

/// A value under the lifted operator: `head` says a segment starts within
/// what `value` covers, and value covers only what comes after that start.
template <class T>
struct Item {
    Var<T> value;
    Var<std::uint32_t> head;
};

template <class T>
Item<T> lift(const Combiner<T>& op, bool segmented, const Item<T>& a, const Item<T>& b) {
    Item<T> r{Var<T>(op(a.value, b.value)), Var<std::uint32_t>(0u)};
    if (segmented) {
        If(b.head != 0u, [&] { r.value = b.value; });
        r.head = a.head | b.head;
    }
    return r;
}

/// The scan kernels of one combiner: `totals` writes each tile's (head, total);
/// `tiles` scans each tile and adds the carry of the tiles before it.
template <class T>
struct Kernels {
    using Totals =
        decltype(group_kernel<kWg>("", [](Array<T>, Array<std::uint32_t>, Array<T>, Array<std::uint32_t>, Array<T>, Int) {}));
    using Tiles = decltype(group_kernel<kWg>("", [](Array<T>, Array<std::uint32_t>, Array<T>, Array<T>, Array<T>, Int, Int) {}));
    Totals totals;
    Tiles tiles;
};

/// Loads this invocation's R elements (identity past n) and their heads, and
/// scans them (inclusive, lifted); then the exclusive scan of the rows'
/// totals over the workgroup, through shared memory. Returns the running
/// values, the elements' heads and the row's exclusive prefix in the tile.
template <class T>
struct TileScan {
    std::vector<Item<T>> running;
    std::vector<Var<std::uint32_t>> heads;
    Item<T> before_row;
    Item<T> tile_total;
};

template <class T>
TileScan<T> scan_tile(const Combiner<T>& op, bool segmented, const Array<T>& in, const Array<std::uint32_t>& heads,
                      const Array<T>& identity, const Int& n) {
    constexpr int R = items_per_invocation<T>();
    Var<T> id = identity.load(0);
    Int row = group_id() * (kWg * R) + local_id() * R;
    TileScan<T> s;
    for (int j = 0; j < R; ++j) {
        Int i = row + j;
        Item<T> x{Var<T>(id), Var<std::uint32_t>(0u)};
        If(i < n, [&] {
            x.value = in.load(i);
            if (segmented) x.head = select(heads.load(i) != 0u, 1u, 0u);
        });
        s.heads.push_back(x.head);
        s.running.push_back(j == 0 ? x : lift(op, segmented, s.running.back(), x));
    }
    // Hillis-Steele over the rows' totals: log2(256) steps, every read before any write.
    Shared<T> values(kWg);
    Shared<std::uint32_t> flags(kWg);
    values.store(local_id(), s.running.back().value);
    flags.store(local_id(), s.running.back().head);
    barrier();
    for (int d = 1; d < kWg; d *= 2) {
        Item<T> self{Var<T>(values.load(local_id())), Var<std::uint32_t>(flags.load(local_id()))};
        Item<T> combined = self;
        If(local_id() >= d, [&] {
            Item<T> left{Var<T>(values.load(local_id() - d)), Var<std::uint32_t>(flags.load(local_id() - d))};
            Item<T> c = lift(op, segmented, left, self);
            combined.value = c.value;
            combined.head = c.head;
        });
        barrier();
        values.store(local_id(), combined.value);
        flags.store(local_id(), combined.head);
        barrier();
    }
    s.before_row = Item<T>{Var<T>(id), Var<std::uint32_t>(0u)};
    If(local_id() > 0, [&] {
        s.before_row.value = values.load(local_id() - 1);
        s.before_row.head = flags.load(local_id() - 1);
    });
    s.tile_total = Item<T>{Var<T>(values.load(kWg - 1)), Var<std::uint32_t>(flags.load(kWg - 1))};
    return s;
}

template <class T>
Kernels<T> make_kernels(const std::string& name, const Combiner<T>& op, bool segmented, bool inclusive) {
    const std::string what = name + (segmented ? "_segmented" : "") + (inclusive ? "_inclusive" : "_exclusive");
    auto totals = group_kernel<kWg>(what + "_totals(in, heads, sums, sum_heads, identity_init, n)",
                                    [op, segmented](Array<T> in, Array<std::uint32_t> heads, Array<T> sums,
                                                    Array<std::uint32_t> sum_heads, Array<T> identity, Int n) {
        TileScan<T> s = scan_tile(op, segmented, in, heads, identity, n);
        If(local_id() == 0, [&] {
            sums.store(group_id(), s.tile_total.value);
            sum_heads.store(group_id(), s.tile_total.head);
        });
    });
    // carries[t]: the inclusive scan of tiles 0 .. t (so tile t takes t - 1's).
    auto tiles = group_kernel<kWg>(what + "_tiles(in, heads, out, carries, identity_init, n, has_carries)",
                                   [op, segmented, inclusive](Array<T> in, Array<std::uint32_t> heads, Array<T> out,
                                                              Array<T> carries, Array<T> identity_init, Int n,
                                                              Int has_carries) {
        TileScan<T> s = scan_tile(op, segmented, in, heads, identity_init, n);
        // The start of this row: init, then the tiles before, then the rows before in this tile.
        Item<T> start{Var<T>(identity_init.load(1)), Var<std::uint32_t>(0u)};
        If(has_carries != 0 && group_id() > 0, [&] {
            Item<T> carry{Var<T>(carries.load(group_id() - 1)), Var<std::uint32_t>(0u)};
            Item<T> c = lift(op, segmented, start, carry);
            start.value = c.value;
        });
        Item<T> row_start = lift(op, segmented, start, s.before_row);
        constexpr int R = items_per_invocation<T>();
        Var<T> id = identity_init.load(0);
        Int row = group_id() * (kWg * R) + local_id() * R;
        for (int j = 0; j < R; ++j) {
            Var<T> v = id;
            if (inclusive) {
                v = lift(op, segmented, row_start, s.running[j]).value;
            } else {
                if (j == 0) v = row_start.value;
                else v = lift(op, segmented, row_start, s.running[j - 1]).value;
                if (segmented) If(s.heads[j] != 0u, [&] { v = id; });
            }
            out.store(row + j, v);  // past n: no effect
        }
    });
    return Kernels<T>{totals, tiles};
}

}  // namespace detail::segmented

/// Scans under a combiner written in the DSL (associative), with its identity.
template <StreamElement T>
class Scan {
    using Combiner = detail::segmented::Combiner<T>;

public:
    template <class F>
    Scan(const std::string& name, F combine, const T& identity)
        : name_(name), identity_(identity) {
        const Combiner op(combine);
        for (int segmented = 0; segmented < 2; ++segmented)
            for (int inclusive = 0; inclusive < 2; ++inclusive)
                kernels_.push_back(detail::segmented::make_kernels<T>(name, op, segmented != 0, inclusive != 0));
    }

    void inclusive(const Stream<T>& in, const Stream<T>& out) const { run(in, nullptr, out, true, identity_); }
    void exclusive(const Stream<T>& in, const Stream<T>& out) const { run(in, nullptr, out, false, identity_); }
    /// out[i] = init + in[0] + ... + in[i-1].
    void exclusive(const Stream<T>& in, const Stream<T>& out, const T& init) const { run(in, nullptr, out, false, init); }
    /// Segmented: each element with heads[i] != 0 starts a new scan.
    void inclusive(const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& heads) const {
        run(in, &heads, out, true, identity_);
    }
    void exclusive(const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& heads) const {
        run(in, &heads, out, false, identity_);
    }

private:
    const detail::segmented::Kernels<T>& kernels(bool segmented, bool inclusive) const {
        return kernels_[(segmented ? 2 : 0) + (inclusive ? 1 : 0)];
    }

    void run(const Stream<T>& in, const Stream<std::uint32_t>* heads, const Stream<T>& out, bool inclusive, const T& init) const {
        constexpr std::int64_t tile = detail::segmented::kWg * detail::segmented::items_per_invocation<T>();
        if (!(in.shape() == out.shape()))
            throw Error("rill::Scan " + name_ + ": the input has shape " + in.shape().str() + " but the output has shape " +
                        out.shape().str() + "; scan into a stream of the input's shape");
        if (heads && heads->size() != in.size())
            throw Error("rill::Scan " + name_ + ": " + std::to_string(heads->size()) + " head flags for " +
                        std::to_string(in.size()) + " elements; give one flag per element");
        const std::int64_t n = in.size();
        if (n == 0) return;
        if (n > 0x7fffffff - tile)
            throw Error("rill::Scan " + name_ + ": " + std::to_string(n) + " elements is more than 2^31 - " +
                        std::to_string(tile + 1) + "; split the stream");
        Runtime rt = Runtime::of(in);
        const std::int64_t tiles = (n + tile - 1) / tile;
        auto identity_init = rt.template stream<T>({2}, std::vector<T>{identity_, init});
        auto no_heads = rt.template scratch<std::uint32_t>({1});  // unsegmented kernels never read it
        const Stream<std::uint32_t>& h = heads ? *heads : no_heads;
        const auto& k = kernels(heads != nullptr, inclusive);
        const auto n32 = static_cast<std::int32_t>(n);
        if (tiles == 1) {
            k.tiles(Groups{1}, in, h, out, identity_init, identity_init, n32, 0);
            return;
        }
        // The tiles' (head, total) pairs, scanned inclusively by the same code: the carries.
        auto sums = rt.template scratch<T>({tiles});  // the totals kernel writes each tile's pair
        auto sum_heads = rt.template scratch<std::uint32_t>({tiles});
        k.totals(Groups{tiles}, in, h, sums, sum_heads, identity_init, n32);
        run(sums, heads ? &sum_heads : nullptr, sums, true, identity_);
        k.tiles(Groups{tiles}, in, h, out, sums, identity_init, n32, 1);
    }

    std::string name_;
    T identity_;
    std::vector<detail::segmented::Kernels<T>> kernels_;
};

namespace detail::segmented {
template <class T>
const Scan<T>& builtin(ScanOp op) {
    check_scan_op<T>(op);
    static std::unique_ptr<Scan<T>> scans[7];
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    auto& scan = scans[static_cast<int>(op)];
    if (!scan)
        scan = std::make_unique<Scan<T>>(std::string("scan_") + scan_op_name(op),
                                         [op](const Expr<T>& a, const Expr<T>& b) { return detail::combine<T>(op, a, b); },
                                         scan_identity<T>(op));
    return *scan;
}
}  // namespace detail::segmented

/// Segmented scans of int32, uint32 or float under a built-in operator:
/// every element with heads[i] != 0 starts a new scan.
template <class T>
void inclusive_scan(const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& heads, ScanOp op = ScanOp::Add) {
    detail::segmented::builtin<T>(op).inclusive(in, out, heads);
}
template <class T>
void exclusive_scan(const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& heads, ScanOp op = ScanOp::Add) {
    detail::segmented::builtin<T>(op).exclusive(in, out, heads);
}

}  // namespace rill
