// Programs and inputs from a seed. Builtins get arguments inside their
// documented domains (docs/SEMANTICS.md) through wrappers that are part of the
// program (sqrt(abs(x)), sin(clamp(x, -3.14159, 3.14159)) ...), so the printed
// kernel shows them; loops are bounded by construction (For bounds clamped,
// While guarded by a counter), so every program terminates.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "program.h"

namespace rill::random_kernels {

int width(Ty t) {
    switch (t) {
        case Ty::F2: case Ty::I2: return 2;
        case Ty::F3: return 3;
        case Ty::F4: return 4;
        default: return 1;
    }
}
bool is_float(Ty t) { return t == Ty::F || t == Ty::F2 || t == Ty::F3 || t == Ty::F4; }
bool is_int(Ty t) { return t == Ty::I || t == Ty::I2 || t == Ty::U; }
Ty scalar_of(Ty t) { return is_float(t) ? Ty::F : t == Ty::I2 ? Ty::I : t; }
Ty float_of_width(int w) { return w == 1 ? Ty::F : w == 2 ? Ty::F2 : w == 3 ? Ty::F3 : Ty::F4; }
const char* dsl_type(Ty t) {
    static const char* names[] = {"Float", "Float2", "Float3", "Float4", "Int", "Int2", "UInt", "Bool"};
    return names[static_cast<int>(t)];
}
const char* host_type(Ty t) {
    static const char* names[] = {"float", "float2", "float3", "float4", "std::int32_t", "int2", "std::uint32_t", "bool"};
    return names[static_cast<int>(t)];
}
Ty input_type(int input) {
    static const Ty types[] = {Ty::F, Ty::F, Ty::I, Ty::U, Ty::F4, Ty::F3, Ty::F, Ty::I};
    return types[input];
}
Ty output_type(int output) {
    static const Ty types[] = {Ty::F, Ty::I, Ty::U, Ty::F4};
    return types[output];
}

int Program::statement_count() const {
    int n = 0;
    auto count = [&](auto&& self, const std::vector<Stmt>& b) -> void {
        for (const Stmt& s : b) {
            ++n;
            self(self, s.body);
            self(self, s.orelse);
        }
    };
    count(count, body);
    return n;
}

namespace {

class Generator {
public:
    explicit Generator(std::uint64_t seed) : rng_(seed) {}

    Program run() {
        scopes_.emplace_back();
        block(p_.body, 0, false, 2 + pick(4));
        for (int o = 0; o < kOutputCount; ++o)
            if (chance(0.75)) p_.body.push_back(out(o));
        return std::move(p_);
    }

private:
    std::mt19937_64 rng_;
    Program p_;
    std::vector<std::vector<int>> scopes_;
    int statements_ = 0, loops_ = 0;

    int pick(int n) { return static_cast<int>(rng_() % static_cast<std::uint64_t>(n)); }
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
    template <class T>
    const T& one_of(const std::vector<T>& v) { return v[static_cast<std::size_t>(pick(static_cast<int>(v.size())))]; }

