// Filtered reads of streams: linear (1D), bilinear (2D) and trilinear (3D)
// interpolation of float and floatN elements through a Gather, as a texture
// unit filters, on every backend:
//
//   #include <rill/dsl/sampling.h>
//   [](rill::Gather<float, 2> height, rill::In<float2> p, rill::Out<float> h) {
//       h = rill::sample_linear(height, p);      // p = (row, column), fractional
//   }
//
// Coordinates are in element units and in dimension order (as Gather's
// indices): at integer coordinates the sample is that element, between them
// the (bi/tri)linear blend of the 2, 4 or 8 elements around; outside the
// stream it is the nearest edge's value (clamp to edge), because Gather clamps
// its indices. A NaN coordinate reads some element of the stream (never out
// of bounds). Costs 2^rank gathers: a field sampled at every element of a
// large stream in a hot loop may pay to be read in a group kernel's tile
// instead.
#pragma once

#include "rill/dsl/params.h"

namespace rill {

namespace dsl {

/// floor(p) as int (kept inside the int range; Gather clamps it to the
/// stream) and the fraction p - floor(p) in [0, 1], per component.
template <class P>
auto split_coordinate(const P& p) {
    P base = floor(clamp(p, -1.0f, 1073741824.0f));
    return std::pair{cast<std::int32_t>(base), P(clamp(p - base, 0.0f, 1.0f))};
}

template <class T>
constexpr bool kFilterable = std::is_same_v<T, float> || std::is_same_v<T, float2> || std::is_same_v<T, float3> ||
                             std::is_same_v<T, float4>;

}  // namespace dsl

/// The linearly interpolated value of a 1D stream at coordinate x.
template <class T>
Expr<T> sample_linear(const Gather<T, 1>& g, const Expr<float>& x) {
    static_assert(dsl::kFilterable<T>, "rill::sample_linear: the stream's elements are float, float2, float3 or float4");
    auto [i, f] = dsl::split_coordinate(x);
    return mix(Expr<T>(g[i]), Expr<T>(g[i + 1]), f);
}

/// The bilinearly interpolated value of a 2D stream at p = (row, column).
template <class T>
Expr<T> sample_linear(const Gather<T, 2>& g, const Expr<float2>& p) {
    static_assert(dsl::kFilterable<T>, "rill::sample_linear: the stream's elements are float, float2, float3 or float4");
    auto [i, f] = dsl::split_coordinate(p);
    Expr<T> row0 = mix(Expr<T>(g[i]), Expr<T>(g[i + Int2(0, 1)]), f.y());
    Expr<T> row1 = mix(Expr<T>(g[i + Int2(1, 0)]), Expr<T>(g[i + Int2(1, 1)]), f.y());
    return mix(row0, row1, f.x());
}

/// The trilinearly interpolated value of a 3D stream at p = (slice, row, column).
template <class T>
Expr<T> sample_linear(const Gather<T, 3>& g, const Expr<float3>& p) {
    static_assert(dsl::kFilterable<T>, "rill::sample_linear: the stream's elements are float, float2, float3 or float4");
    auto [i, f] = dsl::split_coordinate(p);
    auto plane = [&](int dz) {
        Expr<T> row0 = mix(Expr<T>(g[i + Int3(dz, 0, 0)]), Expr<T>(g[i + Int3(dz, 0, 1)]), f.z());
        Expr<T> row1 = mix(Expr<T>(g[i + Int3(dz, 1, 0)]), Expr<T>(g[i + Int3(dz, 1, 1)]), f.z());
        return mix(row0, row1, f.y());
    };
    return mix(plane(0), plane(1), f.x());
}

}  // namespace rill
