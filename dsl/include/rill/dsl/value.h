// Typed DSL values.
//
//   Expr<T>  an immutable traced value (what operators return; `auto` gives one)
//   Var<T>   a mutable local variable, like a C++ variable: `rill::Float t = x * 2;`
//
// T is a host element type: float, std::int32_t, std::uint32_t, bool, or a
// rill vector (float3, int2, ...). User structs get a Var<T> of their own from
// RILL_STRUCT. Types are checked by the C++ compiler: float3 + float4, or a
// float written into an int variable, does not compile.
//
// A Var costs nothing until it is reassigned or read inside a nested block
// (If/For/While body): only then does it become a real local variable in the
// IR. Most named values therefore stay pure expressions, which keeps the
// generated code and the CPU executor lean.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <type_traits>

#include "rill/core/types.h"
#include "rill/dsl/trace.h"

namespace rill {

template <class T>
class Expr;
template <class T>
class Var;

namespace dsl {

template <class T>
inline constexpr bool always_false = false;

/// Host type of an IR type: host_t<Scalar::Float, 3> is float3. (Two
/// parameters rather than one rill::Type: GCC 12 crashes on class-type
/// template parameters in alias templates.)
template <Scalar S>
using scalar_host_t =
    std::conditional_t<S == Scalar::Float, float,
                       std::conditional_t<S == Scalar::Int, std::int32_t,
                                          std::conditional_t<S == Scalar::Uint, std::uint32_t, bool>>>;
template <Scalar S, int W>
using host_t = std::conditional_t<W == 1, scalar_host_t<S>,
                                  vec<std::conditional_t<S == Scalar::Bool, bool32, scalar_host_t<S>>, (W < 2 ? 2 : W)>>;

template <class T>
inline constexpr Type type_v = ir_type_of<T>::value;

/// Anything that carries a traced scalar/vector value: Expr, Var, In, swizzles.
template <class X>
concept Value = requires(const std::remove_cvref_t<X>& x) {
    typename std::remove_cvref_t<X>::value_type;
    { x.id() } -> std::same_as<ir::ExprId>;
};
template <class X>
concept Literal = std::is_arithmetic_v<std::remove_cvref_t<X>>;
template <class X>
concept Operand = Value<X> || Literal<X>;

template <Value X>
using value_t = typename std::remove_cvref_t<X>::value_type;

/// Width of an operand in a vector constructor (a literal counts as 1).
template <class X>
consteval int operand_type_or_1(Scalar) {
    if constexpr (Value<X>) return ir_type_of<value_t<X>>::value.width;
    else return 1;
}

/// The scalar kind a C++ literal takes when combined with a value of kind
/// `other` (pass Scalar::Bool for "no other value": the literal's own kind).
template <class L>
consteval Scalar literal_scalar(Scalar other) {
    using T = std::remove_cvref_t<L>;
    if constexpr (std::is_same_v<T, bool>) return Scalar::Bool;
    else if constexpr (std::is_floating_point_v<T>) return Scalar::Float;
    else if (other != Scalar::Bool) return other;
    else return std::is_signed_v<T> ? Scalar::Int : Scalar::Uint;
}

/// Can literal type L stand for a value of scalar kind `target` without
/// silently changing its meaning? (An int literal in a float expression is
/// fine; a float literal in an int expression is not.)
template <class L>
consteval bool literal_fits(Scalar target) {
    using T = std::remove_cvref_t<L>;
    if constexpr (std::is_same_v<T, bool>) return target == Scalar::Bool;
    else if constexpr (std::is_floating_point_v<T>) return target == Scalar::Float;
    else return target != Scalar::Bool;
}

ir::ExprId literal_id(Scalar s, double v);
ir::ExprId literal_id(Scalar s, std::int64_t v);
ir::ExprId literal_id(Scalar s, std::uint64_t v);

template <Literal L>
ir::ExprId literal(Scalar s, L v) {
    using T = std::remove_cvref_t<L>;
    if constexpr (std::is_same_v<T, bool>) return literal_id(Scalar::Bool, static_cast<std::int64_t>(v));
    else if constexpr (std::is_floating_point_v<T>) return literal_id(s, static_cast<double>(v));
    else if constexpr (std::is_signed_v<T>) return literal_id(s, static_cast<std::int64_t>(v));
    else return literal_id(s, static_cast<std::uint64_t>(v));
}

/// IR id of an operand that must have type `t` (literals are converted and
/// splatted; values are splatted from scalars).
template <Operand X>
ir::ExprId operand_as(const X& x, Type t) {
    if constexpr (Value<X>) {
        ir::ExprId id = x.id();
        return type_v<value_t<X>>.width == t.width ? id : builder().splat(id, t.width);
    } else {
        return builder().splat(literal(t.scalar, x), t.width);
    }
}

void check_owner(std::uint32_t serial);
/// Marks the place where a Var is declared (for later materialization).
ir::StmtId declare_placeholder();
/// Turns a lazily tracked Var into a real IR variable initialized at its declaration.
ir::VarId materialize(ir::StmtId placeholder, ir::BlockId decl_block, ir::ExprId initial, Type t);

}  // namespace dsl

// --- swizzles -----------------------------------------------------------------

namespace dsl {

/// Tag for constructing a value from an IR id (never confused with a literal).
struct FromId {
    ir::ExprId id;
};

template <class T, int... C>
struct SwizzleCheck {
    static constexpr bool in_range = type_v<T>.width > 1 && ((C >= 0 && C < type_v<T>.width) && ...);
    static constexpr bool distinct = [] {
        int cs[] = {C...};
        for (int i = 0; i < static_cast<int>(sizeof...(C)); ++i)
            for (int j = i + 1; j < static_cast<int>(sizeof...(C)); ++j)
                if (cs[i] == cs[j]) return false;
        return true;
    }();
};

template <class T, int N>
using swizzle_result_t = host_t<type_v<T>.scalar, N>;

template <class T, int... C>
Expr<swizzle_result_t<T, sizeof...(C)>> read_swizzle(ir::ExprId v) {
    constexpr int cs[] = {C...};
    return Expr<swizzle_result_t<T, sizeof...(C)>>(FromId{builder().swizzle(v, cs, sizeof...(C))});
}

/// Produces the leaves (scalar/vector fields) of a value in layout order:
/// e.g. input loads at increasing word offsets.
class LeafSource {
public:
    explicit LeafSource(std::function<ir::ExprId(std::uint32_t word, Type t)> make) : make_(std::move(make)) {}
    ir::ExprId next(Type t) const {
        ir::ExprId id = make_(word_, t);
        word_ += t.width;
        return id;
    }

private:
    std::function<ir::ExprId(std::uint32_t, Type)> make_;
    mutable std::uint32_t word_ = 0;
};

LeafSource zero_leaves();

/// Tag: make a value that is the same IR variable as another (Out/Reduce copies).
struct AliasTag {};

template <class Parent, int... C>
class SwizzleRef;

template <class X>
consteval bool part_fits(Scalar s) {
    if constexpr (Value<X>) return ir_type_of<value_t<X>>::value.scalar == s;
    else return literal_fits<X>(s);
}

/// A vector built from parts: Float4(v.xyz(), 1.0f), Int2(i, j), Float3(s) (splat).
template <class T, class... Xs>
ir::ExprId make_vector(const Xs&... xs) {
    constexpr Type t = type_v<T>;
    constexpr int widths[] = {operand_type_or_1<Xs>(t.scalar)...};
    constexpr int total = (operand_type_or_1<Xs>(t.scalar) + ...);
    static_assert((part_fits<Xs>(t.scalar) && ...),
                  "rill: a vector constructor got a part of another scalar type, or a literal that does not "
                  "fit (a float literal in an int vector?); convert it with rill::cast<T>");
    static_assert(total == t.width || (sizeof...(Xs) == 1 && total == 1),
                  "rill: the parts of a vector constructor must add up to its width (e.g. Float4(v.xyz(), w))");
    if constexpr (sizeof...(Xs) == 1 && total == 1) {
        return operand_as(xs..., t);
    } else {
        ir::ExprId parts[] = {operand_as(xs, Type{t.scalar, static_cast<std::uint8_t>(operand_type_or_1<Xs>(t.scalar))})...};
        (void)widths;
        return builder().construct(t, parts, static_cast<int>(sizeof...(Xs)));
    }
}

/// An IR constant from a host value of a rill scalar or vector type.
template <class T>
ir::ExprId host_constant(const T& v) {
    std::uint32_t bits[4]{};
    std::memcpy(bits, &v, sizeof(T));
    return builder().constant(type_v<T>, bits);
}

[[noreturn]] void throw_bool_conversion();

}  // namespace dsl

// Read-only swizzles (v.x(), v.zyx(), ...) for any value class with id().
#define RILL_SWIZZLE(name, ...)                                            \
    auto name() const                                                     \
        requires(dsl::SwizzleCheck<T, __VA_ARGS__>::in_range)             \
    {                                                                     \
        return dsl::read_swizzle<T, __VA_ARGS__>(id());                   \
    }

#define RILL_NO_CPP_CONTROL_FLOW                                                                  \
    template <class D = void>                                                                     \
    explicit operator bool() const {                                                              \
        static_assert(dsl::always_false<D>,                                                       \
                      "rill: a traced value cannot drive a C++ `if`, `while`, `?:`, `&&` or `||` " \
                      "(it has no value while the kernel is traced). Use rill::If(cond, [&] { ... }), " \
                      "rill::While, or rill::select(cond, a, b).");                               \
        return false;                                                                             \
    }

/// An immutable traced value.
template <class T>
class Expr {
    static_assert(IrValueType<T>, "rill::Expr<T>: T must be float, int32_t, uint32_t, bool or a rill vector type");

public:
    using value_type = T;
    explicit Expr(dsl::FromId f) : id_(f.id), serial_(dsl::trace().serial) {}
    template <dsl::Literal L>
        requires(dsl::literal_fits<L>(dsl::type_v<T>.scalar))
    Expr(L v) : Expr(dsl::FromId{dsl::operand_as(v, dsl::type_v<T>)}) {}
    template <dsl::Value X>
        requires std::is_same_v<dsl::value_t<X>, T> && (!std::is_same_v<std::remove_cvref_t<X>, Expr>)
    Expr(const X& v) : Expr(dsl::FromId{v.id()}) {}