    // --- nodes -----------------------------------------------------------------
    int node(Op op, Ty ty, std::vector<int> kids = {}, int aux = 0) {
        Node n;
        n.op = op;
        n.ty = ty;
        n.kids = std::move(kids);
        n.aux = aux;
        return p_.add(std::move(n));
    }
    int cf(float v) {
        Node n;
        n.op = Op::Const;
        n.ty = Ty::F;
        n.f[0] = v;
        return p_.add(std::move(n));
    }
    int ci(std::int64_t v, Ty ty = Ty::I) {
        Node n;
        n.op = Op::Const;
        n.ty = ty;
        for (int c = 0; c < 4; ++c) n.i[c] = v;
        return p_.add(std::move(n));
    }
    float random_float() {
        static const float nice[] = {0.0f, 1.0f, -1.0f, 0.5f, 2.0f, -2.5f, 3.0f, 0.25f, -0.125f, 10.0f, 1e-3f, 7.75f};
        if (chance(0.5)) return nice[pick(12)];
        return std::uniform_real_distribution<float>(-8.0f, 8.0f)(rng_);
    }
    std::int64_t random_int(Ty t) {
        if (t == Ty::U) {
            static const std::int64_t u[] = {0, 1, 2, 3, 7, 31, 255, 0x80000000ll, 0xffffffffll, 123456789};
            return chance(0.7) ? pick(12) : u[pick(10)];
        }
        static const std::int64_t s[] = {0, 1, -1, 2, -7, 31, 1000, std::numeric_limits<std::int32_t>::max(),
                                         std::numeric_limits<std::int32_t>::min(), -123456789};
        return chance(0.7) ? pick(21) - 10 : s[pick(10)];
    }
    int constant(Ty t) {
        Node n;
        n.op = Op::Const;
        n.ty = t;
        for (int c = 0; c < width(t); ++c) {
            if (is_float(t)) n.f[c] = random_float();
            else if (t == Ty::B) n.i[c] = pick(2);
            else n.i[c] = random_int(scalar_of(t));
        }
        return p_.add(std::move(n));
    }
    std::vector<int> visible_vars(Ty t, bool assignable) const {
        std::vector<int> v;
        for (const auto& scope : scopes_)
            for (int var : scope)
                if (p_.vars[var] == t && !(assignable && p_.var_kind[var] != VarKind::Plain)) v.push_back(var);
        return v;
    }

    /// Mostly values that differ per element (inputs, positions, variables), so
    /// that rill's constant folding does not decide the program before it runs.
    int leaf(Ty t) {
        std::vector<int> vars = visible_vars(t, false);
        if (!vars.empty() && chance(0.4)) return node(Op::VarRef, t, {}, one_of(vars));
        if (chance(t == Ty::B ? 0.3 : 0.12)) return constant(t);
        switch (t) {
            case Ty::F:
                switch (pick(6)) {
                    case 0: return node(Op::Input, t, {}, kFa);
                    case 1: return node(Op::Input, t, {}, kFb);
                    case 2: return node(Op::Input, t, {}, kMass);
                    case 3: return node(Op::Uniform, t);
                    default: return node(Op::Swizzle, t, {node(Op::Input, Ty::F4, {}, kVa)}, pick(4));  // va.x .. va.w
                }
            case Ty::F3:
                if (chance(0.5)) return node(Op::Input, t, {}, kPos);
                return node(Op::Swizzle, t, {node(Op::Input, Ty::F4, {}, kVa)}, 4 + pick(2));  // xyz, yzx
            case Ty::F4: return node(Op::Input, t, {}, kVa);
            case Ty::F2: return node(Op::Swizzle, t, {node(Op::Input, Ty::F4, {}, kVa)}, 6 + pick(2));
            case Ty::I:
                switch (pick(4)) {
                    case 0: return node(Op::Input, t, {}, kIa);
                    case 1: return node(Op::Input, t, {}, kId);
                    default: return node(Op::IndexOf, t);
                }
            case Ty::I2: return node(Op::Construct, t, {leaf(Ty::I), leaf(Ty::I)});
            case Ty::U: return node(Op::Input, t, {}, kUa);
            default: {  // a comparison of two leaves
                static const Op ops[] = {Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq, Op::Ne};
                const Ty c = one_of(std::vector<Ty>{Ty::F, Ty::I, Ty::U});
                return node(ops[pick(6)], Ty::B, {leaf(c), leaf(c)});
            }
        }
    }

