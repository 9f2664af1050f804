// Radix sort of streams, written in the DSL: LSD, 8-bit digits, stable;
// keys-only or key-value (values of any stream element type, structs too;
// values of one to four words move as their bits, every bit kept).
// How a pass works: detail/radix_digit_pass.h.
//
//   rill::radix_sort(keys);                         // uint32, int32 or float keys, ascending
//   rill::radix_sort(keys, values, {.descending = true});
//   rill::radix_sort(keys, values, {.bits = 10});   // keys known to be below 2^10 (uint32)
//   rill::radix_sort(keys64);                       // uint64 keys as rill::uint2 {low word, high word}
//   rill::SortBy<Particle, std::uint32_t> by_cell("by_cell", [](const Var<Particle>& p) { return cell(p); });
//   by_cell(particles);                             // by a key computed in the DSL
//
// Float keys sort in the total order -inf < negatives < -0 < +0 < positives <
// +inf < NaN (every NaN, whatever its sign, last; NaNs keep their input order
// but come back as the canonical quiet NaN 0x7fc00000).
#pragma once

#include <optional>

#include <rill/algorithms/detail/key_order.h>
#include <rill/algorithms/detail/permute.h>
#include <rill/algorithms/detail/radix_digit_pass.h>
#include <rill/algorithms/detail/radix_onesweep.h>
#include <rill/algorithms/detail/radix_rows.h>

