// Kernel parameter types (Brook section 3.2). In a kernel lambda:
//
//   rill::In<T> x          one element of an input stream per invocation
//   rill::Out<T> r         the element this invocation writes (assign to it)
//   rill::Gather<T, R> g   random read: g[i] (R = 1, i an Int) or g[Int2(i, j)]...;
//                          out-of-range indices clamp to the edge
//   rill::Var<T> c / rill::Float c ...   a constant, the same for all invocations
//
// T is a stream element type (float, int32_t, uint32_t, bool32, a rill vector,
// or a RILL_STRUCT). Positions and index vectors are in dimension order:
// for a 2D stream of shape {h, w}, component 0 is the row, component 1 the column.
#pragma once

#include "rill/dsl/builtins.h"
#include "rill/dsl/struct.h"

namespace rill {

namespace dsl {

/// What the tracer tells a parameter object when it creates it.
struct ParamSetup {
    std::uint16_t index;
};
struct FromValue {};

LeafSource input_leaves(std::uint16_t param);
LeafSource uniform_leaves(std::uint16_t param, std::uint32_t first_word);
LeafSource gather_leaves(std::uint16_t param, ir::ExprId index);
void mark_indexof(std::uint16_t param, int rank);
ir::ExprId index_of_dim(std::uint16_t param, int dim);

/// The value a read of T produces: Expr for scalars/vectors, Var for structs.
template <class T>
using read_t = std::conditional_t<IrValueType<T>, Expr<dsl_t<T>>, Var<T>>;

}  // namespace dsl

template <StreamElement T>
class In : public Var<dsl::dsl_t<T>> {
public:
    using element_type = T;
    explicit In(dsl::ParamSetup p) : Var<dsl::dsl_t<T>>(dsl::input_leaves(p.index)), param_(p.index) {}
    /// A value that is not a kernel parameter but is passed where an In<T> is
    /// expected (a reduction's combiner gets its elements this way).
    template <class V>
    In(dsl::FromValue, const V& v) : Var<dsl::dsl_t<T>>(v), param_(kNotAParam) {}
    In(const In&) = default;
    std::uint16_t param_index() const { return param_; }
    static constexpr std::uint16_t kNotAParam = 0xffff;

private:
    std::uint16_t param_;
};

template <StreamElement T>
class Out : public Var<dsl::dsl_t<T>> {
    using Base = Var<dsl::dsl_t<T>>;

public:
    using element_type = T;
    /// Starts at zero: an output not assigned on some path stores zero there.
    explicit Out(dsl::ParamSetup p) : Base(dsl::zero_leaves()), param_(p.index) {
        dsl::for_each_leaf(static_cast<Base&>(*this), [](auto& leaf, std::uint32_t) { leaf.slot(); });
    }
    /// A copy (e.g. a by-value lambda parameter) is the same output.
    Out(const Out& other) : Base(dsl::AliasTag{}, const_cast<Out&>(other)), param_(other.param_) {}
    using Base::operator=;
    Out& operator=(const Out& other) {
        Base::operator=(static_cast<const Base&>(other));
        return *this;
    }
    std::uint16_t param_index() const { return param_; }

private:
    std::uint16_t param_;
};

template <StreamElement T, int Rank = 1>
class Gather {
    static_assert(Rank >= 1 && Rank <= 4, "rill::Gather<T, Rank>: Rank is 1 to 4");

public:
    using element_type = T;
    static constexpr int rank = Rank;
    using index_type = std::conditional_t<Rank == 1, std::int32_t, vec<std::int32_t, (Rank < 2 ? 2 : Rank)>>;

    explicit Gather(dsl::ParamSetup p) : param_(p.index) {}

    /// The element at `index` (clamped to the stream's edges).
    template <class I>
        requires dsl::Operand<I>
    dsl::read_t<T> operator[](const I& index) const {
        if constexpr (dsl::Value<I>)
            static_assert(std::is_same_v<dsl::value_t<I>, index_type>,
                          "rill::Gather<T, R>: index with an Int for R = 1, or an Int2/Int3/Int4 for "
                          "R = 2/3/4 (positions in dimension order); convert float indices with rill::cast<int>");
        else
            static_assert(Rank == 1 && std::is_integral_v<I>, "rill::Gather: a literal index must be an integer (rank 1)");
        ir::ExprId idx = dsl::operand_as(index, dsl::type_v<index_type>);
        auto src = dsl::gather_leaves(param_, idx);
        if constexpr (IrValueType<T>) return dsl::read_t<T>(dsl::FromId{src.next(dsl::type_v<T>)});
        else return Var<T>(src);
    }
    std::uint16_t param_index() const { return param_; }

private:
    std::uint16_t param_;
};

/// Position of this invocation's element in stream `p` (an In or Out parameter),
/// as int (N = 1) or intN in dimension order. With implicit resize, an input's
/// position is the resized one. The call checks that the stream has rank N.
template <int N = 1, class P>
    requires requires(const P& p) { p.param_index(); }
auto indexof(const P& p) {
    static_assert(N >= 1 && N <= 4, "rill::indexof<N>: N is 1 to 4");
    dsl::mark_indexof(p.param_index(), N);
    if constexpr (N == 1) {
        return Expr<std::int32_t>(dsl::FromId{dsl::index_of_dim(p.param_index(), 0)});
    } else {
        ir::ExprId parts[N];
        for (int d = 0; d < N; ++d) parts[d] = dsl::index_of_dim(p.param_index(), d);
        return Expr<vec<std::int32_t, N>>(dsl::FromId{dsl::builder().construct(Type{Scalar::Int, N}, parts, N)});
    }
}

using Float = Var<float>;
using Float2 = Var<float2>;
using Float3 = Var<float3>;
using Float4 = Var<float4>;
using Int = Var<std::int32_t>;
using Int2 = Var<int2>;
using Int3 = Var<int3>;
using Int4 = Var<int4>;
using UInt = Var<std::uint32_t>;
using UInt2 = Var<uint2>;
using UInt3 = Var<uint3>;
using UInt4 = Var<uint4>;
using Bool = Var<bool>;
using Bool2 = Var<bool2>;
using Bool3 = Var<bool3>;
using Bool4 = Var<bool4>;

}  // namespace rill