    /// op(x) with x brought into op's domain.
    int float_unary(Ty t, int depth) {
        static const Op ops[] = {Op::Neg, Op::Abs, Op::Sign, Op::Floor, Op::Ceil, Op::Round, Op::Trunc, Op::Fract,
                                 Op::Sqrt, Op::InverseSqrt, Op::Exp, Op::Exp2, Op::Log, Op::Log2, Op::Sin, Op::Cos,
                                 Op::Tan, Op::Asin, Op::Acos, Op::Atan, Op::Sinh, Op::Cosh, Op::Tanh, Op::Asinh,
                                 Op::Acosh, Op::Atanh};
        const Op op = ops[pick(static_cast<int>(std::size(ops)))];
        int x = expr(t, depth - 1);
        auto clamped = [&](float lo, float hi) { return node(Op::Clamp, t, {x, cf(lo), cf(hi)}); };
        auto above = [&](float lo) { return node(Op::Add, t, {node(Op::Abs, t, {x}), cf(lo)}); };
        switch (op) {
            case Op::Sqrt: x = node(Op::Abs, t, {x}); break;
            case Op::InverseSqrt: x = above(0.25f); break;
            case Op::Exp: x = clamped(-20.0f, 20.0f); break;
            case Op::Exp2: x = clamped(-30.0f, 30.0f); break;
            case Op::Log: case Op::Log2: x = above(0.5f); break;
            case Op::Sin: case Op::Cos: x = clamped(-3.14159f, 3.14159f); break;
            case Op::Tan: x = clamped(-1.4f, 1.4f); break;
            case Op::Asin: case Op::Acos: x = clamped(-1.0f, 1.0f); break;
            case Op::Sinh: case Op::Cosh: x = clamped(-10.0f, 10.0f); break;
            case Op::Acosh: x = above(1.0f); break;
            case Op::Atanh: x = clamped(-0.99f, 0.99f); break;
            default: break;
        }
        return node(op, t, {x});
    }

    int float_expr(Ty t, int depth) {
        const int w = width(t);
        switch (pick(w == 1 ? 14 : 12)) {
            case 0: case 1: case 2: return float_unary(t, depth);
            case 3: case 4: {
                static const Op ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Min, Op::Max};
                const Op op = ops[pick(6)];
                // A scalar operand is broadcast against a vector.
                const int b = w > 1 && chance(0.3) ? expr(Ty::F, depth - 1) : expr(t, depth - 1);
                return node(op, t, {expr(t, depth - 1), b});
            }
            case 5: {
                const int x = expr(t, depth - 1), y = expr(t, depth - 1);
                switch (pick(4)) {
                    case 0: return node(Op::Mod, t, {x, node(Op::Add, t, {node(Op::Abs, t, {y}), cf(0.5f)})});
                    case 1: return node(Op::Pow, t, {node(Op::Add, t, {node(Op::Abs, t, {x}), cf(0.01f)}),
                                                     node(Op::Clamp, t, {y, cf(-3.0f), cf(3.0f)})});
                    case 2: return node(Op::Atan2, t, {x, node(Op::Add, t, {node(Op::Abs, t, {y}), cf(0.5f)})});
                    default: return node(Op::Step, t, {x, y});
                }
            }
            case 6: {
                switch (pick(4)) {
                    case 0: {
                        float lo = random_float(), hi = random_float();
                        if (lo > hi) std::swap(lo, hi);
                        return node(Op::Clamp, t, {expr(t, depth - 1), cf(lo), cf(hi)});
                    }
                    case 1: return node(Op::Mix, t, {expr(t, depth - 1), expr(t, depth - 1), expr(t, depth - 1)});
                    case 2: return node(Op::Fma, t, {expr(t, depth - 1), expr(t, depth - 1), expr(t, depth - 1)});
                    default: {
                        float e0 = random_float(), e1 = random_float();
                        if (e0 == e1) e1 = e0 + 1.0f;
                        if (e0 > e1) std::swap(e0, e1);
                        return node(Op::Smoothstep, t, {cf(e0), cf(e1), expr(t, depth - 1)});
                    }
                }
            }
            case 7: return node(Op::Select, t, {expr(Ty::B, depth - 1), expr(t, depth - 1), expr(t, depth - 1)});
            case 8: {  // from integers
                if (w == 1) return node(Op::Cast, t, {expr(chance(0.6) ? Ty::I : chance(0.7) ? Ty::U : Ty::B, depth - 1)});
                if (w == 2) return node(Op::Cast, t, {expr(Ty::I2, depth - 1)});
                return leaf(t);
            }
            case 9:
                if (w == 1) return node(Op::GatherF, t, {expr(Ty::I, depth - 1)});
                if (t == Ty::F3 && chance(0.5)) return node(Op::Cross, t, {expr(t, depth - 1), expr(t, depth - 1)});
                return node(Op::Normalize, t, {node(Op::Add, t, {expr(t, depth - 1), cf(0.5f)})});
            case 10: {  // vectors from parts; scalars from vectors
                if (w == 1) {
                    const Ty v = float_of_width(2 + pick(3));
                    switch (pick(4)) {
                        case 0: return node(Op::Dot, t, {expr(v, depth - 1), expr(v, depth - 1)});
                        case 1: return node(Op::Length, t, {expr(v, depth - 1)});
                        case 2: return node(Op::Distance, t, {expr(v, depth - 1), expr(v, depth - 1)});
                        default: return node(Op::Swizzle, t, {expr(Ty::F4, depth - 1)}, pick(4));
                    }
                }
                if (t == Ty::F2) return node(Op::Construct, t, {expr(Ty::F, depth - 1), expr(Ty::F, depth - 1)});
                if (t == Ty::F3)
                    return chance(0.5) ? node(Op::Construct, t, {expr(Ty::F2, depth - 1), expr(Ty::F, depth - 1)})
                                       : node(Op::Construct, t, {expr(Ty::F, depth - 1), expr(Ty::F, depth - 1),
                                                                 expr(Ty::F, depth - 1)});
                return node(Op::Construct, t, {expr(Ty::F3, depth - 1), expr(Ty::F, depth - 1)});
            }
            case 11: return leaf(t);
            case 12: {
                const bool from_int = chance(0.5);
                return node(from_int ? Op::IntBitsToFloat : Op::UintBitsToFloat, t, {expr(from_int ? Ty::I : Ty::U, depth - 1)});
            }
            default: return leaf(t);
        }
    }

