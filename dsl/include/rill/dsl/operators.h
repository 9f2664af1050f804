// C++ operators on DSL values, with GLSL semantics. A scalar operand is
// broadcast against a vector; a C++ literal takes the other operand's type when
// that keeps its meaning (x * 2 on a float is fine, i * 2.5 on an int is not).
// Mixed scalar kinds (float + int) do not compile: convert with rill::cast<T>.
// Comparisons of vectors are component-wise and give bool vectors (use
// rill::all / rill::any), as in Brook and HLSL.
#pragma once

#include "rill/core/op_traits.h"
#include "rill/dsl/value.h"

namespace rill {
namespace dsl {

template <class X>
consteval Type operand_type_or(Type fallback) {
    if constexpr (Value<X>) return type_v<value_t<X>>;
    else return fallback;
}

/// The common operand type of a binary operation, or width 0 if there is none.
template <class A, class B>
consteval Type common_type() {
    if constexpr (Value<A> && Value<B>) {
        constexpr Type ta = type_v<value_t<A>>, tb = type_v<value_t<B>>;
        if (ta.scalar != tb.scalar) return Type{ta.scalar, 0};
        if (ta.width != tb.width && ta.width != 1 && tb.width != 1) return Type{ta.scalar, 0};
        return Type{ta.scalar, ta.width > tb.width ? ta.width : tb.width};
    } else if constexpr (Value<A>) {
        constexpr Type ta = type_v<value_t<A>>;
        return literal_fits<B>(ta.scalar) ? ta : Type{ta.scalar, 0};
    } else {
        constexpr Type tb = type_v<value_t<B>>;
        return literal_fits<A>(tb.scalar) ? tb : Type{tb.scalar, 0};
    }
}

template <class A, class B>
concept BinaryOperands = (Value<A> && Operand<B>) || (Literal<A> && Value<B>);

template <class A, class B>
consteval void check_common() {
    constexpr Type ta = operand_type_or<A>(Type{Scalar::Float, 1});
    constexpr Type tb = operand_type_or<B>(Type{Scalar::Float, 1});
    if constexpr (Value<A> && Value<B>) {
        static_assert(ta.scalar == tb.scalar,
                      "rill: operands of different scalar types (e.g. float and int); "
                      "convert one with rill::cast<T>(x)");
        static_assert(ta.width == tb.width || ta.width == 1 || tb.width == 1,
                      "rill: operands are vectors of different widths (e.g. float3 and float4); "
                      "use a swizzle such as v.xyz() to match them");
    } else {
        static_assert(common_type<A, B>().width != 0,
                      "rill: this C++ literal does not fit the other operand's type (a float literal "
                      "with an int value?); write a literal of the value's type or use rill::cast");
    }
}

template <ir::Op op, class A, class B>
auto make_binary(const A& a, const B& b) {
    check_common<A, B>();
    constexpr Type t = common_type<A, B>();
    constexpr ir::OpClass cls = ir::op_class(op);
    if constexpr (cls == ir::OpClass::Numeric || cls == ir::OpClass::Compare)
        static_assert(t.scalar != Scalar::Bool, "rill: arithmetic and ordering need int, uint or float operands, not bool");
    if constexpr (cls == ir::OpClass::IntBinary)
        static_assert(t.scalar == Scalar::Int || t.scalar == Scalar::Uint,
                      "rill: %, &, |, ^, << and >> need int or uint operands (for floats use rill::mod)");
    if constexpr (cls == ir::OpClass::BoolBinary)
        static_assert(t.scalar == Scalar::Bool, "rill: && and || need bool operands");
    constexpr Type rt{ir::op_result_scalar(op, t.scalar), t.width};
    return Expr<host_t<rt.scalar, rt.width>>(FromId{builder().binary(op, operand_as(a, t), operand_as(b, t))});
}

template <ir::Op op, Value X>
auto make_unary(const X& x) {
    constexpr Type t = type_v<value_t<X>>;
    constexpr Type rt{ir::op_result_scalar(op, t.scalar), t.width};
    return Expr<host_t<rt.scalar, rt.width>>(FromId{builder().unary(op, x.id())});
}

template <class V>
struct is_swizzle_ref : std::false_type {};
template <class P, int... C>
struct is_swizzle_ref<SwizzleRef<P, C...>> : std::true_type {};
template <class T>
void var_base(const Var<T>&);
/// Var<T> and everything derived from it (Out, Reduce, In), and v.xy() on a Var.
template <class V>
concept Assignable = Value<V> && (is_swizzle_ref<std::remove_cvref_t<V>>::value ||
                                  requires(V& v) { var_base(v); });

}  // namespace dsl

#define RILL_BINARY_OPERATOR(sym, op)                                              \
    template <class A, class B>                                                    \
        requires dsl::BinaryOperands<A, B>                                         \
    auto operator sym(const A& a, const B& b) {                                    \
        return dsl::make_binary<op>(a, b);                                         \
    }
RILL_BINARY_OPERATOR(+, ir::Op::Add)
RILL_BINARY_OPERATOR(-, ir::Op::Sub)
RILL_BINARY_OPERATOR(*, ir::Op::Mul)
RILL_BINARY_OPERATOR(/, ir::Op::Div)
RILL_BINARY_OPERATOR(<, ir::Op::Lt)
RILL_BINARY_OPERATOR(<=, ir::Op::Le)
RILL_BINARY_OPERATOR(>, ir::Op::Gt)
RILL_BINARY_OPERATOR(>=, ir::Op::Ge)
RILL_BINARY_OPERATOR(==, ir::Op::Eq)
RILL_BINARY_OPERATOR(!=, ir::Op::Ne)
RILL_BINARY_OPERATOR(&&, ir::Op::LogicalAnd)
RILL_BINARY_OPERATOR(||, ir::Op::LogicalOr)
RILL_BINARY_OPERATOR(<<, ir::Op::Shl)
RILL_BINARY_OPERATOR(>>, ir::Op::Shr)
#undef RILL_BINARY_OPERATOR

template <class A, class B>
    requires dsl::BinaryOperands<A, B>
auto operator%(const A& a, const B& b) {
    static_assert(dsl::common_type<A, B>().scalar != Scalar::Float,
                  "rill: % is for integers (as in GLSL); for floats use rill::mod(x, y)");
    return dsl::make_binary<ir::Op::Rem>(a, b);
}

// &, |, ^ are bitwise on integers and logical on bools.
#define RILL_BITWISE_OPERATOR(sym, int_op, bool_op)                                    \
    template <class A, class B>                                                        \
        requires dsl::BinaryOperands<A, B>                                             \
    auto operator sym(const A& a, const B& b) {                                        \
        if constexpr (dsl::common_type<A, B>().scalar == Scalar::Bool)                 \
            return dsl::make_binary<bool_op>(a, b);                                    \
        else                                                                           \
            return dsl::make_binary<int_op>(a, b);                                     \
    }
RILL_BITWISE_OPERATOR(&, ir::Op::BitAnd, ir::Op::LogicalAnd)
RILL_BITWISE_OPERATOR(|, ir::Op::BitOr, ir::Op::LogicalOr)
RILL_BITWISE_OPERATOR(^, ir::Op::BitXor, ir::Op::Ne)
#undef RILL_BITWISE_OPERATOR

template <dsl::Value X>
auto operator-(const X& x) {
    static_assert(dsl::type_v<dsl::value_t<X>>.scalar != Scalar::Bool, "rill: unary - needs a number, not a bool");
    return dsl::make_unary<ir::Op::Neg>(x);
}
template <dsl::Value X>
auto operator+(const X& x) {
    return Expr<dsl::value_t<X>>(dsl::FromId{x.id()});
}
template <dsl::Value X>
auto operator!(const X& x) {
    static_assert(dsl::type_v<dsl::value_t<X>>.scalar == Scalar::Bool, "rill: ! needs a bool; for integers use ~");
    return dsl::make_unary<ir::Op::Not>(x);
}
template <dsl::Value X>
auto operator~(const X& x) {
    static_assert(dsl::type_v<dsl::value_t<X>>.is_integer(), "rill: ~ needs an int or uint; for bools use !");
    return dsl::make_unary<ir::Op::BitNot>(x);
}

#define RILL_COMPOUND_ASSIGN(sym, base)                                              \
    template <dsl::Assignable V, dsl::Operand X>                                     \
    decltype(auto) operator sym(V&& v, const X& x) {                                 \
        v = (v base x);                                                              \
        return std::forward<V>(v);                                                   \
    }
RILL_COMPOUND_ASSIGN(+=, +)
RILL_COMPOUND_ASSIGN(-=, -)
RILL_COMPOUND_ASSIGN(*=, *)
RILL_COMPOUND_ASSIGN(/=, /)
RILL_COMPOUND_ASSIGN(%=, %)
RILL_COMPOUND_ASSIGN(&=, &)
RILL_COMPOUND_ASSIGN(|=, |)
RILL_COMPOUND_ASSIGN(^=, ^)
RILL_COMPOUND_ASSIGN(<<=, <<)
RILL_COMPOUND_ASSIGN(>>=, >>)
#undef RILL_COMPOUND_ASSIGN

}  // namespace rill
