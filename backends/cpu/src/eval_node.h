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
using LaneLoop = void (*)(std::uint32_t* out, const std::uint32_t* a, const std::uint32_t* b, int count);

/// The loop of node `id`, or null when it is not a plain element-wise node.
LaneLoop elementwise_loop(const ir::Kernel& k, ir::ExprId id);

}  // namespace rill::cpu