    /// Vector from parts, or a scalar broadcast: Expr<float4>(v.xyz(), 1.0f).
    template <dsl::Operand... Xs>
        requires(dsl::type_v<T>.width > 1 && (sizeof...(Xs) >= 2 || (dsl::operand_type_or_1<Xs>(dsl::type_v<T>.scalar) + ...) == 1))
    explicit Expr(const Xs&... xs) : Expr(dsl::FromId{dsl::make_vector<T>(xs...)}) {}
    /// A constant from a host vector value.
    Expr(const T& host)
        requires(!std::is_arithmetic_v<T>)
        : Expr(dsl::FromId{dsl::host_constant(host)}) {}
    Expr(const Expr&) = default;
    // An Expr is a value, not a variable: assigning to one would silently
    // rebind a C++ handle and change nothing in the kernel. Use Var<T>.
    Expr& operator=(const Expr&) = delete;

    ir::ExprId id() const {
        dsl::check_owner(serial_);
        return id_;
    }

#include "rill/dsl/swizzles.inc"
    RILL_NO_CPP_CONTROL_FLOW

private:
    ir::ExprId id_;
    std::uint32_t serial_;
};

/// A mutable local variable of a kernel.
template <class T>
class Var {
    static_assert(IrValueType<T> || dsl::always_false<T>,
                  "rill::Var<T>: T must be a scalar or rill vector type, or a struct declared with RILL_STRUCT");

public:
    using value_type = T;

