// Structural checks on a traced kernel. A value read from a variable inside a
// block (an If branch, a loop body) exists only there; using it after the block
// is the one mistake C++ lets a user make while tracing (by keeping a traced
// value in a variable that outlives the block), so it is reported as a user
// error. Everything else here is an internal invariant.
#include <unordered_set>
#include <vector>

#include "rill/core/error.h"
#include "rill/core/ir.h"

namespace rill::ir {

namespace {

class Validator {
public:
    explicit Validator(const Kernel& k) : k_(k), in_scope_(k.nodes.size(), 0), leaves_(k.nodes.size()) {}

    void run() {
        RILL_ASSERT(k_.body != kNone && k_.epilogue != kNone, "kernel without body or epilogue");
        // The epilogue continues the body's top-level scope: values the body
        // defined at its top level are visible there (backends run it right after).
        block(k_.body, 0, /*keep_scope=*/true);
        block(k_.epilogue, 0);
    }

private:
    // ReadVar leaves of an expression, memoized per node.
    const std::vector<ExprId>& reads(ExprId id) {
        RILL_ASSERT(id < k_.nodes.size(), "expression id out of range");
        auto& slot = leaves_[id];
        if (slot.computed) return slot.ids;
        slot.computed = true;
        const Node& n = k_.node(id);
        if (defined_in_place(n.op)) {
            slot.ids.push_back(id);
            return slot.ids;
        }
        std::unordered_set<ExprId> seen;
        for (int i = 0; i < n.nargs; ++i) {
            RILL_ASSERT(n.args[i] < id, "operand defined after its user");
            for (ExprId r : reads(n.args[i]))
                if (seen.insert(r).second) slot.ids.push_back(r);
        }
        return slot.ids;
    }

    void use(ExprId id) {
        for (ExprId r : reads(id)) {
            if (!in_scope_[r])
                throw Error("kernel '" + k_.name + "': a value computed inside an If, For or While "
                            "block is used after that block ended. Declare a rill::Var before the "
                            "block and assign to it inside instead of keeping the traced value in a "
                            "C++ variable that outlives the block.");
        }
    }

    void block(BlockId b, int loop_depth, bool keep_scope = false) {
        RILL_ASSERT(b < k_.blocks.size(), "block id out of range");
        std::vector<ExprId> defined_here;
        for (StmtId id : k_.block(b)) {
            const Stmt& s = k_.stmt(id);
            switch (s.kind) {
                case StmtKind::Nop:
                    break;
                case StmtKind::Def: {
                    const Node& n = k_.node(s.a);
                    RILL_ASSERT(defined_in_place(n.op), "Def of a node that is not defined in place");
                    if (n.op == Op::ArrayLoadVector) vector_access(n.aux, n.type.width);
                    for (int i = 0; i < n.nargs; ++i) use(n.args[i]);
                    in_scope_[s.a] = 1;
                    defined_here.push_back(s.a);
                    break;
                }
                case StmtKind::ArrayStore:
                    RILL_ASSERT(s.a < k_.params.size() && k_.params[s.a].kind == ParamKind::Array,
                                "array store to a parameter that is not an Array");
                    use(s.b);
                    use(s.c);
                    break;
                case StmtKind::ArrayStoreVector:
                    vector_access(s.a, k_.node(s.b).type.width);
                    use(s.b);
                    use(s.c);
                    break;
                case StmtKind::SharedStore:
                    RILL_ASSERT(s.a < k_.shared.size(), "shared store to an unknown shared array");
                    use(s.b);
                    use(s.c);
                    break;
                case StmtKind::Barrier: case StmtKind::Fence:
                    RILL_ASSERT(k_.is_group_kernel(), "barrier or fence outside a group kernel");
                    RILL_ASSERT(s.a == kNone || (s.kind == StmtKind::Barrier && s.a == kSubgroupScope), "a barrier of an unknown scope");
                    break;
                case StmtKind::Assign:
                    RILL_ASSERT(s.a < k_.vars.size(), "assign to an unknown variable");
                    RILL_ASSERT(k_.vars[s.a] == k_.node(s.b).type, "assign of another type");
                    use(s.b);
                    break;
                case StmtKind::Store:
                    RILL_ASSERT(s.a < k_.params.size() && k_.params[s.a].kind == ParamKind::Output,
                                "store to a parameter that is not an output");
                    use(s.b);
                    break;
                case StmtKind::If:
                    RILL_ASSERT(k_.node(s.a).type == (Type{Scalar::Bool, 1}), "if condition is not bool");
                    use(s.a);
                    block(s.b, loop_depth);
                    block(s.c, loop_depth);
                    break;
                case StmtKind::Loop:
                    block(s.a, loop_depth + 1);
                    block(s.b, loop_depth + 1);
                    break;
                case StmtKind::Break: case StmtKind::Continue:
                    RILL_ASSERT(loop_depth > 0, "break or continue outside a loop");
                    break;
                case StmtKind::Return:
                    break;
            }
        }
        if (!keep_scope)
            for (ExprId r : defined_here) in_scope_[r] = 0;
    }

    /// A vector access of `width` elements to Array param p: one-word
    /// elements, and a width the param's vector_width is a multiple of.
    void vector_access(std::uint32_t p, int width) const {
        RILL_ASSERT(p < k_.params.size() && k_.params[p].kind == ParamKind::Array && k_.params[p].words == 1,
                    "vector access to a parameter that is not an Array of one-word elements");
        RILL_ASSERT((width == 2 || width == 4) && k_.params[p].vector_width % width == 0,
                    "vector access wider than the parameter's vector_width");
    }

    struct Leaves {
        bool computed = false;
        std::vector<ExprId> ids;
    };
    const Kernel& k_;
    std::vector<char> in_scope_;
    std::vector<Leaves> leaves_;
};

}  // namespace

void validate(const Kernel& k) { Validator(k).run(); }

bool contains_return(const Kernel& k, BlockId b) {
    for (StmtId s : k.block(b)) {
        const Stmt& st = k.stmt(s);
        if (st.kind == StmtKind::Return) return true;
        if (st.kind == StmtKind::If && (contains_return(k, st.b) || contains_return(k, st.c))) return true;
        if (st.kind == StmtKind::Loop && (contains_return(k, st.a) || contains_return(k, st.b))) return true;
    }
    return false;
}

}  // namespace rill::ir
