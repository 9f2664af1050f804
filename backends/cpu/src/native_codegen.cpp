#include "native_codegen.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <unordered_map>

#include "workgroup_level.h"

#include "rill/core/backend.h"
#include "rill/core/error.h"
#include "rill/core/op_traits.h"

namespace rill::cpu {

namespace {

using ir::ExprId;
using ir::Op;
using ir::StmtKind;

const char* ctype(Scalar s) {
    switch (s) {
        case Scalar::Float: return "float";
        case Scalar::Int: return "std::int32_t";
        case Scalar::Uint: case Scalar::Bool: return "std::uint32_t";
    }
    return "std::uint32_t";
}

const char* scalar_enum(Scalar s) {
    switch (s) {
        case Scalar::Float: return "rill::Scalar::Float";
        case Scalar::Int: return "rill::Scalar::Int";
        case Scalar::Uint: return "rill::Scalar::Uint";
        case Scalar::Bool: return "rill::Scalar::Bool";
    }
    return "rill::Scalar::Uint";
}

std::string hex(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08xu", v);
    return buf;
}

/// Emits the kernel twice: the first pass only learns which values cross from
/// one lane loop to another (they get scratch columns) and which variables
/// stay inside one lane loop (they become C++ locals); the second pass writes
/// the code with those answers. Both passes walk the kernel identically.
class Generator {
public:
    Generator(const ir::Kernel& k, int subgroup_size, const std::vector<std::size_t>& shared_offsets)
        : k_(k), wg_(static_cast<int>(k.workgroup_size)), sg_(subgroup_size), shared_offsets_(shared_offsets),
          used_(k.nodes.size(), 0), crosses_(k.nodes.size(), 0), level_defined_(k.nodes.size(), 0),
          var_phase_(k.vars.size(), kUnseen) {
        mark_used();
        collective_.resize(k.stmts.size(), 0);
        for (ir::StmtId s = 0; s < k.stmts.size(); ++s) mark_collective(s);
        level_.emplace(k, collective_);
    }

    NativeSource generate() {
        run_pass(false);
        run_pass(true);
        NativeSource src;
        src.scratch_words = scratch_;
        src.code = prelude() + invariants_ + decls_ + body_ + "    return done();\n}\n";
        return src;
    }

private:
    static constexpr int kUnseen = -1, kMany = -2;

    struct LoopCtx {
        bool masked;
        std::string broken, continued;  // masked: lanes that left by Break / Continue
        int label = 0;                  // otherwise: the continue label
        bool level = false;             // a workgroup-level loop
    };

    // --- analysis ----------------------------------------------------------

    /// Loads, reads and subgroup operations nobody uses are left out: a dead
    /// subgroup operation would cost a meeting point and keep its operands in
    /// scratch columns.
    void mark_used() {
        for (const ir::Node& n : k_.nodes)
            for (int i = 0; i < n.nargs; ++i) used_[n.args[i]] = 1;
        for (const ir::Stmt& st : k_.stmts) {
            switch (st.kind) {
                case StmtKind::Assign: case StmtKind::Store: used_[st.b] = 1; break;
                case StmtKind::If: used_[st.a] = 1; break;
                case StmtKind::ArrayStore: case StmtKind::ArrayStoreVector: case StmtKind::SharedStore:
                    used_[st.b] = used_[st.c] = 1;
                    break;
                default: break;
            }
        }
    }
    bool dead_def(const ir::Stmt& st) const { return st.kind == StmtKind::Def && !used_[st.a] && k_.node(st.a).op != Op::Atomic; }

    bool mark_collective(ir::StmtId s) {
        const ir::Stmt& st = k_.stmt(s);
        bool c = false;
        switch (st.kind) {
            case StmtKind::Barrier: c = true; break;
            case StmtKind::Def: c = k_.node(st.a).op == Op::Subgroup && !dead_def(st); break;
            case StmtKind::If: c = block_collective(st.b) || block_collective(st.c); break;
            case StmtKind::Loop: c = block_collective(st.a) || block_collective(st.b); break;
            default: break;
        }
        collective_[s] = c;
        return c;
    }
    bool block_collective(ir::BlockId b) {
        if (b == ir::kNone) return false;
        bool c = false;
        for (ir::StmtId s : k_.block(b)) c = mark_collective(s) || c;
        return c;
    }

    // --- output ------------------------------------------------------------

    void line(const std::string& text) {
        std::string& out = hoisting_ ? invariants_ : body_;
        out.append(static_cast<std::size_t>(hoisting_ ? 1 : indent_) * 4, ' ');
        out += text;
        out += '\n';
    }

    /// Scratch words for one workgroup; declared as a named pointer in the final pass.
    std::string scratch(const std::string& name, std::size_t words) {
        if (final_) {
            decls_ += "    std::uint32_t* const " + name + " = scratch + " + std::to_string(scratch_) + ";\n";
            scratch_ += words;
        }
        return name;
    }
    std::string mask(const char* what) { return scratch(std::string("m") + what + std::to_string(serial_++), wg_); }

    std::string wg() const { return std::to_string(wg_); }

    // --- values ------------------------------------------------------------

    std::string name(ExprId id, int c) const { return "n" + std::to_string(id) + "_" + std::to_string(c); }
    std::string col(ExprId id) const { return "col" + std::to_string(id); }

    bool visible(ExprId id) const {
        if (level_defined_[id]) return true;
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
            if (it->count(id)) return true;
        return false;
    }
    /// `vec`: node `id` (four floats) is also the f4 vec_name(id) where it is visible.
    void define(ExprId id, bool vec = false) {
        const char mark = vec ? 2 : 1;
        if (hoisting_) level_defined_[id] = mark;
        else scopes_.back()[id] = mark;
    }
    bool has_vec(ExprId id) const {
        if (level_defined_[id]) return level_defined_[id] == 2;
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
            if (auto f = it->find(id); f != it->end()) return f->second == 2;
        return false;
    }

