// Bitonic sort (Batcher 1968) of streams, written in the DSL: any n, keys of
// any stream type in an order written in the DSL, key-value, and sorts of
// many equal runs at once (the rows of a 2D stream: UberFlow's row-wise sort).
//
//   rill::bitonic_sort(keys);                               // the radix sort's order
//   rill::bitonic_sort(keys, values, {.descending = true}); // stable: ties keep input order
//   rill::bitonic_sort(grid, {.segment = 1024});            // each run of 1024 (row) on its own
//   rill::BitonicSort<Particle> by_depth("by_depth",
//       [](const Var<Particle>& a, const Var<Particle>& b) { return a.position.z < b.position.z; });
//   by_depth(particles);
//   rill::bitonic_sort(keys, {.count = kept});             // the first kept[0] only (on the device)
//
// The network: on N = the power of two at or above n, stage k = 2, 4 .. N
// first compares each element of a block of k with its mirror in the block,
// then with the element k/4, k/8 .. 1 places on (the half-cleaners). Every
// comparator puts the smaller element first, so positions n .. N-1 can be
// taken to hold +infinity that never moves: comparators that reach them are
// skipped, and any n sorts with no padding in memory. Steps whose elements are
// less than a tile apart run in shared memory, many in one kernel; the wider
// ones take one kernel over the whole stream per two steps.
//
// Keys-only sorts are not stable (keys equal in the order may come back in any
// order); key-value sorts carry each key's input position and break ties by
// it, so they are, and the values move once, at the end.
#pragma once

#include <bit>
#include <optional>
#include <string>

#include <rill/algorithms/detail/device_count.h>
#include <rill/algorithms/detail/key_order.h>
#include <rill/algorithms/detail/permute.h>

