// Host-side element types of rill streams.
//
// Every element type is built from 4-byte scalars with no hidden padding, so a
// stream upload or download is one memcpy on every backend: a float3 is 12
// bytes, a struct { float3 o, d; float tmax; } is 28 bytes. bool is stored as
// the 4-byte rill::bool32 (0 or 1) for the same reason.
#pragma once

#include <cstdint>
#include <type_traits>

namespace rill {

/// A 4-byte boolean for stream elements (C++ bool is 1 byte, which GPUs cannot
/// address). Converts to and from bool.
struct bool32 {
    std::uint32_t value = 0;
    constexpr bool32() = default;
    constexpr bool32(bool b) : value(b ? 1u : 0u) {}
    constexpr operator bool() const { return value != 0; }
};

template <class S, int N>
struct vec;

template <class S>
struct vec<S, 2> {
    S x{}, y{};
    constexpr S& operator[](int i) { return (&x)[i]; }
    constexpr const S& operator[](int i) const { return (&x)[i]; }
    friend constexpr bool operator==(const vec&, const vec&) = default;
};
template <class S>
struct vec<S, 3> {
    S x{}, y{}, z{};
    constexpr S& operator[](int i) { return (&x)[i]; }
    constexpr const S& operator[](int i) const { return (&x)[i]; }
    friend constexpr bool operator==(const vec&, const vec&) = default;
};
template <class S>
struct vec<S, 4> {
    S x{}, y{}, z{}, w{};
    constexpr S& operator[](int i) { return (&x)[i]; }
    constexpr const S& operator[](int i) const { return (&x)[i]; }
    friend constexpr bool operator==(const vec&, const vec&) = default;
};

using float2 = vec<float, 2>;
using float3 = vec<float, 3>;
using float4 = vec<float, 4>;
using int2 = vec<std::int32_t, 2>;
using int3 = vec<std::int32_t, 3>;
using int4 = vec<std::int32_t, 4>;
using uint2 = vec<std::uint32_t, 2>;
using uint3 = vec<std::uint32_t, 3>;
using uint4 = vec<std::uint32_t, 4>;
using bool2 = vec<bool32, 2>;
using bool3 = vec<bool32, 3>;
using bool4 = vec<bool32, 4>;

/// The scalar type and width of a vector type (absent for other types).
template <class T>
struct vector_traits {};
template <class S, int N>
struct vector_traits<vec<S, N>> {
    using scalar = S;
    static constexpr int width = N;
};

static_assert(sizeof(float3) == 12 && sizeof(int4) == 16 && sizeof(bool3) == 12,
              "rill element types must have no padding");

}  // namespace rill
