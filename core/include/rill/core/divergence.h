// Which values of a group kernel may differ between the invocations of one
// workgroup. The barrier check refuses barriers that only some invocations
// reach; the CPU backend runs what cannot differ once per workgroup.
#pragma once

#include <vector>

#include "rill/core/ir.h"

namespace rill::ir {

/// A value is *divergent* when it may differ between the invocations of one
/// workgroup: local_id(), subgroup_invocation(), atomic results, subgroup
/// operations (they agree within a subgroup only), memory loads at divergent
/// indices, and variables assigned a divergent value or assigned under a
/// divergent condition (an If whose condition is divergent, or a loop that
/// invocations can leave or continue at different times).
class Divergence {
public:
    explicit Divergence(const Kernel& k);

    bool value(ExprId id);
    bool variable(VarId v) const { return var_divergent_[v] != 0; }
    /// Does a Break, Continue or Return of this loop sit under a divergent If?
    bool loop_exits(const Stmt& loop) { return jumps_under_divergence(loop.a, false, true) || jumps_under_divergence(loop.b, false, true); }

private:
    void assignments(BlockId b, bool under_divergence, bool& changed);
    /// Whether block b has a Return (and, with `loop_jumps`, a Break or
    /// Continue) under a divergent condition. A nested loop's own Break /
    /// Continue leave only that loop; its Returns count.
    bool jumps_under_divergence(BlockId b, bool under, bool loop_jumps);

    const Kernel& k_;
    std::vector<char> var_divergent_;
    std::vector<int> node_divergent_;  // -1: not computed yet
};

}  // namespace rill::ir
