#include "program.h"

#include <algorithm>

#include "rill/core/error.h"

namespace rill::cpu {

CpuProgram::CpuProgram(const ir::Kernel& k, int lanes)
    : kernel_(std::make_shared<const ir::Kernel>(k)), lanes_(lanes) {
    const ir::Kernel& kk = *kernel_;
    const std::size_t n = kk.nodes.size();
    levels_.resize(n);
    node_offsets_.resize(n);
    std::size_t words = 0;
    for (ir::ExprId id = 0; id < n; ++id) {
        const ir::Node& node = kk.node(id);
        Level lv = Level::Uniform;
        switch (node.op) {
            case ir::Op::Const: case ir::Op::Uniform: lv = Level::Uniform; break;
            case ir::Op::InputLoad: case ir::Op::IndexOf: lv = Level::Lane; break;
            case ir::Op::ReadVar: lv = Level::Varying; break;
            default:
                for (int i = 0; i < node.nargs; ++i) lv = std::max(lv, levels_[node.args[i]]);
                if (node.op == ir::Op::GatherLoad) lv = std::max(lv, Level::Lane);
                break;
        }
        levels_[id] = lv;
        node_offsets_[id] = words;
        words += static_cast<std::size_t>(node.type.width) * lanes_;
        if (lv == Level::Uniform && node.op != ir::Op::ReadVar) uniform_nodes_.push_back(id);
    }
    var_offsets_.resize(kk.vars.size());
    for (std::size_t v = 0; v < kk.vars.size(); ++v) {
        var_offsets_[v] = words;
        words += static_cast<std::size_t>(kk.vars[v].width) * lanes_;
    }
    scratch_words_ = words;

    plans_.resize(kk.stmts.size());
    for (ir::StmtId s = 0; s < kk.stmts.size(); ++s) {
        const ir::Stmt& st = kk.stmt(s);
        switch (st.kind) {
            case ir::StmtKind::Assign: case ir::StmtKind::Store: plan_statement(s, st.b); break;
            case ir::StmtKind::If: plan_statement(s, st.a); break;
            case ir::StmtKind::Def: case ir::StmtKind::Nop: case ir::StmtKind::Loop:
            case ir::StmtKind::Break: case ir::StmtKind::Continue: case ir::StmtKind::Return:
                break;
        }
    }
    max_depth_ = std::max(depth_of(kk.body), depth_of(kk.epilogue));
}

void CpuProgram::plan_statement(ir::StmtId s, ir::ExprId root) {
    const ir::Kernel& k = *kernel_;
    std::vector<ir::ExprId>& out = plans_[s];
    std::vector<char> seen(k.nodes.size(), 0);
    // Iterative post-order DFS (kernels can be deep expression chains).
    std::vector<std::pair<ir::ExprId, int>> stack{{root, 0}};
    while (!stack.empty()) {
        auto& [id, next] = stack.back();
        if (seen[id] || levels_[id] == Level::Uniform) {
            stack.pop_back();
            continue;
        }
        const ir::Node& n = k.node(id);
        if (next < n.nargs) {
            ir::ExprId child = n.args[next++];
            stack.emplace_back(child, 0);
            continue;
        }
        seen[id] = 1;
        out.push_back(id);
        stack.pop_back();
    }
}

int CpuProgram::depth_of(ir::BlockId b) const {
    int d = 0;
    for (ir::StmtId s : kernel_->block(b)) {
        const ir::Stmt& st = kernel_->stmt(s);
        if (st.kind == ir::StmtKind::If) d = std::max(d, 1 + std::max(depth_of(st.b), depth_of(st.c)));
        if (st.kind == ir::StmtKind::Loop) d = std::max(d, 2 + std::max(depth_of(st.a), depth_of(st.b)));
    }
    return d;
}

}  // namespace rill::cpu
