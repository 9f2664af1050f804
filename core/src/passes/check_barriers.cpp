// Check: every barrier of a group kernel is reached by all invocations of the
// workgroup or by none. GPUs hang or misbehave otherwise, so the mistake is
// reported when the kernel is traced.
//
// A value is *divergent* when it may differ between the invocations of one
// workgroup: local_id(), subgroup_invocation(), atomic results, subgroup
// operations (they agree within a subgroup only), memory loads at divergent
// indices, and variables assigned a divergent value or assigned under a
// divergent condition. A barrier is misplaced inside an If with a divergent
// condition, inside a loop that a divergent condition can leave or continue
// early, or after a Return under a divergent condition.
#include <vector>

#include "rill/core/error.h"
#include "rill/core/passes.h"

namespace rill::ir {

namespace {

class BarrierCheck {
public:
    explicit BarrierCheck(const Kernel& k) : k_(k), var_divergent_(k.vars.size(), 0) {}

    void run() {
        // Variables: iterate until no new divergent variable appears.
        for (bool changed = true; changed;) {
            changed = false;
            node_divergent_.assign(k_.nodes.size(), -1);
            assignments(k_.body, false, changed);
        }
        node_divergent_.assign(k_.nodes.size(), -1);
        check(k_.body, false, false);
    }

private:
    bool divergent(ExprId id) {
        int& memo = node_divergent_[id];
        if (memo >= 0) return memo;
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
                for (int i = 0; i < n.nargs; ++i) d = d || divergent(n.args[i]);
                break;
        }
        memo = d ? 1 : 0;
        return d;
    }

    void assignments(BlockId b, bool under_divergence, bool& changed) {
        for (StmtId s : k_.block(b)) {
            const Stmt& st = k_.stmt(s);
            if (st.kind == StmtKind::Assign && !var_divergent_[st.a] && (under_divergence || divergent(st.b))) {
                var_divergent_[st.a] = 1;
                changed = true;
            } else if (st.kind == StmtKind::If) {
                const bool d = under_divergence || divergent(st.a);
                assignments(st.b, d, changed);
                assignments(st.c, d, changed);
            } else if (st.kind == StmtKind::Loop) {
                const bool d = under_divergence || loop_exits_divergently(st);
                assignments(st.a, d, changed);
                assignments(st.b, d, changed);
            }
        }
    }

    /// Does a Break, Continue or Return in this loop sit under a divergent If?
    bool loop_exits_divergently(const Stmt& loop) {
        return jumps_under_divergence(loop.a, false, true) || jumps_under_divergence(loop.b, false, true);
    }
    /// Whether block b has a Return (and, with `loop_jumps`, a Break or Continue)
    /// under a divergent condition. A nested loop's own Break/Continue leave only
    /// that loop; its Returns count.
    bool jumps_under_divergence(BlockId b, bool under, bool loop_jumps) {
        for (StmtId s : k_.block(b)) {
            const Stmt& st = k_.stmt(s);
            const bool jump = st.kind == StmtKind::Return ||
                              (loop_jumps && (st.kind == StmtKind::Break || st.kind == StmtKind::Continue));
            if (jump && under) return true;
            if (st.kind == StmtKind::If) {
                const bool d = under || divergent(st.a);
                if (jumps_under_divergence(st.b, d, loop_jumps) || jumps_under_divergence(st.c, d, loop_jumps)) return true;
            }
            if (st.kind == StmtKind::Loop &&
                (jumps_under_divergence(st.a, under, false) || jumps_under_divergence(st.b, under, false)))
                return true;
        }
        return false;
    }

    void check(BlockId b, bool under_divergence, bool in_divergent_loop) {
        for (StmtId s : k_.block(b)) {
            const Stmt& st = k_.stmt(s);
            switch (st.kind) {
                case StmtKind::Barrier:
                    if (under_divergence || in_divergent_loop || returned_divergently_)
                        throw Error("kernel '" + k_.name + "': barrier() " +
                                    (returned_divergently_ ? std::string("follows a Return() that only some invocations take")
                                     : in_divergent_loop && !under_divergence
                                         ? std::string("is inside a loop that invocations can leave at different times")
                                         : std::string("is inside an If whose condition can differ between invocations")) +
                                    " (it depends on local_id(), subgroup_invocation(), an atomic's result, a subgroup "
                                    "operation, or a variable set from one); every invocation of a workgroup must "
                                    "reach each barrier, or GPUs hang. Move the barrier out of that code");
                    break;
                case StmtKind::If: {
                    const bool d = under_divergence || divergent(st.a);
                    check(st.b, d, in_divergent_loop);
                    check(st.c, d, in_divergent_loop);
                    break;
                }
                case StmtKind::Loop: {
                    const bool d = in_divergent_loop || loop_exits_divergently(st);
                    check(st.a, under_divergence, d);
                    check(st.b, under_divergence, d);
                    break;
                }
                case StmtKind::Return:
                    if (under_divergence) returned_divergently_ = true;
                    break;
                default:
                    break;
            }
        }
    }

    const Kernel& k_;
    std::vector<char> var_divergent_;
    std::vector<int> node_divergent_;
    bool returned_divergently_ = false;
};

}  // namespace

void check_barriers(const Kernel& k) {
    if (k.is_group_kernel()) BarrierCheck(k).run();
}

}  // namespace rill::ir
