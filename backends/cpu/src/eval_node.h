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

}  // namespace rill::cpu
