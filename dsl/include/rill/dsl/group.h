// Group kernels: workgroups, shared memory, barriers, subgroups and atomics.
//
//   auto histogram = rill::group_kernel<256>("histogram(keys, bins)",
//       [](rill::Array<std::uint32_t> keys, rill::Array<std::uint32_t> bins) {
//           rill::Shared<std::uint32_t> local(256);
//           local.store(rill::local_id(), 0u);
//           rill::barrier();
//           ...
//       });
//   histogram(rill::Groups{64}, keys, bins);
//
// A group kernel runs `Groups{n}` workgroups of a workgroup size fixed at trace
// time; it reads and writes its streams through Array<T> (random access, with
// atomics) and Gather<T, R>, and has no per-element In/Out streams. The rules
// (what barrier() orders, which subgroup sizes exist, what may be assumed about
// other workgroups) are in docs/SEMANTICS.md.
#pragma once

#include "rill/dsl/params.h"

namespace rill {

/// How many workgroups a group kernel call runs.
struct Groups {
    std::int64_t count = 0;
};

using ir::SpirvOpt;

/// Options of rill::group_kernel.
struct GroupOptions {
    /// Require subgroups of exactly this many invocations (a power of two; the
    /// workgroup size must be a multiple of it). 0: whatever the backend runs.
    /// Backends that cannot run the size refuse the call (BackendInfo limits
    /// min_subgroup_size .. max_subgroup_size say what they can).
    std::uint32_t subgroup_size = 0;
    /// When spirv-opt optimizes the kernel's SPIR-V before the driver
    /// compiles it (Vulkan; other backends have no such step): Always, Never,
    /// or UnlessTheDriverOptimizes (ir::SpirvOpt). The driver optimizes
    /// either way, and its code from spirv-opt's output can be slower: radix
    /// sort's keys-only passes run 3% faster without it on the H100
    /// (docs/PERFORMANCE.md#radix-sort). RILL_VK_SPIRV_OPT=0 or 1 overrides
    /// it for every kernel.
    SpirvOpt spirv_opt = SpirvOpt::Always;
    /// Whether Array loads, stores and atomics skip rill's bounds checks
    /// (GLSL backends and compiled CPU kernels; the CPU backend's lane
    /// executor checks anyway). Only for kernels whose every Array index is in
    /// range by construction (rill's own algorithms): an index out of range
    /// then reads or writes memory it must not.
    bool unchecked_arrays = false;
    /// Whether barrier() orders shared memory only, not Array memory. Only
    /// for kernels whose invocations never read (or overwrite) Array data
    /// that another invocation of their workgroup wrote before a barrier:
    /// they hand data to one another through shared memory, and to other
    /// workgroups through atomics and memory_fence() (rill's radix sweeps).
    /// A barrier that orders buffers costs NVIDIA's Vulkan driver a fence
    /// after the wait (docs/PERFORMANCE.md#radix-sort). Backends may order
    /// more than asked.
    bool shared_only_barriers = false;
    /// Whether the kernel reads its scalar parameters once, at its start,
    /// where backends otherwise read them at each use (the GLSL backends from
    /// the parameter block). Reading them once helps a kernel that uses them
    /// in a loop after stores, where NVIDIA's OpenGL compiler reads them
    /// again each trip: rill's blocked stencil, whose diffusion took 1.07 ->
    /// 1.02 of the copy through OpenGL and its linear stencil 0.98 -> 0.87
    /// through Vulkan. Elsewhere it lost: SGEMV A^T x up to 1.16x slower
    /// through Vulkan, A x of 8192^2 1.5x through OpenGL (H100, 2026-12-07,
    /// docs/PERFORMANCE.md#segment). RILL_GLSL_PARAMETERS_FIRST=1 or 0 sets
    /// it for every group kernel of the GLSL backends.
    bool parameters_at_start = false;
    /// Whether backends build the kernel for a short compile rather than for
    /// fast code: for a kernel that stands in for rare calls, such as the FFT's
    /// generic kernel, which serves a plan's first call until its specialized
    /// kernels are built. Vulkan asks the driver not to optimize the pipeline
    /// (VK_PIPELINE_CREATE_DISABLE_OPTIMIZATION_BIT), OpenGL puts
    /// `#pragma optimize(off)` in the shader; drivers may ignore either, and
    /// the CPU backend builds it as any other. Results are the same either
    /// way. RILL_QUICK_BUILDS=0 builds every kernel for fast code.
    bool quick_build = false;
};

namespace dsl {

enum class Space : std::uint8_t { Global, Shared };

ir::ExprId memory_load(Space space, std::uint16_t id, std::uint32_t word, Type t, ir::ExprId index);
void memory_store(Space space, std::uint16_t id, std::uint32_t word, ir::ExprId value, ir::ExprId index);
ir::ExprId memory_load_vector(std::uint16_t id, Type t, ir::ExprId k);
void memory_store_vector(std::uint16_t id, ir::ExprId value, ir::ExprId k);
/// An atomic on word `word` of element `index` (a component of a vector element).
ir::ExprId memory_atomic(Space space, std::uint16_t id, ir::AtomicOp op, Type t, ir::ExprId index, ir::ExprId value,
                         ir::ExprId compare, std::uint32_t word = 0);
/// One atomic per component of the vector elements of memory `id`, returning the
/// components' old values as one vector.
ir::ExprId memory_atomic_components(Space space, std::uint16_t id, ir::AtomicOp op, Type t, ir::ExprId index,
                                    ir::ExprId value);
ir::ExprId array_size(std::uint16_t param);
std::uint16_t add_shared(const std::string& type_name, std::uint32_t words, std::int64_t count, bool unchecked = false);
/// The shared array behind a Local<T> of `count` elements per invocation.
std::uint16_t add_local(const std::string& type_name, std::uint32_t words, std::int64_t count);
/// Where element `index` of this invocation's Local array of `count` lies in
/// that shared array (-1, out of range, for an index outside 0 .. count-1).
ir::ExprId local_slot(std::int64_t count, ir::ExprId index);
/// Marks a Shared array whose indices are in range by construction: rill's
/// own algorithms only (an index out of range is then undefined on GPUs and
/// in compiled CPU kernels).
struct Unchecked {};
ir::ExprId group_value(ir::Op op, const char* what);
ir::ExprId subgroup(ir::SubgroupOp op, ir::Op combine, ir::ExprId value, ir::ExprId arg, const char* what);
void emit_barrier();
void emit_subgroup_barrier();
void emit_fence();

/// An index operand: Int, UInt (same bits) or an integer literal.
template <class I>
ir::ExprId index_id(const I& index) {
    if constexpr (Value<I>) {
        static_assert(std::is_same_v<value_t<I>, std::int32_t> || std::is_same_v<value_t<I>, std::uint32_t>,
                      "rill: an Array / Shared index is an Int or a UInt");
        return builder().bitcast(index.id(), Scalar::Int);
    } else {
        static_assert(std::is_integral_v<I>, "rill: an Array / Shared index is an Int or a UInt");
        return builder().constant_i(static_cast<std::int32_t>(index));
    }
}

/// The ids of a value's leaves, for a store: scalars/vectors and RILL_STRUCTs.
template <class T, class V>
void for_each_value_leaf(const V& value, const std::function<void(ir::ExprId, std::uint32_t)>& f) {
    if constexpr (IrValueType<T>) {
        f(operand_as(value, type_v<T>), 0);
    } else {
        Var<T> v(value);
        for_each_leaf(v, [&](auto& leaf, std::uint32_t word) { f(leaf.id(), word); });
    }
}

/// The scalar of T where T is a vector of 2-4 int32, uint32 or float
/// components, whose atomics act per component; Scalar::Bool for any other T.
template <class T>
inline constexpr Scalar vector_scalar_v = [] {
    if constexpr (IrValueType<T>) return type_v<T>.width > 1 ? type_v<T>.scalar : Scalar::Bool;
    else return Scalar::Bool;
}();

/// What Array<T> and Shared<T> share: loads, stores and atomics at an index.
template <class T, Space S>
class Memory {
public:
    using element_type = T;
    template <class E>
    static constexpr bool atomic_ok = std::is_same_v<E, std::int32_t> || std::is_same_v<E, std::uint32_t>;
    /// Vectors of 2-4 int32, uint32 or float components: atomics act per component.
    static constexpr bool int_vector = vector_scalar_v<T> == Scalar::Int || vector_scalar_v<T> == Scalar::Uint;
    static constexpr bool float_vector = vector_scalar_v<T> == Scalar::Float;

