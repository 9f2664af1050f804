// Which scalar kinds each element-wise op accepts, and what it returns. Used at
// compile time (if constexpr, to instantiate only valid lane loops) and at run
// time (type checks in the IR builder).
#pragma once

#include <type_traits>

#include "rill/core/ir.h"

namespace rill::ir {

enum class OpClass : std::uint8_t {
    Leaf, Structure, FloatUnary, IntUnary, NumericUnary, BoolUnary, BoolReduce,
    Numeric, FloatBinary, IntBinary, BoolBinary, Compare, Equality, Dot, Ternary
};

constexpr OpClass op_class(Op op) {
    switch (op) {
        case Op::Const: case Op::Uniform: case Op::InputLoad: case Op::IndexOf:
        case Op::ReadVar: case Op::GatherLoad: case Op::LocalId: case Op::GroupId:
        case Op::NumGroups: case Op::ArraySize: case Op::SubgroupSize: case Op::SubgroupInvocation:
        case Op::ArrayLoad: case Op::ArrayLoadVector: case Op::SharedLoad: case Op::Atomic: case Op::Subgroup:
            return OpClass::Leaf;
        case Op::Splat: case Op::Construct: case Op::Swizzle: case Op::Insert:
        case Op::Cast: case Op::Bitcast: case Op::Select:
            return OpClass::Structure;
        case Op::Floor: case Op::Ceil: case Op::Round: case Op::Trunc: case Op::Fract:
        case Op::Sqrt: case Op::InverseSqrt: case Op::Exp: case Op::Exp2: case Op::Log:
        case Op::Log2: case Op::Sin: case Op::Cos: case Op::Tan: case Op::Asin:
        case Op::Acos: case Op::Atan: case Op::Sinh: case Op::Cosh: case Op::Tanh:
        case Op::Asinh: case Op::Acosh: case Op::Atanh: case Op::IsNan: case Op::IsInf:
            return OpClass::FloatUnary;
        case Op::BitNot: case Op::BitCount: case Op::FindLSB: case Op::FindMSB:
        case Op::BitReverse:
            return OpClass::IntUnary;
        case Op::Neg: case Op::Abs: case Op::Sign:
            return OpClass::NumericUnary;
        case Op::Not:
            return OpClass::BoolUnary;
        case Op::All: case Op::Any:
            return OpClass::BoolReduce;
        case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Min: case Op::Max:
            return OpClass::Numeric;
        case Op::Mod: case Op::Pow: case Op::Atan2:
            return OpClass::FloatBinary;
        case Op::Rem: case Op::BitAnd: case Op::BitOr: case Op::BitXor: case Op::Shl:
        case Op::Shr:
            return OpClass::IntBinary;
        case Op::LogicalAnd: case Op::LogicalOr:
            return OpClass::BoolBinary;
        case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge:
            return OpClass::Compare;
        case Op::Eq: case Op::Ne:
            return OpClass::Equality;
        case Op::Dot:
            return OpClass::Dot;
        case Op::Fma: case Op::BitfieldExtract:
            return OpClass::Ternary;
    }
    return OpClass::Leaf;
}

/// Does element-wise `op` accept operands of scalar kind `s`?
constexpr bool op_accepts(Op op, Scalar s) {
    switch (op_class(op)) {
        case OpClass::FloatUnary: case OpClass::FloatBinary: case OpClass::Dot:
            return s == Scalar::Float;
        case OpClass::IntUnary: case OpClass::IntBinary:
            return s == Scalar::Int || s == Scalar::Uint;
        case OpClass::NumericUnary: case OpClass::Numeric: case OpClass::Compare:
            return s != Scalar::Bool;
        case OpClass::BoolUnary: case OpClass::BoolBinary: case OpClass::BoolReduce:
            return s == Scalar::Bool;
        case OpClass::Equality:
            return true;
        case OpClass::Ternary:
            return op == Op::Fma ? s == Scalar::Float : s != Scalar::Float && s != Scalar::Bool;
        case OpClass::Leaf: case OpClass::Structure:
            return true;
    }
    return false;
}

/// Scalar kind of the result of element-wise `op` on operands of kind `s`.
constexpr Scalar op_result_scalar(Op op, Scalar s) {
    switch (op) {
        case Op::IsNan: case Op::IsInf: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge:
        case Op::Eq: case Op::Ne:
            return Scalar::Bool;
        case Op::BitCount: case Op::FindLSB: case Op::FindMSB:
            return Scalar::Int;
        default:
            return s;
    }
}

constexpr bool is_elementwise_unary(Op op) {
    OpClass c = op_class(op);
    return c == OpClass::FloatUnary || c == OpClass::IntUnary || c == OpClass::NumericUnary ||
           c == OpClass::BoolUnary;
}
constexpr bool is_elementwise_binary(Op op) {
    OpClass c = op_class(op);
    return c == OpClass::Numeric || c == OpClass::FloatBinary || c == OpClass::IntBinary ||
           c == OpClass::BoolBinary || c == OpClass::Compare || c == OpClass::Equality;
}

/// The C++ type that holds one lane of scalar kind S (bools are 0/1 in a u32).
template <Scalar S>
using lane_t = std::conditional_t<S == Scalar::Float, float,
                                  std::conditional_t<S == Scalar::Int, std::int32_t, std::uint32_t>>;

/// Calls f.template operator()<Op, T>() for the compile-time pair matching the
/// run-time (op, s), instantiating only valid element-wise combinations.
/// Returns false when (op, s) is not a valid element-wise pair.
template <bool Binary, class F>
bool visit_elementwise(Op op, Scalar s, F&& f) {
    bool done = false;
    auto on_scalar = [&]<Op O>() {
        auto try_kind = [&]<Scalar S>() {
            if constexpr (op_accepts(O, S)) {
                if (s == S) {
                    f.template operator()<O, lane_t<S>>();
                    done = true;
                }
            }
        };
        try_kind.template operator()<Scalar::Float>();
        try_kind.template operator()<Scalar::Int>();
        try_kind.template operator()<Scalar::Uint>();
        try_kind.template operator()<Scalar::Bool>();
    };
    switch (op) {
#define RILL_VISIT_CASE(name, arity)                                                  \
    case Op::name:                                                                    \
        if constexpr (Binary ? is_elementwise_binary(Op::name) : is_elementwise_unary(Op::name)) \
            on_scalar.template operator()<Op::name>();                                \
        break;
        RILL_FOR_EACH_OP(RILL_VISIT_CASE)
#undef RILL_VISIT_CASE
    }
    return done;
}

/// Bits of the identity of a subgroup reduction's combining op (Add, Mul, Min,
/// Max, BitAnd, BitOr, BitXor) on scalar kind s: what an exclusive scan gives
/// its first invocation. The one rule every backend follows.
constexpr std::uint32_t combine_identity_bits(Op op, Scalar s) {
    switch (op) {
        case Op::Mul: return s == Scalar::Float ? 0x3f800000u : 1u;                              // 1
        case Op::BitAnd: return ~0u;                                                            // all ones
        case Op::Min: return s == Scalar::Float ? 0x7f800000u : s == Scalar::Int ? 0x7fffffffu : ~0u;  // +inf / max
        case Op::Max: return s == Scalar::Float ? 0xff800000u : s == Scalar::Int ? 0x80000000u : 0u;   // -inf / min
        default: return 0u;                                                                     // Add, BitOr, BitXor
    }
}

}  // namespace rill::ir
