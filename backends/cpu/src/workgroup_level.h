// What of a group kernel the generated C++ runs once per workgroup instead of
// once per lane. Conditions and loops around barriers are usually the same for
// every invocation (a loop over the steps of a workgroup scan, an If on the
// subgroup size); run per lane they cost a pass over all lanes with masks at
// each step. Here they become plain C++ control flow, their variables scalars.
#pragma once

#include <vector>

#include "rill/core/divergence.h"
#include "rill/core/ir.h"

namespace rill::cpu {

/// Statements at *workgroup level* run once per workgroup: they sit in blocks
/// that every live invocation reaches together (the body, and the blocks of
/// workgroup-level Ifs and Loops), and are
///   - Assigns to scalar variables, and the Defs that read them;
///   - Ifs whose condition is workgroup-computable and that hold a barrier, a
///     subgroup operation, a jump or an Assign to a scalar variable;
///   - Loops holding a barrier or a subgroup operation that every invocation
///     leaves together, through workgroup-level Breaks only;
///   - Break, Continue and Return.
/// A scalar variable is not divergent (divergence.h) and is assigned only at
/// workgroup level, workgroup-computable values: constants, uniforms, group
/// ids, sizes, workgroup-level reads of scalar variables, and what is computed
/// from those alone.
class WorkgroupLevel {
public:
    /// `collective` marks the statements that hold a barrier or a subgroup operation.
    WorkgroupLevel(const ir::Kernel& k, const std::vector<char>& collective);

    bool statement(ir::StmtId s) const { return stmt_[s] != 0; }
    bool scalar(ir::VarId v) const { return scalar_[v] != 0; }
    /// Whether a value is the same for the whole dispatch: computed from
    /// constants, uniforms, ids and sizes alone (no variables).
    bool invariant(ir::ExprId id);
    /// No Return leaves some lanes of a workgroup while others go on, so a
    /// workgroup-level block runs with every lane live.
    bool all_lanes_live() const { return all_lanes_live_; }

private:
    /// Workgroup-computable (see the class comment).
    bool computable(ir::ExprId id);
    bool from_workgroup_values(ir::ExprId id, std::vector<int>& memo, bool scalar_reads);
    void classify(ir::BlockId b, bool level);
    bool level_if(ir::StmtId s);
    bool level_loop(ir::StmtId s);
    /// Does block b hold (also under Ifs, not in loops) a jump or an Assign
    /// to a scalar variable?
    bool needs_level(ir::BlockId b) const;
    /// Are all the Breaks and Continues that leave a loop through block b at workgroup level?
    bool jumps_at_level(ir::BlockId b) const;

    const ir::Kernel& k_;
    const std::vector<char>& collective_;
    ir::Divergence divergence_;
    std::vector<char> stmt_, scalar_;
    std::vector<ir::StmtId> def_of_;  // per in-place node: its Def statement
    std::vector<int> computable_, invariant_;  // -1: not known yet
    std::vector<char> rejected_;      // per Loop: not at workgroup level after all
    bool restart_ = false;
    bool all_lanes_live_ = true;
};

}  // namespace rill::cpu
