// The IR as text: what RILL_DUMP writes and what pass tests compare.
#include <bit>
#include <sstream>
#include <unordered_map>

#include "rill/core/error.h"
#include "rill/core/ir.h"

namespace rill::ir {

namespace {

class Printer {
public:
    explicit Printer(const Kernel& k) : k_(k) {}

    std::string run() {
        out_ << "kernel " << k_.name << " (hash " << std::hex << k_.hash() << std::dec << ")\n";
        for (std::size_t i = 0; i < k_.params.size(); ++i) {
            const Param& p = k_.params[i];
            out_ << "  param " << i << " '" << p.name << "': " << param_kind_name(p.kind) << " "
                 << p.type_name << " (" << p.words << " words";
            if (p.kind == ParamKind::Uniform) out_ << " at word " << p.uniform_offset;
            if (p.gather_rank) out_ << ", rank " << int(p.gather_rank);
            if (p.indexof_rank) out_ << ", indexof rank " << int(p.indexof_rank);
            out_ << ")\n";
        }
        if (k_.is_group_kernel()) out_ << "  workgroup size " << k_.workgroup_size << "\n";
        if (k_.subgroup_size) out_ << "  subgroup size " << k_.subgroup_size << " (required)\n";
        if (k_.spirv_opt == SpirvOpt::Never) out_ << "  without spirv-opt\n";
        if (k_.spirv_opt == SpirvOpt::UnlessTheDriverOptimizes) out_ << "  spirv-opt unless the driver optimizes\n";
        if (k_.unchecked_arrays) out_ << "  arrays unchecked\n";
        if (k_.shared_only_barriers) out_ << "  barriers order shared memory only\n";
        if (k_.parameters_at_start) out_ << "  parameters read at the start\n";
        if (k_.quick_build) out_ << "  built quickly\n";
        for (std::size_t i = 0; i < k_.shared.size(); ++i)
            out_ << "  shared" << i << ": " << k_.shared[i].type_name << "[" << k_.shared[i].count << "]"
                 << (k_.shared[i].unchecked ? " unchecked" : "")
                 << (k_.shared[i].per_invocation ? " local " + std::to_string(k_.shared[i].per_invocation) + " per invocation" : "")
                 << "\n";
        for (std::size_t v = 0; v < k_.vars.size(); ++v)
            out_ << "  var v" << v << ": " << to_string(k_.vars[v]) << "\n";
        out_ << "body:\n";
        block(k_.body, 1);
        out_ << "epilogue:\n";
        block(k_.epilogue, 1);
        return out_.str();
    }

private:
    void indent(int depth) { out_ << std::string(2 * depth, ' '); }

    /// An expression's text, each node's made once: a node that many others
    /// share would otherwise be printed again under each of them, and the
    /// text of a long straight-line kernel grows exponentially. Text longer
    /// than kLongest prints as the node's name, "n<id>...".
    std::string expr(ExprId id) {
        if (auto it = texts_.find(id); it != texts_.end()) return it->second;
        std::string text = expr_text(id);
        if (text.size() > kLongest) text = "n" + std::to_string(id) + "...";
        return texts_.emplace(id, std::move(text)).first->second;
    }

    std::string expr_text(ExprId id) {
        const Node& n = k_.node(id);
        std::ostringstream s;
        switch (n.op) {
            case Op::Const:
                s << to_string(n.type) << "(";
                for (int c = 0; c < n.type.width; ++c) {
                    if (c) s << ", ";
                    switch (n.type.scalar) {
                        case Scalar::Float: s << std::bit_cast<float>(n.imm[c]); break;
                        case Scalar::Int: s << static_cast<std::int32_t>(n.imm[c]); break;
                        case Scalar::Uint: s << n.imm[c] << "u"; break;
                        case Scalar::Bool: s << (n.imm[c] ? "true" : "false"); break;
                    }
                }
                s << ")";
                return s.str();
            case Op::Uniform: s << "const." << k_.params[n.aux].name << "@" << n.imm[0]; return s.str();
            case Op::InputLoad: s << "in." << k_.params[n.aux].name << "@" << n.imm[0]; return s.str();
            case Op::IndexOf: s << "indexof(" << k_.params[n.aux].name << ")[" << n.imm[0] << "]"; return s.str();
            case Op::ReadVar: case Op::ArrayLoad: case Op::ArrayLoadVector: case Op::SharedLoad: case Op::Atomic:
            case Op::Subgroup:
                s << "r" << id;
                return s.str();
            case Op::ArraySize: s << "size(" << k_.params[n.aux].name << ")"; return s.str();
            case Op::GatherLoad:
                s << k_.params[n.aux].name << "@" << n.imm[0] << "[" << expr(n.args[0]) << "]";
                return s.str();
            case Op::Swizzle:
            case Op::Insert: {
                s << op_name(n.op) << "<";
                int w = n.op == Op::Swizzle ? n.type.width : k_.node(n.args[1]).type.width;
                for (int c = 0; c < w; ++c) s << "xyzw"[n.imm[c]];
                s << ">";
                break;
            }
            case Op::Cast: case Op::Bitcast: case Op::Splat: case Op::Construct:
                s << op_name(n.op) << "<" << to_string(n.type) << ">";
                break;
            default:
                s << op_name(n.op);
                break;
        }
        s << "(";
        for (int i = 0; i < n.nargs; ++i) s << (i ? ", " : "") << expr(n.args[i]);
        s << ")";
        return s.str();
    }

