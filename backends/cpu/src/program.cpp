#include "program.h"

#include <algorithm>

#include "rill/core/error.h"

namespace rill::cpu {

CpuProgram::CpuProgram(const ir::Kernel& k, int lanes, int subgroup_size)
    : kernel_(std::make_shared<const ir::Kernel>(k)),
      lanes_(k.is_group_kernel() ? static_cast<int>(k.workgroup_size) : lanes),
      subgroup_size_(k.subgroup_size ? static_cast<int>(k.subgroup_size) : subgroup_size) {
    const ir::Kernel& kk = *kernel_;
    for (const ir::SharedArray& a : kk.shared) {
        shared_offsets_.push_back(shared_words_);
        shared_words_ += static_cast<std::size_t>(a.words) * a.count;
    }
    const std::size_t n = kk.nodes.size();
    levels_.resize(n);
    node_offsets_.resize(n);
    std::size_t words = 0;
    for (ir::ExprId id = 0; id < n; ++id) {
        const ir::Node& node = kk.node(id);
        Level lv = Level::Uniform;
        switch (node.op) {
            case ir::Op::Const: case ir::Op::Uniform: lv = Level::Uniform; break;
            case ir::Op::InputLoad: case ir::Op::IndexOf: case ir::Op::LocalId: case ir::Op::GroupId:
            case ir::Op::NumGroups: case ir::Op::ArraySize: case ir::Op::SubgroupSize:
            case ir::Op::SubgroupInvocation:
                lv = Level::Lane;
                break;
            case ir::Op::ReadVar: case ir::Op::ArrayLoad: case ir::Op::SharedLoad: case ir::Op::Atomic:
            case ir::Op::Subgroup:
                lv = Level::Varying;
                break;
            default:
                for (int i = 0; i < node.nargs; ++i) lv = std::max(lv, levels_[node.args[i]]);
                if (node.op == ir::Op::GatherLoad) lv = std::max(lv, Level::Lane);
                break;
        }
        levels_[id] = lv;
        node_offsets_[id] = words;
        words += static_cast<std::size_t>(node.type.width) * lanes_;
        if (lv == Level::Uniform) uniform_nodes_.push_back(id);
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
            case ir::StmtKind::Assign: case ir::StmtKind::Store: plan_statement(s, {st.b}); break;
            case ir::StmtKind::If: plan_statement(s, {st.a}); break;
            case ir::StmtKind::ArrayStore: case ir::StmtKind::SharedStore: plan_statement(s, {st.b, st.c}); break;
            case ir::StmtKind::Def: {
                // An in-place node is computed by the executor from its operands.
                const ir::Node& n = kk.node(st.a);
                plan_statement(s, {n.args[0], n.args[1], n.args[2]});
                break;
            }
            case ir::StmtKind::Nop: case ir::StmtKind::Loop: case ir::StmtKind::Break:
            case ir::StmtKind::Continue: case ir::StmtKind::Return: case ir::StmtKind::Barrier:
                break;
        }
    }
    max_depth_ = std::max(depth_of(kk.body), depth_of(kk.epilogue));
    std::vector<char> computed(n, 0);
    if (kk.is_group_kernel() || !record_tape(kk.body, computed) || !record_tape(kk.epilogue, computed)) tape_.clear();
}

bool CpuProgram::record_tape(ir::BlockId b, std::vector<char>& computed) {
    using Kind = TapeStep::Kind;
    const ir::Kernel& k = *kernel_;
    auto evaluate = [&](ir::StmtId s) {
        for (ir::ExprId id : plans_[s]) {
            if (levels_[id] == Level::Lane) {
                if (computed[id]) continue;
                computed[id] = 1;
            }
            const ir::Node& n = k.node(id);
            TapeStep step{Kind::Node, id};
            if (LaneLoop loop = elementwise_loop(k, id)) {
                step = {Kind::Loop, id, loop, n.args[0], n.args[n.nargs > 1 ? 1 : 0], n.type.width * lanes_};
            }
            tape_.push_back(step);
        }
    };
    for (ir::StmtId s : k.block(b)) {
        const ir::Stmt& st = k.stmt(s);
        switch (st.kind) {
            case ir::StmtKind::Nop:
                break;
            case ir::StmtKind::Def:
                if (k.node(st.a).op != ir::Op::ReadVar) return false;
                tape_.push_back({Kind::ReadVar, s});
                break;
            case ir::StmtKind::Assign:
                evaluate(s);
                tape_.push_back({Kind::Assign, s});
                break;
            case ir::StmtKind::Store:
                // A value some earlier statement computed stays where it is.
                if (!(levels_[st.b] == Level::Lane && computed[st.b])) tape_.push_back({Kind::StoreTarget, s});
                evaluate(s);
                tape_.push_back({Kind::Store, s});
                break;
            default:
                return false;
        }
    }
    return true;
}

void CpuProgram::plan_statement(ir::StmtId s, std::initializer_list<ir::ExprId> roots) {
    const ir::Kernel& k = *kernel_;
    std::vector<ir::ExprId>& out = plans_[s];
    std::vector<char> seen(k.nodes.size(), 0);
    // Iterative post-order DFS (kernels can be deep expression chains).
    std::vector<std::pair<ir::ExprId, int>> stack;
    for (ir::ExprId r : roots)
        if (r != ir::kNone) stack.emplace_back(r, 0);
    std::reverse(stack.begin(), stack.end());
    while (!stack.empty()) {
        auto& [id, next] = stack.back();
        if (seen[id] || levels_[id] == Level::Uniform || ir::defined_in_place(k.node(id).op)) {
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