    int int_expr(Ty t, int depth) {
        const bool is_uint = t == Ty::U;
        auto sub = [&] { return expr(t, depth - 1); };
        switch (pick(12)) {
            case 0: case 1: {
                static const Op ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Rem, Op::Min, Op::Max};
                return node(ops[pick(7)], t, {sub(), sub()});
            }
            case 2: {
                static const Op ops[] = {Op::BitAnd, Op::BitOr, Op::BitXor};
                return node(ops[pick(3)], t, {sub(), sub()});
            }
            case 3:  // shift counts outside 0..31 are undefined: mask them, as a user must
                return node(chance(0.5) ? Op::Shl : Op::Shr, t, {sub(), node(Op::BitAnd, t, {sub(), ci(31, scalar_of(t))})});
            case 4: {
                if (is_uint) return node(Op::BitNot, t, {sub()});
                static const Op ops[] = {Op::Neg, Op::Abs, Op::Sign, Op::BitNot};
                return node(ops[pick(4)], t, {sub()});
            }
            case 5: {
                if (t == Ty::U) return node(Op::BitReverse, t, {sub()});
                static const Op ops[] = {Op::BitCount, Op::FindLsb, Op::FindMsb, Op::BitReverse};
                const Op op = ops[pick(4)];
                if (op == Op::BitReverse) return node(op, t, {sub()});
                return node(op, t, {expr(t == Ty::I && chance(0.4) ? Ty::U : t, depth - 1)});
            }
            case 6: {
                const int off = pick(17), bits = pick(17);
                return node(Op::BitExtract, t, {sub(), ci(off), ci(bits)});
            }
            case 7: {
                std::int64_t lo = random_int(scalar_of(t)), hi = random_int(scalar_of(t));
                if (lo > hi) std::swap(lo, hi);
                return node(Op::Clamp, t, {sub(), ci(lo, scalar_of(t)), ci(hi, scalar_of(t))});
            }
            case 8: return node(Op::Select, t, {expr(Ty::B, depth - 1), sub(), sub()});
            case 9:
                if (t == Ty::I2) return node(Op::Construct, t, {expr(Ty::I, depth - 1), expr(Ty::I, depth - 1)});
                if (chance(0.3)) return node(is_uint ? Op::FloatBitsToUint : Op::FloatBitsToInt, t, {expr(Ty::F, depth - 1)});
                return node(Op::Cast, t, {expr(chance(0.5) ? Ty::F : is_uint ? Ty::I : chance(0.5) ? Ty::U : Ty::B, depth - 1)});
            case 10:
                if (t == Ty::I) {
                    if (chance(0.5)) return node(Op::Swizzle, t, {expr(Ty::I2, depth - 1)}, 10 + pick(2));
                    return node(Op::GatherI2, t, {expr(Ty::I2, depth - 1)});
                }
                if (t == Ty::I2) {
                    if (chance(0.5)) return node(Op::Swizzle, t, {expr(Ty::I2, depth - 1)}, 12);  // yx
                    return node(Op::Cast, t, {expr(Ty::F2, depth - 1)});
                }
                return leaf(t);
            default: return leaf(t);
        }
    }