namespace rill {

/// How each pass of a radix sort finds where its keys go.
enum class RadixAlgorithm {
    /// OneSweep where it was measured faster (every sort on the GPU backends,
    /// where its look-back is exact), else CountThenScatter
    /// (detail::onesweep_pays, docs/PERFORMANCE.md).
    Auto,
    /// Per pass: count the digits of each workgroup's keys, scan the counts,
    /// then sort tiles and scatter (reads the keys twice per pass); any device.
    CountThenScatter,
    /// Every pass's digits counted in one read of the keys, then per pass one
    /// kernel that reads and writes the keys once, each tile finding its
    /// digits' places by a decoupled look-back (Onesweep, Adinets and Merrill
    /// 2022). Fewer than 2^30 keys; refused where the driver ends long loops
    /// (DeviceLimits::loop_iterations), which could cut a look-back short.
    OneSweep,
};

struct RadixSortOptions {
    bool descending = false;
    /// Sort by the low `bits` bits of the (uint32-mapped) key only: fewer passes
    /// (one per 8 bits) when the caller knows the range. 32 = every bit of a
    /// 32-bit key; uint64 keys take up to 64.
    int bits = 32;
    /// Tiles (of 6144 keys through Vulkan, 4096 with values or elsewhere) each workgroup sorts in
    /// turn; 0 = chosen from n (at most 65536 workgroups, 32768 for keys in tiles of 4096), and on
    /// the CPU backend row tiles instead
    /// (detail/radix_rows.h). A tuning knob: the result does not depend on it.
    std::int64_t tiles_per_workgroup = 0;
    RadixAlgorithm algorithm = RadixAlgorithm::Auto;
    /// Sort only the first count[0] elements (a one-element stream, e.g. a
    /// Filter's count), read on the device: no host round trip. A count past
    /// the stream's size means all of it; elements past the count are left as
    /// they are. uint32, int32 and float keys (not uint64).
    std::optional<Stream<std::uint32_t>> count = std::nullopt;
};

namespace detail {

inline void check_one_value_per_key(std::int64_t keys, std::int64_t values) {
    if (values != keys)
        throw Error("rill::radix_sort: " + std::to_string(keys) + " keys but " + std::to_string(values) +
                    " values; give one value per key");
}

inline void check_count(const RadixSortOptions& opt) {
    if (opt.count && opt.count->size() != 1)
        throw Error("rill::radix_sort: the count stream has " + std::to_string(opt.count->size()) +
                    " elements; give a stream of one element (how many leading keys to sort)");
}

/// Maps int32 and float keys onto uint32 bits in the same order, and back.
template <class K>
auto make_key_map(bool to_bits) {
    return group_kernel<256>(to_bits ? "radix_key_to_bits(keys, bits, size, count, counted)"
                                     : "radix_bits_to_key(keys, bits, size, count, counted)",
                             [to_bits](Array<K> keys, Array<std::uint32_t> bits, Int size, Array<std::uint32_t> count,
                                       Int counted) {
        Int i = global_id();
        If(i < elements_to_sort(count, size, counted), [&] {
            if (to_bits) bits.store(i, ordered_bits<K>(keys.load(i)));
            else keys.store(i, key_of_ordered_bits<K>(bits.load(i)));
        });
    });
}

/// Whether RadixAlgorithm::Auto takes OneSweep for n keys (with values or
/// not): on the GPU backends that allow it, at every size. On the H100
/// (rill-bench-sorts, docs/PERFORMANCE.md#radix-sort) count-then-scatter /
/// OneSweep through OpenGL took keys 3.31 at 2^10, 1.99 at 2^22, 1.52 at 2^26
/// and 1.34 at 2^28, pairs 3.18, 1.86, 1.34 and 1.29, and through Vulkan
/// OneSweep was as fast at 2^24 and 2^26 and faster elsewhere; on the H200
/// through Vulkan 1.19-1.95 (docs/PERFORMANCE.md#sorts-over-n). The CPU
/// backend runs the GPU's tile kernels for OneSweep, 10-25x slower.
inline bool onesweep_pays(const BackendInfo& info, std::int64_t n) {
    if (!look_back::exact_on(info) || n >= radix::kMostSweepKeys) return false;
    return info.name == "vulkan" || info.name == "opengl";
}

template <class V, bool WithValues>
void radix_sort_bits(Stream<std::uint32_t>& keys, const Stream<V>* values, const RadixSortOptions& opt) {
    using namespace radix;
    const std::int64_t n = keys.size();
    if (opt.bits < 1 || opt.bits > 32)
        throw Error("rill::radix_sort: bits = " + std::to_string(opt.bits) + "; give 1 to 32 key bits");
    if (opt.tiles_per_workgroup < 0)
        throw Error("rill::radix_sort: tiles_per_workgroup = " + std::to_string(opt.tiles_per_workgroup) +
                    "; give a positive number, or 0 to let rill choose");
    const bool asked_sweep = opt.algorithm == RadixAlgorithm::OneSweep;
    if (asked_sweep && opt.tiles_per_workgroup != 0)
        throw Error("rill::radix_sort: tiles_per_workgroup = " + std::to_string(opt.tiles_per_workgroup) +
                    " is for RadixAlgorithm::CountThenScatter (with OneSweep every workgroup sorts one tile); give 0");
    if (n <= 1) return;
    if (n > 0x7fffffff - kMostTile) throw too_many_keys();
    Runtime rt = Runtime::of(keys);
    const bool sweep = asked_sweep || (opt.algorithm == RadixAlgorithm::Auto && opt.tiles_per_workgroup == 0 &&
                                       onesweep_pays(rt.info(), n));
    if (asked_sweep) {
        look_back::check_exact(rt.info(), "rill::radix_sort with RadixAlgorithm::OneSweep", "RadixAlgorithm::Auto");
        if (n >= kMostSweepKeys)
            throw Error("rill::radix_sort: RadixAlgorithm::OneSweep counts in 30 bits, so it sorts fewer than 2^30 keys, not " +
                        std::to_string(n) + "; use RadixAlgorithm::Auto");
    }
    const bool rows = rows_pay(rt.info()) && opt.tiles_per_workgroup == 0 && !sweep;
    const Tile backend_tile = tile_for(rt.info(), WithValues, sweep);
    const Tile tile = sweep ? sweep_tile_for(backend_tile, n) : backend_tile;
    const Runs runs = rows ? row_runs(n)
                           : runs_for(n, tile, opt.tiles_per_workgroup, default_groups(tile, WithValues),
                                      rt.info().limits.loop_iterations, rt.info().device);
    const std::int64_t groups = runs.groups;
    auto counts = rt.stream<std::uint32_t>({sweep ? kCountsTicket + 1 : runs.counts});  // zero
    // The passes write every key they sort into the other stream, so it need
    // not be zeroed first: on the H100 that saves 0.46 ms (1 GB) per 2^28 keys.
    Stream<std::uint32_t> k[2] = {keys, rt.scratch<std::uint32_t>({n})};
    Stream<V> v[2];
    if constexpr (WithValues) v[0] = *values, v[1] = rt.scratch<V>(values->shape());
    const auto n32 = static_cast<std::int32_t>(n);
    const auto [count, counted] = count_arguments(opt.count, rt);
    const int passes = (opt.bits + kDigitBits - 1) / kDigitBits;
    if (opt.count && passes % 2 == 1) {
        // The last pass writes the scratch streams, which are copied back
        // whole: past the count they must hold what the input holds.
        detail::copy_stream(keys, k[1]);
        if constexpr (WithValues) detail::copy_stream(*values, v[1]);
    }
    const auto run = static_cast<std::int32_t>(runs.run);
    const PassKernel kernel{ballot_subgroup(rt.info().limits), tile.items};
    // OneSweep's passes: one stream of look-back states, zeroed once by the counting kernel, rather than a new one per pass.
    const int first_state_pass = first_looked_back(WithValues, opt.bits);
    const std::int64_t state_words = sweep ? (passes - first_state_pass) * sweep_state_words(tile.count(n)) : 0;
    const Stream<std::uint32_t> state = sweep ? rt.scratch<std::uint32_t>({std::max<std::int64_t>(state_words, 1)}) : Stream<std::uint32_t>();
    if (sweep) {
        const Runs counting = runs_for(n, kTile, 0, kCountGroups, rt.info().limits.loop_iterations, rt.info().device);
        // Leaves every pass's digit starts, after the earlier passes' n keys each.
        traced_once(kTile.items, make_pass_counts_kernel)(Groups{counting.groups}, keys, counts, state,
                                                          static_cast<std::int32_t>(state_words), n32, count, counted,
                                                          static_cast<std::int32_t>(counting.run), opt.bits,
                                                          opt.descending ? 0xffffffffu : 0u);
    }
    int cur = 0;
    for (int shift = 0; shift < opt.bits; shift += kDigitBits) {
        const int bits = std::min(kDigitBits, opt.bits - shift);
        const std::uint32_t mask = (1u << bits) - 1u;
        const std::uint32_t flip = opt.descending ? mask : 0u;
        const auto sh = static_cast<std::uint32_t>(shift);
        if (sweep) {
            const std::int64_t tiles = tile.count(n);
            const std::int32_t pass = shift / kDigitBits;
            // This pass's look-back states (none where it claims its places).
            const auto states = static_cast<std::int32_t>(std::max(0, pass - first_state_pass) * sweep_state_words(tiles));
            if constexpr (WithValues)
                traced_once(kernel, make_sweep_kernel<V, true>)(Groups{tiles}, k[cur], v[cur], counts, state, k[1 - cur],
                                                                 v[1 - cur], n32, count, counted, pass, states, sh, mask, flip, bits);
            else
                traced_once(PassKernel{kernel.ranking, kernel.items, claims_places(false, opt.bits, pass)},
                            make_sweep_kernel<std::uint32_t, false>)(Groups{tiles}, k[cur], counts, state, k[1 - cur], n32, count,
                                                                     counted, pass, states, sh, mask, flip, bits);
        } else {
            if (rows) {
                static const auto rows_histogram = make_rows_histogram_kernel();
                rows_histogram(Groups{groups}, k[cur], counts, n32, count, counted, run, sh, mask, flip);
            } else {
                traced_once(tile.items, make_histogram_kernel)(Groups{groups}, k[cur], counts, n32, count, counted, run, sh, mask, flip);
            }
            exclusive_scan(counts, counts);
            if (rows) {
                if constexpr (WithValues) {
                    static const auto scatter = make_rows_scatter_pairs_kernel<V>();
                    scatter(Groups{groups}, k[cur], v[cur], counts, k[1 - cur], v[1 - cur], n32, count, counted, run, sh, mask, flip);
                } else {
                    static const auto scatter = make_rows_scatter_keys_kernel();
                    scatter(Groups{groups}, k[cur], counts, k[1 - cur], n32, count, counted, run, sh, mask, flip);
                }
            } else if constexpr (WithValues) {
                traced_once(kernel, make_scatter_pairs_kernel<V>)(
                    Groups{groups}, k[cur], v[cur], counts, k[1 - cur], v[1 - cur], n32, count, counted, run, sh, mask, flip, bits);
            } else {
                traced_once(kernel, make_scatter_keys_kernel)(
                    Groups{groups}, k[cur], counts, k[1 - cur], n32, count, counted, run, sh, mask, flip, bits);
            }
        }
        cur = 1 - cur;
    }
    if (cur == 1) {
        detail::copy_stream(k[1], keys);
        if constexpr (WithValues) detail::copy_stream(v[1], *values);
    }
}

// Compiled once, in the library (algorithms/src/radix_sort.cpp): keys alone,
// and values of one to four words, which every sort moves as their bits
// (moved_as below). Each of these took 6-7 s to compile in every file that sorts.
extern template void radix_sort_bits<std::uint32_t, false>(Stream<std::uint32_t>&, const Stream<std::uint32_t>*,
                                                          const RadixSortOptions&);
extern template void radix_sort_bits<std::uint32_t, true>(Stream<std::uint32_t>&, const Stream<std::uint32_t>*,
                                                         const RadixSortOptions&);
extern template void radix_sort_bits<uint2, true>(Stream<std::uint32_t>&, const Stream<uint2>*, const RadixSortOptions&);
extern template void radix_sort_bits<uint3, true>(Stream<std::uint32_t>&, const Stream<uint3>*, const RadixSortOptions&);
extern template void radix_sort_bits<uint4, true>(Stream<std::uint32_t>&, const Stream<uint4>*, const RadixSortOptions&);

/// The type a sort moves values of V as: their bits in one to four words, so
/// that values of one size (float, int32, uint32; float3, uint3, a struct of
/// three words) share one compiled sort and its kernels, and every bit (a
/// NaN's payload) moves as it is. Larger structs move as themselves.
template <class V>
using moved_as = std::conditional_t<
    element_words<V> == 1, std::uint32_t,
    std::conditional_t<element_words<V> == 2, uint2,
                       std::conditional_t<element_words<V> == 3, uint3, std::conditional_t<element_words<V> == 4, uint4, V>>>>;

template <class V>
Stream<moved_as<V>> values_as_moved(const Stream<V>& values) {
    if (values.is_iterator())
        throw Error("rill::radix_sort: the values are an iterator stream, which cannot be written; "
                    "pass a stream from Runtime::stream");
    if constexpr (std::is_same_v<moved_as<V>, V>) return values;
    else return values.template bit_cast<moved_as<V>>();
}

template <class V, bool WithValues>
void radix_sort_bits_of(Stream<std::uint32_t>& keys, const Stream<V>* values, const RadixSortOptions& opt) {
    if constexpr (WithValues) {
        const Stream<moved_as<V>> moved = values_as_moved(*values);
        radix_sort_bits<moved_as<V>, true>(keys, &moved, opt);
    } else {
        radix_sort_bits<std::uint32_t, false>(keys, nullptr, opt);
    }
}

template <class K, class V, bool WithValues>
void radix_sort(const Stream<K>& keys, const Stream<V>* values, const RadixSortOptions& opt) {
    static_assert(kOrderedKey<K>, "rill::radix_sort: keys are uint32, int32 or float");
    if constexpr (WithValues) check_one_value_per_key(keys.size(), values->size());
    check_count(opt);
    if constexpr (std::is_same_v<K, std::uint32_t>) {
        Stream<std::uint32_t> k = keys;
        radix_sort_bits_of<V, WithValues>(k, values, opt);
    } else {
        if (opt.bits != 32) throw Error("rill::radix_sort: a range of key bits is for uint32 keys only");
        static const auto to_bits = make_key_map<K>(true);
        static const auto from_bits = make_key_map<K>(false);
        const std::int64_t n = keys.size();
        if (n <= 1) return;
        Runtime rt = Runtime::of(keys);
        auto bits = rt.scratch<std::uint32_t>({n});  // each key's written by to_bits
        const std::int64_t groups = (n + 255) / 256;
        const auto [count, counted] = count_arguments(opt.count, rt);
        const auto n32 = static_cast<std::int32_t>(n);
        to_bits(Groups{groups}, keys, bits, n32, count, counted);
        radix_sort_bits_of<V, WithValues>(bits, values, opt);
        from_bits(Groups{groups}, keys, bits, n32, count, counted);
    }
}

}  // namespace detail

/// Sorts `keys` in place (stable; see the order of float keys above).
template <class K>
void radix_sort(const Stream<K>& keys, const RadixSortOptions& opt = {}) {
    detail::radix_sort<K, std::uint32_t, false>(keys, nullptr, opt);
}

/// Sorts `keys` in place and moves `values` with them (stable).
template <class K, class V>
void radix_sort(const Stream<K>& keys, const Stream<V>& values, const RadixSortOptions& opt = {}) {
    detail::radix_sort<K, V, true>(keys, &values, opt);
}

namespace detail {

/// uint64 keys {low, high}: the input positions are sorted by the low words,
/// then (stably) by the high words of the keys in that order, and keys and
/// values move once, to their final places. Twice the passes of a uint32 key.
template <class V, bool WithValues>
void radix_sort_uint64(const Stream<uint2>& keys, const Stream<V>* values, const RadixSortOptions& opt) {
    static const auto word = group_kernel<256>("radix_uint64_word(keys, order, word, n, high)",
                                               [](Array<uint2> keys, Array<std::uint32_t> order, Array<std::uint32_t> word,
                                                  Int n, Int high) {
        Int i = global_id();
        If(i < n, [&] {
            If(high != 0, [&] { word.store(i, keys.load(order.load(i)).y()); }).Else([&] {
                word.store(i, keys.load(i).x());
                order.store(i, cast<std::uint32_t>(i));
            });
        });
    });
    const std::int64_t n = keys.size();
    if (opt.bits < 1 || opt.bits > 64)
        throw Error("rill::radix_sort: bits = " + std::to_string(opt.bits) + "; give 1 to 64 key bits for uint64 keys");
    if (opt.count)
        throw Error("rill::radix_sort: a count on the device is for uint32, int32 and float keys, not uint64 ones yet; "
                    "download the count and sort a stream of that size");
    if constexpr (WithValues) check_one_value_per_key(n, values->size());
    if (n <= 1) return;
    if (n > 0x7fffffff - radix::kMostTile) throw radix::too_many_keys();
    Runtime rt = Runtime::of(keys);
    auto order = rt.scratch<std::uint32_t>({n});  // both written whole by `word`
    auto w = rt.scratch<std::uint32_t>({n});
    const Groups groups{(n + 255) / 256};
    const auto n32 = static_cast<std::int32_t>(n);
    RadixSortOptions low = opt, high = opt;
    low.bits = std::min(opt.bits, 32);
    high.bits = opt.bits - 32;
    word(groups, keys, order, w, n32, 0);
    radix_sort_bits<std::uint32_t, true>(w, &order, low);
    if (high.bits > 0) {
        word(groups, keys, order, w, n32, 1);
        radix_sort_bits<std::uint32_t, true>(w, &order, high);
    }
    permute(keys, order);
    if constexpr (WithValues) permute(values_as_moved(*values), order);
}

}  // namespace detail

/// uint64 keys, each as a uint2 {low word, high word} (the host layout of a
/// uint64_t array on little-endian machines): sorted in place, stable.
inline void radix_sort(const Stream<uint2>& keys, const RadixSortOptions& opt = {}) {
    detail::radix_sort_uint64<std::uint32_t, false>(keys, nullptr, opt);
}
template <class V>
void radix_sort(const Stream<uint2>& keys, const Stream<V>& values, const RadixSortOptions& opt = {}) {
    detail::radix_sort_uint64<V, true>(keys, &values, opt);
}

/// A radix sort of a stream by a key that a DSL lambda computes from each
/// element (uint32, int32 or float, in the order above); stable. Traced once.
template <StreamElement T, class K>
class SortBy {
    static_assert(detail::kOrderedKey<K>, "rill::SortBy: the key is uint32, int32 or float");
    using KeyOf = std::function<Expr<K>(const dsl::read_t<T>&)>;

public:
    template <class F>
    SortBy(const std::string& name, F key_of) : key_(make_key(name, KeyOf(key_of))) {}

    /// Sorts `items` in place by their keys.
    void operator()(const Stream<T>& items, const RadixSortOptions& opt = {}) const {
        const std::int64_t n = items.size();
        if (n <= 1) return;
        auto keys = Runtime::of(items).template scratch<K>({n});  // each item's written
        key_(Groups{(n + 255) / 256}, items, keys, static_cast<std::int32_t>(n));
        radix_sort(keys, items, opt);
    }

private:
    static auto make_key(const std::string& name, KeyOf key_of) {
        return group_kernel<256>(name + "_key(items, keys, n)", [key_of](Array<T> items, Array<K> keys, Int n) {
            Int i = global_id();
            If(i < n, [&] { keys.store(i, key_of(items.load(i))); });
        });
    }
    decltype(make_key("", KeyOf())) key_;
};

}  // namespace rill
