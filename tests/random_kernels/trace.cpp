// A program becomes a rill kernel the way a user writes one: its body is
// traced by a C++ lambda that walks the program and calls the public DSL
// (operators, builtins, Var, If, For, While ...) on typed values.
#include <memory>
#include <optional>
#include <variant>

#include "program.h"

namespace rill::random_kernels {

namespace {

// One alternative per Ty, in Ty's order.
using DVal = std::variant<Expr<float>, Expr<float2>, Expr<float3>, Expr<float4>, Expr<std::int32_t>, Expr<int2>,
                          Expr<std::uint32_t>, Expr<bool>>;
using Slot = std::variant<Var<float>, Var<float2>, Var<float3>, Var<float4>, Var<std::int32_t>, Var<int2>,
                          Var<std::uint32_t>, Var<bool>>;

template <class T>
struct Tag {
    using type = T;
};

template <class F>
DVal floats(Ty t, F&& f) {
    switch (t) {
        case Ty::F: return f(Tag<float>{});
        case Ty::F2: return f(Tag<float2>{});
        case Ty::F3: return f(Tag<float3>{});
        case Ty::F4: return f(Tag<float4>{});
        default: throw std::logic_error("random kernel: not a float type");
    }
}
template <class F>
DVal ints(Ty t, F&& f) {
    switch (t) {
        case Ty::I: return f(Tag<std::int32_t>{});
        case Ty::I2: return f(Tag<int2>{});
        case Ty::U: return f(Tag<std::uint32_t>{});
        default: throw std::logic_error("random kernel: not an integer type");
    }
}
template <class F>
DVal numbers(Ty t, F&& f) {
    return is_float(t) ? floats(t, f) : ints(t, f);
}
template <class F>
DVal any(Ty t, F&& f) {
    return t == Ty::B ? f(Tag<bool>{}) : numbers(t, f);
}

template <class E>
DVal to_dval(const E& e) {
    if constexpr (std::is_constructible_v<DVal, E>) return DVal(e);
    else throw std::logic_error("random kernel: a value of a type the programs do not have");
}

/// The value as T; a scalar is broadcast to a vector T.
template <class T>
Expr<T> as(const DVal& v) {
    if (const auto* e = std::get_if<Expr<T>>(&v)) return *e;
    if constexpr (dsl::type_v<T>.width > 1) {
        using S = dsl::host_t<dsl::type_v<T>.scalar, 1>;
        if (const auto* s = std::get_if<Expr<S>>(&v)) return Expr<T>(*s);
    }
    throw std::logic_error("random kernel: an operand of the wrong type");
}

struct Params {
    In<float>* fa;
    In<float>* fb;
    In<std::int32_t>* ia;
    In<std::uint32_t>* ua;
    In<float4>* va;
    In<RkPoint>* p;
    Gather<float>* g;
    Gather<std::int32_t, 2>* gi;
    Float* k;
    Out<float>* rf;
    Out<std::int32_t>* ri;
    Out<std::uint32_t>* ru;
    Out<float4>* rv;
};

class Tracer {
public:
    Tracer(const Program& p, const Params& a) : p_(p), a_(a), slots_(p.vars.size()), fixed_(p.vars.size()) {}

    void block(const std::vector<Stmt>& b) {
        std::vector<int> declared;
        for (const Stmt& s : b) {
            statement(s);
            if (s.kind == Stmt::Decl) declared.push_back(s.var);
        }
        for (int v : declared) slots_[static_cast<std::size_t>(v)].reset();  // as C++ scopes end
    }

private:
    const Program& p_;
    const Params& a_;
    std::vector<std::unique_ptr<Slot>> slots_;
    std::vector<std::optional<DVal>> fixed_;

