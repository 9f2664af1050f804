// The GLSL builtin set, as DSL functions (snake_case, like the rest of rill).
// Element-wise functions accept scalars and vectors. Each maps to one IR op
// where GLSL has one; the rest (clamp, mix, smoothstep, length, normalize,
// reflect, refract, cross, ...) are written here in terms of those, so every
// backend gets them with the same rounding. Tolerances: docs/SEMANTICS.md.
#pragma once

#include "rill/dsl/operators.h"

namespace rill {
namespace dsl {

template <class X>
concept FloatValue = Value<X> && type_v<value_t<X>>.scalar == Scalar::Float;
template <class X>
concept IntValue = Value<X> && type_v<value_t<X>>.is_integer();
template <class X>
concept BoolValue = Value<X> && type_v<value_t<X>>.scalar == Scalar::Bool;
template <class X>
concept NumericValue = Value<X> && type_v<value_t<X>>.scalar != Scalar::Bool;

template <Value X>
Expr<value_t<X>> same(ir::ExprId id) {
    return Expr<value_t<X>>(FromId{id});
}

}  // namespace dsl

#define RILL_FLOAT_UNARY(name, op)                                        \
    template <class X>                                                    \
        requires dsl::Value<X>                                            \
    auto name(const X& x) {                                               \
        static_assert(dsl::FloatValue<X>, "rill::" #name " needs a float or float vector; "  \
                                          "convert integers with rill::cast<float>(x)");    \
        return dsl::make_unary<op>(x);                                    \
    }
RILL_FLOAT_UNARY(floor, ir::Op::Floor)
RILL_FLOAT_UNARY(ceil, ir::Op::Ceil)
RILL_FLOAT_UNARY(round, ir::Op::Round)
RILL_FLOAT_UNARY(trunc, ir::Op::Trunc)
RILL_FLOAT_UNARY(fract, ir::Op::Fract)
RILL_FLOAT_UNARY(sqrt, ir::Op::Sqrt)
RILL_FLOAT_UNARY(inversesqrt, ir::Op::InverseSqrt)
RILL_FLOAT_UNARY(exp, ir::Op::Exp)
RILL_FLOAT_UNARY(exp2, ir::Op::Exp2)
RILL_FLOAT_UNARY(log, ir::Op::Log)
RILL_FLOAT_UNARY(log2, ir::Op::Log2)
RILL_FLOAT_UNARY(sin, ir::Op::Sin)
RILL_FLOAT_UNARY(cos, ir::Op::Cos)
RILL_FLOAT_UNARY(tan, ir::Op::Tan)
RILL_FLOAT_UNARY(asin, ir::Op::Asin)
RILL_FLOAT_UNARY(acos, ir::Op::Acos)
RILL_FLOAT_UNARY(atan, ir::Op::Atan)
RILL_FLOAT_UNARY(sinh, ir::Op::Sinh)
RILL_FLOAT_UNARY(cosh, ir::Op::Cosh)
RILL_FLOAT_UNARY(tanh, ir::Op::Tanh)
RILL_FLOAT_UNARY(asinh, ir::Op::Asinh)
RILL_FLOAT_UNARY(acosh, ir::Op::Acosh)
RILL_FLOAT_UNARY(atanh, ir::Op::Atanh)
RILL_FLOAT_UNARY(isnan, ir::Op::IsNan)
RILL_FLOAT_UNARY(isinf, ir::Op::IsInf)
#undef RILL_FLOAT_UNARY

#define RILL_INT_UNARY(name, op)                                                          \
    template <class X>                                                                    \
        requires dsl::Value<X>                                                            \
    auto name(const X& x) {                                                               \
        static_assert(dsl::IntValue<X>, "rill::" #name " needs an int or uint (vector)"); \
        return dsl::make_unary<op>(x);                                                    \
    }
RILL_INT_UNARY(bit_count, ir::Op::BitCount)
RILL_INT_UNARY(find_lsb, ir::Op::FindLSB)
RILL_INT_UNARY(find_msb, ir::Op::FindMSB)
RILL_INT_UNARY(bitfield_reverse, ir::Op::BitReverse)
#undef RILL_INT_UNARY

template <class X>
    requires dsl::Value<X>
auto abs(const X& x) {
    static_assert(dsl::NumericValue<X>, "rill::abs needs a number, not a bool");
    return dsl::make_unary<ir::Op::Abs>(x);
}
template <class X>
    requires dsl::Value<X>
auto sign(const X& x) {
    static_assert(dsl::NumericValue<X>, "rill::sign needs a number, not a bool");
    return dsl::make_unary<ir::Op::Sign>(x);
}
template <class X>
    requires dsl::Value<X>
Expr<bool> all(const X& x) {
    static_assert(dsl::BoolValue<X>, "rill::all needs a bool vector (e.g. a < b on vectors)");
    return Expr<bool>(dsl::FromId{dsl::builder().unary(ir::Op::All, x.id())});
}
template <class X>
    requires dsl::Value<X>
Expr<bool> any(const X& x) {
    static_assert(dsl::BoolValue<X>, "rill::any needs a bool vector (e.g. a < b on vectors)");
    return Expr<bool>(dsl::FromId{dsl::builder().unary(ir::Op::Any, x.id())});
}

#define RILL_BINARY_FUNCTION(name, op, check, message)                       \
    template <class A, class B>                                              \
        requires dsl::BinaryOperands<A, B>                                   \
    auto name(const A& a, const B& b) {                                      \
        constexpr Scalar s = dsl::common_type<A, B>().scalar;                \
        static_assert(check(s), message);                                    \
        return dsl::make_binary<op>(a, b);                                   \
    }
#define RILL_IS_FLOAT(s) ((s) == Scalar::Float)
#define RILL_IS_NUMBER(s) ((s) != Scalar::Bool)
RILL_BINARY_FUNCTION(min, ir::Op::Min, RILL_IS_NUMBER, "rill::min needs numbers, not bools")
RILL_BINARY_FUNCTION(max, ir::Op::Max, RILL_IS_NUMBER, "rill::max needs numbers, not bools")
RILL_BINARY_FUNCTION(pow, ir::Op::Pow, RILL_IS_FLOAT, "rill::pow needs floats")
RILL_BINARY_FUNCTION(atan2, ir::Op::Atan2, RILL_IS_FLOAT, "rill::atan2(y, x) needs floats")
RILL_BINARY_FUNCTION(mod, ir::Op::Mod, RILL_IS_FLOAT, "rill::mod is GLSL's float mod; use % for integers")
#undef RILL_BINARY_FUNCTION
#undef RILL_IS_FLOAT
#undef RILL_IS_NUMBER

/// Dot product of two float vectors (or scalars).
template <class A, class B>
    requires dsl::BinaryOperands<A, B>
Expr<float> dot(const A& a, const B& b) {
    dsl::check_common<A, B>();
    constexpr Type t = dsl::common_type<A, B>();
    static_assert(t.scalar == Scalar::Float, "rill::dot needs float vectors");
    auto& bl = dsl::builder();
    ir::ExprId ia = dsl::operand_as(a, t), ib = dsl::operand_as(b, t);
    return Expr<float>(dsl::FromId{t.width == 1 ? bl.binary(ir::Op::Mul, ia, ib) : bl.binary(ir::Op::Dot, ia, ib)});
}

template <class A, class B, class C>
auto clamp(const A& x, const B& lo, const C& hi) {
    return min(max(x, lo), hi);
}

/// x * (1 - a) + y * a, as GLSL defines it.
template <class A, class B, class C>
auto mix(const A& x, const B& y, const C& a) {
    return x * (1.0f - a) + y * a;
}

/// Fused multiply-add a * b + c with one rounding.
template <class A, class B, class C>
    requires dsl::Value<A>
auto fma(const A& a, const B& b, const C& c) {
    constexpr Type t = dsl::type_v<dsl::value_t<A>>;
    static_assert(t.scalar == Scalar::Float, "rill::fma needs floats");
    auto& bl = dsl::builder();
    return Expr<dsl::value_t<A>>(dsl::FromId{bl.ternary(ir::Op::Fma, a.id(), dsl::operand_as(b, t), dsl::operand_as(c, t))});
}

/// Component-wise choice: cond ? a : b (cond is a bool or a bool vector of a's width).
template <class C, class A, class B>
    requires dsl::Value<C> && (dsl::BinaryOperands<A, B> || (dsl::Literal<A> && dsl::Literal<B>))
auto select(const C& cond, const A& a, const B& b) {
    constexpr Type ct = dsl::type_v<dsl::value_t<C>>;
    constexpr Type t = [] {
        if constexpr (dsl::Literal<A> && dsl::Literal<B>) {
            static_assert(std::is_same_v<A, B>, "rill::select: give both literals the same type (1.0f and 0.0f, 1 and 0)");
            return Type{dsl::literal_scalar<A>(Scalar::Bool), ct.width};
        } else {
            dsl::check_common<A, B>();
            return dsl::common_type<A, B>();
        }
    }();
    static_assert(ct.scalar == Scalar::Bool && (ct.width == 1 || ct.width == t.width),
                  "rill::select(cond, a, b): cond must be a bool, or a bool vector as wide as a and b");
    return Expr<dsl::host_t<t.scalar, t.width>>(
        dsl::FromId{dsl::builder().select(cond.id(), dsl::operand_as(a, t), dsl::operand_as(b, t))});
}

/// 0 where x < edge, else 1.
template <class E, class X>
auto step(const E& edge, const X& x) {
    constexpr Type t = dsl::common_type<E, X>();
    using T = dsl::host_t<t.scalar, t.width>;
    return select(x < edge, Expr<T>(0.0f), Expr<T>(1.0f));
}

template <class E0, class E1, class X>
auto smoothstep(const E0& e0, const E1& e1, const X& x) {
    auto t = clamp((x - e0) / (e1 - e0), 0.0f, 1.0f);
    return t * t * (3.0f - 2.0f * t);
}

template <class X>
    requires dsl::FloatValue<X>
Expr<float> length(const X& v) {
    if constexpr (dsl::type_v<dsl::value_t<X>>.width == 1) return Expr<float>(abs(v));
    else return Expr<float>(sqrt(dot(v, v)));
}

template <class A, class B>
    requires dsl::FloatValue<A>
Expr<float> distance(const A& a, const B& b) {
    return length(a - b);
}

template <class X>
    requires dsl::FloatValue<X>
auto normalize(const X& v) {
    return v * inversesqrt(dot(v, v));
}

template <class A, class B>
    requires dsl::FloatValue<A> && dsl::FloatValue<B>
Expr<float3> cross(const A& a, const B& b) {
    static_assert(std::is_same_v<dsl::value_t<A>, float3> && std::is_same_v<dsl::value_t<B>, float3>,
                  "rill::cross needs two float3");
    return Expr<float3>(a.yzx() * b.zxy() - a.zxy() * b.yzx());
}

/// Reflection of incident I about the normal N (N normalized), as GLSL.
template <class I, class N>
    requires dsl::FloatValue<I>
auto reflect(const I& i, const N& n) {
    return i - 2.0f * dot(n, i) * n;
}

/// Refraction of incident I through normal N with ratio eta, as GLSL
/// (a zero vector on total internal reflection).
template <class I, class N, class E>
    requires dsl::FloatValue<I>
auto refract(const I& i, const N& n, const E& eta) {
    auto d = dot(n, i);
    auto k = 1.0f - eta * eta * (1.0f - d * d);
    auto r = eta * i - (eta * d + sqrt(max(k, 0.0f))) * n;
    return select(k < 0.0f, Expr<dsl::value_t<decltype(r)>>(0.0f), r);
}

/// Bits [offset, offset + bits) of x, sign-extended for int (GLSL bitfieldExtract).
template <class X, class O, class B>
    requires dsl::IntValue<X>
auto bitfield_extract(const X& x, const O& offset, const B& bits) {
    constexpr Type ti{Scalar::Int, 1};
    auto& bl = dsl::builder();
    return Expr<dsl::value_t<X>>(dsl::FromId{bl.ternary(ir::Op::BitfieldExtract, x.id(), dsl::operand_as(offset, ti), dsl::operand_as(bits, ti))});
}

/// Value conversion: cast<int>(f) truncates toward zero, cast<float>(i) rounds.
/// To may be a scalar (the width is kept) or a vector of the same width.
template <class To, class X>
    requires dsl::Value<X>
auto cast(const X& x) {
    constexpr Type from = dsl::type_v<dsl::value_t<X>>;
    constexpr Type to_t = dsl::type_v<std::conditional_t<std::is_same_v<To, bool32>, bool, To>>;
    static_assert(to_t.width == 1 || to_t.width == from.width, "rill::cast cannot change a vector's width");
    constexpr Type rt{to_t.scalar, from.width};
    return Expr<dsl::host_t<rt.scalar, rt.width>>(dsl::FromId{dsl::builder().cast(x.id(), rt.scalar)});
}

/// i / d for an int i known to be 0 or more and a constant d > 0, divided as
/// unsigned: NVIDIA's compiler divides an unsigned int by a constant with a
/// multiply-high and a shift, where a signed int's quotient takes a sign test and
/// corrections first (3 instructions against 14: docs/PERFORMANCE.md#segment).
/// A negative i gives (i + 2^32) / d, not i / d.
inline Expr<std::int32_t> nonnegative_quotient(const Expr<std::int32_t>& i, std::uint32_t d) {
    return cast<std::int32_t>(cast<std::uint32_t>(i) / d);
}

#define RILL_BITCAST(name, from_s, to_s, message)                                       \
    template <class X>                                                                  \
        requires dsl::Value<X>                                                          \
    auto name(const X& x) {                                                             \
        constexpr Type t = dsl::type_v<dsl::value_t<X>>;                                \
        static_assert(t.scalar == Scalar::from_s, message);                             \
        constexpr Type rt{Scalar::to_s, t.width};                                       \
        return Expr<dsl::host_t<rt.scalar, rt.width>>(dsl::FromId{dsl::builder().bitcast(x.id(), rt.scalar)}); \
    }
RILL_BITCAST(float_bits_to_int, Float, Int, "rill::float_bits_to_int needs a float")
RILL_BITCAST(float_bits_to_uint, Float, Uint, "rill::float_bits_to_uint needs a float")
RILL_BITCAST(int_bits_to_float, Int, Float, "rill::int_bits_to_float needs an int")
RILL_BITCAST(uint_bits_to_float, Uint, Float, "rill::uint_bits_to_float needs a uint")
#undef RILL_BITCAST

}  // namespace rill
