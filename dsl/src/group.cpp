// The non-template half of group kernels: every group operation checks here,
// at trace time, that the kernel being traced can use it.
#include "rill/dsl/group.h"

namespace rill {

namespace dsl {

namespace {

ir::Kernel& kernel() { return trace().kernel; }

void require_group_kernel(const char* what) {
    if (!kernel().is_group_kernel())
        throw Error("kernel '" + kernel().name + "': rill::" + what +
                    " exists only in group kernels; trace this kernel with rill::group_kernel<N>(...) "
                    "and launch it with rill::Groups{count}");
}

std::uint32_t check_word(Space space, std::uint16_t id, std::uint32_t word, Type t) {
    const std::uint32_t words = space == Space::Global ? kernel().params[id].words : kernel().shared[id].words;
    RILL_ASSERT(word + t.width <= words, "memory access past the element");
    return word;
}

}  // namespace

ir::ExprId memory_load(Space space, std::uint16_t id, std::uint32_t word, Type t, ir::ExprId index) {
    ir::Node n{};
    n.op = space == Space::Global ? ir::Op::ArrayLoad : ir::Op::SharedLoad;
    n.type = t;
    n.aux = id;
    n.imm[0] = check_word(space, id, word, t);
    n.nargs = 1;
    n.args[0] = index;
    return builder().in_place(n);
}

void memory_store(Space space, std::uint16_t id, std::uint32_t word, ir::ExprId value, ir::ExprId index) {
    check_word(space, id, word, builder().kernel().node(value).type);
    builder().append(ir::Stmt{space == Space::Global ? ir::StmtKind::ArrayStore : ir::StmtKind::SharedStore, id, value,
                              index, word});
}

namespace {
/// Marks Array param `id` as read or written `width` elements at a time.
void note_vector_access(std::uint16_t id, int width) {
    ir::Param& p = kernel().params[id];
    RILL_ASSERT(p.kind == ir::ParamKind::Array && p.words == 1, "vector access to a parameter that is not an Array of one-word elements");
    p.vector_width = static_cast<std::uint8_t>(std::max<int>(p.vector_width, width));
}
}  // namespace

ir::ExprId memory_load_vector(std::uint16_t id, Type t, ir::ExprId k) {
    note_vector_access(id, t.width);
    ir::Node n{};
    n.op = ir::Op::ArrayLoadVector;
    n.type = t;
    n.aux = id;
    n.nargs = 1;
    n.args[0] = k;
    return builder().in_place(n);
}

void memory_store_vector(std::uint16_t id, ir::ExprId value, ir::ExprId k) {
    note_vector_access(id, builder().kernel().node(value).type.width);
    builder().append(ir::Stmt{ir::StmtKind::ArrayStoreVector, id, value, k});
}

ir::ExprId memory_atomic(Space space, std::uint16_t id, ir::AtomicOp op, Type t, ir::ExprId index, ir::ExprId value,
                         ir::ExprId compare, std::uint32_t word) {
    ir::Node n{};
    n.op = ir::Op::Atomic;
    n.type = t;
    n.aux = id;
    n.imm[0] = check_word(space, id, word, t);
    n.imm[1] = static_cast<std::uint32_t>(op);
    n.imm[2] = space == Space::Shared ? 1u : 0u;
    n.args[0] = index;
    n.nargs = 1;
    if (value != ir::kNone) n.args[n.nargs++] = value;
    if (compare != ir::kNone) n.args[n.nargs++] = compare;
    return builder().in_place(n);
}

ir::ExprId memory_atomic_components(Space space, std::uint16_t id, ir::AtomicOp op, Type t, ir::ExprId index,
                                    ir::ExprId value) {
    ir::ExprId old[4];
    for (int c = 0; c < t.width; ++c)
        old[c] = memory_atomic(space, id, op, t.element(), index, builder().swizzle(value, &c, 1), ir::kNone,
                               static_cast<std::uint32_t>(c));
    return builder().construct(t, old, t.width);
}

void set_group_options(const GroupOptions& options) {
    ir::Kernel& k = kernel();
    k.spirv_opt = options.spirv_opt;
    k.unchecked_arrays = options.unchecked_arrays;
    k.shared_only_barriers = options.shared_only_barriers;
    k.parameters_at_start = options.parameters_at_start;
    k.quick_build = options.quick_build;
    const std::uint32_t s = options.subgroup_size;
    if (s == 0) return;
    if (s > 128 || (s & (s - 1)) != 0 || k.workgroup_size % s != 0)
        throw Error("kernel '" + k.name + "': GroupOptions::subgroup_size = " + std::to_string(s) +
                    "; give a power of two up to 128 that divides the workgroup size (" +
                    std::to_string(k.workgroup_size) + ")");
    k.subgroup_size = s;
}

ir::ExprId array_size(std::uint16_t param) { return builder().group_leaf(ir::Op::ArraySize, param); }

std::uint16_t add_shared(const std::string& type_name, std::uint32_t words, std::int64_t count, bool unchecked) {
    require_group_kernel("Shared<T>");
    ir::Kernel& k = kernel();
    if (count < 1 || count > (std::int64_t{1} << 24))
        throw Error("kernel '" + k.name + "': rill::Shared<" + type_name + "> of " + std::to_string(count) +
                    " elements; give it 1 to 2^24 elements (the device limit on shared memory applies at launch)");
    k.shared.push_back(ir::SharedArray{type_name, words, static_cast<std::uint32_t>(count), unchecked});
    return static_cast<std::uint16_t>(k.shared.size() - 1);
}

std::uint16_t add_local(const std::string& type_name, std::uint32_t words, std::int64_t count) {
    require_group_kernel("Local<T>");
    ir::Kernel& k = kernel();
    const std::int64_t wg = k.workgroup_size;
    if (count < 1 || count * wg > (std::int64_t{1} << 24))
        throw Error("kernel '" + k.name + "': rill::Local<" + type_name + "> of " + std::to_string(count) +
                    " elements per invocation; give it 1 to 2^24 / " + std::to_string(wg) +
                    " elements (it lives in shared memory, whose device limit applies at launch)");
    const std::uint16_t id = add_shared(type_name, words, count * wg);
    k.shared[id].per_invocation = static_cast<std::uint32_t>(count);
    return id;
}

ir::ExprId local_slot(std::int64_t count, ir::ExprId index) {
    ir::Builder& b = builder();
    const ir::ExprId wg = b.constant_i(static_cast<std::int32_t>(kernel().workgroup_size));
    const ir::ExprId slot = b.binary(ir::Op::Add, b.binary(ir::Op::Mul, index, wg), b.group_leaf(ir::Op::LocalId));
    // One unsigned comparison tests both ends.
    const ir::ExprId inside = b.binary(ir::Op::Lt, b.bitcast(index, Scalar::Uint),
                                       b.constant_u(static_cast<std::uint32_t>(count)));
    return b.select(inside, slot, b.constant_i(-1));
}

ir::ExprId group_value(ir::Op op, const char* what) {
    require_group_kernel((std::string(what) + "()").c_str());
    return builder().group_leaf(op);
}

void emit_barrier() {
    require_group_kernel("barrier()");
    builder().append(ir::Stmt{ir::StmtKind::Barrier});
}

void emit_subgroup_barrier() {
    require_group_kernel("subgroup_barrier()");
    builder().append(ir::Stmt{ir::StmtKind::Barrier, ir::kSubgroupScope});
}

void emit_fence() {
    require_group_kernel("memory_fence()");
    builder().append(ir::Stmt{ir::StmtKind::Fence});
}

ir::ExprId subgroup(ir::SubgroupOp op, ir::Op combine, ir::ExprId value, ir::ExprId arg, const char* what) {
    require_group_kernel((std::string(what) + "()").c_str());
    const Type t = builder().kernel().node(value).type;
    auto fail = [&](const std::string& why) {
        throw Error("kernel '" + kernel().name + "': rill::" + what + " " + why);
    };
    ir::Node n{};
    n.op = ir::Op::Subgroup;
    n.type = t;
    n.imm[0] = static_cast<std::uint32_t>(op);
    n.imm[1] = static_cast<std::uint32_t>(combine);
    n.nargs = 1;
    n.args[0] = value;
    if (arg != ir::kNone) n.args[n.nargs++] = arg;
    switch (op) {
        case ir::SubgroupOp::All: case ir::SubgroupOp::Any: case ir::SubgroupOp::Ballot:
            if (t != Type{Scalar::Bool, 1}) fail("takes a Bool");
            if (op == ir::SubgroupOp::Ballot) n.type = Type{Scalar::Uint, 4};
            break;
        case ir::SubgroupOp::Match:
            if (t != Type{Scalar::Uint, 1}) fail("takes a UInt");
            n.type = Type{Scalar::Uint, 4};
            break;
        case ir::SubgroupOp::Reduce: case ir::SubgroupOp::InclusiveScan: case ir::SubgroupOp::ExclusiveScan: {
            const bool bitwise = combine == ir::Op::BitAnd || combine == ir::Op::BitOr || combine == ir::Op::BitXor;
            if (bitwise && t.scalar != Scalar::Int && t.scalar != Scalar::Uint)
                fail("works on Int and UInt values (and vectors of them), not " + to_string(t));
            if (!bitwise && t.scalar == Scalar::Bool) fail("works on numbers, not " + to_string(t));
            break;
        }
        default:
            break;
    }
    return builder().in_place(n);
}

}  // namespace dsl

Expr<std::int32_t> workgroup_size() {
    dsl::require_group_kernel("workgroup_size()");
    return Expr<std::int32_t>(dsl::FromId{dsl::builder().constant_i(static_cast<std::int32_t>(dsl::kernel().workgroup_size))});
}

Expr<std::int32_t> global_id() {
    return Expr<std::int32_t>(dsl::FromId{dsl::builder().binary(
        ir::Op::Add, dsl::builder().binary(ir::Op::Mul, group_id().id(), workgroup_size().id()), local_id().id())});
}

Expr<bool> subgroup_elect() {
    // Elect carries a dummy operand: every Subgroup node has a value.
    return Expr<bool>(dsl::FromId{dsl::subgroup(ir::SubgroupOp::Elect, ir::Op::Add, dsl::builder().constant_b(true),
                                                ir::kNone, "subgroup_elect")});
}

Expr<uint4> subgroup_ballot(const Expr<bool>& b) {
    return Expr<uint4>(dsl::FromId{dsl::subgroup(ir::SubgroupOp::Ballot, ir::Op::Add, b.id(), ir::kNone, "subgroup_ballot")});
}

Expr<uint4> subgroup_match(const Expr<std::uint32_t>& x) {
    return Expr<uint4>(dsl::FromId{dsl::subgroup(ir::SubgroupOp::Match, ir::Op::Add, x.id(), ir::kNone, "subgroup_match")});
}

Expr<std::int32_t> ballot_bit_count(const Expr<uint4>& ballot) {
    ir::Builder& b = dsl::builder();
    const ir::ExprId counts = b.unary(ir::Op::BitCount, ballot.id());
    ir::ExprId sum = ir::kNone;
    for (int c = 0; c < 4; ++c) {
        const ir::ExprId part = b.swizzle(counts, &c, 1);
        sum = sum == ir::kNone ? part : b.binary(ir::Op::Add, sum, part);
    }
    return Expr<std::int32_t>(dsl::FromId{sum});
}

}  // namespace rill
