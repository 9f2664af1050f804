// LSD radix sort by repeated stable split (GPU Gems 3 ch. 39.3.3), written in
// the DSL on top of rill's scan: one pass per key bit, each a flag kernel, an
// exclusive scan of the flags and a scatter. Stable; keys-only or key-value
// (values of any stream element type, structs too).
//
//   rill::radix_sort(keys);                         // uint32, int32 or float keys, ascending
//   rill::radix_sort(keys, values, {.descending = true});
//   rill::radix_sort(keys, values, {.bits = 10});   // keys known to be below 2^10 (uint32)
//
// Float keys sort in the total order -inf < negatives < -0 < +0 < positives <
// +inf < NaN (every NaN, whatever its sign, last; NaNs keep their input order
// but come back as the canonical quiet NaN 0x7fc00000).
#pragma once

#include <rill/algorithms/scan.h>

namespace rill {

struct RadixSortOptions {
    bool descending = false;
    /// Sort by the low `bits` bits of the (uint32-mapped) key only: fewer passes
    /// when the caller knows the range. 32 = every bit.
    int bits = 32;
};

namespace detail {

/// One stable split pass: elements whose key bit equals `first_bit` go first.
template <class V, bool WithValues>
auto make_split_kernel() {
    return group_kernel<256>(
        WithValues ? "radix_split_pairs(keys, values, offsets, keys_out, values_out, n, bit, first_bit)"
                   : "radix_split_keys(keys, values, offsets, keys_out, values_out, n, bit, first_bit)",
        [](Array<std::uint32_t> keys, Array<V> values, Array<std::uint32_t> offsets, Array<std::uint32_t> keys_out,
           Array<V> values_out, Int n, UInt bit, UInt first_bit) {
            auto goes_first = [&](const Expr<std::uint32_t>& k) { return ((k >> bit) & 1u) == first_bit; };
            UInt total_first = offsets.load(n - 1) + select(goes_first(keys.load(n - 1)), 1u, 0u);
            Int i = global_id();
            If(i < n, [&] {
                UInt k = keys.load(i);
                UInt before = offsets.load(i);
                UInt at = select(goes_first(k), before, total_first + (cast<std::uint32_t>(i) - before));
                keys_out.store(at, k);
                if constexpr (WithValues) values_out.store(at, values.load(i));
            });
        });
}

inline auto make_flag_kernel() {
    return group_kernel<256>("radix_flags(keys, flags, n, bit, first_bit)",
                             [](Array<std::uint32_t> keys, Array<std::uint32_t> flags, Int n, UInt bit, UInt first_bit) {
                                 Int i = global_id();
                                 If(i < n, [&] { flags.store(i, select(((keys.load(i) >> bit) & 1u) == first_bit, 1u, 0u)); });
                             });
}

/// Order-preserving maps of int32 and float keys onto uint32, and back.
template <class K>
auto make_key_map(bool to_bits) {
    return group_kernel<256>(to_bits ? "radix_key_to_bits(keys, bits, n)" : "radix_bits_to_key(keys, bits, n)",
                             [to_bits](Array<K> keys, Array<std::uint32_t> bits, Int n) {
        Int i = global_id();
        If(i < n, [&] {
            if constexpr (std::is_same_v<K, std::int32_t>) {
                if (to_bits) bits.store(i, cast<std::uint32_t>(keys.load(i)) ^ 0x80000000u);
                else keys.store(i, cast<std::int32_t>(bits.load(i) ^ 0x80000000u));
            } else {
                if (to_bits) {
                    Float f = keys.load(i);
                    UInt u = select(isnan(f), 0x7fc00000u, float_bits_to_uint(f));  // one NaN, sorted last
                    bits.store(i, select((u >> 31u) == 1u, ~u, u | 0x80000000u));
                } else {
                    UInt u = bits.load(i);
                    keys.store(i, uint_bits_to_float(select((u >> 31u) == 1u, u & 0x7fffffffu, ~u)));
                }
            }
        });
    });
}

template <class V, bool WithValues>
void radix_sort_bits(Stream<std::uint32_t>& keys, const Stream<V>* values, const RadixSortOptions& opt) {
    static const auto split = make_split_kernel<V, WithValues>();
    static const auto flags = make_flag_kernel();
    const std::int64_t n = keys.size();
    if (n <= 1) return;
    if (n > 0x7fffffff - 4096) throw Error("rill::radix_sort: more than 2^31 - 4097 keys; split the stream");
    if (opt.bits < 1 || opt.bits > 32)
        throw Error("rill::radix_sort: bits = " + std::to_string(opt.bits) + "; give 1 to 32 key bits");
    Runtime rt = Runtime::of(keys);
    const std::int64_t groups = (n + 255) / 256;
    auto offsets = rt.stream<std::uint32_t>({n});
    Stream<std::uint32_t> k[2] = {keys, rt.stream<std::uint32_t>({n})};
    Stream<V> v[2];
    if constexpr (WithValues) v[0] = *values, v[1] = rt.stream<V>(values->shape());
    const std::uint32_t first_bit = opt.descending ? 1u : 0u;
    int cur = 0;
    for (int bit = 0; bit < opt.bits; ++bit) {
        flags(Groups{groups}, k[cur], offsets, static_cast<std::int32_t>(n), static_cast<std::uint32_t>(bit), first_bit);
        exclusive_scan(offsets, offsets);
        if constexpr (WithValues)
            split(Groups{groups}, k[cur], v[cur], offsets, k[1 - cur], v[1 - cur], static_cast<std::int32_t>(n),
                  static_cast<std::uint32_t>(bit), first_bit);
        else  // no values: the keys stand in for them and are not moved twice
            split(Groups{groups}, k[cur], k[cur], offsets, k[1 - cur], k[1 - cur], static_cast<std::int32_t>(n),
                  static_cast<std::uint32_t>(bit), first_bit);
        cur = 1 - cur;
    }
    if (cur == 1) {
        detail::copy_stream(k[1], keys);
        if constexpr (WithValues) detail::copy_stream(v[1], *values);
    }
}

template <class K, class V, bool WithValues>
void radix_sort(const Stream<K>& keys, const Stream<V>* values, const RadixSortOptions& opt) {
    static_assert(std::is_same_v<K, std::uint32_t> || std::is_same_v<K, std::int32_t> || std::is_same_v<K, float>,
                  "rill::radix_sort: keys are uint32, int32 or float");
    if constexpr (WithValues)
        if (values->size() != keys.size())
            throw Error("rill::radix_sort: " + std::to_string(keys.size()) + " keys but " +
                        std::to_string(values->size()) + " values; give one value per key");
    if constexpr (std::is_same_v<K, std::uint32_t>) {
        Stream<std::uint32_t> k = keys;
        radix_sort_bits<V, WithValues>(k, values, opt);
    } else {
        if (opt.bits != 32) throw Error("rill::radix_sort: a range of key bits is for uint32 keys only");
        static const auto to_bits = make_key_map<K>(true);
        static const auto from_bits = make_key_map<K>(false);
        const std::int64_t n = keys.size();
        if (n == 0) return;
        Runtime rt = Runtime::of(keys);
        auto bits = rt.stream<std::uint32_t>({n});
        const std::int64_t groups = (n + 255) / 256;
        to_bits(Groups{groups}, keys, bits, static_cast<std::int32_t>(n));
        radix_sort_bits<V, WithValues>(bits, values, opt);
        from_bits(Groups{groups}, keys, bits, static_cast<std::int32_t>(n));
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

}  // namespace rill