    DVal ex(int id) {
        const Node& n = p_.nodes[static_cast<std::size_t>(id)];
        const Ty t = n.ty;
        auto kid = [&](int k) { return ex(n.kids[static_cast<std::size_t>(k)]); };
        switch (n.op) {
            case Op::Const:
                switch (t) {
                    case Ty::F: return Expr<float>(static_cast<float>(n.f[0]));
                    case Ty::F2: return Expr<float2>(float2{float(n.f[0]), float(n.f[1])});
                    case Ty::F3: return Expr<float3>(float3{float(n.f[0]), float(n.f[1]), float(n.f[2])});
                    case Ty::F4: return Expr<float4>(float4{float(n.f[0]), float(n.f[1]), float(n.f[2]), float(n.f[3])});
                    case Ty::I: return Expr<std::int32_t>(static_cast<std::int32_t>(n.i[0]));
                    case Ty::I2: return Expr<int2>(int2{static_cast<std::int32_t>(n.i[0]), static_cast<std::int32_t>(n.i[1])});
                    case Ty::U: return Expr<std::uint32_t>(static_cast<std::uint32_t>(n.i[0]));
                    case Ty::B: return Expr<bool>(n.i[0] != 0);
                }
                break;
            case Op::Input:
                switch (n.aux) {
                    case kFa: return Expr<float>(*a_.fa);
                    case kFb: return Expr<float>(*a_.fb);
                    case kIa: return Expr<std::int32_t>(*a_.ia);
                    case kUa: return Expr<std::uint32_t>(*a_.ua);
                    case kVa: return Expr<float4>(*a_.va);
                    case kPos: return Expr<float3>(a_.p->pos);
                    case kMass: return Expr<float>(a_.p->mass);
                    case kId: return Expr<std::int32_t>(a_.p->id);
                }
                break;
            case Op::Uniform: return Expr<float>(*a_.k);
            case Op::VarRef: {
                const auto v = static_cast<std::size_t>(n.aux);
                if (fixed_[v]) return *fixed_[v];
                return std::visit([](auto& var) -> DVal {
                    using T = typename std::remove_reference_t<decltype(var)>::value_type;
                    return Expr<T>(var);
                }, *slots_[v]);
            }
            case Op::IndexOf: return indexof(*a_.rf);
            case Op::GatherF: return (*a_.g)[as<std::int32_t>(kid(0))];
            case Op::GatherI2: return (*a_.gi)[as<int2>(kid(0))];

#define RK_FLOAT_UNARY(OP, FN)                                                                             \
    case Op::OP:                                                                                          \
        return floats(t, [&](auto tag) -> DVal {                                                          \
            using T = typename decltype(tag)::type;                                                       \
            return Expr<T>(FN(as<T>(kid(0))));                                                            \
        });
            RK_FLOAT_UNARY(Floor, floor)
            RK_FLOAT_UNARY(Ceil, ceil)
            RK_FLOAT_UNARY(Round, round)
            RK_FLOAT_UNARY(Trunc, trunc)
            RK_FLOAT_UNARY(Fract, fract)
            RK_FLOAT_UNARY(Sqrt, sqrt)
            RK_FLOAT_UNARY(InverseSqrt, inversesqrt)
            RK_FLOAT_UNARY(Exp, exp)
            RK_FLOAT_UNARY(Exp2, exp2)
            RK_FLOAT_UNARY(Log, log)
            RK_FLOAT_UNARY(Log2, log2)
            RK_FLOAT_UNARY(Sin, sin)
            RK_FLOAT_UNARY(Cos, cos)
            RK_FLOAT_UNARY(Tan, tan)
            RK_FLOAT_UNARY(Asin, asin)
            RK_FLOAT_UNARY(Acos, acos)
            RK_FLOAT_UNARY(Atan, atan)
            RK_FLOAT_UNARY(Sinh, sinh)
            RK_FLOAT_UNARY(Cosh, cosh)
            RK_FLOAT_UNARY(Tanh, tanh)
            RK_FLOAT_UNARY(Asinh, asinh)
            RK_FLOAT_UNARY(Acosh, acosh)
            RK_FLOAT_UNARY(Atanh, atanh)
            RK_FLOAT_UNARY(Normalize, normalize)
#undef RK_FLOAT_UNARY

#define RK_NUMBER_BINARY(OP, EXPR)                                                                         \
    case Op::OP:                                                                                          \
        return numbers(t, [&](auto tag) -> DVal {                                                         \
            using T = typename decltype(tag)::type;                                                       \
            const Expr<T> x = as<T>(kid(0)), y = as<T>(kid(1));                                          \
            return Expr<T>(EXPR);                                                                         \
        });
            RK_NUMBER_BINARY(Add, x + y)
            RK_NUMBER_BINARY(Sub, x - y)
            RK_NUMBER_BINARY(Mul, x * y)
            RK_NUMBER_BINARY(Div, x / y)
            RK_NUMBER_BINARY(Min, min(x, y))
            RK_NUMBER_BINARY(Max, max(x, y))
#undef RK_NUMBER_BINARY

#define RK_FLOAT_BINARY(OP, EXPR)                                                                          \
    case Op::OP:                                                                                          \
        return floats(t, [&](auto tag) -> DVal {                                                          \
            using T = typename decltype(tag)::type;                                                       \
            const Expr<T> x = as<T>(kid(0)), y = as<T>(kid(1));                                          \
            return Expr<T>(EXPR);                                                                         \
        });
            RK_FLOAT_BINARY(Mod, mod(x, y))
            RK_FLOAT_BINARY(Pow, pow(x, y))
            RK_FLOAT_BINARY(Atan2, atan2(x, y))
            RK_FLOAT_BINARY(Step, step(x, y))
#undef RK_FLOAT_BINARY

#define RK_INT_BINARY(OP, EXPR)                                                                            \
    case Op::OP:                                                                                          \
        return ints(t, [&](auto tag) -> DVal {                                                            \
            using T = typename decltype(tag)::type;                                                       \
            const Expr<T> x = as<T>(kid(0)), y = as<T>(kid(1));                                          \
            return Expr<T>(EXPR);                                                                         \
        });
            RK_INT_BINARY(Rem, x % y)
            RK_INT_BINARY(BitAnd, x & y)
            RK_INT_BINARY(BitOr, x | y)
            RK_INT_BINARY(BitXor, x ^ y)
            RK_INT_BINARY(Shl, x << y)
            RK_INT_BINARY(Shr, x >> y)
#undef RK_INT_BINARY

            case Op::Neg: return numbers(t, [&](auto tag) -> DVal { using T = typename decltype(tag)::type; return Expr<T>(-as<T>(kid(0))); });
            case Op::Abs: return numbers(t, [&](auto tag) -> DVal { using T = typename decltype(tag)::type; return Expr<T>(abs(as<T>(kid(0)))); });
            case Op::Sign: return numbers(t, [&](auto tag) -> DVal { using T = typename decltype(tag)::type; return Expr<T>(sign(as<T>(kid(0)))); });
            case Op::BitNot: return ints(t, [&](auto tag) -> DVal { using T = typename decltype(tag)::type; return Expr<T>(~as<T>(kid(0))); });
            case Op::BitReverse:
                return ints(t, [&](auto tag) -> DVal { using T = typename decltype(tag)::type; return Expr<T>(bitfield_reverse(as<T>(kid(0)))); });
            case Op::BitCount: case Op::FindLsb: case Op::FindMsb: {
                const Node& k0 = p_.nodes[static_cast<std::size_t>(n.kids[0])];
                return ints(k0.ty, [&](auto tag) -> DVal {
                    using T = typename decltype(tag)::type;
                    const Expr<T> x = as<T>(kid(0));
                    if (n.op == Op::BitCount) return to_dval(bit_count(x));
                    if (n.op == Op::FindLsb) return to_dval(find_lsb(x));
                    return to_dval(find_msb(x));
                });
            }
            case Op::BitExtract:
                return ints(t, [&](auto tag) -> DVal {
                    using T = typename decltype(tag)::type;
                    return Expr<T>(bitfield_extract(as<T>(kid(0)), as<std::int32_t>(kid(1)), as<std::int32_t>(kid(2))));
                });
            case Op::Clamp:
                return numbers(t, [&](auto tag) -> DVal {
                    using T = typename decltype(tag)::type;
                    return Expr<T>(clamp(as<T>(kid(0)), as<T>(kid(1)), as<T>(kid(2))));
                });
            case Op::Mix:
                return floats(t, [&](auto tag) -> DVal {
                    using T = typename decltype(tag)::type;
                    return Expr<T>(mix(as<T>(kid(0)), as<T>(kid(1)), as<T>(kid(2))));
                });
            case Op::Fma:
                return floats(t, [&](auto tag) -> DVal {
                    using T = typename decltype(tag)::type;
                    return Expr<T>(fma(as<T>(kid(0)), as<T>(kid(1)), as<T>(kid(2))));
                });
            case Op::Smoothstep:
                return floats(t, [&](auto tag) -> DVal {
                    using T = typename decltype(tag)::type;
                    return Expr<T>(smoothstep(as<float>(kid(0)), as<float>(kid(1)), as<T>(kid(2))));
                });
            case Op::Select:
                return any(t, [&](auto tag) -> DVal {
                    using T = typename decltype(tag)::type;
                    return Expr<T>(select(as<bool>(kid(0)), as<T>(kid(1)), as<T>(kid(2))));
                });
            case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: {
                const Ty from = p_.nodes[static_cast<std::size_t>(n.kids[0])].ty;
                return numbers(from, [&](auto tag) -> DVal {
                    using T = typename decltype(tag)::type;
                    const Expr<T> x = as<T>(kid(0)), y = as<T>(kid(1));
                    switch (n.op) {
                        case Op::Lt: return to_dval(x < y);
                        case Op::Le: return to_dval(x <= y);
                        case Op::Gt: return to_dval(x > y);
                        case Op::Ge: return to_dval(x >= y);
                        case Op::Eq: return to_dval(x == y);
                        default: return to_dval(x != y);
                    }
                });
            }
            case Op::And: return Expr<bool>(as<bool>(kid(0)) && as<bool>(kid(1)));
            case Op::Or: return Expr<bool>(as<bool>(kid(0)) || as<bool>(kid(1)));
            case Op::Not: return Expr<bool>(!as<bool>(kid(0)));
            case Op::Cast: {
                const DVal from = kid(0);
                return std::visit([&](const auto& x) -> DVal {
                    switch (scalar_of(t)) {
                        case Ty::F: return to_dval(cast<float>(x));
                        case Ty::I: return to_dval(cast<std::int32_t>(x));
                        case Ty::U: return to_dval(cast<std::uint32_t>(x));
                        default: return to_dval(cast<bool>(x));
                    }
                }, from);
            }
            case Op::FloatBitsToInt: return float_bits_to_int(as<float>(kid(0)));
            case Op::FloatBitsToUint: return float_bits_to_uint(as<float>(kid(0)));
            case Op::IntBitsToFloat: return int_bits_to_float(as<std::int32_t>(kid(0)));
            case Op::UintBitsToFloat: return uint_bits_to_float(as<std::uint32_t>(kid(0)));
            case Op::Swizzle: return swizzle(n.aux, kid(0));
            case Op::Construct: {
                std::vector<DVal> parts;
                for (std::size_t k = 0; k < n.kids.size(); ++k) parts.push_back(kid(static_cast<int>(k)));
                switch (t) {
                    case Ty::F2: return Expr<float2>(as<float>(parts[0]), as<float>(parts[1]));
                    case Ty::F3:
                        if (parts.size() == 2) return Expr<float3>(as<float2>(parts[0]), as<float>(parts[1]));
                        return Expr<float3>(as<float>(parts[0]), as<float>(parts[1]), as<float>(parts[2]));
                    case Ty::F4: return Expr<float4>(as<float3>(parts[0]), as<float>(parts[1]));
                    case Ty::I2: return Expr<int2>(as<std::int32_t>(parts[0]), as<std::int32_t>(parts[1]));
                    default: break;
                }
                break;
            }
            case Op::Dot: case Op::Length: case Op::Distance: {
                const Ty v = p_.nodes[static_cast<std::size_t>(n.kids[0])].ty;
                return floats(v, [&](auto tag) -> DVal {
                    using T = typename decltype(tag)::type;
                    if (n.op == Op::Length) return Expr<float>(length(as<T>(kid(0))));
                    if (n.op == Op::Dot) return Expr<float>(dot(as<T>(kid(0)), as<T>(kid(1))));
                    return Expr<float>(distance(as<T>(kid(0)), as<T>(kid(1))));
                });
            }
            case Op::Cross: return Expr<float3>(cross(as<float3>(kid(0)), as<float3>(kid(1))));
        }
        throw std::logic_error(std::string("random kernel: cannot trace ") + op_name(n.op));
    }