    // float4 values as SIMD vectors (native_abi.h's f4): the compiler's own
    // vectorizers pack the four scalar statements of a float4 operation into
    // one only now and then (their data references after GCC's folding, and
    // the shapes of long expressions, defeat them), so operations on four
    // floats that are the same per lane (+, -, *, /, negation) and float4
    // loads and stores are written as vector operations.
    static bool float4(const Type& t) { return t.scalar == Scalar::Float && t.width == 4; }
    std::string vec_name(ExprId id) const { return "n" + std::to_string(id) + "_v"; }
    /// Node `id` (four floats) as an f4 expression.
    std::string vec4(ExprId id) {
        ensure(id);
        if (has_vec(id)) return vec_name(id);
        std::string v = "rill::cpu::native::f4{";
        for (int c = 0; c < 4; ++c) v += (c ? ", " : "") + name(id, c);
        return v + "}";
    }
    /// Defines node `id` as the f4 expression `v`, and its components from it.
    void def_vec4(ExprId id, const std::string& v) {
        line("const rill::cpu::native::f4 " + vec_name(id) + " = " + v + ";");
        for (int c = 0; c < 4; ++c) line("const float " + name(id, c) + " = " + vec_name(id) + "[" + std::to_string(c) + "];");
        define(id, true);
    }
    /// The C++ operator of a float4 operation written as a vector one, or null.
    static const char* vector_operator(const ir::Node& n, const ir::Kernel& k) {
        if (!float4(n.type)) return nullptr;
        if (n.op == Op::Neg) return float4(k.node(n.args[0]).type) ? "-" : nullptr;
        if (n.nargs != 2 || !float4(k.node(n.args[0]).type) || !float4(k.node(n.args[1]).type)) return nullptr;
        switch (n.op) {
            case Op::Add: return "+";
            case Op::Sub: return "-";
            case Op::Mul: return "*";
            case Op::Div: return "/";
            default: return nullptr;
        }
    }

    std::string type_of(ExprId id) const { return ctype(k_.node(id).type.scalar); }

    /// Component c of node `id` as a C++ expression of its lane type, emitting
    /// whatever it needs in the current scope first.
    std::string val(ExprId id, int c) {
        ensure(id);
        return name(id, c);
    }

    void def_components(ExprId id, const std::vector<std::string>& exprs) {
        const std::string t = type_of(id);
        for (std::size_t c = 0; c < exprs.size(); ++c)
            line("const " + t + " " + name(id, static_cast<int>(c)) + " = " + exprs[c] + ";");
        define(id);
    }

    void ensure(ExprId id) {
        if (visible(id)) return;
        if (!hoisting_ && level_->invariant(id)) {
            // Computed once at the top of the workgroup, before any store:
            // loops and lane loops read it from a register, not from memory a
            // store might have changed as far as the compiler knows.
            hoisting_ = true;
            ensure(id);
            hoisting_ = false;
            return;
        }
        const ir::Node& n = k_.node(id);
        const int w = n.type.width;
        const std::string t = ctype(n.type.scalar);
        std::vector<std::string> e(static_cast<std::size_t>(w));
        if (ir::defined_in_place(n.op)) {
            // Evaluated by its Def in an earlier lane loop: read its column.
            RILL_ASSERT(phase_ >= 0, "a per-lane value used at workgroup level");
            crosses_[id] = 1;
            for (int c = 0; c < w; ++c)
                e[c] = "rill::cpu::native::from_bits<" + t + ">(" + col(id) + "[" + std::to_string(c * wg_) + " + l])";
            def_components(id, e);
            return;
        }
        auto arg = [&](int i, int c) { return val(n.args[i], c); };
        auto arg_type = [&](int i) { return k_.node(n.args[i]).type; };
        if (const char* op = vector_operator(n, k_)) {
            if (n.op == Op::Neg) def_vec4(id, std::string("(-") + vec4(n.args[0]) + ")");
            else {
                const std::string a = vec4(n.args[0]), b = vec4(n.args[1]);
                def_vec4(id, "(" + a + " " + op + " " + b + ")");
            }
            return;
        }
        switch (n.op) {
            case Op::Const:
                for (int c = 0; c < w; ++c) e[c] = "rill::cpu::native::from_bits<" + t + ">(" + hex(n.imm[c]) + ")";
                break;
            case Op::Uniform:
                for (int c = 0; c < w; ++c)
                    e[c] = "rill::cpu::native::from_bits<" + t + ">(U[" + std::to_string(n.imm[0] + c) + "])";
                break;
            case Op::LocalId: e[0] = "static_cast<std::int32_t>(l)"; break;
            case Op::GroupId: e[0] = "static_cast<std::int32_t>(group)"; break;
            case Op::NumGroups: e[0] = "static_cast<std::int32_t>(a->num_groups)"; break;
            case Op::ArraySize: e[0] = "static_cast<std::int32_t>(N" + std::to_string(n.aux) + ")"; break;
            case Op::GatherLoad: {
                // Gathered streams are read-only in the kernel: a pure expression.
                std::string at = "rill::cpu::native::gather_at(a->arrays[" + std::to_string(n.aux) + "]";
                for (int d = 0; d < arg_type(0).width; ++d) at += ", " + arg(0, d);
                at += ") * " + std::to_string(k_.params[n.aux].words);
                for (int c = 0; c < w; ++c)
                    e[c] = "rill::cpu::native::from_bits<" + t + ">(A" + std::to_string(n.aux) + "[" + at + " + " +
                           std::to_string(n.imm[0] + c) + "])";
                break;
            }
            case Op::SubgroupSize: e[0] = "std::int32_t{" + std::to_string(sg_) + "}"; break;
            case Op::SubgroupInvocation: e[0] = "static_cast<std::int32_t>(l % " + std::to_string(sg_) + ")"; break;
            case Op::Splat:
                for (int c = 0; c < w; ++c) e[c] = arg(0, 0);
                break;
            case Op::Construct: {
                int c = 0;
                for (int i = 0; i < n.nargs; ++i)
                    for (int j = 0; j < arg_type(i).width; ++j) e[c++] = arg(i, j);
                break;
            }
            case Op::Swizzle:
                for (int c = 0; c < w; ++c) e[c] = arg(0, static_cast<int>(n.imm[c]));
                break;
            case Op::Insert:
                for (int c = 0; c < w; ++c) e[c] = arg(0, c);
                for (int j = 0; j < arg_type(1).width; ++j) e[n.imm[j]] = arg(1, j);
                break;
            case Op::Cast: {
                const Scalar from = arg_type(0).scalar;
                for (int c = 0; c < w; ++c) {
                    if (n.type.scalar == Scalar::Bool)
                        e[c] = "(" + arg(0, c) + " != " + ctype(from) + "{0} ? 1u : 0u)";
                    else
                        e[c] = std::string("rill::sem::convert<") + t + ">(" + arg(0, c) + ")";
                }
                break;
            }
            case Op::Bitcast:
                for (int c = 0; c < w; ++c)
                    e[c] = "rill::cpu::native::from_bits<" + t + ">(rill::cpu::native::to_bits(" + arg(0, c) + "))";
                break;
            case Op::Select: {
                const bool per_component = arg_type(0).width > 1;
                for (int c = 0; c < w; ++c)
                    e[c] = "(" + arg(0, per_component ? c : 0) + " != 0u ? " + arg(1, c) + " : " + arg(2, c) + ")";
                break;
            }
            case Op::All: case Op::Any: {
                std::string r = n.op == Op::All ? "1u" : "0u";
                for (int c = 0; c < arg_type(0).width; ++c)
                    r = "(" + r + (n.op == Op::All ? " & " : " | ") + "static_cast<std::uint32_t>(" + arg(0, c) + " != 0u))";
                e[0] = r;
                break;
            }
            case Op::Dot: {
                std::string r = "(" + arg(0, 0) + " * " + arg(1, 0) + ")";
                for (int c = 1; c < arg_type(0).width; ++c) r = "(" + r + " + " + arg(0, c) + " * " + arg(1, c) + ")";
                e[0] = r;
                break;
            }
            case Op::Fma:
                for (int c = 0; c < w; ++c) e[c] = "rill::sem::fma(" + arg(0, c) + ", " + arg(1, c) + ", " + arg(2, c) + ")";
                break;
            case Op::BitfieldExtract:
                for (int c = 0; c < w; ++c)
                    e[c] = "rill::sem::bitfield_extract<" + t + ">(" + arg(0, c) + ", " + arg(1, 0) + ", " + arg(2, 0) + ")";
                break;
            default: {
                const Scalar s = arg_type(0).scalar;
                const std::string op = std::string("rill::ir::Op::") + ir::op_name(n.op);
                if (ir::is_elementwise_unary(n.op)) {
                    for (int c = 0; c < w; ++c)
                        e[c] = "rill::sem::unary<" + op + ", " + ctype(s) + ">(" + arg(0, c) + ")";
                } else if (ir::is_elementwise_binary(n.op)) {
                    // Both operands as the first one's type, as the lane executor reads them.
                    const bool same = arg_type(1).scalar == s;
                    for (int c = 0; c < w; ++c) {
                        std::string b = arg(1, c);
                        if (!same) b = std::string("rill::cpu::native::from_bits<") + ctype(s) + ">(rill::cpu::native::to_bits(" + b + "))";
                        e[c] = "rill::sem::binary<" + op + ", " + ctype(s) + ">(" + arg(0, c) + ", " + b + ")";
                    }
                } else {
                    RILL_UNREACHABLE(std::string("native code for ") + ir::op_name(n.op) + " in a group kernel");
                }
                break;
            }
        }
        def_components(id, e);
    }