namespace rill {

struct BitonicSortOptions {
    bool descending = false;
    /// Sort each run of `segment` consecutive elements on its own (the last run
    /// may be shorter); 0 = the whole stream. segment = the row length of a 2D
    /// stream sorts each row (UberFlow's row-wise sort); the default sort of a
    /// 2D stream sorts it in row-major order, which with rows of a power of two
    /// is UberFlow's rows-then-merged-rows sequence.
    std::int64_t segment = 0;
    /// Sort only the first count[0] elements (a one-element stream, e.g. a
    /// Filter's count), read on the device: no host round trip. A count past
    /// the stream's size means all of it; elements past the count (keys and
    /// values) are left as they are. The network is the one for the whole
    /// stream, so the time is that of sorting all of it.
    std::optional<Stream<std::uint32_t>> count = std::nullopt;
};

namespace detail::bitonic {

/// Elements of a shared-memory tile: a power of two, 2048 at most, that keeps
/// the tile (keys, and input positions for key-value sorts) within 16 KB.
template <class K>
constexpr std::int32_t tile_size() {
    constexpr std::int64_t bytes = sizeof(K) + 4;
    std::int32_t t = 2048;
    while (t > 64 && t * bytes > 16384) t /= 2;
    return t;
}
template <class K>
constexpr int workgroup_size() {
    return std::min(256, tile_size<K>() / 2);
}

/// Where the comparison sorts' elements are: positions 0 .. S*N-1 of a
/// virtual array of S segments of N (a power of two) each, of which the first
/// `seg` of a segment are elements of the stream and the rest +infinity.
/// n: the elements to sort (the stream's size, or the count read on the device).
struct Layout {
    Int n, seg, nmask, log2n;
    Expr<std::int32_t> address(const Expr<std::int32_t>& v) const { return (v >> log2n) * seg + (v & nmask); }
    Expr<bool> holds_element(const Expr<std::int32_t>& v) const { return (v & nmask) < seg && address(v) < n; }
};

/// The pair of comparator number t of a step: the element first of two,
/// whose partner is j places on (a half-cleaner) or its mirror in the block of
/// 2j (flip, the first step of a stage).
inline std::pair<Expr<std::int32_t>, Expr<std::int32_t>> pair_of(const Expr<std::int32_t>& t, const Int& j, const Expr<bool>& flip) {
    Int low = t & (j - 1);
    Int block = (t - low) * 2;
    Int a = block + low;
    return {a, select(flip, block + 2 * j - 1 - low, a + j)};
}

/// Whether element b (key kb, input position ib) goes before element a
/// (ka, ia), which is before it now. With `indexed`, input positions decide
/// between keys equal in the order.
template <class K>
Expr<bool> out_of_order(const Less<K>& less, bool indexed, const Var<K>& ka, const Var<K>& kb, const Var<std::uint32_t>& ia,
                        const Var<std::uint32_t>& ib, const Int& descending) {
    Bool b_first = goes_before<K>(less, descending, kb, ka);
    if (!indexed) return b_first;
    Bool a_first = goes_before<K>(less, descending, ka, kb);
    return b_first || (!a_first && ib < ia);
}

/// Puts the earlier of the elements at a and b (a < b) of a memory at a.
template <class K, class KeyMemory, class IndexMemory>
void compare_exchange(const Less<K>& less, bool indexed, const KeyMemory& keys, const IndexMemory& index,
                      const Expr<std::int32_t>& a, const Expr<std::int32_t>& b, const Int& descending) {
    Var<K> ka = keys.load(a);
    Var<K> kb = keys.load(b);
    Var<std::uint32_t> ia = 0u, ib = 0u;
    if (indexed) ia = index.load(a), ib = index.load(b);
    If(out_of_order<K>(less, indexed, ka, kb, ia, ib, descending), [&] {
        keys.store(a, kb);
        keys.store(b, ka);
        if (indexed) index.store(a, ib), index.store(b, ia);
    });
}

/// An element held in registers by a kernel that runs several steps at once.
template <class K>
struct Held {
    Var<K> key;
    Var<std::uint32_t> index;
    Bool present;
};

/// Puts the earlier of held elements a and b (a first now) first; an absent b
/// (+infinity) stays where it is.
template <class K>
void compare_exchange(const Less<K>& less, bool indexed, Held<K>& a, Held<K>& b, const Int& descending) {
    If(b.present && out_of_order<K>(less, indexed, a.key, b.key, a.index, b.index, descending), [&] {
        Var<K> k = a.key;
        a.key = b.key;
        b.key = k;
        if (indexed) {
            UInt i = a.index;
            a.index = b.index;
            b.index = i;
        }
    });
}

template <class K>
struct Kernels {
    static constexpr std::int32_t kTile = tile_size<K>();
    static constexpr int kWg = workgroup_size<K>();
    // (keys, index, size, count, counted, seg, nmask, log2n, and four of the kernel's own)
    using Tile = decltype(group_kernel<kWg>(
        "", [](Array<K>, Array<std::uint32_t>, Int, Array<std::uint32_t>, Int, Int, Int, Int, Int, Int, Int, Int) {}));
    using Step = Tile;
    Tile tile;
    Step step;
    Step two_steps;
};

/// The kernels of one order; `indexed`: key-value (input positions in `index`).
template <class K>
Kernels<K> make_kernels(const std::string& name, const Less<K>& less, bool indexed) {
    using Ks = Kernels<K>;
    constexpr int Wg = Ks::kWg;
    const std::string what = name + (indexed ? "_pairs" : "_keys");
    // Stages k_first .. k_last of the network, restricted to steps less than a
    // tile wide (the wider ones ran before, in `step`). first: `index` is not
    // written yet; take the input positions (and past the count, where
    // nothing moves, the identity, for the values' permutation).
    auto tile = group_kernel<Wg>(what + "_tile(keys, index, size, count, counted, seg, nmask, log2n, k_first, k_last, descending, first)",
                                 [less, indexed](Array<K> keys, Array<std::uint32_t> index, Int size, Array<std::uint32_t> count,
                                                 Int counted, Int seg, Int nmask, Int log2n, Int k_first, Int k_last,
                                                 Int descending, Int first) {
        constexpr std::int32_t T = Kernels<K>::kTile;
        const Layout at{elements_to_sort(count, size, counted), seg, nmask, log2n};
        Shared<K> tk(T);
        Shared<std::uint32_t> ti(indexed ? T : 1);
        Int base = group_id() * T;
        for (int r = 0; r < T / Wg; ++r) {
            Int e = local_id() + r * Wg;
            If(at.holds_element(base + e), [&] {
                Int address = at.address(base + e);
                tk.store(e, keys.load(address));
                if (indexed) ti.store(e, select(first != 0, cast<std::uint32_t>(address), index.load(address)));
            });
            if (indexed) {
                Int v = base + e;
                If(first != 0 && (v & nmask) < seg && at.address(v) >= at.n && at.address(v) < size,
                   [&] { index.store(at.address(v), cast<std::uint32_t>(at.address(v))); });
            }
        }
        barrier();
        Int k = k_first;
        While([&] { return k <= k_last; }, [&] {
            Int j = min(k / 2, T / 2);
            Bool flip = j == k / 2;
            While([&] { return j >= 1; }, [&] {
                for (int r = 0; r < T / 2 / Wg; ++r) {
                    auto [a, b] = pair_of(local_id() + r * Wg, j, flip);
                    If(at.holds_element(base + b), [&] { compare_exchange<K>(less, indexed, tk, ti, a, b, descending); });
                }
                barrier();
                j = j / 2;
                flip = false;
            });
            k = k * 2;
        });
        for (int r = 0; r < T / Wg; ++r) {
            Int e = local_id() + r * Wg;
            If(at.holds_element(base + e), [&] {
                Int address = at.address(base + e);
                keys.store(address, tk.load(e));
                if (indexed) index.store(address, ti.load(e));
            });
        }
    });
    // One step at least a tile wide: comparator t of `pairs`, partners j apart.
    auto step = group_kernel<Wg>(what + "_step(keys, index, size, count, counted, seg, nmask, log2n, pairs, j, flip, descending)",
                                 [less, indexed](Array<K> keys, Array<std::uint32_t> index, Int size, Array<std::uint32_t> count,
                                                 Int counted, Int seg, Int nmask, Int log2n, Int pairs, Int j, Int flip,
                                                 Int descending) {
        const Layout at{elements_to_sort(count, size, counted), seg, nmask, log2n};
        Int t = global_id();
        If(t < pairs, [&] {
            auto [a, b] = pair_of(t, j, flip != 0);
            If(at.holds_element(b), [&] {
                compare_exchange<K>(less, indexed, keys, index, at.address(a), at.address(b), descending);
            });
        });
    });
    // Two steps at once, strides j and j/2, both at least a tile wide: each
    // invocation holds the four elements the two steps pair among themselves
    // (in a block of 2j: q and q + j/2 below, and above them q + j and
    // q + 3j/2, or their mirrors for a flip), so the keys cross memory once
    // for two steps.
    auto two_steps = group_kernel<Wg>(what + "_two_steps(keys, index, size, count, counted, seg, nmask, log2n, quads, j, flip, descending)",
                                      [less, indexed](Array<K> keys, Array<std::uint32_t> index, Int size,
                                                      Array<std::uint32_t> count, Int counted, Int seg, Int nmask,
                                                      Int log2n, Int quads, Int j, Int flip, Int descending) {
        const Layout at{elements_to_sort(count, size, counted), seg, nmask, log2n};
        Int t = global_id();
        If(t < quads, [&] {
            Int half = j / 2;
            Int q = t & (half - 1);
            Int base = (t - q) * 4;
            Int low0 = base + q, low1 = base + q + half;
            Int up0 = select(flip != 0, base + 2 * j - 1 - q, base + j + q);
            Int up1 = select(flip != 0, base + j + half - 1 - q, base + j + q + half);
            Int v[4] = {low0, low1, up0, up1};
            std::vector<Held<K>> e;
            for (int r = 0; r < 4; ++r) {
                e.push_back(Held<K>{Var<K>(), Var<std::uint32_t>(0u), Bool(at.holds_element(v[r]))});
                If(e[r].present, [&] {
                    e[r].key = keys.load(at.address(v[r]));
                    if (indexed) e[r].index = index.load(at.address(v[r]));
                });
            }
            compare_exchange<K>(less, indexed, e[0], e[2], descending);
            compare_exchange<K>(less, indexed, e[1], e[3], descending);
            compare_exchange<K>(less, indexed, e[0], e[1], descending);
            // Above: after a flip the mirrors run the other way (up1 < up0).
            If(flip != 0, [&] { compare_exchange<K>(less, indexed, e[3], e[2], descending); })
                .Else([&] { compare_exchange<K>(less, indexed, e[2], e[3], descending); });
            for (int r = 0; r < 4; ++r)
                If(e[r].present, [&] {
                    keys.store(at.address(v[r]), e[r].key);
                    if (indexed) index.store(at.address(v[r]), e[r].index);
                });
        });
    });
    return Ks{tile, step, two_steps};
}

}  // namespace detail::bitonic

/// A bitonic sort in the order `less` (a strict weak order on K, written in
/// the DSL: less(a, b) when a goes before b), traced once when constructed.
template <StreamElement K>
class BitonicSort {
public:
    template <class L>
    BitonicSort(const std::string& name, L less)
        : name_(name),
          keys_(detail::bitonic::make_kernels<K>(name, detail::Less<K>(less), false)),
          pairs_(detail::bitonic::make_kernels<K>(name, detail::Less<K>(less), true)) {}

