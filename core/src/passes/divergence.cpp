#include "rill/core/divergence.h"

namespace rill::ir {

Divergence::Divergence(const Kernel& k) : k_(k), var_divergent_(k.vars.size(), 0) {
    // Variables: iterate until no new divergent variable appears.
    for (bool changed = true; changed;) {
        changed = false;
        node_divergent_.assign(k_.nodes.size(), -1);
        assignments(k_.body, false, changed);
    }
    node_divergent_.assign(k_.nodes.size(), -1);
}

bool Divergence::value(ExprId id) {
    int& memo = node_divergent_[id];
    if (memo >= 0) return memo != 0;
    const Node& n = k_.node(id);
    bool d = false;
    switch (n.op) {
        case Op::LocalId: case Op::SubgroupInvocation: case Op::Atomic: case Op::Subgroup:
            d = true;
            break;
        case Op::ReadVar:
            d = var_divergent_[n.aux] != 0;
            break;
        default:
            for (int i = 0; i < n.nargs; ++i) d = d || value(n.args[i]);
            break;
    }
    node_divergent_[id] = d ? 1 : 0;
    return d;
}

void Divergence::assignments(BlockId b, bool under_divergence, bool& changed) {
    for (StmtId s : k_.block(b)) {
        const Stmt& st = k_.stmt(s);
        if (st.kind == StmtKind::Assign && !var_divergent_[st.a] && (under_divergence || value(st.b))) {
            var_divergent_[st.a] = 1;
            changed = true;
        } else if (st.kind == StmtKind::If) {
            const bool d = under_divergence || value(st.a);
            assignments(st.b, d, changed);
            assignments(st.c, d, changed);
        } else if (st.kind == StmtKind::Loop) {
            const bool d = under_divergence || loop_exits(st);
            assignments(st.a, d, changed);
            assignments(st.b, d, changed);
        }
    }
}

bool Divergence::jumps_under_divergence(BlockId b, bool under, bool loop_jumps) {
    if (b == kNone) return false;
    for (StmtId s : k_.block(b)) {
        const Stmt& st = k_.stmt(s);
        const bool jump = st.kind == StmtKind::Return ||
                          (loop_jumps && (st.kind == StmtKind::Break || st.kind == StmtKind::Continue));
        if (jump && under) return true;
        if (st.kind == StmtKind::If) {
            const bool d = under || value(st.a);
            if (jumps_under_divergence(st.b, d, loop_jumps) || jumps_under_divergence(st.c, d, loop_jumps)) return true;
        }
        if (st.kind == StmtKind::Loop &&
            (jumps_under_divergence(st.a, under, false) || jumps_under_divergence(st.b, under, false)))
            return true;
    }
    return false;
}

}  // namespace rill::ir