    // --- memory --------------------------------------------------------------

    struct Place {
        std::string base, count;
        std::uint32_t stride;
        bool shared;
        bool unchecked;  // in range by construction (dsl::Unchecked, GroupOptions::unchecked_arrays)
    };
    Place place(bool shared, std::uint32_t id) const {
        if (shared) {
            const ir::SharedArray& s = k_.shared[id];
            return {"(shared + " + std::to_string(shared_offsets_[id]) + ")", std::to_string(s.count), s.words, true, s.unchecked};
        }
        return {"A" + std::to_string(id), "N" + std::to_string(id), k_.params[id].words, false, k_.unchecked_arrays};
    }

    /// RILL_CPU_VERIFY_UNCHECKED=1: compiled kernels stop with a trap where an
    /// access that skips rill's bounds checks (dsl::Unchecked,
    /// GroupOptions::unchecked_arrays: in range by construction) is not in
    /// range (a test knob, docs/TUNING.md: it checks those constructions on
    /// every test input; ASan alone misses an access that lands in another
    /// allocation).
    static bool verify_unchecked() {
        static const bool verify = env_flag("RILL_CPU_VERIFY_UNCHECKED");
        return verify;
    }

    /// `i{tag}` holds the index; returns the in-range condition.
    std::string index(const Place& p, ExprId idx, const std::string& tag) {
        if (p.unchecked) {
            if (const std::optional<std::pair<ExprId, std::uint32_t>> xc = small_positive_offset(idx)) {
                // x + c with 64-bit arithmetic, so that the compiler sees the
                // accesses at x + 1, x + 2, ... as consecutive addresses (one
                // vector load). Equal to the 32-bit sum: x + c in range did
                // not wrap (a wrapped int x + c, c > 0, is negative).
                line("const std::int64_t i" + tag + " = static_cast<std::int64_t>(" + val(xc->first, 0) + ") + " +
                     std::to_string(xc->second) + ";");
            } else {
                line("const std::int32_t i" + tag + " = " + val(idx, 0) + ";");
            }
            if (verify_unchecked())
                line("if (!(i" + tag + " >= 0 && static_cast<std::int64_t>(i" + tag + ") < static_cast<std::int64_t>(" + p.count +
                     "))) __builtin_trap();");
            return "(true)";
        }
        line("const std::int32_t i" + tag + " = " + val(idx, 0) + ";");
        for (const Unchecked& u : unchecked_)
            if (u.counter == idx)
                for (const Place& q : u.places)
                    if (q.base == p.base) return "(true)";
        return "(i" + tag + " >= 0 && static_cast<std::int64_t>(i" + tag + ") < " + p.count + ")";
    }
    /// x and c where `idx` is the int sum x + c1 + c2 ... of constants
    /// 0 < c_i with c = c1 + c2 ... < 2^16: nested sums give the same x, so
    /// that (x + 64) and (x + 64) + 1 are seen as neighbours. The partial sums
    /// did not wrap either where the whole is in range.
    std::optional<std::pair<ExprId, std::uint32_t>> small_positive_offset(ExprId idx) const {
        std::uint64_t c = 0;
        ExprId x = idx;
        for (;;) {
            const ir::Node& n = k_.node(x);
            if (n.op != Op::Add || n.type.scalar != Scalar::Int || n.type.width != 1) break;
            const ir::Node& term = k_.node(n.args[1]);
            if (term.op != Op::Const || term.imm[0] == 0 || term.imm[0] >= (1u << 16)) break;
            c += term.imm[0];
            x = n.args[0];
        }
        if (c == 0 || c >= (1u << 16)) return std::nullopt;
        return std::pair{x, static_cast<std::uint32_t>(c)};
    }
    /// Whether a store to `p` at `idx` is one of an in-range counted loop's
    /// consecutive stores into arrays large enough to skip the caches.
    bool streamed_at(std::uint32_t param, ExprId idx) const {
        for (const Unchecked& u : unchecked_)
            if (u.counter == idx && std::find(u.streamed.begin(), u.streamed.end(), param) != u.streamed.end())
                return true;
        return false;
    }
    /// The first element of vector k of `width` elements (int64: no overflow).
    std::string vector_start(ExprId k, int width) {
        return "static_cast<std::int64_t>(" + val(k, 0) + ") * " + std::to_string(width);
    }
    /// Whether element c of the vector starting at i{tag} lies in Array param p.
    std::string vector_in_range(std::uint32_t p, const std::string& tag, int c) const {
        const std::string e = "(i" + tag + " + " + std::to_string(c) + ")";
        const std::string in = "(" + e + " >= 0 && " + e + " < static_cast<std::int64_t>(N" + std::to_string(p) + "))";
        if (k_.unchecked_arrays) return verify_unchecked() ? "(" + in + " || (__builtin_trap(), false))" : "(true)";
        return in;
    }
    std::string element(const Place& p, const std::string& tag, std::uint32_t word) const {
        return p.base + "[static_cast<std::int64_t>(i" + tag + ") * " + std::to_string(p.stride) + " + " +
               std::to_string(word);
    }

