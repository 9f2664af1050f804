// Programs as the C++ DSL source a user would write (inside namespace rill),
// so that a failing kernel can be pasted into a test as it is.
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "program.h"

namespace rill::random_kernels {

const char* op_name(Op op) {
    static const char* names[] = {
        "Const", "Input", "Uniform", "VarRef", "IndexOf", "GatherF", "GatherI2", "neg", "abs", "sign", "floor", "ceil",
        "round", "trunc", "fract", "sqrt", "inversesqrt", "exp", "exp2", "log", "log2", "sin", "cos", "tan", "asin",
        "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "+", "-", "*", "/", "%", "min", "max", "mod",
        "pow", "atan2", "step", "&", "|", "^", "<<", ">>", "~", "bit_count", "find_lsb", "find_msb", "bitfield_reverse",
        "bitfield_extract", "clamp", "mix", "fma", "smoothstep", "select", "<", "<=", ">", ">=", "==", "!=", "&&", "||",
        "!", "cast", "float_bits_to_int", "float_bits_to_uint", "int_bits_to_float", "uint_bits_to_float", "swizzle",
        "construct", "dot", "length", "distance", "normalize", "cross"};
    return names[static_cast<int>(op)];
}

namespace {

std::string float_literal(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<float>(v));
    std::string s = buf;
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    return s + "f";
}
std::string int_literal(std::int64_t v, Ty t) {
    if (t == Ty::U) return std::to_string(v) + "u";
    if (v == std::numeric_limits<std::int32_t>::min()) return "(-2147483647 - 1)";
    return std::to_string(v);
}

class Printer {
public:
    explicit Printer(const Program& p) : p_(p) {}

    std::string program() {
        out_ << "auto k = kernel(\"random_kernel(fa, fb, ia, ua, va, p, g, gi, k, rf, ri, ru, rv)\",\n"
                "    [](In<float> fa, In<float> fb, In<std::int32_t> ia, In<std::uint32_t> ua, In<float4> va,\n"
                "       In<RkPoint> p, Gather<float> g, Gather<std::int32_t, 2> gi, Float k, Out<float> rf,\n"
                "       Out<std::int32_t> ri, Out<std::uint32_t> ru, Out<float4> rv) {\n";
        block(p_.body, 2);
        out_ << "    });\n";
        return out_.str();
    }

private:
    const Program& p_;
    std::ostringstream out_;

    const Node& node(int id) const { return p_.nodes[static_cast<std::size_t>(id)]; }
    std::string var(int v) const {
        const char prefix[] = {'v', 'i', 'n'};
        return prefix[static_cast<int>(p_.var_kind[static_cast<std::size_t>(v)])] + std::to_string(v);
    }

    std::string constant(const Node& n, bool literal) const {
        const int w = width(n.ty);
        if (w == 1) {
            const std::string v = is_float(n.ty) ? float_literal(n.f[0]) : n.ty == Ty::B ? (n.i[0] ? "true" : "false")
                                                                                       : int_literal(n.i[0], n.ty);
            return literal ? v : std::string("Expr<") + host_type(n.ty) + ">(" + v + ")";
        }
        std::string s = std::string("Expr<") + host_type(n.ty) + ">(" + host_type(n.ty) + "{";
        for (int c = 0; c < w; ++c)
            s += (c ? ", " : "") + (is_float(n.ty) ? float_literal(n.f[c]) : int_literal(n.i[c], scalar_of(n.ty)));
        return s + "})";
    }

    /// The operands of a call: a constant may be a C++ literal when another operand is a traced value.
    std::vector<std::string> args(const Node& n) const {
        bool any_value = false;
        for (int k : n.kids) any_value = any_value || node(k).op != Op::Const;
        std::vector<std::string> a;
        for (int k : n.kids) a.push_back(expr(k, any_value));
        return a;
    }
    static std::string call(const std::string& f, const std::vector<std::string>& a) {
        std::string s = f + "(";
        for (std::size_t i = 0; i < a.size(); ++i) s += (i ? ", " : "") + a[i];
        return s + ")";
    }