    static DVal swizzle(int pattern, const DVal& v) {
        return std::visit([&](const auto& x) -> DVal {
            using T = typename std::remove_cvref_t<decltype(x)>::value_type;
            constexpr int w = dsl::type_v<T>.width;
            if constexpr (w == 1) {
                throw std::logic_error("random kernel: a swizzle of a scalar");
            } else {
                switch (pattern) {
                    case 0: case 10: return to_dval(x.x());
                    case 1: case 11: return to_dval(x.y());
                    case 12: return to_dval(x.yx());
                    case 6: return to_dval(x.xy());
                    default: break;
                }
                if constexpr (w >= 3) {
                    if (pattern == 2) return to_dval(x.z());
                    if (pattern == 4) return to_dval(x.xyz());
                    if (pattern == 5) return to_dval(x.yzx());
                }
                if constexpr (w == 4) {
                    if (pattern == 3) return to_dval(x.w());
                    if (pattern == 7) return to_dval(x.zw());
                }
                throw std::logic_error("random kernel: a swizzle the vector does not have");
            }
        }, v);
    }

    void assign_out(int out, const DVal& v) {
        switch (out) {
            case kRf: *a_.rf = as<float>(v); break;
            case kRi: *a_.ri = as<std::int32_t>(v); break;
            case kRu: *a_.ru = as<std::uint32_t>(v); break;
            default: *a_.rv = as<float4>(v); break;
        }
    }