    void emit_in_place(ExprId id) {
        const ir::Node& n = k_.node(id);
        const std::string tag = std::to_string(id);
        const std::string t = ctype(n.type.scalar);
        std::vector<std::string> e(n.type.width);
        bool as_vector = false;  // defined by def_vec4
        if (n.op == Op::ReadVar) {
            note_var(n.aux);
            for (int c = 0; c < n.type.width; ++c) e[c] = var_ref(n.aux, c);
        } else if ((n.op == Op::ArrayLoad || n.op == Op::SharedLoad) && float4(n.type)) {
            const Place p = place(n.op == Op::SharedLoad, n.aux);
            const std::string ok = index(p, n.args[0], tag);
            def_vec4(id, ok + " ? rill::cpu::native::load_f4(&" + element(p, tag, n.imm[0]) + "]) : rill::cpu::native::f4{}");
            as_vector = true;
        } else if (n.op == Op::ArrayLoad || n.op == Op::SharedLoad) {
            const Place p = place(n.op == Op::SharedLoad, n.aux);
            const std::string ok = index(p, n.args[0], tag);
            line("const bool ok" + tag + " = " + ok + ";");
            for (int c = 0; c < n.type.width; ++c)
                e[c] = "ok" + tag + " ? rill::cpu::native::from_bits<" + t + ">(" + element(p, tag, n.imm[0] + c) + "]) : " + t + "{}";
        } else if (n.op == Op::ArrayLoadVector) {
            line("const std::int64_t i" + tag + " = " + vector_start(n.args[0], n.type.width) + ";");
            for (int c = 0; c < n.type.width; ++c)
                e[c] = vector_in_range(n.aux, tag, c) + " ? rill::cpu::native::from_bits<" + t + ">(A" +
                       std::to_string(n.aux) + "[i" + tag + " + " + std::to_string(c) + "]) : " + t + "{}";
        } else if (n.op == Op::Atomic) {
            const Place p = place(n.imm[2] != 0, n.aux);
            const std::string ok = index(p, n.args[0], tag);
            const std::string v = n.nargs > 1 ? "rill::cpu::native::to_bits(" + val(n.args[1], 0) + ")" : "0u";
            const std::string cmp = n.nargs > 2 ? "rill::cpu::native::to_bits(" + val(n.args[2], 0) + ")" : "0u";
            line("std::uint32_t r" + tag + " = 0;");
            line("if " + ok + " r" + tag + " = rill::cpu::native::" + (p.shared ? "atomic_shared(" : "atomic_global(") +
                 element(p, tag, n.imm[0]) + "], static_cast<rill::ir::AtomicOp>(" + std::to_string(n.imm[1]) + "), " +
                 scalar_enum(n.type.scalar) + ", " + v + ", " + cmp + ");");
            e[0] = "rill::cpu::native::from_bits<" + t + ">(r" + tag + ")";
        } else {
            RILL_UNREACHABLE("not a lane-local in-place node");
        }
        if (!as_vector) def_components(id, e);
        if (final_ && crosses_[id])
            for (int c = 0; c < n.type.width; ++c)
                line(col(id) + "[" + std::to_string(c * wg_) + " + l] = rill::cpu::native::to_bits(" + name(id, c) + ");");
    }

    // --- variables -----------------------------------------------------------

    void note_var(ir::VarId v) {
        if (level_->scalar(v)) return;
        int& p = var_phase_[v];
        if (repeating_loops_ > 0) p = kMany;
        else if (p == kUnseen) p = phase_;
        else if (p != phase_) p = kMany;
    }
    bool var_local(ir::VarId v) const { return final_ && var_phase_[v] >= 0; }
    std::string scalar_var(ir::VarId v, int c) const { return "u" + std::to_string(v) + "_" + std::to_string(c); }
    std::string var_ref(ir::VarId v, int c) const {
        if (level_->scalar(v)) return scalar_var(v, c);
        if (var_local(v)) return "v" + std::to_string(v) + "_" + std::to_string(c);
        const std::string t = ctype(k_.vars[v].scalar);
        return "rill::cpu::native::from_bits<" + t + ">(var" + std::to_string(v) + "[" + std::to_string(c * wg_) + " + l])";
    }

    // --- statements ----------------------------------------------------------