    std::string expr(int id, bool literal = false) const {
        const Node& n = node(id);
        switch (n.op) {
            case Op::Const: return constant(n, literal);
            case Op::Input: {
                static const char* names[] = {"fa", "fb", "ia", "ua", "va", "p.pos", "p.mass", "p.id"};
                return names[n.aux];
            }
            case Op::Uniform: return "k";
            case Op::VarRef: return var(n.aux);
            case Op::IndexOf: return "indexof(rf)";
            case Op::GatherF: return "g[" + expr(n.kids[0]) + "]";
            case Op::GatherI2: return "gi[" + expr(n.kids[0]) + "]";
            case Op::Neg: return "(-" + expr(n.kids[0]) + ")";
            case Op::BitNot: return "(~" + expr(n.kids[0]) + ")";
            case Op::Not: return "(!" + expr(n.kids[0]) + ")";
            case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Rem: case Op::BitAnd: case Op::BitOr:
            case Op::BitXor: case Op::Shl: case Op::Shr: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge:
            case Op::Eq: case Op::Ne: case Op::And: case Op::Or: {
                const auto a = args(n);
                return "(" + a[0] + " " + op_name(n.op) + " " + a[1] + ")";
            }
            case Op::Cast: {
                static const char* to[] = {"float", "float", "float", "float", "std::int32_t", "std::int32_t",
                                           "std::uint32_t", "bool"};
                return std::string("cast<") + to[static_cast<int>(n.ty)] + ">(" + expr(n.kids[0]) + ")";
            }
            case Op::Swizzle: {
                static const char* names[] = {"x", "y", "z", "w", "xyz", "yzx", "xy", "zw", "", "", "x", "y", "yx"};
                return expr(n.kids[0]) + "." + names[n.aux] + "()";
            }
            case Op::Construct: return call(std::string("Expr<") + host_type(n.ty) + ">", args(n));
            default: return call(op_name(n.op), args(n));
        }
    }

    void line(int depth, const std::string& s) { out_ << std::string(4 * static_cast<std::size_t>(depth), ' ') << s << "\n"; }

    void block(const std::vector<Stmt>& b, int depth) {
        for (const Stmt& s : b) statement(s, depth);
    }

    void statement(const Stmt& s, int depth) {
        static const char* outs[] = {"rf", "ri", "ru", "rv"};
        switch (s.kind) {
            case Stmt::Decl:
                line(depth, std::string(dsl_type(p_.vars[static_cast<std::size_t>(s.var)])) + " " + var(s.var) + " = " +
                                expr(s.expr, true) + ";");
                break;
            case Stmt::Assign: line(depth, var(s.var) + " = " + expr(s.expr, true) + ";"); break;
            case Stmt::AddAssign: line(depth, var(s.var) + " += " + expr(s.expr, true) + ";"); break;
            case Stmt::Out: line(depth, std::string(outs[s.out]) + " = " + expr(s.expr, true) + ";"); break;
            case Stmt::If:
                line(depth, "If(" + expr(s.expr, true) + ", [&] {");
                block(s.body, depth + 1);
                if (s.orelse.empty()) {
                    line(depth, "});");
                } else {
                    line(depth, "}).Else([&] {");
                    block(s.orelse, depth + 1);
                    line(depth, "});");
                }
                break;
            case Stmt::For:
                line(depth, "For(" + std::to_string(s.begin) + ", " + expr(s.expr, true) + ", " + std::to_string(s.step) +
                                ", [&](Expr<std::int32_t> " + var(s.var) + ") {");
                block(s.body, depth + 1);
                line(depth, "});");
                break;
            case Stmt::While:
                line(depth, "While([&] { return " + var(s.var) + " < " + std::to_string(s.step) + " && " + expr(s.expr, false) +
                                "; }, [&] {");
                line(depth + 1, var(s.var) + " += 1;");
                block(s.body, depth + 1);
                line(depth, "});");
                break;
            case Stmt::Break: line(depth, "Break();"); break;
            case Stmt::Continue: line(depth, "Continue();"); break;
            case Stmt::Return: line(depth, "Return();"); break;
        }
    }
};

}  // namespace

std::string print(const Program& prog) { return Printer(prog).program(); }

std::string print_inputs(const Inputs& in, std::int64_t e) {
    const auto i = static_cast<std::size_t>(e);
    std::ostringstream s;
    auto f = [](float v) { return float_literal(v); };
    s << "element " << e << " of " << in.n << ": fa = " << f(in.fa[i]) << ", fb = " << f(in.fb[i]) << ", ia = " << in.ia[i]
      << ", ua = " << in.ua[i] << "u, va = {" << f(in.va[i].x) << ", " << f(in.va[i].y) << ", " << f(in.va[i].z) << ", "
      << f(in.va[i].w) << "}, p = {{" << f(in.p[i].pos.x) << ", " << f(in.p[i].pos.y) << ", " << f(in.p[i].pos.z) << "}, "
      << f(in.p[i].mass) << ", " << in.p[i].id << "}, k = " << f(in.k) << "\n  g (" << in.g.size() << ") = {";
    for (std::size_t j = 0; j < in.g.size(); ++j) s << (j ? ", " : "") << f(in.g[j]);
    s << "}\n  gi (" << in.gh << "x" << in.gw << ") = {";
    for (std::size_t j = 0; j < in.gi.size(); ++j) s << (j ? ", " : "") << in.gi[j];
    s << "}";
    return s.str();
}

}  // namespace rill::random_kernels
