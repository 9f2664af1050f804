// Check: every barrier of a group kernel is reached by all invocations of the
// workgroup or by none. GPUs hang or misbehave otherwise, so the mistake is
// reported when the kernel is traced. A barrier is misplaced inside an If
// with a divergent condition (see divergence.h), inside a loop that a
// divergent condition can leave or continue early, or after a Return under a
// divergent condition.
#include "rill/core/divergence.h"
#include "rill/core/error.h"
#include "rill/core/passes.h"

namespace rill::ir {

namespace {

class BarrierCheck {
public:
    explicit BarrierCheck(const Kernel& k) : k_(k), divergence_(k) {}

    void run() { check(k_.body, false, false); }

private:
    void check(BlockId b, bool under_divergence, bool in_divergent_loop) {
        for (StmtId s : k_.block(b)) {
            const Stmt& st = k_.stmt(s);
            switch (st.kind) {
                case StmtKind::Barrier:
                    if (under_divergence || in_divergent_loop || returned_divergently_)
                        throw Error("kernel '" + k_.name + "': " + (st.a == kSubgroupScope ? "subgroup_barrier() " : "barrier() ") +
                                    (returned_divergently_ ? std::string("follows a Return() that only some invocations take")
                                     : in_divergent_loop && !under_divergence
                                         ? std::string("is inside a loop that invocations can leave at different times")
                                         : std::string("is inside an If whose condition can differ between invocations")) +
                                    " (it depends on local_id(), subgroup_invocation(), an atomic's result, a subgroup "
                                    "operation, or a variable set from one); every invocation of a workgroup must "
                                    "reach each barrier, or GPUs hang. Move the barrier out of that code");
                    break;
                case StmtKind::If: {
                    const bool d = under_divergence || divergence_.value(st.a);
                    check(st.b, d, in_divergent_loop);
                    check(st.c, d, in_divergent_loop);
                    break;
                }
                case StmtKind::Loop: {
                    const bool d = in_divergent_loop || divergence_.loop_exits(st);
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
    Divergence divergence_;
    bool returned_divergently_ = false;
};

}  // namespace

void check_barriers(const Kernel& k) {
    if (k.is_group_kernel()) BarrierCheck(k).run();
}

}  // namespace rill::ir