    /// A lane loop over the per-lane statements `run` of a block whose lanes
    /// are `m`; `level`: the block is at workgroup level.
    void lane_loop(const std::vector<ir::StmtId>& run, const std::string& m, bool level) {
        bool any = false;
        for (ir::StmtId s : run) any = any || (k_.stmt(s).kind != StmtKind::Nop && !dead_def(k_.stmt(s)));
        if (!any) return;
        open_phase(m, level);
        for (ir::StmtId s : run) stmt(s);
        close_phase();
    }

    /// At workgroup level with every lane live, `m` is all ones and is not read.
    bool every_lane(bool level) const { return level && level_->all_lanes_live(); }

    void open_phase(const std::string& m, bool level) {
        phase_ = phase_count_++;
        lane_mask_ = m;
        line("for (int l = 0; l < " + wg() + "; ++l) {");
        ++indent_;
        if (!every_lane(level)) line("if (!" + m + "[l]) continue;");
        line("{");
        ++indent_;
        scopes_.emplace_back();
        if (final_)
            for (ir::VarId v = 0; v < k_.vars.size(); ++v)
                if (var_phase_[v] == phase_)
                    for (int c = 0; c < k_.vars[v].width; ++c)
                        line(std::string(ctype(k_.vars[v].scalar)) + " v" + std::to_string(v) + "_" + std::to_string(c) + "{};");
    }
    void close_phase() {
        --indent_;
        line("}");
        line("next" + std::to_string(phase_) + ":;");
        --indent_;
        line("}");
        scopes_.pop_back();
        phase_ = -1;
    }

    /// Block b, whose lanes are `m`: runs of per-lane statements in lane loops
    /// between the statements that run once per workgroup (at `level`, see
    /// workgroup_level.h, or masked).
    void block(ir::BlockId b, const std::string& m, bool level) {
        std::vector<ir::StmtId> run;
        for (ir::StmtId s : k_.block(b)) {
            const bool at_level = level && level_->statement(s);
            if (!collective_[s] && !at_level) {
                run.push_back(s);
                continue;
            }
            lane_loop(run, m, level);
            run.clear();
            if (at_level) workgroup_statement(s, m);
            else collective(s, m, level);
        }
        lane_loop(run, m, level);
    }

    /// A statement at workgroup level: plain C++ control flow and scalars.
    void workgroup_statement(ir::StmtId s, const std::string& m) {
        const ir::Stmt& st = k_.stmt(s);
        switch (st.kind) {
            case StmtKind::Assign: {
                std::vector<std::string> v;
                for (int c = 0; c < k_.vars[st.a].width; ++c) v.push_back(val(st.b, c));
                for (int c = 0; c < k_.vars[st.a].width; ++c) line(scalar_var(st.a, c) + " = " + v[c] + ";");
                return;
            }
            case StmtKind::Def: {
                // A global scalar: later lane loops and blocks read it wherever they are.
                const ir::Node& n = k_.node(st.a);
                for (int c = 0; c < n.type.width; ++c) {
                    if (final_) decls_ += "    " + type_of(st.a) + " " + name(st.a, c) + "{};\n";
                    line(name(st.a, c) + " = " + scalar_var(n.aux, c) + ";");
                }
                level_defined_[st.a] = 1;
                return;
            }
            case StmtKind::Return: line("return done();"); return;
            case StmtKind::Break: case StmtKind::Continue:
                RILL_ASSERT(!loops_.empty() && loops_.back().level, "a workgroup-level jump out of a per-lane loop");
                line(st.kind == StmtKind::Break ? "break;" : "goto cont" + std::to_string(loops_.back().label) + ";");
                return;
            case StmtKind::If: return if_else(st, &m);
            case StmtKind::Loop: return plain_loop(st, &m);
            default:
                RILL_UNREACHABLE("not a workgroup-level statement");
        }
    }

    void collective(ir::StmtId s, const std::string& m, bool level) {
        const ir::Stmt& st = k_.stmt(s);
        switch (st.kind) {
            case StmtKind::Barrier:
                if (!every_lane(level)) line("if (!uniform_lanes(" + m + ")) return rill::cpu::native::kBarrierDiverged;");
                return;
            case StmtKind::Def: {
                const ExprId id = st.a;
                const ir::Node& n = k_.node(id);
                crosses_[id] = 1;
                const int vw = k_.node(n.args[0]).type.width;
                const std::string value = scratch("sv" + std::to_string(id), static_cast<std::size_t>(vw) * wg_);
                const std::string arg = n.nargs > 1 ? scratch("sa" + std::to_string(id), wg_) : "nullptr";
                const std::string out = scratch(col(id), static_cast<std::size_t>(n.type.width) * wg_);
                open_phase(m, level);
                for (int c = 0; c < vw; ++c)
                    line(value + "[" + std::to_string(c * wg_) + " + l] = rill::cpu::native::to_bits(" + val(n.args[0], c) + ");");
                if (n.nargs > 1) line(arg + "[l] = rill::cpu::native::to_bits(" + val(n.args[1], 0) + ");");
                close_phase();
                line("a->subgroup(a->program, " + std::to_string(id) + ", " + value + ", " + arg + ", " + m + ", " + out + ");");
                return;
            }
            case StmtKind::If: {
                const std::string t = mask("t"), e = mask("e");
                open_phase(m, level);
                line("const bool c = " + val(st.a, 0) + " != 0u;");
                line(t + "[l] = c ? ~0u : 0u;");
                line(e + "[l] = c ? 0u : ~0u;");
                close_phase();
                // Lanes of `m` that are off took neither branch.
                line("for (int l = 0; l < " + wg() + "; ++l) if (!" + m + "[l]) " + t + "[l] = " + e + "[l] = 0u;");
                line("if (any_lane(" + t + ")) {");
                ++indent_;
                block(st.b, t, false);
                --indent_;
                line("}");
                line("if (any_lane(" + e + ")) {");
                ++indent_;
                block(st.c, e, false);
                --indent_;
                line("}");
                line("for (int l = 0; l < " + wg() + "; ++l) " + m + "[l] = " + t + "[l] | " + e + "[l];");
                return;
            }
            case StmtKind::Loop: {
                const std::string active = mask("a"), broken = mask("b"), cont = mask("c");
                line("for (int l = 0; l < " + wg() + "; ++l) { " + active + "[l] = " + m + "[l]; " + broken + "[l] = 0u; }");
                line("while (any_lane(" + active + ")) {");
                ++indent_;
                line("for (int l = 0; l < " + wg() + "; ++l) " + cont + "[l] = 0u;");
                loops_.push_back({true, broken, cont, 0});
                ++repeating_loops_;
                block(st.a, active, false);
                line("for (int l = 0; l < " + wg() + "; ++l) " + active + "[l] |= " + cont + "[l];");
                block(st.b, active, false);
                --repeating_loops_;
                loops_.pop_back();
                --indent_;
                line("}");
                // Lanes leave a loop only through Break (or Return, which keeps them out).
                line("for (int l = 0; l < " + wg() + "; ++l) " + m + "[l] = " + broken + "[l];");
                return;
            }
            default:
                RILL_UNREACHABLE("not a collective statement");
        }
    }