    int bool_expr(int depth) {
        switch (pick(6)) {
            case 0: case 1: case 2: {
                static const Op ops[] = {Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq, Op::Ne};
                const Ty t = one_of(std::vector<Ty>{Ty::F, Ty::F, Ty::I, Ty::U});
                return node(ops[pick(6)], Ty::B, {expr(t, depth - 1), expr(t, depth - 1)});
            }
            case 3: return node(chance(0.5) ? Op::And : Op::Or, Ty::B, {expr(Ty::B, depth - 1), expr(Ty::B, depth - 1)});
            case 4: return node(Op::Not, Ty::B, {expr(Ty::B, depth - 1)});
            default:
                return chance(0.5) ? node(Op::Cast, Ty::B, {expr(one_of(std::vector<Ty>{Ty::F, Ty::I, Ty::U}), depth - 1)})
                                   : leaf(Ty::B);
        }
    }

    int expr(Ty t, int depth) {
        if (depth <= 0 || chance(0.25)) return leaf(t);
        if (is_float(t)) return float_expr(t, depth);
        if (is_int(t)) return int_expr(t, depth);
        return bool_expr(depth);
    }

    // --- statements ------------------------------------------------------------
    int new_var(Ty t, VarKind kind) {
        p_.vars.push_back(t);
        p_.var_kind.push_back(kind);
        return static_cast<int>(p_.vars.size()) - 1;
    }
    Stmt out(int o) {
        Stmt s;
        s.kind = Stmt::Out;
        s.out = o;
        s.expr = expr(output_type(o), 3);
        return s;
    }
    Stmt jump_if(Stmt::Kind kind) {
        Stmt s;
        s.kind = Stmt::If;
        s.expr = expr(Ty::B, 2);
        if (kind == Stmt::Return && chance(0.7)) s.body.push_back(out(pick(kOutputCount)));
        Stmt j;
        j.kind = kind;
        s.body.push_back(j);
        return s;
    }
    void nested(std::vector<Stmt>& b, int depth, bool in_loop) {
        scopes_.emplace_back();
        block(b, depth + 1, in_loop, 1 + pick(3));
        scopes_.pop_back();
    }