    void statement(const Stmt& s) {
        const auto v = static_cast<std::size_t>(s.var);
        switch (s.kind) {
            case Stmt::Decl: {
                const DVal init = ex(s.expr);
                any(p_.vars[v], [&](auto tag) -> DVal {
                    using T = typename decltype(tag)::type;
                    slots_[v] = std::make_unique<Slot>(std::in_place_type<Var<T>>, as<T>(init));
                    return init;
                });
                break;
            }
            case Stmt::Assign: case Stmt::AddAssign: {
                const DVal value = ex(s.expr);
                std::visit([&](auto& var) {
                    using T = typename std::remove_reference_t<decltype(var)>::value_type;
                    if constexpr (!std::is_same_v<T, bool>) {
                        if (s.kind == Stmt::AddAssign) {
                            var += as<T>(value);
                            return;
                        }
                    }
                    var = as<T>(value);
                }, *slots_[v]);
                break;
            }
            case Stmt::Out: assign_out(s.out, ex(s.expr)); break;
            case Stmt::If: {
                auto chain = If(as<bool>(ex(s.expr)), [&] { block(s.body); });
                if (!s.orelse.empty()) chain.Else([&] { block(s.orelse); });
                break;
            }
            case Stmt::For:
                For(s.begin, as<std::int32_t>(ex(s.expr)), s.step, [&](Expr<std::int32_t> i) {
                    fixed_[v].emplace(i);
                    block(s.body);
                    fixed_[v].reset();
                });
                break;
            case Stmt::While: {
                auto& guard = std::get<Var<std::int32_t>>(*slots_[v]);
                While([&] { return Expr<bool>(guard < s.step && as<bool>(ex(s.expr))); },
                      [&] {
                          guard += 1;
                          block(s.body);
                      });
                break;
            }
            case Stmt::Break: Break(); break;
            case Stmt::Continue: Continue(); break;
            case Stmt::Return: Return(); break;
        }
    }
};

}  // namespace

Outputs run(const Program& prog, const Inputs& in, Runtime& rt) {
    auto k = kernel("random_kernel(fa, fb, ia, ua, va, p, g, gi, k, rf, ri, ru, rv)",
                    [&prog](In<float> fa, In<float> fb, In<std::int32_t> ia, In<std::uint32_t> ua, In<float4> va,
                            In<RkPoint> p, Gather<float> g, Gather<std::int32_t, 2> gi, Float k, Out<float> rf,
                            Out<std::int32_t> ri, Out<std::uint32_t> ru, Out<float4> rv) {
                        const Params params{&fa, &fb, &ia, &ua, &va, &p, &g, &gi, &k, &rf, &ri, &ru, &rv};
                        Tracer(prog, params).block(prog.body);
                    });
    const std::int64_t n = in.n;
    auto fa = rt.stream<float>({n}, in.fa);
    auto fb = rt.stream<float>({n}, in.fb);
    auto ia = rt.stream<std::int32_t>({n}, in.ia);
    auto ua = rt.stream<std::uint32_t>({n}, in.ua);
    auto va = rt.stream<float4>({n}, in.va);
    auto p = rt.stream<RkPoint>({n}, in.p);
    auto g = rt.stream<float>({static_cast<std::int64_t>(in.g.size())}, in.g);
    auto gi = rt.stream<std::int32_t>({in.gh, in.gw}, in.gi);
    auto rf = rt.stream<float>({n});
    auto ri = rt.stream<std::int32_t>({n});
    auto ru = rt.stream<std::uint32_t>({n});
    auto rv = rt.stream<float4>({n});
    k(fa, fb, ia, ua, va, p, g, gi, in.k, rf, ri, ru, rv);
    return Outputs{rf.download(), ri.download(), ru.download(), rv.download()};
}

}  // namespace rill::random_kernels