    /// Block b in braces: per lane inside a lane loop, or with `level_lanes`
    /// at workgroup level, whose lanes they are.
    void nested(ir::BlockId b, const std::string* level_lanes = nullptr) {
        line("{");
        ++indent_;
        scopes_.emplace_back();
        if (level_lanes) block(b, *level_lanes, true);
        else for (ir::StmtId s : k_.block(b)) stmt(s);
        scopes_.pop_back();
        --indent_;
        line("}");
    }

    /// An If or a Loop as C++ control flow, per lane or at workgroup level (nested).
    void if_else(const ir::Stmt& st, const std::string* level_lanes = nullptr) {
        line("if (" + val(st.a, 0) + " != 0u)");
        nested(st.b, level_lanes);
        line("else");
        nested(st.c, level_lanes);
    }
    void plain_loop(const ir::Stmt& st, const std::string* level_lanes = nullptr) {
        const int label = serial_++;
        const bool level = level_lanes != nullptr;
        loops_.push_back({false, "", "", label, level});
        if (level) ++repeating_loops_;
        line("for (;;) {");
        ++indent_;
        nested(st.a, level_lanes);
        line("cont" + std::to_string(label) + ":;");
        nested(st.b, level_lanes);
        --indent_;
        line("}");
        if (level) --repeating_loops_;
        loops_.pop_back();
    }

    /// A statement for lane `l` inside a lane loop.
    void stmt(ir::StmtId s) {
        const ir::Stmt& st = k_.stmt(s);
        const std::string next = "goto next" + std::to_string(phase_) + ";";
        switch (st.kind) {
            case StmtKind::Nop: return;
            case StmtKind::Def:
                if (!dead_def(st)) emit_in_place(st.a);
                return;
            case StmtKind::Assign: {
                RILL_ASSERT(!level_->scalar(st.a), "a scalar variable assigned per lane");
                note_var(st.a);
                std::vector<std::string> v;
                for (int c = 0; c < k_.vars[st.a].width; ++c) v.push_back(val(st.b, c));
                for (int c = 0; c < k_.vars[st.a].width; ++c) {
                    if (var_local(st.a)) line("v" + std::to_string(st.a) + "_" + std::to_string(c) + " = " + v[c] + ";");
                    else
                        line("var" + std::to_string(st.a) + "[" + std::to_string(c * wg_) + " + l] = rill::cpu::native::to_bits(" +
                             v[c] + ");");
                }
                return;
            }
            case StmtKind::ArrayStore: case StmtKind::SharedStore: {
                const Place p = place(st.kind == StmtKind::SharedStore, st.a);
                const std::string tag = "s" + std::to_string(s);
                const int w = k_.node(st.b).type.width;
                std::vector<std::string> v;
                for (int c = 0; c < w; ++c) v.push_back(val(st.b, c));
                const std::string ok = index(p, st.c, tag);
                const bool streamed = st.kind == StmtKind::ArrayStore && streamed_at(st.a, st.c);
                if (!streamed && float4(k_.node(st.b).type) && has_vec(st.b)) {
                    line("if " + ok + " rill::cpu::native::store_f4(&" + element(p, tag, st.d) + "], " + vec_name(st.b) + ");");
                    return;
                }
                std::string body;
                for (int c = 0; c < w; ++c) {
                    const std::string bits = "rill::cpu::native::to_bits(" + v[c] + ")";
                    body += streamed ? " rill::cpu::native::store_streamed(&" + element(p, tag, st.d + c) + "], " + bits + ");"
                                     : " " + element(p, tag, st.d + c) + "] = " + bits + ";";
                }
                line(streamed ? body : "if " + ok + " {" + body + " }");
                return;
            }
            case StmtKind::ArrayStoreVector: {
                const std::string tag = "s" + std::to_string(s);
                const int w = k_.node(st.b).type.width;
                std::vector<std::string> v;
                for (int c = 0; c < w; ++c) v.push_back(val(st.b, c));
                line("{ const std::int64_t i" + tag + " = " + vector_start(st.c, w) + ";");
                for (int c = 0; c < w; ++c)
                    line("  if " + vector_in_range(st.a, tag, c) + " A" + std::to_string(st.a) + "[i" + tag + " + " +
                         std::to_string(c) + "] = rill::cpu::native::to_bits(" + v[c] + ");");
                line("}");
                return;
            }
            case StmtKind::Fence:
                if (streamed_) line("rill::cpu::native::fence_streamed();");  // known from the first pass on the final one
                line("rill::cpu::native::fence();");
                return;
            case StmtKind::If: return if_else(st);
            case StmtKind::Loop: {
                const std::optional<Counted> counted = counted_loop(st);
                if (!counted) return plain_loop(st);
                // Every access indexed by the counter is in range for the
                // whole loop, or not: checked once, an unchecked copy runs.
                line("{");
                ++indent_;
                scopes_.emplace_back();
                const std::string tag = std::to_string(serial_++);
                note_var(counted->var);
                line("const std::int32_t lo" + tag + " = " + var_ref(counted->var, 0) + ";");
                line("const std::int32_t hi" + tag + " = " + val(counted->last, 0) + ";");
                std::string in_range = "lo" + tag + " >= 0";
                for (const Place& p : counted->places)
                    in_range += " && static_cast<std::int64_t>(hi" + tag + ") <= " + p.count;
                // One copy per case, chosen once per loop: consecutive stores
                // into large arrays skipping the caches (all S flags set), in
                // range, or neither.
                auto unchecked_copy = [&](const std::string& condition, bool streamed) {
                    line(condition + ") {");
                    ++indent_;
                    unchecked_.push_back({counted->counter, counted->places, streamed ? counted->stored : std::vector<std::uint32_t>{}});
                    plain_loop(st);
                    unchecked_.pop_back();
                    --indent_;
                };
                if (!counted->stored.empty()) {
                    std::string large;
                    for (std::uint32_t param : counted->stored) large += " && S" + std::to_string(param);
                    streamed_ = true;
                    unchecked_copy("if (" + in_range + large, true);
                    unchecked_copy("} else if (" + in_range, false);
                } else {
                    unchecked_copy("if (" + in_range, false);
                }
                line("} else {");
                ++indent_;
                plain_loop(st);
                --indent_;
                line("}");
                scopes_.pop_back();
                --indent_;
                line("}");
                return;
            }
            case StmtKind::Break: case StmtKind::Continue: {
                RILL_ASSERT(!loops_.empty(), "break or continue outside a loop");
                const LoopCtx& lc = loops_.back();
                RILL_ASSERT(!lc.level, "a per-lane jump out of a workgroup-level loop");
                const bool is_break = st.kind == StmtKind::Break;
                if (!lc.masked) {
                    line(is_break ? "break;" : "goto cont" + std::to_string(lc.label) + ";");
                    return;
                }
                line("{ " + (is_break ? lc.broken : lc.continued) + "[l] = ~0u; " + lane_mask_ + "[l] = 0u; " + next + " }");
                return;
            }
            case StmtKind::Return:
                line("{ " + lane_mask_ + "[l] = 0u; " + next + " }");
                return;
            case StmtKind::Store: case StmtKind::Barrier:
                RILL_UNREACHABLE("statement not expected in a lane loop of a group kernel");
        }
    }

