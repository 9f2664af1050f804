#include "program.h"

#include <algorithm>

#include "rill/core/error.h"

namespace rill::cpu {

namespace {

/// Block width of an element kernel when none is forced: as wide as keeps
/// every column of the block within 64 KiB (so it stays in L1/L2), 256 to 2048
/// lanes. Small kernels, which are bound by memory, then pay the per-block
/// work (statement dispatch, stream addressing) over more elements.
int element_lanes(const ir::Kernel& k) {
    std::size_t words_per_lane = 0;
    for (const ir::Node& n : k.nodes) words_per_lane += n.type.width;
    for (const auto& v : k.vars) words_per_lane += v.width;
    int lanes = 256;
    while (lanes < 2048 && words_per_lane * sizeof(std::uint32_t) * 2 * lanes <= 64 * 1024) lanes *= 2;
    return lanes;
}

}  // namespace

CpuProgram::CpuProgram(const ir::Kernel& k, int lanes, int subgroup_size, std::int64_t streaming_bytes)
    : kernel_(std::make_shared<const ir::Kernel>(k)),
      lanes_(k.is_group_kernel() ? static_cast<int>(k.workgroup_size) : lanes > 0 ? lanes : element_lanes(k)),
      subgroup_size_(k.subgroup_size ? static_cast<int>(k.subgroup_size) : subgroup_size),
      streaming_bytes_(streaming_bytes) {
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
            case ir::Op::ReadVar: case ir::Op::ArrayLoad: case ir::Op::ArrayLoadVector: case ir::Op::SharedLoad:
            case ir::Op::Atomic: case ir::Op::Subgroup:
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
            case ir::StmtKind::ArrayStore: case ir::StmtKind::ArrayStoreVector: case ir::StmtKind::SharedStore:
                plan_statement(s, {st.b, st.c});
                break;
            case ir::StmtKind::Def: {
                // An in-place node is computed by the executor from its operands.
                const ir::Node& n = kk.node(st.a);
                plan_statement(s, {n.args[0], n.args[1], n.args[2]});
                break;
            }
            case ir::StmtKind::Nop: case ir::StmtKind::Loop: case ir::StmtKind::Break:
            case ir::StmtKind::Continue: case ir::StmtKind::Return: case ir::StmtKind::Barrier:
            case ir::StmtKind::Fence:
                break;
        }
    }
    max_depth_ = std::max(depth_of(kk.body), depth_of(kk.epilogue));
    if (kk.is_group_kernel()) return;  // no tape: workgroups need the mask machinery
    std::vector<char> computed(n, 0);
    const std::vector<int> uses = count_uses();
    if (!record_tape(kk.body, computed, uses) || !record_tape(kk.epilogue, computed, uses)) tape_.clear();
}

std::vector<int> CpuProgram::count_uses() const {
    const ir::Kernel& k = *kernel_;
    std::vector<int> uses(k.nodes.size(), 0);
    for (const ir::Node& n : k.nodes)
        for (int i = 0; i < n.nargs; ++i) ++uses[n.args[i]];
    // Only straight-line kernels get a tape: their statements use expressions
    // as a Def's node, an Assign's or a Store's value.
    for (const ir::Stmt& st : k.stmts) {
        if (st.kind == ir::StmtKind::Def) ++uses[st.a];
        if (st.kind == ir::StmtKind::Assign || st.kind == ir::StmtKind::Store) ++uses[st.b];
    }
    return uses;
}

bool CpuProgram::record_tape(ir::BlockId b, std::vector<char>& computed, const std::vector<int>& uses) {
    using Kind = TapeStep::Kind;
    const ir::Kernel& k = *kernel_;
    // An element-wise Lane node whose only use is one operand of the node that
    // follows it may be folded into that node's loop (see FusedLoop).
    std::vector<char> folded(k.nodes.size(), 0), folds(k.nodes.size(), 0);
    auto foldable = [&](ir::ExprId e) {
        return levels_[e] == Level::Lane && !computed[e] && uses[e] == 1 && !folded[e] && !folds[e] &&
               elementwise_loop(k, e) != nullptr;
    };
    auto uniform_bits = [&](std::initializer_list<ir::ExprId> operands) {
        unsigned bits = 0, bit = 1;
        for (ir::ExprId e : operands) {
            if (levels_[e] == Level::Uniform) bits |= bit;
            bit <<= 1;
        }
        return bits;
    };
    auto evaluate = [&](ir::StmtId s) {
        const std::vector<ir::ExprId>& plan = plans_[s];
        for (ir::ExprId id : plan) {
            const ir::Node& n = k.node(id);
            if (levels_[id] != Level::Lane || computed[id] || n.nargs != 2) continue;
            for (int i = 0; i < 2; ++i)
                if (foldable(n.args[i]) && fused_loop(k, id, i)) {
                    folded[n.args[i]] = 1;
                    folds[id] = 1;
                    break;
                }
        }
        for (ir::ExprId id : plan) {
            if (levels_[id] == Level::Lane) {
                if (computed[id]) continue;
                computed[id] = 1;
            }
            if (folded[id]) continue;  // computed inside its user's fused loop
            const ir::Node& n = k.node(id);
            TapeStep step{Kind::Node, id};
            const int count = n.type.width * lanes_;
            const int inner = n.nargs == 2 ? (folded[n.args[0]] ? 0 : folded[n.args[1]] ? 1 : -1) : -1;
            if (inner >= 0) {
                const ir::Node& in = k.node(n.args[inner]);
                step = {Kind::Fused, id};
                step.fused = fused_loop(k, id, inner);
                step.fused_streaming = fused_loop(k, id, inner, true);
                step.a = in.args[0];
                step.b = in.args[1];
                step.c = n.args[1 - inner];
                step.count = count;
                step.uniform = uniform_bits({step.a, step.b, step.c});
            } else if (LaneLoop loop = elementwise_loop(k, id)) {
                step = {Kind::Loop, id, loop};
                step.loop_streaming = elementwise_loop(k, id, true);
                step.a = n.args[0];
                step.b = n.args[n.nargs > 1 ? 1 : 0];
                step.count = count;
                step.uniform = uniform_bits({step.a, n.nargs > 1 ? step.b : step.a});
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
