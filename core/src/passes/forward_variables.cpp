// Pass: forward variable values (a small mem2reg).
//
// Tracing turns every reassigned C++ variable and every output into an IR
// variable. Where a read sees exactly one assignment (straight-line code, or
// reads inside a block of a value assigned before it and not changed in it),
// the read is replaced by the assigned expression. Variables that are no
// longer read lose their assignments. SAXPY goes from
//   v0 := 0; v0 := a*x+y; r = v0; store r     to     store a*x+y
// which every backend then compiles without a variable.
#include <vector>

#include "rill/core/error.h"
#include "rill/core/passes.h"

namespace rill::ir {

namespace {

class Forwarder {
public:
    explicit Forwarder(const Kernel& k) : k_(k), replace_(k.nodes.size(), kNone) {}

    Kernel run() {
        std::vector<ExprId> known(k_.vars.size(), kNone);
        block(k_.body, known);
        if (contains_return(k_, k_.body)) std::fill(known.begin(), known.end(), kNone);
        block(k_.epilogue, known);
        return rebuild();
    }

private:
    void assigned_in(BlockId b, std::vector<char>& out) const {
        for (StmtId s : k_.block(b)) {
            const Stmt& st = k_.stmt(s);
            if (st.kind == StmtKind::Assign) out[st.a] = 1;
            if (st.kind == StmtKind::If) {
                assigned_in(st.b, out);
                assigned_in(st.c, out);
            }
            if (st.kind == StmtKind::Loop) {
                assigned_in(st.a, out);
                assigned_in(st.b, out);
            }
        }
    }

    void forget(const std::vector<char>& assigned, std::vector<ExprId>& known) const {
        for (std::size_t v = 0; v < known.size(); ++v)
            if (assigned[v]) known[v] = kNone;
    }

    // Resolves an expression through earlier replacements (a known value may
    // itself be a forwarded read).
    ExprId resolve(ExprId e) const {
        while (e != kNone && replace_[e] != kNone) e = replace_[e];
        return e;
    }

    void block(BlockId b, std::vector<ExprId>& known) {
        for (StmtId s : k_.block(b)) {
            const Stmt& st = k_.stmt(s);
            switch (st.kind) {
                case StmtKind::Assign:
                    known[st.a] = st.b;
                    break;
                case StmtKind::Def: {
                    if (k_.node(st.a).op != Op::ReadVar) break;
                    const ExprId v = known[k_.node(st.a).aux];
                    if (v != kNone) replace_[st.a] = v;
                    break;
                }
                case StmtKind::If: {
                    std::vector<ExprId> t = known, e = known;
                    block(st.b, t);
                    block(st.c, e);
                    std::vector<char> assigned(k_.vars.size(), 0);
                    assigned_in(st.b, assigned);
                    assigned_in(st.c, assigned);
                    forget(assigned, known);
                    break;
                }
                case StmtKind::Loop: {
                    // Values assigned anywhere in the loop differ between iterations.
                    std::vector<char> assigned(k_.vars.size(), 0);
                    assigned_in(st.a, assigned);
                    assigned_in(st.b, assigned);
                    forget(assigned, known);
                    std::vector<ExprId> inner = known;
                    block(st.a, inner);
                    inner = known;
                    block(st.b, inner);
                    break;
                }
                case StmtKind::Nop: case StmtKind::Store: case StmtKind::Break:
                case StmtKind::Continue: case StmtKind::Return: case StmtKind::ArrayStore:
                case StmtKind::ArrayStoreVector: case StmtKind::SharedStore: case StmtKind::Barrier:
                case StmtKind::Fence:
                    break;
            }
        }
    }