    /// A per-lane loop as the DSL's For(begin, end) makes it: it starts by
    /// reading its counter and breaking once counter >= last, its continuing
    /// block adds 1, nothing else assigns the counter, and `last` is known
    /// before the loop. Its body then sees counter values in [value at entry,
    /// last) only, and `places` are the memories it indexes by the counter.
    struct Counted {
        ir::VarId var;
        ExprId counter, last;
        std::vector<Place> places;
        std::vector<std::uint32_t> stored;  // the array params (not shared memory) it stores to at the counter
        std::vector<std::uint32_t> loaded;  // the array params it loads from, at any index
    };
    std::vector<ir::StmtId> statements(ir::BlockId b) const {
        std::vector<ir::StmtId> out;
        for (ir::StmtId s : k_.block(b))
            if (k_.stmt(s).kind != StmtKind::Nop) out.push_back(s);
        return out;
    }
    std::optional<Counted> counted_loop(const ir::Stmt& loop) {
        const std::vector<ir::StmtId> head = statements(loop.a), step = statements(loop.b);
        if (head.size() < 2 || step.size() != 2) return std::nullopt;
        const ir::Stmt& read = k_.stmt(head[0]);
        const ir::Stmt& test = k_.stmt(head[1]);
        if (read.kind != StmtKind::Def || k_.node(read.a).op != Op::ReadVar || test.kind != StmtKind::If) return std::nullopt;
        const ExprId counter = read.a;
        const ir::VarId var = k_.node(counter).aux;
        const ir::Node& cond = k_.node(test.a);
        if (cond.op != Op::Ge || cond.args[0] != counter || k_.vars[var].scalar != Scalar::Int || k_.vars[var].width != 1)
            return std::nullopt;
        const std::vector<ir::StmtId> then = statements(test.b);
        if (then.size() != 1 || k_.stmt(then[0]).kind != StmtKind::Break || !statements(test.c).empty()) return std::nullopt;
        const ir::Stmt& again = k_.stmt(step[0]);
        const ir::Stmt& add = k_.stmt(step[1]);
        if (again.kind != StmtKind::Def || k_.node(again.a).op != Op::ReadVar || k_.node(again.a).aux != var ||
            add.kind != StmtKind::Assign || add.a != var)
            return std::nullopt;
        const ir::Node& sum = k_.node(add.b);
        if (sum.op != Op::Add || sum.args[0] != again.a || k_.node(sum.args[1]).op != Op::Const || k_.node(sum.args[1]).imm[0] != 1u)
            return std::nullopt;
        Counted c{var, counter, cond.args[1], {}, {}, {}};
        if (!known_now(c.last)) return std::nullopt;
        int assigns = 0;
        scan_loop(loop.a, c, assigns);
        scan_loop(loop.b, c, assigns);
        if (assigns != 1 || c.places.empty()) return std::nullopt;
        // An array the loop also reads (y = a x + y) is in the caches already:
        // stores past them would evict lines just read and save no read
        // (SAXPY of 2^24 took 9.7 ms so against 3.5 ms, this machine, 2026-12-03).
        std::erase_if(c.stored, [&](std::uint32_t p) { return std::find(c.loaded.begin(), c.loaded.end(), p) != c.loaded.end(); });
        return c;
    }
    /// Whether every in-place value of `id` is visible here (so that it is the same all through a loop after).
    bool known_now(ExprId id) const {
        const ir::Node& n = k_.node(id);
        if (ir::defined_in_place(n.op)) return visible(id);
        for (int i = 0; i < n.nargs; ++i)
            if (!known_now(n.args[i])) return false;
        return true;
    }
    /// Counts the Assigns to the counter and collects the places it indexes.
    void scan_loop(ir::BlockId b, Counted& c, int& assigns) {
        if (b == ir::kNone) return;
        auto add_place = [&](bool shared, std::uint32_t id) {
            const Place p = place(shared, id);
            for (const Place& q : c.places)
                if (q.base == p.base) return;
            c.places.push_back(p);
        };
        for (ir::StmtId s : k_.block(b)) {
            const ir::Stmt& st = k_.stmt(s);
            switch (st.kind) {
                case StmtKind::Assign: assigns += st.a == c.var; break;
                case StmtKind::Def: {
                    const ir::Node& n = k_.node(st.a);
                    if ((n.op == Op::ArrayLoad || n.op == Op::SharedLoad) && n.args[0] == c.counter)
                        add_place(n.op == Op::SharedLoad, n.aux);
                    if (n.op == Op::ArrayLoad || n.op == Op::ArrayLoadVector) c.loaded.push_back(n.aux);
                    break;
                }
                case StmtKind::ArrayStore: case StmtKind::SharedStore:
                    if (st.c == c.counter) {
                        add_place(st.kind == StmtKind::SharedStore, st.a);
                        if (st.kind == StmtKind::ArrayStore && std::find(c.stored.begin(), c.stored.end(), st.a) == c.stored.end())
                            c.stored.push_back(st.a);
                    }
                    break;
                case StmtKind::If: scan_loop(st.b, c, assigns), scan_loop(st.c, c, assigns); break;
                case StmtKind::Loop: scan_loop(st.a, c, assigns), scan_loop(st.b, c, assigns); break;
                default: break;
            }
        }
    }

