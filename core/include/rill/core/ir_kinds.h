// The IR's enumerations alone: scalar kinds and the operations of expression
// nodes, atomics and subgroups. Everything that needs only these names includes
// this header instead of ir.h, above all the C++ the CPU backend generates for
// group kernels, whose build time is mostly reading headers (native_prelude.h):
// it needs only <cstdint>.
#pragma once

#include <cstdint>

namespace rill {

enum class Scalar : std::uint8_t { Bool, Int, Uint, Float };

}  // namespace rill

namespace rill::ir {

// X(name, arity). The one list of expression operations: enums, names and
// dispatch tables are generated from it, and every `switch` over Op is compiled
// with -Werror=switch so that a new op breaks the build where it is not handled.
#define RILL_FOR_EACH_OP(X)                                                       \
    /* leaves */                                                                 \
    X(Const, 0) X(Uniform, 0) X(InputLoad, 0) X(IndexOf, 0) X(ReadVar, 0)        \
    X(GatherLoad, 1)                                                             \
    /* structure */                                                              \
    X(Splat, 1) X(Construct, 4) X(Swizzle, 1) X(Insert, 2) X(Cast, 1)            \
    X(Bitcast, 1) X(Select, 3)                                                   \
    /* unary */                                                                  \
    X(Neg, 1) X(Not, 1) X(BitNot, 1) X(Abs, 1) X(Sign, 1) X(Floor, 1)            \
    X(Ceil, 1) X(Round, 1) X(Trunc, 1) X(Fract, 1) X(Sqrt, 1) X(InverseSqrt, 1)  \
    X(Exp, 1) X(Exp2, 1) X(Log, 1) X(Log2, 1) X(Sin, 1) X(Cos, 1) X(Tan, 1)      \
    X(Asin, 1) X(Acos, 1) X(Atan, 1) X(Sinh, 1) X(Cosh, 1) X(Tanh, 1)            \
    X(Asinh, 1) X(Acosh, 1) X(Atanh, 1) X(IsNan, 1) X(IsInf, 1) X(BitCount, 1)   \
    X(FindLSB, 1) X(FindMSB, 1) X(BitReverse, 1) X(All, 1) X(Any, 1)             \
    /* binary */                                                                 \
    X(Add, 2) X(Sub, 2) X(Mul, 2) X(Div, 2) X(Rem, 2) X(Mod, 2) X(Min, 2)        \
    X(Max, 2) X(Pow, 2) X(Atan2, 2) X(Dot, 2) X(LogicalAnd, 2) X(LogicalOr, 2)   \
    X(BitAnd, 2) X(BitOr, 2) X(BitXor, 2) X(Shl, 2) X(Shr, 2) X(Eq, 2) X(Ne, 2)  \
    X(Lt, 2) X(Le, 2) X(Gt, 2) X(Ge, 2)                                          \
    /* ternary */                                                                \
    X(Fma, 3) X(BitfieldExtract, 3)                                              \
    /* group kernels: ids and sizes */                                           \
    X(LocalId, 0) X(GroupId, 0) X(NumGroups, 0) X(ArraySize, 0)                  \
    X(SubgroupSize, 0) X(SubgroupInvocation, 0)                                  \
    /* defined by a Def statement where they happen (memory, convergence) */     \
    X(ArrayLoad, 1) X(ArrayLoadVector, 1) X(SharedLoad, 1) X(Atomic, 3)         \
    X(Subgroup, 2)

enum class Op : std::uint8_t {
#define RILL_OP_ENUM(name, arity) name,
    RILL_FOR_EACH_OP(RILL_OP_ENUM)
#undef RILL_OP_ENUM
};

/// Ops whose value depends on where they happen (memory contents, active
/// invocations): never merged or moved, each is evaluated by its Def statement.
constexpr bool defined_in_place(Op op) {
    return op == Op::ReadVar || op == Op::ArrayLoad || op == Op::ArrayLoadVector || op == Op::SharedLoad ||
           op == Op::Atomic || op == Op::Subgroup;
}

/// Atomic read-modify-writes (Op::Atomic imm[1]); each returns the old value.
enum class AtomicOp : std::uint8_t { Add, Min, Max, And, Or, Xor, Exchange, CompareExchange, Load };

/// Subgroup operations (Op::Subgroup imm[0]); reductions and scans combine
/// with the element-wise Op in imm[1] (Add, Mul, Min, Max, BitAnd, BitOr, BitXor).
enum class SubgroupOp : std::uint8_t {
    Elect, All, Any, Ballot, Broadcast, BroadcastFirst, Shuffle, ShuffleXor, ShuffleUp, ShuffleDown,
    Reduce, InclusiveScan, ExclusiveScan,
    Match  // ballot of the active invocations whose value equals this one's
};

}  // namespace rill::ir
