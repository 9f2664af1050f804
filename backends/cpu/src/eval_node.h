// Evaluation of one IR node over all lanes of a block.
#pragma once

#include <cstdint>
#include <vector>

#include "rill/core/ir.h"

namespace rill::cpu {

/// What node evaluation needs from the block being run.
class NodeContext {
public:
    virtual ~NodeContext() = default;
    /// The node's column block: width components of lanes() words each.
    virtual std::uint32_t* column(ir::ExprId id) = 0;
    virtual const std::vector<std::uint32_t>& uniforms() const = 0;
    virtual int lanes() const = 0;
    virtual void load_input(ir::ExprId id) = 0;
    virtual void load_gather(ir::ExprId id) = 0;
    virtual void index_of(ir::ExprId id) = 0;
    /// LocalId, GroupId, NumGroups, ArraySize, SubgroupSize, SubgroupInvocation.
    virtual void group_value(ir::ExprId id) = 0;
};

void eval_node(NodeContext& ctx, const ir::Kernel& k, ir::ExprId id, int lanes);

/// The loop of an element-wise node with its (op, type) dispatch already done:
/// out[i] = op(a[i], b[i]) for i < count (b unused by unary ops).
/// Bit i of `uniform` says operand i is a broadcast column (one value in every
/// lane): the loop then reads only its first 64 lanes, which stay in L1,
/// instead of a whole column that competes with the streams for the cache
/// (a SAXPY through a 2048-lane column of `a` ran at 0.75 of the same loop
/// with `a` in a register). With a uniform operand, count must not run past
/// one component: call the loop once per component.
using LaneLoop = void (*)(std::uint32_t* out, const std::uint32_t* a, const std::uint32_t* b, int count,
                          unsigned uniform);

/// The loop of node `id`, or null when it is not a plain element-wise node.
/// `streaming`: the loop writes `out` with non-temporal stores (out must be
/// 16-byte aligned); for outputs too large to stay in the caches anyway.
LaneLoop elementwise_loop(const ir::Kernel& k, ir::ExprId id, bool streaming = false);

/// Two element-wise nodes in one pass: out[i] = outer(inner(a[i], b[i]), c[i]),
/// or outer(c[i], inner(a[i], b[i])) when the inner node is the outer's second
/// operand. An interpreter that runs one pass per node touches each stream in
/// its own pass; multiply-add chains (SAXPY, lerp, affine maps, Horner steps)
/// are common enough to get their own loop, which keeps every stream they read
/// in flight at once, as compiled code would.
using FusedLoop = void (*)(std::uint32_t* out, const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,
                           int count, unsigned uniform);

/// The fused loop of outer node `id` over its operand `inner_arg` (0 or 1),
/// or null when the pair is not one of the fused shapes (Add, Sub, Mul of
/// float, int or uint, inner and outer of the same type).
FusedLoop fused_loop(const ir::Kernel& k, ir::ExprId id, int inner_arg, bool streaming = false);

/// Orders non-temporal stores before what this thread does next (call at the
/// end of a task that may have used streaming loops).
void fence_streaming_stores();

}  // namespace rill::cpu