    /// The element at `index`; reads of an index out of range give zero.
    template <class I>
    read_t<T> load(const I& index) const {
        const ir::ExprId idx = index_id(index);
        LeafSource src([this, idx](std::uint32_t word, Type t) { return memory_load(S, id_, word, t, idx); });
        if constexpr (IrValueType<T>) return read_t<T>(FromId{src.next(type_v<T>)});
        else return Var<T>(src);
    }
    /// Writes `value` at `index`; an index out of range writes nothing.
    template <class I, class V>
    void store(const I& index, const V& value) const {
        const ir::ExprId idx = index_id(index);
        for_each_value_leaf<dsl_t<T>>(value, [&](ir::ExprId v, std::uint32_t word) { memory_store(S, id_, word, v, idx); });
    }

    // Atomic read-modify-writes on int32/uint32 elements (float: atomic_add);
    // each returns the element's old value. Out of range: no effect, returns 0.
    // On vector elements (int2 .. uint4; float2 .. float4: atomic_add) they
    // act on each component by itself, one atomic per component, and return
    // the components' old values: the vector is not updated as a whole, so
    // another invocation may see one component updated and the next not yet,
    // and two updates of one element may reach its components in different
    // orders (sums and minima come out the same; old values need not agree).
    template <class I, class V> Expr<T> atomic_add(const I& i, const V& v) const {
        static_assert(atomic_ok<T> || std::is_same_v<T, float> || int_vector || float_vector,
                      "rill: atomic_add works on int32, uint32 and float elements and their vectors");
        return rmw(ir::AtomicOp::Add, i, v);
    }
    template <class I, class V> Expr<T> atomic_min(const I& i, const V& v) const { return int_rmw(ir::AtomicOp::Min, i, v); }
    template <class I, class V> Expr<T> atomic_max(const I& i, const V& v) const { return int_rmw(ir::AtomicOp::Max, i, v); }
    template <class I, class V> Expr<T> atomic_and(const I& i, const V& v) const { return int_rmw(ir::AtomicOp::And, i, v); }
    template <class I, class V> Expr<T> atomic_or(const I& i, const V& v) const { return int_rmw(ir::AtomicOp::Or, i, v); }
    template <class I, class V> Expr<T> atomic_xor(const I& i, const V& v) const { return int_rmw(ir::AtomicOp::Xor, i, v); }
    template <class I, class V> Expr<T> atomic_exchange(const I& i, const V& v) const {
        static_assert(atomic_ok<T>, "rill: atomic_exchange works on int32 and uint32 elements (not vectors: their "
                                    "components would come from different writers)");
        return int_rmw(ir::AtomicOp::Exchange, i, v);
    }
    /// Stores `value` if the element equals `compare`; returns the old element.
    template <class I, class C, class V>
    Expr<T> atomic_compare_exchange(const I& i, const C& compare, const V& value) const {
        static_assert(atomic_ok<T>, "rill: atomic_compare_exchange works on int32 and uint32 elements");
        return Expr<T>(FromId{memory_atomic(S, id_, ir::AtomicOp::CompareExchange, type_v<T>, index_id(i),
                                            operand_as(value, type_v<T>), operand_as(compare, type_v<T>))});
    }
    /// An atomic read (sees the latest atomic write; see docs/SEMANTICS.md).
    template <class I>
    Expr<T> atomic_load(const I& i) const {
        static_assert(atomic_ok<T>, "rill: atomic_load works on int32 and uint32 elements");
        return Expr<T>(FromId{memory_atomic(S, id_, ir::AtomicOp::Load, type_v<T>, index_id(i), ir::kNone, ir::kNone)});
    }
    template <class I, class V>
    void atomic_store(const I& i, const V& v) const {
        (void)atomic_exchange(i, v);
    }