    void block(std::vector<Stmt>& b, int depth, bool in_loop, int count) {
        for (int k = 0; k < count && statements_ < 16; ++k) {
            ++statements_;
            const int choice = pick(in_loop ? 12 : 10);
            if (choice <= 2) {  // a new variable
                static const Ty types[] = {Ty::F, Ty::F, Ty::I, Ty::I, Ty::U, Ty::F3, Ty::B, Ty::F4, Ty::F2, Ty::I2};
                Stmt s;
                s.kind = Stmt::Decl;
                const Ty t = types[pick(10)];
                s.expr = expr(t, 3);
                s.var = new_var(t, VarKind::Plain);
                scopes_.back().push_back(s.var);
                b.push_back(std::move(s));
            } else if (choice <= 4) {  // assign an existing one
                static const Ty types[] = {Ty::F, Ty::I, Ty::U, Ty::F3, Ty::B, Ty::F4, Ty::F2, Ty::I2};
                const Ty t = types[pick(8)];
                std::vector<int> vars = visible_vars(t, true);
                if (vars.empty()) {
                    b.push_back(out(pick(kOutputCount)));
                    continue;
                }
                Stmt s;
                s.kind = t != Ty::B && chance(0.5) ? Stmt::AddAssign : Stmt::Assign;
                s.var = one_of(vars);
                s.expr = expr(t, 3);
                b.push_back(std::move(s));
            } else if (choice == 5) {
                b.push_back(out(pick(kOutputCount)));
            } else if (choice == 6 && depth < 3) {
                Stmt s;
                s.kind = Stmt::If;
                s.expr = expr(Ty::B, 3);
                nested(s.body, depth, in_loop);
                if (chance(0.5)) nested(s.orelse, depth, in_loop);
                b.push_back(std::move(s));
            } else if ((choice == 7 || choice == 8) && depth < 3 && loops_ < 3) {
                ++loops_;
                Stmt s;
                if (choice == 7) {
                    s.kind = Stmt::For;
                    const bool down = chance(0.25);
                    s.step = down ? -1 - pick(2) : 1 + pick(3) / 2;
                    s.begin = down ? 4 + pick(6) : pick(6) - 2;
                    s.expr = chance(0.3) ? ci(down ? pick(5) - 3 : pick(10))
                                         : node(Op::Clamp, Ty::I, {expr(Ty::I, 2), ci(down ? -3 : -2), ci(down ? 3 : 9)});
                    s.var = new_var(Ty::I, VarKind::ForIndex);
                    scopes_.emplace_back();
                    scopes_.back().push_back(s.var);
                    block(s.body, depth + 1, true, 1 + pick(3));
                    scopes_.pop_back();
                } else {
                    // guard = 0; While(guard < bound && cond) { guard += 1; ... }
                    Stmt init;
                    init.kind = Stmt::Decl;
                    init.var = new_var(Ty::I, VarKind::WhileGuard);
                    init.expr = ci(0);
                    scopes_.back().push_back(init.var);
                    b.push_back(init);
                    s.kind = Stmt::While;
                    s.var = init.var;
                    s.step = 1 + pick(8);
                    s.expr = expr(Ty::B, 2);
                    scopes_.emplace_back();
                    block(s.body, depth + 1, true, 1 + pick(3));
                    scopes_.pop_back();
                }
                b.push_back(std::move(s));
            } else if (choice == 9) {
                if (chance(0.3)) b.push_back(jump_if(Stmt::Return));
                else b.push_back(out(pick(kOutputCount)));
            } else if (choice >= 10) {
                b.push_back(jump_if(choice == 10 ? Stmt::Break : Stmt::Continue));
            } else {
                b.push_back(out(pick(kOutputCount)));
            }
        }
    }
};

}  // namespace

Program generate(std::uint64_t seed) { return Generator(seed * 0x9e3779b97f4a7c15ull + 1).run(); }

Inputs generate_inputs(std::uint64_t seed, std::int64_t n) {
    std::mt19937_64 r(seed ^ 0x5bd1e995u);
    auto real = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(r); };
    auto integer = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(r); };
    Inputs in;
    in.n = n;
    const auto un = static_cast<std::size_t>(n);
    in.fa.resize(un);
    in.fb.resize(un);
    in.ia.resize(un);
    in.ua.resize(un);
    in.va.resize(un);
    in.p.resize(un);
    for (std::size_t e = 0; e < un; ++e) {
        // Mostly small values, where control flow decides differently per element;
        // now and then the extremes of the integer types.
        in.fa[e] = real(-10.0f, 10.0f);
        in.fb[e] = integer(0, 9) == 0 ? std::floor(real(-5.0f, 5.0f)) : real(-4.0f, 4.0f);
        in.ia[e] = integer(0, 9) == 0 ? static_cast<std::int32_t>(integer(std::numeric_limits<std::int32_t>::min(),
                                                                          std::numeric_limits<std::int32_t>::max()))
                                      : static_cast<std::int32_t>(integer(-20, 20));
        in.ua[e] = integer(0, 9) == 0 ? static_cast<std::uint32_t>(integer(0, 0xffffffffll))
                                      : static_cast<std::uint32_t>(integer(0, 40));
        in.va[e] = {real(-4, 4), real(-4, 4), real(-4, 4), real(-4, 4)};
        in.p[e] = {{real(-3, 3), real(-3, 3), real(-3, 3)}, real(0.1f, 5.0f), static_cast<std::int32_t>(integer(-5, 100))};
    }
    in.g.resize(static_cast<std::size_t>(integer(1, 40)));
    for (float& v : in.g) v = real(-6.0f, 6.0f);
    in.gh = integer(1, 6);
    in.gw = integer(1, 9);
    in.gi.resize(static_cast<std::size_t>(in.gh * in.gw));
    for (auto& v : in.gi) v = static_cast<std::int32_t>(integer(-12, 12));
    in.k = real(-3.0f, 3.0f);
    return in;
}

}  // namespace rill::random_kernels
