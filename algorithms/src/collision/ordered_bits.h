// Floats as uint32 keys in the floats' order, so that the integer atomics
// (atomic_min, atomic_max) keep float extremes: a non-negative float gets its
// sign bit set, a negative one all bits flipped.
#pragma once

#include <rill/rill.h>

namespace rill::collision {

inline Expr<std::uint32_t> ordered_bits(const Expr<float>& x) {
    UInt b = float_bits_to_uint(x);
    return select((b & 0x80000000u) != 0u, ~b, b | 0x80000000u);
}

inline Expr<float> from_ordered_bits(const Expr<std::uint32_t>& k) {
    return uint_bits_to_float(select((k & 0x80000000u) != 0u, k & 0x7fffffffu, ~k));
}

}  // namespace rill::collision