    /// Sorts `keys` in place (not stable).
    void operator()(const Stream<K>& keys, const BitonicSortOptions& opt = {}) const {
        auto unused = Runtime::of(keys).template scratch<std::uint32_t>({1});  // keys-only kernels never touch it
        run(keys_, keys, unused, opt);
    }
    /// Sorts `keys` in place and moves `values` with them (stable).
    template <StreamElement V>
    void operator()(const Stream<K>& keys, const Stream<V>& values, const BitonicSortOptions& opt = {}) const {
        if (values.size() != keys.size())
            throw Error("rill::BitonicSort " + name_ + ": " + std::to_string(keys.size()) + " keys but " +
                        std::to_string(values.size()) + " values; give one value per key");
        if (keys.size() <= 1) return;
        auto order = Runtime::of(keys).template stream<std::uint32_t>({keys.size()});
        run(pairs_, keys, order, opt);
        detail::permute(values, order);
    }

private:
    using Kernels = detail::bitonic::Kernels<K>;

    void run(const Kernels& k, const Stream<K>& keys, const Stream<std::uint32_t>& index, const BitonicSortOptions& opt) const {
        constexpr std::int64_t T = Kernels::kTile;
        const std::int64_t n = keys.size();
        if (opt.segment < 0)
            throw Error("rill::BitonicSort " + name_ + ": segment = " + std::to_string(opt.segment) +
                        "; give the length of the runs to sort on their own, or 0 to sort the whole stream");
        if (opt.count && opt.count->size() != 1)
            throw Error("rill::BitonicSort " + name_ + ": the count stream has " + std::to_string(opt.count->size()) +
                        " elements; pass a Stream<uint32_t> of one element (e.g. a Filter's count)");
        if (n <= 1) return;
        Runtime rt = Runtime::of(keys);
        const auto [count, counted] = detail::count_arguments(opt.count, rt);
        const std::int64_t seg = opt.segment == 0 ? n : std::min(opt.segment, n);
        const std::int64_t N = static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(seg)));
        const std::int64_t virtual_size = (n + seg - 1) / seg * N;
        if (virtual_size > (std::int64_t{1} << 31) - T)
            throw Error("rill::BitonicSort " + name_ + ": " + std::to_string(n) + " elements in runs of " +
                        std::to_string(seg) + " need more than 2^31 network positions; split the stream");
        const auto i32 = [](std::int64_t v) { return static_cast<std::int32_t>(v); };
        const auto log2n = static_cast<std::int32_t>(std::countr_zero(static_cast<std::uint64_t>(N)));
        const std::int32_t desc = opt.descending ? 1 : 0;
        const Groups tiles{(virtual_size + T - 1) / T};
        const std::int64_t pairs = virtual_size / 2;
        const Groups pair_groups{(pairs + Kernels::kWg - 1) / Kernels::kWg};
        const Groups quad_groups{(pairs / 2 + Kernels::kWg - 1) / Kernels::kWg};
        k.tile(tiles, keys, index, i32(n), count, counted, i32(seg), i32(N - 1), log2n, 2, i32(std::min(N, T)), desc, 1);
        for (std::int64_t stage = 2 * T; stage <= N; stage *= 2) {
            for (std::int64_t j = stage / 2; j >= T;) {
                const std::int32_t flip = j == stage / 2 ? 1 : 0;
                if (j / 2 >= T) {
                    k.two_steps(quad_groups, keys, index, i32(n), count, counted, i32(seg), i32(N - 1), log2n, i32(pairs / 2), i32(j), flip, desc);
                    j /= 4;
                } else {
                    k.step(pair_groups, keys, index, i32(n), count, counted, i32(seg), i32(N - 1), log2n, i32(pairs), i32(j), flip, desc);
                    j /= 2;
                }
            }
            k.tile(tiles, keys, index, i32(n), count, counted, i32(seg), i32(N - 1), log2n, i32(stage), i32(stage), desc, 0);
        }
    }

    std::string name_;
    Kernels keys_;
    Kernels pairs_;
};

namespace detail::bitonic {
template <class K>
const BitonicSort<K>& default_order() {
    static_assert(kOrderedKey<K>, "rill::bitonic_sort: keys are uint32, int32 or float; for other keys give "
                                  "an order (rill::BitonicSort)");
    static const BitonicSort<K> sort("bitonic_sort", [](const Expr<K>& a, const Expr<K>& b) { return ordered_less<K>(a, b); });
    return sort;
}
}  // namespace detail::bitonic

/// Sorts uint32, int32 or float keys in place, in the radix sort's order (not stable).
template <class K>
void bitonic_sort(const Stream<K>& keys, const BitonicSortOptions& opt = {}) {
    detail::bitonic::default_order<K>()(keys, opt);
}

/// Sorts keys in place and moves `values` with them (stable).
template <class K, class V>
void bitonic_sort(const Stream<K>& keys, const Stream<V>& values, const BitonicSortOptions& opt = {}) {
    detail::bitonic::default_order<K>()(keys, values, opt);
}

}  // namespace rill