    /// The right-hand side of a Def: what an in-place node does.
    std::string in_place(ExprId id) {
        const Node& n = k_.node(id);
        std::ostringstream s;
        auto args = [&] {
            for (int i = 0; i < n.nargs; ++i) s << (i ? ", " : "") << expr(n.args[i]);
        };
        switch (n.op) {
            case Op::ReadVar: s << "v" << n.aux; break;
            case Op::ArrayLoad: s << k_.params[n.aux].name << "@" << n.imm[0] << "[" << expr(n.args[0]) << "]"; break;
            case Op::ArrayLoadVector:
                s << k_.params[n.aux].name << "[" << n.type.width << " * " << expr(n.args[0]) << " ..]";
                break;
            case Op::SharedLoad: s << "shared" << n.aux << "@" << n.imm[0] << "[" << expr(n.args[0]) << "]"; break;
            case Op::Atomic:
                s << "atomic_" << atomic_op_name(static_cast<AtomicOp>(n.imm[1])) << "("
                  << (n.imm[2] ? "shared" + std::to_string(n.aux) : k_.params[n.aux].name) << "@" << n.imm[0] << ", ";
                args();
                s << ")";
                break;
            case Op::Subgroup:
                s << "subgroup_" << subgroup_op_name(static_cast<SubgroupOp>(n.imm[0]));
                if (n.imm[0] >= static_cast<std::uint32_t>(SubgroupOp::Reduce) &&
                    n.imm[0] <= static_cast<std::uint32_t>(SubgroupOp::ExclusiveScan)) s << "<" << op_name(static_cast<Op>(n.imm[1])) << ">";
                s << "(";
                args();
                s << ")";
                break;
            default: RILL_UNREACHABLE("not an in-place node");
        }
        return s.str();
    }

    void block(BlockId b, int depth) {
        if (b == kNone) return;
        for (StmtId id : k_.block(b)) {
            const Stmt& st = k_.stmt(id);
            switch (st.kind) {
                case StmtKind::Nop:
                    break;
                case StmtKind::Def:
                    indent(depth);
                    out_ << "r" << st.a << " = " << in_place(st.a) << "\n";
                    break;
                case StmtKind::ArrayStore:
                    indent(depth);
                    out_ << k_.params[st.a].name << "@" << st.d << "[" << expr(st.c) << "] = " << expr(st.b) << "\n";
                    break;
                case StmtKind::ArrayStoreVector:
                    indent(depth);
                    out_ << k_.params[st.a].name << "[" << k_.node(st.b).type.width << " * " << expr(st.c) << " ..] = "
                         << expr(st.b) << "\n";
                    break;
                case StmtKind::SharedStore:
                    indent(depth);
                    out_ << "shared" << st.a << "@" << st.d << "[" << expr(st.c) << "] = " << expr(st.b) << "\n";
                    break;
                case StmtKind::Barrier:
                    indent(depth);
                    out_ << (st.a == kSubgroupScope ? "subgroup_barrier\n" : "barrier\n");
                    break;
                case StmtKind::Fence:
                    indent(depth);
                    out_ << "fence\n";
                    break;
                case StmtKind::Assign:
                    indent(depth);
                    out_ << "v" << st.a << " := " << expr(st.b) << "\n";
                    break;
                case StmtKind::Store:
                    indent(depth);
                    out_ << "out." << k_.params[st.a].name << "@" << st.c << " = " << expr(st.b) << "\n";
                    break;
                case StmtKind::If:
                    indent(depth);
                    out_ << "if " << expr(st.a) << "\n";
                    block(st.b, depth + 1);
                    if (!k_.block(st.c).empty()) {
                        indent(depth);
                        out_ << "else\n";
                        block(st.c, depth + 1);
                    }
                    break;
                case StmtKind::Loop:
                    indent(depth);
                    out_ << "loop\n";
                    block(st.a, depth + 1);
                    if (!k_.block(st.b).empty()) {
                        indent(depth);
                        out_ << "continuing\n";
                        block(st.b, depth + 1);
                    }
                    break;
                case StmtKind::Break: case StmtKind::Continue: case StmtKind::Return:
                    indent(depth);
                    out_ << stmt_name(st.kind) << "\n";
                    break;
            }
        }
    }

    static constexpr std::size_t kLongest = 4096;
    const Kernel& k_;
    std::ostringstream out_;
    std::unordered_map<ExprId, std::string> texts_;
};

}  // namespace

std::string print(const Kernel& k) { return Printer(k).run(); }

}  // namespace rill::ir