    /// A zero-initialized variable.
    Var() : Var(dsl::FromId{dsl::operand_as(0, dsl::type_v<T>)}) {}
    Var(const Var& other) : Var(dsl::FromId{other.id()}) {}
    template <dsl::Value X>
        requires std::is_same_v<dsl::value_t<X>, T>
    Var(const X& value) : Var(dsl::FromId{value.id()}) {}
    template <dsl::Literal L>
        requires(dsl::literal_fits<L>(dsl::type_v<T>.scalar))
    Var(L v) : Var(dsl::FromId{dsl::operand_as(v, dsl::type_v<T>)}) {}
    /// Vector from parts, or a scalar broadcast: Float4(v.xyz(), 1.0f), Float3(0.5f).
    template <dsl::Operand... Xs>
        requires(dsl::type_v<T>.width > 1 && (sizeof...(Xs) >= 2 || (dsl::operand_type_or_1<Xs>(dsl::type_v<T>.scalar) + ...) == 1))
    explicit Var(const Xs&... xs) : Var(dsl::FromId{dsl::make_vector<T>(xs...)}) {}
    /// A constant from a host vector value: Float3(rill::float3{1, 2, 3}).
    Var(const T& host)
        requires(!std::is_arithmetic_v<T>)
        : Var(dsl::FromId{dsl::host_constant(host)}) {}
    /// The next leaf of a LeafSource (kernel parameters are made this way).
    explicit Var(const dsl::LeafSource& src) : Var(dsl::FromId{src.next(dsl::type_v<T>)}) {}
    /// The same IR variable as `other` (copies of Out/Reduce parameters alias).
    Var(dsl::AliasTag, Var& other)
        : value_(other.value_),
          slot_(other.slot()),
          placeholder_(other.placeholder_),
          decl_block_(other.decl_block_),
          serial_(other.serial_) {}
    explicit Var(dsl::FromId initial)
        : value_(initial.id),
          placeholder_(dsl::declare_placeholder()),
          decl_block_(dsl::builder().current_block()),
          serial_(dsl::trace().serial) {}