    Kernel rebuild() {
        // Variables still read after forwarding keep their assignments.
        std::vector<char> live(k_.vars.size(), 0);
        for (const Stmt& st : k_.stmts)
            if (st.kind == StmtKind::Def && replace_[st.a] == kNone && k_.node(st.a).op == Op::ReadVar)
                live[k_.node(st.a).aux] = 1;

        Kernel out;
        out.name = k_.name;
        out.params = k_.params;
        out.uniform_words = k_.uniform_words;
        out.workgroup_size = k_.workgroup_size;
        out.subgroup_size = k_.subgroup_size;
        out.spirv_opt = k_.spirv_opt;
        out.unchecked_arrays = k_.unchecked_arrays;
        out.shared_only_barriers = k_.shared_only_barriers;
        out.parameters_at_start = k_.parameters_at_start;
        out.quick_build = k_.quick_build;
        out.shared = k_.shared;
        Builder b(out);
        std::vector<VarId> var_map(k_.vars.size(), kNone);
        for (VarId v = 0; v < k_.vars.size(); ++v)
            if (live[v]) var_map[v] = b.new_var(k_.vars[v]);

        node_map_.assign(k_.nodes.size(), kNone);
        for (ExprId id = 0; id < k_.nodes.size(); ++id) {
            if (replace_[id] != kNone) {
                node_map_[id] = node_map_[resolve(id)];
                continue;
            }
            const Node& n = k_.node(id);
            if (n.op == Op::ReadVar) {
                node_map_[id] = var_map[n.aux] == kNone ? kNone : b.read_var_node(var_map[n.aux]);
                continue;
            }
            node_map_[id] = b.remap(n, node_map_);
        }

        out.body = b.new_block();
        out.epilogue = b.new_block();
        copy_block(k_.body, out.body, b, var_map, live);
        copy_block(k_.epilogue, out.epilogue, b, var_map, live);
        return out;
    }

    void copy_block(BlockId from, BlockId to, Builder& b, const std::vector<VarId>& var_map,
                    const std::vector<char>& live) {
        for (StmtId s : k_.block(from)) {
            const Stmt& st = k_.stmt(s);
            b.set_current_block(to);
            switch (st.kind) {
                case StmtKind::Nop:
                    break;
                case StmtKind::Def:
                    if (replace_[st.a] == kNone) b.append(Stmt{StmtKind::Def, node_map_[st.a]});
                    break;
                case StmtKind::Assign:
                    if (live[st.a]) b.append(Stmt{StmtKind::Assign, var_map[st.a], node_map_[st.b]});
                    break;
                case StmtKind::Store:
                    b.append(Stmt{StmtKind::Store, st.a, node_map_[st.b], st.c});
                    break;
                case StmtKind::ArrayStore: case StmtKind::ArrayStoreVector: case StmtKind::SharedStore:
                    b.append(Stmt{st.kind, st.a, node_map_[st.b], node_map_[st.c], st.d});
                    break;
                case StmtKind::If: {
                    const BlockId t = b.new_block(), e = b.new_block();
                    b.set_current_block(to);
                    b.append(Stmt{StmtKind::If, node_map_[st.a], t, e});
                    copy_block(st.b, t, b, var_map, live);
                    copy_block(st.c, e, b, var_map, live);
                    break;
                }
                case StmtKind::Loop: {
                    const BlockId body = b.new_block(), cont = b.new_block();
                    b.set_current_block(to);
                    b.append(Stmt{StmtKind::Loop, body, cont});
                    copy_block(st.a, body, b, var_map, live);
                    copy_block(st.b, cont, b, var_map, live);
                    break;
                }
                case StmtKind::Break: case StmtKind::Continue: case StmtKind::Return: case StmtKind::Barrier:
                case StmtKind::Fence:
                    b.append(Stmt{st.kind});
                    break;
            }
        }
    }

    const Kernel& k_;
    std::vector<ExprId> replace_;
    std::vector<ExprId> node_map_;
};

}  // namespace

Kernel forward_variables(const Kernel& k) {
    validate(k);
    return Forwarder(k).run();
}

}  // namespace rill::ir