    // The same on the element's 32 bits, whatever its one-word type: a
    // compare-exchange loop over them gives any combiner (floats included).
    template <class I>
    Expr<std::uint32_t> atomic_load_bits(const I& i) const {
        static_assert(element_words<T> == 1, "rill: atomic_load_bits needs a one-word element");
        return Expr<std::uint32_t>(FromId{memory_atomic(S, id_, ir::AtomicOp::Load, type_v<std::uint32_t>, index_id(i),
                                                        ir::kNone, ir::kNone)});
    }
    template <class I, class C, class V>
    Expr<std::uint32_t> atomic_compare_exchange_bits(const I& i, const C& compare, const V& value) const {
        static_assert(element_words<T> == 1, "rill: atomic_compare_exchange_bits needs a one-word element");
        return Expr<std::uint32_t>(FromId{memory_atomic(S, id_, ir::AtomicOp::CompareExchange, type_v<std::uint32_t>,
                                                        index_id(i), operand_as(value, type_v<std::uint32_t>),
                                                        operand_as(compare, type_v<std::uint32_t>))});
    }

protected:
    explicit Memory(std::uint16_t id) : id_(id) {}
    std::uint16_t id_;

private:
    template <class I, class V>
    Expr<T> rmw(ir::AtomicOp op, const I& i, const V& v) const {
        if constexpr (Value<V>)
            static_assert(type_v<value_t<V>>.scalar == type_v<T>.scalar,
                          "rill: an atomic's value has the element's scalar type; convert it with rill::cast<T>");
        if constexpr (int_vector || float_vector)
            return Expr<T>(FromId{memory_atomic_components(S, id_, op, type_v<T>, index_id(i), operand_as(v, type_v<T>))});
        else return Expr<T>(FromId{memory_atomic(S, id_, op, type_v<T>, index_id(i), operand_as(v, type_v<T>), ir::kNone)});
    }
    template <class I, class V>
    Expr<T> int_rmw(ir::AtomicOp op, const I& i, const V& v) const {
        static_assert(atomic_ok<T> || int_vector,
                      "rill: this atomic works on int32 and uint32 elements and their vectors (floats: atomic_add only)");
        return rmw(op, i, v);
    }
};

}  // namespace dsl

/// A kernel parameter bound to a whole stream for random access: load, store
/// and atomics at any index (the stream is used flat, in row-major order).
template <StreamElement T>
class Array : public dsl::Memory<T, dsl::Space::Global> {
public:
    explicit Array(dsl::ParamSetup p) : dsl::Memory<T, dsl::Space::Global>(p.index) {}
    /// Number of elements of the bound stream.
    Expr<std::int32_t> size() const { return Expr<std::int32_t>(dsl::FromId{dsl::array_size(this->id_)}); }
    std::uint16_t param_index() const { return this->id_; }