    Var& operator=(const Var& other) {
        assign(other.id());
        return *this;
    }
    template <dsl::Operand X>
    Var& operator=(const X& value) {
        if constexpr (dsl::Value<X>) {
            static_assert(std::is_same_v<dsl::value_t<X>, T> ||
                              (dsl::type_v<dsl::value_t<X>>.scalar == dsl::type_v<T>.scalar &&
                               dsl::type_v<dsl::value_t<X>>.width == 1),
                          "rill: assignment of a value of another type; convert it with rill::cast<T>()");
        } else {
            static_assert(dsl::literal_fits<X>(dsl::type_v<T>.scalar),
                          "rill: this literal does not fit the variable's type (a float literal into an "
                          "int variable?); write a literal of the variable's type");
        }
        assign(dsl::operand_as(value, dsl::type_v<T>));
        return *this;
    }

    /// The variable's current value.
    ir::ExprId id() const {
        dsl::check_owner(serial_);
        ir::Builder& b = dsl::builder();
        if (slot_ == ir::kNone) {
            if (b.current_block() == decl_block_) return value_;
            slot();
        }
        return b.read_var(slot_);
    }

    /// Replaces the variable's value (every form of assignment ends here).
    void assign(ir::ExprId value) {
        dsl::check_owner(serial_);
        dsl::builder().append(ir::Stmt{ir::StmtKind::Assign, slot(), value});
    }

    /// Forces a real IR variable now (outputs need one for their final store).
    ir::VarId slot() const {
        if (slot_ == ir::kNone) slot_ = dsl::materialize(placeholder_, decl_block_, value_, dsl::type_v<T>);
        return slot_;
    }

    // Swizzles: read-only on a const Var, assignable on a mutable one
    // (v.xy() = ..., v.z() += ...).
#include "rill/dsl/swizzles.inc"
#undef RILL_SWIZZLE
#define RILL_SWIZZLE(name, ...)                                        \
    auto name()                                                       \
        requires(dsl::SwizzleCheck<T, __VA_ARGS__>::in_range)         \
    {                                                                 \
        return dsl::SwizzleRef<Var, __VA_ARGS__>(*this);              \
    }
#include "rill/dsl/swizzles.inc"
#undef RILL_SWIZZLE
#define RILL_SWIZZLE(name, ...)                                            \
    auto name() const                                                     \
        requires(dsl::SwizzleCheck<T, __VA_ARGS__>::in_range)             \
    {                                                                     \
        return dsl::read_swizzle<T, __VA_ARGS__>(id());                   \
    }

    RILL_NO_CPP_CONTROL_FLOW

private:
    mutable ir::ExprId value_;
    mutable ir::VarId slot_ = ir::kNone;
    ir::StmtId placeholder_;
    ir::BlockId decl_block_;
    std::uint32_t serial_;
};

namespace dsl {

/// v.xy() on a Var: readable like an Expr, assignable as part of the variable.
template <class Parent, int... C>
class SwizzleRef {
    using PT = typename Parent::value_type;

public:
    static constexpr int n = sizeof...(C);
    using value_type = swizzle_result_t<PT, n>;
    explicit SwizzleRef(Parent& p) : p_(p) {}

    ir::ExprId id() const {
        constexpr int cs[] = {C...};
        return builder().swizzle(p_.id(), cs, n);
    }
    operator Expr<value_type>() const { return Expr<value_type>(FromId{id()}); }

    template <Operand X>
    SwizzleRef& operator=(const X& value) {
        static_assert(SwizzleCheck<PT, C...>::distinct,
                      "rill: a swizzle that names a component twice (like .xx) cannot be assigned");
        if constexpr (Value<X>)
            static_assert(type_v<value_t<X>>.scalar == type_v<PT>.scalar &&
                              (type_v<value_t<X>>.width == n || type_v<value_t<X>>.width == 1),
                          "rill: the assigned value does not match the swizzle's type");
        constexpr int cs[] = {C...};
        ir::ExprId part = operand_as(value, Type{type_v<PT>.scalar, static_cast<std::uint8_t>(n)});
        p_.assign(builder().insert(p_.id(), part, cs));
        return *this;
    }
    SwizzleRef& operator=(const SwizzleRef& other) { return *this = Expr<value_type>(FromId{other.id()}); }

    using T = value_type;
#include "rill/dsl/swizzles.inc"

private:
    Parent& p_;
};

}  // namespace dsl

}  // namespace rill

// Internal to this header: not part of the API.
#undef RILL_SWIZZLE
#undef RILL_NO_CPP_CONTROL_FLOW
