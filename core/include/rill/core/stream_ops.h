// Stream operators that make views (no copies).
#pragma once

#include "rill/core/runtime.h"

namespace rill {

namespace detail {
/// Copies every element of `src` into `dst` (same shape; any views) on the device.
void copy_stream(const StreamBase& src, const StreamBase& dst);
}  // namespace detail

/// The same elements with another shape of equal size (row-major order kept).
template <StreamElement T>
Stream<T> reshape(const Stream<T>& s, const Shape& shape) {
    return s.reshape(shape);
}

/// A new stream holding `a` followed by `b` along dimension `dim`; all other
/// dimensions must agree. Runs on the device (two copies into domains).
template <StreamElement T>
Stream<T> concatenate(const Stream<T>& a, const Stream<T>& b, int dim = 0) {
    const Shape& sa = a.shape();
    const Shape& sb = b.shape();
    if (sa.rank != sb.rank || dim < 0 || dim >= sa.rank)
        throw Error("rill::concatenate: shapes " + sa.str() + " and " + sb.str() + " along dimension " +
                    std::to_string(dim) + ": give streams of one rank and a dimension below it");
    for (int d = 0; d < sa.rank; ++d)
        if (d != dim && sa.dims[d] != sb.dims[d])
            throw Error("rill::concatenate: shapes " + sa.str() + " and " + sb.str() + " differ in dimension " +
                        std::to_string(d) + ", which is not the one joined (" + std::to_string(dim) + ")");
    Shape total = sa;
    total.dims[dim] += sb.dims[dim];
    Stream<T> out = Runtime::of(a).template stream<T>(total);
    Shape zero = total, split = total;
    zero.dims.fill(0);
    split.dims.fill(0);
    split.dims[dim] = sa.dims[dim];
    if (!a.empty()) detail::copy_stream(a, out.domain(zero, sa));
    if (!b.empty()) detail::copy_stream(b, out.domain(split, total));
    return out;
}

}  // namespace rill
