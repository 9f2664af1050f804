// The scalar semantics of every IR operation, in one place.
//
// Constant folding (core) and the CPU backend's lane loops both instantiate
// these functions, so the reference backend and the folder cannot disagree.
// GPU backends must match them within the tolerances in docs/SEMANTICS.md.
// Where GLSL leaves a result undefined (integer division by zero, float to int
// out of range, shifts of 32 or more), the CPU picks a value without undefined
// behaviour in C++; programs must not rely on it.
//
// The math functions are the compilers' builtins, which is what <cmath>'s float
// overloads call in GCC and Clang: the CPU backend's generated kernels include
// this header, and <cmath> would be a sixth of each one's build.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "rill/core/ir_kinds.h"

namespace rill::sem {

using ir::Op;
using u32 = std::uint32_t;
using i32 = std::int32_t;

template <class T>
inline constexpr bool is_f = std::is_same_v<T, float>;
template <class T>
inline constexpr bool is_i = std::is_same_v<T, i32>;

/// Bools are 0/1 in a u32 everywhere in the executor and in memory.
template <Op op, class T>
inline auto unary(T a) {
    if constexpr (op == Op::Neg) {
        if constexpr (is_f<T>) return -a;
        else return static_cast<T>(0u - static_cast<u32>(a));  // wraps
    } else if constexpr (op == Op::Not) {
        return static_cast<u32>(a == 0);
    } else if constexpr (op == Op::BitNot) {
        return static_cast<T>(~a);
    } else if constexpr (op == Op::Abs) {
        if constexpr (is_f<T>) return __builtin_fabsf(a);
        else if constexpr (is_i<T>) return a < 0 ? static_cast<T>(0u - static_cast<u32>(a)) : a;
        else return a;
    } else if constexpr (op == Op::Sign) {
        if constexpr (is_f<T>) return a > 0.0f ? 1.0f : (a < 0.0f ? -1.0f : a * 0.0f);
        else if constexpr (is_i<T>) return static_cast<T>((a > 0) - (a < 0));
        else return static_cast<T>(a > 0);
    } else if constexpr (op == Op::Floor) {
        return __builtin_floorf(a);
    } else if constexpr (op == Op::Ceil) {
        return __builtin_ceilf(a);
    } else if constexpr (op == Op::Round) {
        return __builtin_nearbyintf(a);  // half to even, GLSL roundEven
    } else if constexpr (op == Op::Trunc) {
        return __builtin_truncf(a);
    } else if constexpr (op == Op::Fract) {
        return a - __builtin_floorf(a);
    } else if constexpr (op == Op::Sqrt) {
        return __builtin_sqrtf(a);
    } else if constexpr (op == Op::InverseSqrt) {
        return 1.0f / __builtin_sqrtf(a);
    } else if constexpr (op == Op::Exp) {
        return __builtin_expf(a);
    } else if constexpr (op == Op::Exp2) {
        return __builtin_exp2f(a);
    } else if constexpr (op == Op::Log) {
        return __builtin_logf(a);
    } else if constexpr (op == Op::Log2) {
        return __builtin_log2f(a);
    } else if constexpr (op == Op::Sin) {
        return __builtin_sinf(a);
    } else if constexpr (op == Op::Cos) {
        return __builtin_cosf(a);
    } else if constexpr (op == Op::Tan) {
        return __builtin_tanf(a);
    } else if constexpr (op == Op::Asin) {
        return __builtin_asinf(a);
    } else if constexpr (op == Op::Acos) {
        return __builtin_acosf(a);
    } else if constexpr (op == Op::Atan) {
        return __builtin_atanf(a);
    } else if constexpr (op == Op::Sinh) {
        return __builtin_sinhf(a);
    } else if constexpr (op == Op::Cosh) {
        return __builtin_coshf(a);
    } else if constexpr (op == Op::Tanh) {
        return __builtin_tanhf(a);
    } else if constexpr (op == Op::Asinh) {
        return __builtin_asinhf(a);
    } else if constexpr (op == Op::Acosh) {
        return __builtin_acoshf(a);
    } else if constexpr (op == Op::Atanh) {
        return __builtin_atanhf(a);
    } else if constexpr (op == Op::IsNan) {
        return static_cast<u32>(__builtin_isnan(a) != 0);
    } else if constexpr (op == Op::IsInf) {
        return static_cast<u32>(__builtin_isinf(a) != 0);
    } else if constexpr (op == Op::BitCount) {
#if defined(__POPCNT__)
        return static_cast<i32>(std::popcount(static_cast<u32>(a)));
#else
        // Without the popcnt instruction std::popcount is a call into libgcc per
        // value; these shifts and masks vectorize in the interpreter's lane loops.
        u32 v = static_cast<u32>(a);
        v = v - ((v >> 1) & 0x55555555u);
        v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
        v = (v + (v >> 4)) & 0x0F0F0F0Fu;
        return static_cast<i32>((v * 0x01010101u) >> 24);
#endif
    } else if constexpr (op == Op::FindLSB) {
        u32 v = static_cast<u32>(a);
        return v == 0 ? i32{-1} : static_cast<i32>(std::countr_zero(v));
    } else if constexpr (op == Op::FindMSB) {
        u32 v = static_cast<u32>(a);
        if constexpr (is_i<T>) v = a < 0 ? ~v : v;  // signed: most significant bit unlike the sign
        return v == 0 ? i32{-1} : static_cast<i32>(31 - std::countl_zero(v));
    } else if constexpr (op == Op::BitReverse) {
        u32 v = static_cast<u32>(a);
        v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
        v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
        v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
        v = ((v >> 8) & 0x00FF00FFu) | ((v & 0x00FF00FFu) << 8);
        v = (v >> 16) | (v << 16);
        return static_cast<T>(v);
    } else {
        static_assert(op == Op::Neg, "not a unary element-wise op");
    }
}

template <Op op, class T>
inline auto binary(T a, T b) {
    if constexpr (op == Op::Add) {
        if constexpr (is_f<T>) return a + b;
        else return static_cast<T>(static_cast<u32>(a) + static_cast<u32>(b));
    } else if constexpr (op == Op::Sub) {
        if constexpr (is_f<T>) return a - b;
        else return static_cast<T>(static_cast<u32>(a) - static_cast<u32>(b));
    } else if constexpr (op == Op::Mul) {
        if constexpr (is_f<T>) return a * b;
        else return static_cast<T>(static_cast<u32>(a) * static_cast<u32>(b));
    } else if constexpr (op == Op::Div) {
        if constexpr (is_f<T>) return a / b;
        else if constexpr (is_i<T>) {
            if (b == 0) return i32{0};
            if (b == -1) return static_cast<i32>(0u - static_cast<u32>(a));
            return static_cast<i32>(a / b);
        } else return b == 0 ? u32{0} : a / b;
    } else if constexpr (op == Op::Rem) {
        if constexpr (is_i<T>) return (b == 0 || b == -1) ? i32{0} : static_cast<i32>(a % b);
        else return b == 0 ? u32{0} : a % b;
    } else if constexpr (op == Op::Mod) {
        return a - b * __builtin_floorf(a / b);  // GLSL mod
    } else if constexpr (op == Op::Min) {
        return b < a ? b : a;  // GLSL: y < x ? y : x
    } else if constexpr (op == Op::Max) {
        return a < b ? b : a;  // GLSL: x < y ? y : x
    } else if constexpr (op == Op::Pow) {
        return __builtin_powf(a, b);
    } else if constexpr (op == Op::Atan2) {
        return __builtin_atan2f(a, b);
    } else if constexpr (op == Op::LogicalAnd) {
        return static_cast<u32>((a != 0) & (b != 0));
    } else if constexpr (op == Op::LogicalOr) {
        return static_cast<u32>((a != 0) | (b != 0));
    } else if constexpr (op == Op::BitAnd) {
        return static_cast<T>(a & b);
    } else if constexpr (op == Op::BitOr) {
        return static_cast<T>(a | b);
    } else if constexpr (op == Op::BitXor) {
        return static_cast<T>(a ^ b);
    } else if constexpr (op == Op::Shl) {
        return static_cast<T>(static_cast<u32>(a) << (static_cast<u32>(b) & 31u));
    } else if constexpr (op == Op::Shr) {
        return static_cast<T>(a >> (static_cast<u32>(b) & 31u));  // arithmetic for int
    } else if constexpr (op == Op::Eq) {
        return static_cast<u32>(a == b);
    } else if constexpr (op == Op::Ne) {
        return static_cast<u32>(a != b);
    } else if constexpr (op == Op::Lt) {
        return static_cast<u32>(a < b);
    } else if constexpr (op == Op::Le) {
        return static_cast<u32>(a <= b);
    } else if constexpr (op == Op::Gt) {
        return static_cast<u32>(a > b);
    } else if constexpr (op == Op::Ge) {
        return static_cast<u32>(a >= b);
    } else {
        static_assert(op == Op::Add, "not a binary element-wise op");
    }
}

inline float fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }

template <class T>
inline T bitfield_extract(T value, i32 offset, i32 bits) {
    if (bits <= 0 || offset < 0 || offset + bits > 32) return T{0};
    u32 v = static_cast<u32>(value) >> offset;
    if (bits == 32) return static_cast<T>(v);
    u32 mask = (1u << bits) - 1u;
    v &= mask;
    if constexpr (is_i<T>) {
        if (v & (1u << (bits - 1))) v |= ~mask;  // sign-extend
    }
    return static_cast<T>(v);
}

/// Value conversions (Op::Cast). Float to integer truncates and saturates (NaN
/// gives 0): GLSL leaves out-of-range conversions undefined, C++ makes them UB.
template <class To, class From>
inline To convert(From v) {
    if constexpr (std::is_same_v<From, float> && !std::is_same_v<To, float>) {
        if constexpr (std::is_same_v<To, i32>) {
            if (!(v == v)) return 0;
            if (v >= 2147483648.0f) return std::numeric_limits<i32>::max();
            if (v <= -2147483648.0f) return std::numeric_limits<i32>::min();
            return static_cast<i32>(v);
        } else {
            if (!(v > 0.0f)) return 0;
            if (v >= 4294967296.0f) return std::numeric_limits<u32>::max();
            return static_cast<u32>(v);
        }
    } else {
        return static_cast<To>(v);
    }
}

inline float as_float(u32 bits) { return std::bit_cast<float>(bits); }
inline u32 as_bits(float v) { return std::bit_cast<u32>(v); }

}  // namespace rill::sem
