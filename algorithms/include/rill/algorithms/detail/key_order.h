// The order rill's sorts agree on, as uint32 bits that compare like the keys:
// the radix sort sorts these bits, and the comparison sorts' default order
// compares them, so every sort puts float keys in the same total order
// (-inf < negatives < -0 < +0 < positives < +inf < NaN).
#pragma once

#include <functional>

#include <rill/rill.h>

namespace rill::detail {

template <class K>
constexpr bool kOrderedKey = std::is_same_v<K, std::uint32_t> || std::is_same_v<K, std::int32_t> || std::is_same_v<K, float>;

/// Bits of k whose unsigned order is the keys' order. Every NaN maps to the
/// bits of the canonical quiet NaN, past +inf.
template <class K>
Expr<std::uint32_t> ordered_bits(const Expr<K>& k) {
    static_assert(kOrderedKey<K>, "rill: ordered keys are uint32, int32 or float");
    if constexpr (std::is_same_v<K, std::uint32_t>) {
        return k;
    } else if constexpr (std::is_same_v<K, std::int32_t>) {
        return cast<std::uint32_t>(k) ^ 0x80000000u;
    } else {
        UInt u = select(isnan(k), 0x7fc00000u, float_bits_to_uint(k));
        return select((u >> 31u) == 1u, ~u, u | 0x80000000u);
    }
}

/// The key of ordered bits (a NaN comes back as the canonical quiet NaN).
template <class K>
Expr<K> key_of_ordered_bits(const Expr<std::uint32_t>& u) {
    static_assert(kOrderedKey<K>, "rill: ordered keys are uint32, int32 or float");
    if constexpr (std::is_same_v<K, std::uint32_t>) return u;
    else if constexpr (std::is_same_v<K, std::int32_t>) return cast<std::int32_t>(u ^ 0x80000000u);
    else return uint_bits_to_float(select((u >> 31u) == 1u, u & 0x7fffffffu, ~u));
}

/// An order written in the DSL (a strict weak order): less(a, b) when a goes before b.
template <class K>
using Less = std::function<Expr<bool>(const dsl::read_t<K>&, const dsl::read_t<K>&)>;

/// a goes before b in `less`, or in its reverse when `descending` is nonzero.
template <class K>
Expr<bool> goes_before(const Less<K>& less, const Int& descending, const Var<K>& a, const Var<K>& b) {
    return select(descending != 0, less(b, a), less(a, b));
}

/// The default order of comparison sorts: a before b.
template <class K>
Expr<bool> ordered_less(const Expr<K>& a, const Expr<K>& b) {
    if constexpr (std::is_same_v<K, float>) return ordered_bits<K>(a) < ordered_bits<K>(b);
    else return a < b;
}

}  // namespace rill::detail
