#include "workgroup_level.h"

#include <algorithm>

namespace rill::cpu {

using ir::Op;
using ir::StmtKind;

WorkgroupLevel::WorkgroupLevel(const ir::Kernel& k, const std::vector<char>& collective)
    : k_(k), collective_(collective), divergence_(k), stmt_(k.stmts.size(), 0), scalar_(k.vars.size(), 0),
      def_of_(k.nodes.size(), ir::kNone), invariant_(k.nodes.size(), -1), rejected_(k.stmts.size(), 0) {
    for (ir::StmtId s = 0; s < k.stmts.size(); ++s)
        if (k.stmt(s).kind == StmtKind::Def) def_of_[k.stmt(s).a] = s;
    for (ir::VarId v = 0; v < k.vars.size(); ++v) scalar_[v] = divergence_.variable(v) ? 0 : 1;
    // Start from every non-divergent variable and every loop; drop the
    // variables assigned off workgroup level and the loops left off it, and
    // classify again until nothing is dropped (each pass only removes, and
    // starts afresh because what was computable may not be any more).
    for (bool dropped = true; dropped;) {
        restart_ = false;
        computable_.assign(k.nodes.size(), -1);
        std::fill(stmt_.begin(), stmt_.end(), 0);
        classify(k.body, true);
        dropped = restart_;
        for (ir::StmtId s = 0; s < k.stmts.size(); ++s) {
            const ir::Stmt& st = k.stmt(s);
            if (st.kind == StmtKind::Assign && scalar_[st.a] && !stmt_[s]) {
                scalar_[st.a] = 0;
                dropped = true;
            }
        }
    }
    for (ir::StmtId s = 0; s < k.stmts.size(); ++s)
        if (k.stmt(s).kind == StmtKind::Return && !stmt_[s]) all_lanes_live_ = false;
}

bool WorkgroupLevel::computable(ir::ExprId id) { return from_workgroup_values(id, computable_, true); }
bool WorkgroupLevel::invariant(ir::ExprId id) { return from_workgroup_values(id, invariant_, false); }

bool WorkgroupLevel::from_workgroup_values(ir::ExprId id, std::vector<int>& memo, bool scalar_reads) {
    if (memo[id] >= 0) return memo[id] != 0;
    const ir::Node& n = k_.node(id);
    bool c = true;
    switch (n.op) {
        case Op::Const: case Op::Uniform: case Op::GroupId: case Op::NumGroups: case Op::ArraySize:
        case Op::SubgroupSize:
            break;
        case Op::ReadVar:
            c = scalar_reads && scalar_[n.aux] && def_of_[id] != ir::kNone && stmt_[def_of_[id]];
            break;
        default:
            if (ir::defined_in_place(n.op) || n.op == Op::LocalId || n.op == Op::SubgroupInvocation) c = false;
            for (int i = 0; c && i < n.nargs; ++i) c = from_workgroup_values(n.args[i], memo, scalar_reads);
            break;
    }
    memo[id] = c ? 1 : 0;
    return c;
}

void WorkgroupLevel::classify(ir::BlockId b, bool level) {
    if (b == ir::kNone) return;
    for (ir::StmtId s : k_.block(b)) {
        const ir::Stmt& st = k_.stmt(s);
        bool l = false;
        switch (st.kind) {
            case StmtKind::Assign: l = level && scalar_[st.a] && computable(st.b); break;
            case StmtKind::Def: {
                const ir::Node& n = k_.node(st.a);
                l = level && n.op == Op::ReadVar && scalar_[n.aux];
                break;
            }
            case StmtKind::Break: case StmtKind::Continue: case StmtKind::Return: l = level; break;
            case StmtKind::If:
                l = level && level_if(s);
                classify(st.b, l);
                classify(st.c, l);
                break;
            case StmtKind::Loop: l = level && level_loop(s); break;
            default: break;
        }
        if (st.kind == StmtKind::Loop && !l) {
            classify(st.a, false);
            classify(st.b, false);
        }
        stmt_[s] = l ? 1 : 0;
    }
}

bool WorkgroupLevel::level_if(ir::StmtId s) {
    const ir::Stmt& st = k_.stmt(s);
    return computable(st.a) && (collective_[s] || needs_level(st.b) || needs_level(st.c));
}

bool WorkgroupLevel::level_loop(ir::StmtId s) {
    const ir::Stmt& st = k_.stmt(s);
    if (!collective_[s] || rejected_[s] || divergence_.loop_exits(st)) return false;
    classify(st.a, true);
    classify(st.b, true);
    if (jumps_at_level(st.a) && jumps_at_level(st.b)) return true;
    rejected_[s] = 1;
    restart_ = true;
    return false;
}

bool WorkgroupLevel::needs_level(ir::BlockId b) const {
    if (b == ir::kNone) return false;
    for (ir::StmtId s : k_.block(b)) {
        const ir::Stmt& st = k_.stmt(s);
        switch (st.kind) {
            case StmtKind::Break: case StmtKind::Continue: case StmtKind::Return: return true;
            case StmtKind::Assign: if (scalar_[st.a]) return true; break;
            case StmtKind::If: if (needs_level(st.b) || needs_level(st.c)) return true; break;
            default: break;
        }
    }
    return false;
}

bool WorkgroupLevel::jumps_at_level(ir::BlockId b) const {
    if (b == ir::kNone) return true;
    for (ir::StmtId s : k_.block(b)) {
        const ir::Stmt& st = k_.stmt(s);
        if ((st.kind == StmtKind::Break || st.kind == StmtKind::Continue) && !stmt_[s]) return false;
        if (st.kind == StmtKind::If && !(jumps_at_level(st.b) && jumps_at_level(st.c))) return false;
    }
    return true;
}

}  // namespace rill::cpu
