#include "rill/core/ir.h"

#include <bit>
#include <cstring>

#include "rill/core/error.h"
#include "rill/core/op_traits.h"
#include "rill/core/semantics.h"

namespace rill {

std::string to_string(Scalar s) {
    switch (s) {
        case Scalar::Bool: return "bool";
        case Scalar::Int: return "int";
        case Scalar::Uint: return "uint";
        case Scalar::Float: return "float";
    }
    RILL_UNREACHABLE("bad scalar kind");
}

std::string to_string(Type t) {
    std::string s = to_string(t.scalar);
    if (t.width > 1) s += std::to_string(t.width);
    return s;
}

}  // namespace rill

namespace rill::ir {

const char* op_name(Op op) {
    switch (op) {
#define RILL_OP_NAME(name, arity) \
    case Op::name: return #name;
        RILL_FOR_EACH_OP(RILL_OP_NAME)
#undef RILL_OP_NAME
    }
    RILL_UNREACHABLE("bad op");
}

int op_arity(Op op) {
    switch (op) {
#define RILL_OP_ARITY(name, arity) \
    case Op::name: return arity;
        RILL_FOR_EACH_OP(RILL_OP_ARITY)
#undef RILL_OP_ARITY
    }
    RILL_UNREACHABLE("bad op");
}

const char* stmt_name(StmtKind kind) {
    switch (kind) {
        case StmtKind::Nop: return "nop";
        case StmtKind::Def: return "def";
        case StmtKind::Assign: return "assign";
        case StmtKind::Store: return "store";
        case StmtKind::If: return "if";
        case StmtKind::Loop: return "loop";
        case StmtKind::Break: return "break";
        case StmtKind::Continue: return "continue";
        case StmtKind::Return: return "return";
        case StmtKind::ArrayStore: return "array_store";
        case StmtKind::ArrayStoreVector: return "array_store_vector";
        case StmtKind::SharedStore: return "shared_store";
        case StmtKind::Barrier: return "barrier";
        case StmtKind::Fence: return "fence";
    }
    RILL_UNREACHABLE("bad statement kind");
}

const char* param_kind_name(ParamKind kind) {
    switch (kind) {
        case ParamKind::Uniform: return "constant";
        case ParamKind::Input: return "input stream";
        case ParamKind::Output: return "output stream";
        case ParamKind::Gather: return "gather stream";
        case ParamKind::Array: return "array";
    }
    RILL_UNREACHABLE("bad param kind");
}

const char* atomic_op_name(AtomicOp op) {
    switch (op) {
        case AtomicOp::Add: return "add";
        case AtomicOp::Min: return "min";
        case AtomicOp::Max: return "max";
        case AtomicOp::And: return "and";
        case AtomicOp::Or: return "or";
        case AtomicOp::Xor: return "xor";
        case AtomicOp::Exchange: return "exchange";
        case AtomicOp::CompareExchange: return "compare_exchange";
        case AtomicOp::Load: return "load";
    }
    RILL_UNREACHABLE("bad atomic op");
}

const char* subgroup_op_name(SubgroupOp op) {
    switch (op) {
        case SubgroupOp::Elect: return "elect";
        case SubgroupOp::All: return "all";
        case SubgroupOp::Any: return "any";
        case SubgroupOp::Ballot: return "ballot";
        case SubgroupOp::Broadcast: return "broadcast";
        case SubgroupOp::BroadcastFirst: return "broadcast_first";
        case SubgroupOp::Shuffle: return "shuffle";
        case SubgroupOp::ShuffleXor: return "shuffle_xor";
        case SubgroupOp::ShuffleUp: return "shuffle_up";
        case SubgroupOp::ShuffleDown: return "shuffle_down";
        case SubgroupOp::Reduce: return "reduce";
        case SubgroupOp::InclusiveScan: return "inclusive_scan";
        case SubgroupOp::ExclusiveScan: return "exclusive_scan";
        case SubgroupOp::Match: return "match";
    }
    RILL_UNREACHABLE("bad subgroup op");
}

Type result_type(Op op, Type a, Type b) {
    RILL_ASSERT(op_accepts(op, a.scalar),
                std::string(op_name(op)) + " does not accept " + to_string(a));
    switch (op_class(op)) {
        case OpClass::BoolReduce:
        case OpClass::Dot:
            return Type{op_class(op) == OpClass::Dot ? Scalar::Float : Scalar::Bool, 1};
        case OpClass::Numeric: case OpClass::FloatBinary: case OpClass::IntBinary:
        case OpClass::BoolBinary: case OpClass::Compare: case OpClass::Equality:
            RILL_ASSERT(a == b, std::string(op_name(op)) + ": operand types " + to_string(a) +
                                    " and " + to_string(b) + " differ");
            break;
        default:
            break;
    }
    return Type{op_result_scalar(op, a.scalar), a.width};
}

// ---------------------------------------------------------------------------

namespace {

inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

std::uint64_t hash_node(const Node& n) {
    std::uint64_t h = mix(0, static_cast<std::uint64_t>(n.op));
    h = mix(h, static_cast<std::uint64_t>(n.type.scalar) << 8 | n.type.width);
    h = mix(h, static_cast<std::uint64_t>(n.nargs) << 16 | n.aux);
    for (int i = 0; i < 4; ++i) h = mix(h, (static_cast<std::uint64_t>(n.args[i]) << 32) | n.imm[i]);
    return h;
}

std::uint64_t hash_string(std::uint64_t h, const std::string& s) {
    for (unsigned char c : s) h = mix(h, c);
    return mix(h, s.size());
}

template <class T>
std::uint32_t to_bits(T v) {
    if constexpr (std::is_same_v<T, float>) return std::bit_cast<std::uint32_t>(v);
    else return static_cast<std::uint32_t>(v);
}
template <class T>
T from_bits(std::uint32_t b) {
    if constexpr (std::is_same_v<T, float>) return std::bit_cast<float>(b);
    else return static_cast<T>(b);
}

std::uint32_t convert_bits(std::uint32_t v, Scalar from, Scalar to) {
    auto as = [&]<class From>(From x) -> std::uint32_t {
        switch (to) {
            case Scalar::Float: return to_bits(sem::convert<float>(x));
            case Scalar::Int: return to_bits(sem::convert<std::int32_t>(x));
            case Scalar::Uint: return to_bits(sem::convert<std::uint32_t>(x));
            case Scalar::Bool: return x != From{0} ? 1u : 0u;
        }
        RILL_UNREACHABLE("bad scalar kind");
    };
    switch (from) {
        case Scalar::Float: return as(from_bits<float>(v));
        case Scalar::Int: return as(from_bits<std::int32_t>(v));
        case Scalar::Uint: return as(v);
        case Scalar::Bool: return as(v != 0 ? 1u : 0u);
    }
    RILL_UNREACHABLE("bad scalar kind");
}

}  // namespace

/// Public so that backends can apply the same conversion to whole lanes.
std::uint32_t convert_scalar_bits(std::uint32_t v, Scalar from, Scalar to) {
    return convert_bits(v, from, to);
}

std::size_t Builder::NodeHash::operator()(const Node& n) const { return hash_node(n); }

std::uint64_t Kernel::hash() const {
    std::uint64_t h = mix(0x72696c6c, nodes.size());
    for (const Node& n : nodes) h = mix(h, hash_node(n));
    for (const Stmt& s : stmts) {
        h = mix(h, static_cast<std::uint64_t>(s.kind));
        h = mix(h, (static_cast<std::uint64_t>(s.a) << 32) | s.b);
        h = mix(h, (static_cast<std::uint64_t>(s.c) << 32) | s.d);
    }
    h = mix(h, (static_cast<std::uint64_t>(subgroup_size) << 32) | workgroup_size);
    h = mix(h, static_cast<std::uint64_t>(spirv_opt));
    h = mix(h, unchecked_arrays);
    h = mix(h, shared_only_barriers);
    h = mix(h, parameters_at_start);
    h = mix(h, quick_build);
    for (const SharedArray& a : shared) {
        h = mix(h, (static_cast<std::uint64_t>(a.words) << 32) | a.count);
        h = mix(h, (static_cast<std::uint64_t>(a.per_invocation) << 1) | a.unchecked);
        h = hash_string(h, a.type_name);
    }
    for (const auto& b : blocks) {
        h = mix(h, b.size());
        for (StmtId s : b) h = mix(h, s);
    }
    for (Type t : vars) h = mix(h, static_cast<std::uint64_t>(t.scalar) << 8 | t.width);
    for (const Param& p : params) {
        h = mix(h, static_cast<std::uint64_t>(p.kind));
        h = mix(h, (static_cast<std::uint64_t>(p.words) << 32) | p.uniform_offset);
        h = mix(h, (static_cast<std::uint64_t>(p.gather_rank) << 8) | p.indexof_rank);
        h = hash_string(h, p.type_name);
    }
    h = mix(h, (static_cast<std::uint64_t>(body) << 32) | epilogue);
    return mix(h, uniform_words);
}

// --- Builder -----------------------------------------------------------------

ExprId Builder::intern(const Node& n) {
    if (!defined_in_place(n.op)) {
        auto it = cse_.find(n);
        if (it != cse_.end()) return it->second;
    }
    auto id = static_cast<ExprId>(k_.nodes.size());
    k_.nodes.push_back(n);
    if (!defined_in_place(n.op)) cse_.emplace(n, id);
    return id;
}

ExprId Builder::fold(const Node& n) {
    auto is_const = [&](int i) { return k_.nodes[n.args[i]].op == Op::Const; };
    auto cval = [&](int i, int comp) {
        const Node& c = k_.nodes[n.args[i]];
        return c.imm[c.type.width == 1 ? 0 : comp];
    };
    Node out{};
    out.op = Op::Const;
    out.type = n.type;
    bool all_const = n.nargs > 0;
    for (int i = 0; i < n.nargs; ++i) all_const = all_const && is_const(i);
    if (!all_const) return intern(n);

    const Type at = k_.nodes[n.args[0]].type;
    bool folded = false;
    if (is_elementwise_unary(n.op)) {
        folded = visit_elementwise<false>(n.op, at.scalar, [&]<Op O, class T>() {
            for (int c = 0; c < n.type.width; ++c)
                out.imm[c] = to_bits(sem::unary<O>(from_bits<T>(cval(0, c))));
        });
    } else if (is_elementwise_binary(n.op)) {
        folded = visit_elementwise<true>(n.op, at.scalar, [&]<Op O, class T>() {
            for (int c = 0; c < n.type.width; ++c)
                out.imm[c] = to_bits(sem::binary<O>(from_bits<T>(cval(0, c)), from_bits<T>(cval(1, c))));
        });
    } else if (n.op == Op::Splat || n.op == Op::Swizzle) {
        for (int c = 0; c < n.type.width; ++c)
            out.imm[c] = cval(0, n.op == Op::Splat ? 0 : static_cast<int>(n.imm[c]));
        folded = true;
    } else if (n.op == Op::Cast) {
        for (int c = 0; c < n.type.width; ++c)
            out.imm[c] = convert_bits(cval(0, c), at.scalar, n.type.scalar);
        folded = true;
    } else if (n.op == Op::Bitcast) {
        for (int c = 0; c < n.type.width; ++c) out.imm[c] = cval(0, c);
        folded = true;
    } else if (n.op == Op::Select) {
        const Node& cond = k_.nodes[n.args[0]];
        for (int c = 0; c < n.type.width; ++c)
            out.imm[c] = cval(cond.imm[cond.type.width == 1 ? 0 : c] ? 1 : 2, c);
        folded = true;
    }
    return folded ? intern(out) : intern(n);
}

ExprId Builder::constant(Type t, const std::uint32_t bits[4]) {
    Node n{};
    n.op = Op::Const;
    n.type = t;
    for (int c = 0; c < t.width; ++c) n.imm[c] = bits[c];
    if (t.scalar == Scalar::Bool)
        for (int c = 0; c < t.width; ++c) n.imm[c] = n.imm[c] ? 1u : 0u;
    return intern(n);
}
ExprId Builder::constant_f(float v) {
    std::uint32_t b[4] = {std::bit_cast<std::uint32_t>(v)};
    return constant(Type{Scalar::Float, 1}, b);
}
ExprId Builder::constant_i(std::int32_t v) {
    std::uint32_t b[4] = {static_cast<std::uint32_t>(v)};
    return constant(Type{Scalar::Int, 1}, b);
}
ExprId Builder::constant_u(std::uint32_t v) {
    std::uint32_t b[4] = {v};
    return constant(Type{Scalar::Uint, 1}, b);
}
ExprId Builder::constant_b(bool v) {
    std::uint32_t b[4] = {v ? 1u : 0u};
    return constant(Type{Scalar::Bool, 1}, b);
}

namespace {
Node leaf(Op op, Type t, std::uint16_t aux, std::uint32_t imm0) {
    Node n{};
    n.op = op;
    n.type = t;
    n.aux = aux;
    n.imm[0] = imm0;
    return n;
}
}  // namespace

ExprId Builder::uniform(std::uint16_t param, std::uint32_t word, Type t) {
    return intern(leaf(Op::Uniform, t, param, word));
}
ExprId Builder::input(std::uint16_t param, std::uint32_t word, Type t) {
    return intern(leaf(Op::InputLoad, t, param, word));
}
ExprId Builder::gather(std::uint16_t param, std::uint32_t word, Type t, ExprId index) {
    Node n = leaf(Op::GatherLoad, t, param, word);
    n.nargs = 1;
    n.args[0] = index;
    RILL_ASSERT(k_.nodes[index].type.scalar == Scalar::Int, "gather index must be int");
    return intern(n);
}
ExprId Builder::index_of(std::uint16_t param, std::uint32_t dim) {
    return intern(leaf(Op::IndexOf, Type{Scalar::Int, 1}, param, dim));
}
ExprId Builder::group_leaf(Op op, std::uint16_t aux) {
    RILL_ASSERT(op == Op::LocalId || op == Op::GroupId || op == Op::NumGroups || op == Op::ArraySize ||
                    op == Op::SubgroupSize || op == Op::SubgroupInvocation,
                "group_leaf of another op");
    return intern(leaf(op, Type{Scalar::Int, 1}, aux, 0));
}

ExprId Builder::in_place(Node n) {
    RILL_ASSERT(defined_in_place(n.op) && n.op != Op::ReadVar, "in_place of another op");
    n.imm[3] = read_serial_++;
    const ExprId id = intern(n);
    append(Stmt{StmtKind::Def, id});
    return id;
}

ExprId Builder::read_var(VarId v) {
    ExprId id = read_var_node(v);
    append(Stmt{StmtKind::Def, id});
    return id;
}

ExprId Builder::read_var_node(VarId v) {
    RILL_ASSERT(v < 0xffff, "too many variables");
    return intern(leaf(Op::ReadVar, k_.vars[v], static_cast<std::uint16_t>(v), read_serial_++));
}

ExprId Builder::remap(const Node& n, const std::vector<ExprId>& map) {
    Node m = n;
    for (int i = 0; i < n.nargs; ++i) {
        m.args[i] = map[n.args[i]];
        RILL_ASSERT(m.args[i] != kNone, "remap of a node whose operand has no image");
    }
    return n.nargs == 0 || defined_in_place(n.op) ? intern(m) : fold(m);
}

ExprId Builder::splat(ExprId a, int width) {
    const Type t = k_.nodes[a].type;
    RILL_ASSERT(t.width == 1, "splat of a vector");
    if (width == 1) return a;
    Node n{};
    n.op = Op::Splat;
    n.type = t.with_width(width);
    n.nargs = 1;
    n.args[0] = a;
    return fold(n);
}

ExprId Builder::construct(Type t, const ExprId* parts, int count) {
    RILL_ASSERT(count >= 1 && count <= 4, "construct takes 1 to 4 parts");
    int total = 0;
    for (int i = 0; i < count; ++i) {
        const Type pt = k_.nodes[parts[i]].type;
        RILL_ASSERT(pt.scalar == t.scalar, "construct part of another scalar kind");
        total += pt.width;
    }
    RILL_ASSERT(total == t.width, "construct parts do not add up to the vector width");
    if (count == 1) return parts[0];
    // All-constant parts fold into one constant.
    bool all_const = true;
    for (int i = 0; i < count; ++i) all_const = all_const && k_.nodes[parts[i]].op == Op::Const;
    if (all_const) {
        std::uint32_t bits[4]{};
        int c = 0;
        for (int i = 0; i < count; ++i) {
            const Node& p = k_.nodes[parts[i]];
            for (int j = 0; j < p.type.width; ++j) bits[c++] = p.imm[j];
        }
        return constant(t, bits);
    }
    Node n{};
    n.op = Op::Construct;
    n.type = t;
    n.nargs = static_cast<std::uint8_t>(count);
    for (int i = 0; i < count; ++i) n.args[i] = parts[i];
    return intern(n);
}

ExprId Builder::swizzle(ExprId a, const int* comps, int count) {
    const Type t = k_.nodes[a].type;
    bool identity = count == t.width;
    for (int i = 0; i < count; ++i) {
        RILL_ASSERT(comps[i] >= 0 && comps[i] < t.width, "swizzle component out of range");
        identity = identity && comps[i] == i;
    }
    if (identity) return a;
    // Swizzle of a splat or of a swizzle collapses.
    const Node& src = k_.nodes[a];
    if (src.op == Op::Splat) return splat(src.args[0], count);
    if (src.op == Op::Swizzle) {
        int inner[4];
        for (int i = 0; i < count; ++i) inner[i] = static_cast<int>(src.imm[comps[i]]);
        return swizzle(src.args[0], inner, count);
    }
    Node n{};
    n.op = Op::Swizzle;
    n.type = t.with_width(count);
    n.nargs = 1;
    n.args[0] = a;
    for (int i = 0; i < count; ++i) n.imm[i] = static_cast<std::uint32_t>(comps[i]);
    return fold(n);
}

ExprId Builder::insert(ExprId vec, ExprId part, const int* comps) {
    const Type vt = k_.nodes[vec].type;
    const Type pt = k_.nodes[part].type;
    RILL_ASSERT(vt.scalar == pt.scalar, "insert of another scalar kind");
    Node n{};
    n.op = Op::Insert;
    n.type = vt;
    n.nargs = 2;
    n.args[0] = vec;
    n.args[1] = part;
    for (int i = 0; i < pt.width; ++i) {
        RILL_ASSERT(comps[i] >= 0 && comps[i] < vt.width, "insert component out of range");
        n.imm[i] = static_cast<std::uint32_t>(comps[i]);
    }
    return intern(n);
}

ExprId Builder::cast(ExprId a, Scalar to) {
    const Type t = k_.nodes[a].type;
    if (t.scalar == to) return a;
    Node n{};
    n.op = Op::Cast;
    n.type = Type{to, t.width};
    n.nargs = 1;
    n.args[0] = a;
    return fold(n);
}

ExprId Builder::bitcast(ExprId a, Scalar to) {
    const Type t = k_.nodes[a].type;
    RILL_ASSERT(t.scalar != Scalar::Bool && to != Scalar::Bool, "bitcast of bool");
    if (t.scalar == to) return a;
    Node n{};
    n.op = Op::Bitcast;
    n.type = Type{to, t.width};
    n.nargs = 1;
    n.args[0] = a;
    return fold(n);
}

ExprId Builder::select(ExprId cond, ExprId a, ExprId b) {
    const Type ct = k_.nodes[cond].type;
    const Type t = k_.nodes[a].type;
    RILL_ASSERT(ct.scalar == Scalar::Bool && (ct.width == 1 || ct.width == t.width),
                "select condition must be bool or a bool vector of the value's width");
    RILL_ASSERT(t == k_.nodes[b].type, "select operands differ in type");
    if (a == b) return a;
    Node n{};
    n.op = Op::Select;
    n.type = t;
    n.nargs = 3;
    n.args[0] = cond;
    n.args[1] = a;
    n.args[2] = b;
    return fold(n);
}

ExprId Builder::unary(Op op, ExprId a) {
    const Type t = k_.nodes[a].type;
    Node n{};
    n.op = op;
    n.type = result_type(op, t, t);
    n.nargs = 1;
    n.args[0] = a;
    if (op_class(op) == OpClass::BoolReduce && t.width == 1) return a;
    return fold(n);
}

ExprId Builder::binary(Op op, ExprId a, ExprId b) {
    Node n{};
    n.op = op;
    n.type = result_type(op, k_.nodes[a].type, k_.nodes[b].type);
    n.nargs = 2;
    n.args[0] = a;
    n.args[1] = b;
    if (op == Op::Dot) {
        // dot folds through the element-wise products it is made of.
        if (k_.nodes[a].op == Op::Const && k_.nodes[b].op == Op::Const) {
            float s = 0.0f;
            for (int c = 0; c < k_.nodes[a].type.width; ++c)
                s += std::bit_cast<float>(k_.nodes[a].imm[c]) * std::bit_cast<float>(k_.nodes[b].imm[c]);
            return constant_f(s);
        }
        return intern(n);
    }
    return fold(n);
}

ExprId Builder::ternary(Op op, ExprId a, ExprId b, ExprId c) {
    Node n{};
    n.op = op;
    const Type t = k_.nodes[a].type;
    RILL_ASSERT(op_accepts(op, t.scalar), std::string(op_name(op)) + " does not accept " + to_string(t));
    n.type = t;
    n.nargs = 3;
    n.args[0] = a;
    n.args[1] = b;
    n.args[2] = c;
    return intern(n);
}

BlockId Builder::new_block() {
    k_.blocks.emplace_back();
    return static_cast<BlockId>(k_.blocks.size() - 1);
}

StmtId Builder::append(Stmt s) {
    RILL_ASSERT(cur_ != kNone, "no current block");
    auto id = static_cast<StmtId>(k_.stmts.size());
    k_.stmts.push_back(s);
    k_.blocks[cur_].push_back(id);
    return id;
}

VarId Builder::new_var(Type t) {
    k_.vars.push_back(t);
    return static_cast<VarId>(k_.vars.size() - 1);
}

}  // namespace rill::ir
