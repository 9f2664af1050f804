// Complex arithmetic on float2 values (x the real part, y the imaginary part),
// the layout of rill's FFT and of every interleaved complex array:
//
//   #include <rill/dsl/complex.h>
//   Expr<float2> z = rill::cmul(a, b);         // a b
//   Expr<float2> w = rill::cmul(a, conj(b));   // a b*
//   Expr<float2> r = rill::mul_i(z);           // i z, no multiplication
//
// Sums and differences are float2's own + and -; a real scale is `s * z`.
// The products are the textbook formula (four multiplications, two
// additions), so each component is within a few float roundings of the
// exact product (docs/SEMANTICS.md#arithmetic): the FFT's error bound rests on it.
#pragma once

#include "rill/dsl/operators.h"

namespace rill {

/// a b.
inline Expr<float2> cmul(const Expr<float2>& a, const Expr<float2>& b) {
    return Expr<float2>(a.x() * b.x() - a.y() * b.y(), a.x() * b.y() + a.y() * b.x());
}

/// The complex conjugate: (x, -y).
inline Expr<float2> conj(const Expr<float2>& a) { return Expr<float2>(a.x(), -a.y()); }

/// i a: (-y, x), exact.
inline Expr<float2> mul_i(const Expr<float2>& a) { return Expr<float2>(-a.y(), a.x()); }

/// -i a: (y, -x), exact.
inline Expr<float2> mul_neg_i(const Expr<float2>& a) { return Expr<float2>(a.y(), -a.x()); }

/// |a|^2 = x^2 + y^2.
inline Expr<float> norm2(const Expr<float2>& a) { return a.x() * a.x() + a.y() * a.y(); }

}  // namespace rill