    // --- the whole kernel ----------------------------------------------------

    void run_pass(bool final_pass) {
        final_ = final_pass;
        body_.clear();
        decls_.clear();
        scratch_ = 0;
        serial_ = 0;
        phase_count_ = 0;
        indent_ = 1;
        scopes_.assign(1, {});
        std::fill(level_defined_.begin(), level_defined_.end(), 0);
        invariants_.clear();
        if (final_) {
            for (ExprId id = 0; id < k_.nodes.size(); ++id)
                if (crosses_[id] && k_.node(id).op != Op::Subgroup)
                    scratch(col(id), static_cast<std::size_t>(k_.node(id).type.width) * wg_);
            for (ir::VarId v = 0; v < k_.vars.size(); ++v) {
                if (level_->scalar(v))
                    for (int c = 0; c < k_.vars[v].width; ++c)
                        decls_ += std::string("    ") + ctype(k_.vars[v].scalar) + " " + scalar_var(v, c) + "{};\n";
                else if (var_phase_[v] < 0)
                    scratch("var" + std::to_string(v), static_cast<std::size_t>(k_.vars[v].width) * wg_);
            }
        }
        const std::string all = mask("all");
        line("for (int l = 0; l < " + wg() + "; ++l) " + all + "[l] = ~0u;");
        block(k_.body, all, true);
    }

    std::string prelude() const {
        std::string p =
            "// Generated by rill's CPU backend from kernel '" + k_.name + "' (native_codegen.cpp).\n"
            "#include \"native_prelude.h\"\n\n"
            "namespace {\n"
            "inline bool any_lane(const std::uint32_t* m) {\n"
            "    std::uint32_t r = 0;\n"
            "    for (int l = 0; l < " + wg() + "; ++l) r |= m[l];\n"
            "    return r != 0;\n}\n"
            "inline bool uniform_lanes(const std::uint32_t* m) {\n"
            "    std::uint32_t all = ~0u, any = 0;\n"
            "    for (int l = 0; l < " + wg() + "; ++l) { all &= m[l]; any |= m[l]; }\n"
            "    return any == 0 || all == ~0u;\n}\n"
            // Stores that skip the caches are ordered by a fence only: the
            // workgroup's results must be visible when it ends.
            "inline int done() {" + std::string(streamed_ ? " rill::cpu::native::fence_streamed();" : "") +
            " return 0; }\n"
            "}  // namespace\n\n"
            "extern \"C\" int rill_workgroup(const rill::cpu::native::Args* a, std::int64_t group, std::uint32_t* scratch,\n"
            "                                std::uint32_t* shared) {\n"
            "    (void)shared;\n"
            "    const std::uint32_t* const U = a->uniforms;\n"
            "    (void)U;\n";
        for (std::size_t i = 0; i < k_.params.size(); ++i) {
            if (k_.params[i].kind != ir::ParamKind::Array && k_.params[i].kind != ir::ParamKind::Gather) continue;
            const std::string s = std::to_string(i);
            p += "    std::uint32_t* const A" + s + " = a->arrays[" + s + "].words;\n";
            p += "    const std::int64_t N" + s + " = a->arrays[" + s + "].count;\n";
            p += "    (void)A" + s + "; (void)N" + s + ";\n";
            if (streamed_) p += "    const bool S" + s + " = a->arrays[" + s + "].streamed;\n    (void)S" + s + ";\n";
        }
        return p;
    }

    const ir::Kernel& k_;
    const int wg_;
    const int sg_;
    const std::vector<std::size_t>& shared_offsets_;
    std::vector<char> used_;      // per node: an operand of something
    std::vector<char> collective_;
    std::optional<WorkgroupLevel> level_;
    std::vector<char> crosses_;   // per node: read in another lane loop than its Def's
    std::vector<char> level_defined_;  // per node: a workgroup-level scalar, visible everywhere after
    std::vector<int> var_phase_;  // per variable: the one lane loop using it, or kMany
    bool final_ = false;
    std::string body_, decls_;
    std::string invariants_;  // what WorkgroupLevel::invariant holds, computed at the top
    /// An enclosing counted loop, in its copy for in-range accesses.
    struct Unchecked {
        ExprId counter;
        std::vector<Place> places;
        std::vector<std::uint32_t> streamed;  // in the copy whose stores at the counter skip the caches: their arrays
    };
    std::vector<Unchecked> unchecked_;
    bool streamed_ = false;  // some store may skip the caches (store_streamed)
    bool hoisting_ = false;
    std::size_t scratch_ = 0;
    int serial_ = 0;
    int indent_ = 1;
    int phase_ = -1, phase_count_ = 0;
    int repeating_loops_ = 0;  // masked or workgroup-level loops around the current code
    std::string lane_mask_;
    std::vector<std::unordered_map<ExprId, char>> scopes_;
    std::vector<LoopCtx> loops_;
};

}  // namespace

std::optional<NativeSource> generate_native(const ir::Kernel& k, int subgroup_size,
                                            const std::vector<std::size_t>& shared_offsets) {
    if (!k.is_group_kernel()) return std::nullopt;
    if (k.epilogue != ir::kNone)
        for (ir::StmtId s : k.block(k.epilogue))
            if (k.stmt(s).kind != StmtKind::Nop) return std::nullopt;
    return Generator(k, subgroup_size, shared_offsets).generate();
}

}  // namespace rill::cpu