    /// Elements N k .. N k + N - 1 as one N-vector (N = 2 or 4; T int32,
    /// uint32 or float), read on GPUs in one 8- or 16-byte access instead of
    /// N: what memory-bound kernels need to reach the bandwidth roof.
    /// Components past the end read zero (in a kernel with
    /// GroupOptions::unchecked_arrays every element of the vector must lie in
    /// the stream, as every index must there). The stream bound here must start at
    /// a multiple of N elements of its buffer (whole streams start at 0; a
    /// domain view may not): a call that binds one that does not throws.
    template <int N, class I>
    Expr<vec<T, N>> load_vector(const I& k) const {
        check_vector<N>();
        return Expr<vec<T, N>>(dsl::FromId{dsl::memory_load_vector(this->id_, Type{dsl::type_v<T>.scalar, N}, dsl::index_id(k))});
    }
    /// Writes `value`, an N-vector, to elements N k .. N k + N - 1 (those past
    /// the end are not written); one access on GPUs, as load_vector.
    template <int N, class I, class V>
    void store_vector(const I& k, const V& value) const {
        check_vector<N>();
        dsl::memory_store_vector(this->id_, dsl::operand_as(value, Type{dsl::type_v<T>.scalar, N}), dsl::index_id(k));
    }

private:
    template <int N>
    static constexpr void check_vector() {
        static_assert(N == 2 || N == 4, "rill: load_vector / store_vector move 2 or 4 elements");
        static_assert(std::is_same_v<T, float> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t>,
                      "rill: load_vector / store_vector need int32, uint32 or float elements");
    }
};

/// Workgroup-shared memory of `count` elements, declared in a group kernel's
/// body; its contents are undefined until written. Every invocation of the
/// workgroup sees the same array.
template <StreamElement T>
class Shared : public dsl::Memory<T, dsl::Space::Shared> {
public:
    explicit Shared(std::int64_t count)
        : dsl::Memory<T, dsl::Space::Shared>(dsl::add_shared(element_name<T>::get(), element_words<T>, count)) {}
    Shared(std::int64_t count, dsl::Unchecked)
        : dsl::Memory<T, dsl::Space::Shared>(dsl::add_shared(element_name<T>::get(), element_words<T>, count, true)) {}
};

/// A per-invocation array of `count` elements, declared in a group kernel's
/// body: every invocation reads and writes its own `count` elements (a ray
/// traversal's stack, a short sorted list), which are undefined until written.
/// Indices outside 0 .. count-1 read zero and write nothing; no barrier is
/// needed, as no other invocation sees the elements. GPU code keeps them in
/// each invocation's private memory (registers or the driver's per-invocation
/// memory), so that they leave shared memory, which bounds the workgroups a
/// multiprocessor holds, to Shared arrays; the CPU backend keeps them in
/// workgroup memory, element i of invocation l at i * workgroup_size + l. On
/// every backend count * workgroup_size elements count against the device's
/// shared memory limit (checked at launch), so that a kernel that launches on
/// one backend launches on all.
template <StreamElement T>
class Local {
public:
    explicit Local(std::int64_t count)
        : count_(count), memory_(dsl::add_local(element_name<T>::get(), element_words<T>, count)) {}
    template <class I>
    dsl::read_t<T> load(const I& index) const {
        return memory_.load(Expr<std::int32_t>(dsl::FromId{dsl::local_slot(count_, dsl::index_id(index))}));
    }
    template <class I, class V>
    void store(const I& index, const V& value) const {
        memory_.store(Expr<std::int32_t>(dsl::FromId{dsl::local_slot(count_, dsl::index_id(index))}), value);
    }
    std::int64_t size() const { return count_; }

private:
    struct Memory : dsl::Memory<T, dsl::Space::Shared> {
        explicit Memory(std::uint16_t id) : dsl::Memory<T, dsl::Space::Shared>(id) {}
    };
    std::int64_t count_;
    Memory memory_;
};

// --- ids --------------------------------------------------------------------------

/// This invocation's index in its workgroup, 0 .. workgroup_size()-1.
inline Expr<std::int32_t> local_id() { return Expr<std::int32_t>(dsl::FromId{dsl::group_value(ir::Op::LocalId, "local_id")}); }
/// This workgroup's index, 0 .. num_groups()-1.
inline Expr<std::int32_t> group_id() { return Expr<std::int32_t>(dsl::FromId{dsl::group_value(ir::Op::GroupId, "group_id")}); }
inline Expr<std::int32_t> num_groups() {
    return Expr<std::int32_t>(dsl::FromId{dsl::group_value(ir::Op::NumGroups, "num_groups")});
}
/// The workgroup size the kernel was traced with (a constant).
Expr<std::int32_t> workgroup_size();
/// group_id() * workgroup_size() + local_id().
Expr<std::int32_t> global_id();

/// Waits until every invocation of the workgroup got here; shared and global
/// memory written before it is visible to the whole workgroup after it. Every
/// invocation of a workgroup must reach the same barrier() (not inside
/// control flow that differs between them).
inline void barrier() { dsl::emit_barrier(); }

/// Waits until every invocation of this subgroup got here; shared memory
/// written before it by the subgroup's invocations is visible to all of them
/// after it (not other subgroups', not Array memory). Cheaper than barrier()
/// where only a subgroup shares the data (e.g. match masks built with shared
/// atomics). Placed like barrier(): every invocation of the workgroup reaches
/// it (backends without subgroup barriers may run it as one; NVIDIA's Vulkan
/// driver on the H200 compiles it as a workgroup barrier, docs/PERFORMANCE.md#radix-sort).
inline void subgroup_barrier() { dsl::emit_subgroup_barrier(); }

/// A device-scope acquire-release fence on Array memory, for handing data
/// from one workgroup to another through a flag (docs/SEMANTICS.md):
///   producer: data.store(i, x); memory_fence(); flags.atomic_store(t, 1u);
///   consumer: If(flags.atomic_load(t) == 1u, [&] { memory_fence(); y = data.load(i); });
/// The consumer that sees the flag then sees the data. Unlike barrier(), it
/// waits for no one and may sit in divergent code.
inline void memory_fence() { dsl::emit_fence(); }

// --- subgroups --------------------------------------------------------------------

/// Invocations per subgroup on this backend (docs/SEMANTICS.md lists them).
inline Expr<std::int32_t> subgroup_size() {
    return Expr<std::int32_t>(dsl::FromId{dsl::group_value(ir::Op::SubgroupSize, "subgroup_size")});
}
/// This invocation's index in its subgroup.
inline Expr<std::int32_t> subgroup_invocation() {
    return Expr<std::int32_t>(dsl::FromId{dsl::group_value(ir::Op::SubgroupInvocation, "subgroup_invocation")});
}

namespace dsl {
template <class X>
auto subgroup_value(ir::SubgroupOp op, ir::Op combine, const X& x, ir::ExprId arg, const char* what) {
    static_assert(Value<X>, "rill: subgroup operations take a traced value (Float, Int, UInt, Bool or a vector)");
    using T = value_t<X>;
    return Expr<T>(FromId{subgroup(op, combine, x.id(), arg, what)});
}
template <class X>
ir::ExprId lane_arg(const X& x) {
    return index_id(x);
}
}  // namespace dsl

/// True in exactly one active invocation of the subgroup.
Expr<bool> subgroup_elect();
template <class B> Expr<bool> subgroup_all(const B& b) { return dsl::subgroup_value(ir::SubgroupOp::All, ir::Op::LogicalAnd, b, ir::kNone, "subgroup_all"); }
template <class B> Expr<bool> subgroup_any(const B& b) { return dsl::subgroup_value(ir::SubgroupOp::Any, ir::Op::LogicalOr, b, ir::kNone, "subgroup_any"); }
/// Bit i of the result is set when invocation i is active and `b` holds there.
Expr<uint4> subgroup_ballot(const Expr<bool>& b);
/// Number of set bits of a ballot.
Expr<std::int32_t> ballot_bit_count(const Expr<uint4>& ballot);
/// The ballot of the active invocations whose `x` equals this invocation's
/// (CUDA's __match_any_sync): one instruction where the device has
/// NV_shader_subgroup_partitioned (DeviceLimits::subgroup_ops & kSubgroupMatch),
/// a loop of one shuffle per lane elsewhere. One instruction is not cheap when
/// most lanes differ: on the H100 it ranked random 8-bit digits 1.45x slower
/// than 8 ballots (docs/PERFORMANCE.md#radix-sort).
Expr<uint4> subgroup_match(const Expr<std::uint32_t>& x);

/// The value of invocation `id` (the same id in every invocation).
template <class X, class I> auto subgroup_broadcast(const X& x, const I& id) {
    return dsl::subgroup_value(ir::SubgroupOp::Broadcast, ir::Op::Add, x, dsl::lane_arg(id), "subgroup_broadcast");
}
/// The value of the lowest active invocation.
template <class X> auto subgroup_broadcast_first(const X& x) {
    return dsl::subgroup_value(ir::SubgroupOp::BroadcastFirst, ir::Op::Add, x, ir::kNone, "subgroup_broadcast_first");
}
/// The value of invocation `id` (any active invocation, per invocation).
template <class X, class I> auto subgroup_shuffle(const X& x, const I& id) {
    return dsl::subgroup_value(ir::SubgroupOp::Shuffle, ir::Op::Add, x, dsl::lane_arg(id), "subgroup_shuffle");
}
template <class X, class I> auto subgroup_shuffle_xor(const X& x, const I& mask) {
    return dsl::subgroup_value(ir::SubgroupOp::ShuffleXor, ir::Op::Add, x, dsl::lane_arg(mask), "subgroup_shuffle_xor");
}
/// The value of invocation (self - delta); undefined where that is below 0.
template <class X, class I> auto subgroup_shuffle_up(const X& x, const I& delta) {
    return dsl::subgroup_value(ir::SubgroupOp::ShuffleUp, ir::Op::Add, x, dsl::lane_arg(delta), "subgroup_shuffle_up");
}
/// The value of invocation (self + delta); undefined past the subgroup's end.
template <class X, class I> auto subgroup_shuffle_down(const X& x, const I& delta) {
    return dsl::subgroup_value(ir::SubgroupOp::ShuffleDown, ir::Op::Add, x, dsl::lane_arg(delta), "subgroup_shuffle_down");
}

// Reductions and scans over the active invocations, in invocation order.
#define RILL_SUBGROUP_ARITH(reduce, inclusive, exclusive, op)                                      \
    template <class X> auto reduce(const X& x) {                                                     \
        return dsl::subgroup_value(ir::SubgroupOp::Reduce, op, x, ir::kNone, #reduce);               \
    }                                                                                                \
    template <class X> auto inclusive(const X& x) {                                                  \
        return dsl::subgroup_value(ir::SubgroupOp::InclusiveScan, op, x, ir::kNone, #inclusive);     \
    }                                                                                                \
    template <class X> auto exclusive(const X& x) {                                                  \
        return dsl::subgroup_value(ir::SubgroupOp::ExclusiveScan, op, x, ir::kNone, #exclusive);     \
    }
RILL_SUBGROUP_ARITH(subgroup_add, subgroup_inclusive_add, subgroup_exclusive_add, ir::Op::Add)
RILL_SUBGROUP_ARITH(subgroup_mul, subgroup_inclusive_mul, subgroup_exclusive_mul, ir::Op::Mul)
RILL_SUBGROUP_ARITH(subgroup_min, subgroup_inclusive_min, subgroup_exclusive_min, ir::Op::Min)
RILL_SUBGROUP_ARITH(subgroup_max, subgroup_inclusive_max, subgroup_exclusive_max, ir::Op::Max)
RILL_SUBGROUP_ARITH(subgroup_and, subgroup_inclusive_and, subgroup_exclusive_and, ir::Op::BitAnd)
RILL_SUBGROUP_ARITH(subgroup_or, subgroup_inclusive_or, subgroup_exclusive_or, ir::Op::BitOr)
RILL_SUBGROUP_ARITH(subgroup_xor, subgroup_inclusive_xor, subgroup_exclusive_xor, ir::Op::BitXor)
#undef RILL_SUBGROUP_ARITH

}  // namespace rill
