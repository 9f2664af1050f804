// The host interpreter: rill's semantics (docs/SEMANTICS.md) written again,
// without rill. Floats are intervals in float64 that contain every result a
// conforming backend may give: each operation's exact result over its
// operands' intervals, widened by the rounding or tolerance the semantics
// allow it. A decision (a branch, a loop test, a gather index) on an interval
// that does not decide it leaves the element undetermined; values the
// semantics leave open (division by zero, out-of-range casts, floats past
// 1e30, whose inf/NaN GLSL does not promise) are unknown and not compared.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "program.h"

namespace rill::random_kernels {

namespace {

constexpr double kUlp = 1.0 / (1 << 23);  // one float ULP, relative
constexpr double kTiny = 1.2e-38;         // a denormal result may be flushed to zero
constexpr double kPi = 3.14159265358979323846;

struct Undetermined {};

struct V {
    Ty ty = Ty::F;
    Lane l[4];
    const Lane& lane(int c) const { return width(ty) == 1 ? l[0] : l[c]; }
};

Lane unknown() {
    Lane r;
    r.known = false;
    return r;
}
Lane point(double v) {
    Lane r;
    r.lo = r.hi = v;
    return r;
}
Lane integer(std::int64_t v) {
    Lane r;
    r.i = v;
    return r;
}

/// [lo, hi] widened by `ulps` of its magnitude plus `abs`; unknown past 1e30.
Lane rounded(double lo, double hi, double ulps, double abs = 0) {
    Lane r;
    r.lo = lo - (std::fabs(lo) * ulps * kUlp + abs + kTiny);
    r.hi = hi + (std::fabs(hi) * ulps * kUlp + abs + kTiny);
    if (!std::isfinite(r.lo) || !std::isfinite(r.hi) || std::max(std::fabs(r.lo), std::fabs(r.hi)) > 1e30) return unknown();
    return r;
}
/// f monotone on [a.lo, a.hi] (increasing or decreasing).
template <class F>
Lane monotone(const Lane& a, F f, double ulps, double abs = 0, double rel = 0) {
    double x = f(a.lo), y = f(a.hi);
    if (x > y) std::swap(x, y);
    return rounded(x - std::fabs(x) * rel, y + std::fabs(y) * rel, ulps, abs);
}
Lane hull(const Lane& a, const Lane& b) {
    if (!a.known || !b.known) return unknown();
    Lane r = a;
    r.lo = std::min(a.lo, b.lo);
    r.hi = std::max(a.hi, b.hi);
    return r;
}

std::int64_t wrap(std::int64_t v, Ty t) {
    const auto u = static_cast<std::uint32_t>(static_cast<std::uint64_t>(v));
    return scalar_of(t) == Ty::U ? static_cast<std::int64_t>(u) : static_cast<std::int64_t>(static_cast<std::int32_t>(u));
}
std::uint32_t bits(std::int64_t v) { return static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)); }

// --- floats ---------------------------------------------------------------------

Lane f_add(const Lane& a, const Lane& b) { return rounded(a.lo + b.lo, a.hi + b.hi, 1); }
Lane f_sub(const Lane& a, const Lane& b) { return rounded(a.lo - b.hi, a.hi - b.lo, 1); }
void corners(const Lane& a, const Lane& b, double (*f)(double, double), double& lo, double& hi) {
    const double c[] = {f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)};
    lo = *std::min_element(c, c + 4);
    hi = *std::max_element(c, c + 4);
}
Lane f_mul(const Lane& a, const Lane& b) {
    double lo, hi;
    corners(a, b, [](double x, double y) { return x * y; }, lo, hi);
    return rounded(lo, hi, 1);
}
Lane f_div(const Lane& a, const Lane& b) {
    if (b.lo <= 0 && b.hi >= 0) return unknown();
    double lo, hi;
    corners(a, b, [](double x, double y) { return x / y; }, lo, hi);
    return rounded(lo, hi, 3);
}
Lane f_min(const Lane& a, const Lane& b) { return rounded(std::min(a.lo, b.lo), std::min(a.hi, b.hi), 0); }
Lane f_max(const Lane& a, const Lane& b) { return rounded(std::max(a.lo, b.lo), std::max(a.hi, b.hi), 0); }
Lane f_floor(const Lane& a) { return rounded(std::floor(a.lo), std::floor(a.hi), 0); }

/// 1 (true), 0 (false) or unknown: a < b over the intervals.
Lane f_less(const Lane& a, const Lane& b, bool or_equal) {
    if (or_equal ? a.hi <= b.lo : a.hi < b.lo) return integer(1);
    if (or_equal ? a.lo > b.hi : a.lo >= b.hi) return integer(0);
    return unknown();
}
Lane f_equal(const Lane& a, const Lane& b) {
    if (a.lo == a.hi && b.lo == b.hi && a.lo == b.lo) return integer(1);
    if (a.hi < b.lo || b.hi < a.lo) return integer(0);
    return unknown();
}

Lane f_unary(Op op, const Lane& a) {
    switch (op) {
        case Op::Neg: return rounded(-a.hi, -a.lo, 0);
        case Op::Abs:
            if (a.lo >= 0) return a;
            if (a.hi <= 0) return rounded(-a.hi, -a.lo, 0);
            return rounded(0, std::max(-a.lo, a.hi), 0);
        case Op::Sign: return rounded(a.lo > 0 ? 1 : a.lo < 0 ? -1 : 0, a.hi > 0 ? 1 : a.hi < 0 ? -1 : 0, 0);
        case Op::Floor: return f_floor(a);
        case Op::Ceil: return rounded(std::ceil(a.lo), std::ceil(a.hi), 0);
        case Op::Trunc: return rounded(std::trunc(a.lo), std::trunc(a.hi), 0);
        case Op::Round: return rounded(std::nearbyint(a.lo), std::nearbyint(a.hi), 0);
        case Op::Fract: {
            const double f = std::floor(a.lo);
            if (f != std::floor(a.hi)) return rounded(0, 1, 0);
            return rounded(a.lo - f, a.hi - f, 1);  // x - floor(x), rounded once
        }
        case Op::Sqrt: return monotone(a, [](double x) { return std::sqrt(std::max(x, 0.0)); }, 3);
        case Op::InverseSqrt:
            if (a.lo <= 0) return unknown();
            return monotone(a, [](double x) { return 1 / std::sqrt(x); }, 3);
        case Op::Exp: return monotone(a, [](double x) { return std::exp(x); }, 3 + 2 * std::max(std::fabs(a.lo), std::fabs(a.hi)));
        case Op::Exp2: return monotone(a, [](double x) { return std::exp2(x); }, 3 + 2 * std::max(std::fabs(a.lo), std::fabs(a.hi)));
        case Op::Log: return monotone(a, [](double x) { return std::log(x); }, 3, 1.0 / (1 << 21));
        case Op::Log2: return monotone(a, [](double x) { return std::log2(x); }, 3, 1.0 / (1 << 21));
        case Op::Sin: case Op::Cos: {
            auto f = [&](double x) { return op == Op::Sin ? std::sin(x) : std::cos(x); };
            double lo = std::min(f(a.lo), f(a.hi)), hi = std::max(f(a.lo), f(a.hi));
            for (double c : {-kPi, -kPi / 2, 0.0, kPi / 2, kPi})
                if (c >= a.lo && c <= a.hi) {
                    lo = std::min(lo, f(c));
                    hi = std::max(hi, f(c));
                }
            return rounded(lo, hi, 0, 1.0 / 2048);
        }
        case Op::Tan: return monotone(a, [](double x) { return std::tan(x); }, 0, 1e-3, 1e-3);
        case Op::Asin: return monotone(a, [](double x) { return std::asin(std::clamp(x, -1.0, 1.0)); }, 4096, 1e-6);
        case Op::Acos: return monotone(a, [](double x) { return std::acos(std::clamp(x, -1.0, 1.0)); }, 4096, 1e-6);
        case Op::Atan: return monotone(a, [](double x) { return std::atan(x); }, 4096, 1e-6);
        case Op::Sinh: return monotone(a, [](double x) { return std::sinh(x); }, 0, 1e-4, 1e-4);
        case Op::Tanh: return monotone(a, [](double x) { return std::tanh(x); }, 0, 1e-4, 1e-4);
        case Op::Asinh: return monotone(a, [](double x) { return std::asinh(x); }, 0, 1e-4, 1e-4);
        case Op::Acosh: return monotone(a, [](double x) { return std::acosh(std::max(x, 1.0)); }, 0, 1e-4, 1e-4);
        case Op::Atanh: return monotone(a, [](double x) { return std::atanh(x); }, 0, 1e-4, 1e-4);
        case Op::Cosh: {
            const double lo = a.lo <= 0 && a.hi >= 0 ? 1.0 : std::min(std::cosh(a.lo), std::cosh(a.hi));
            const double hi = std::max(std::cosh(a.lo), std::cosh(a.hi));
            return rounded(lo - lo * 1e-4, hi + hi * 1e-4, 0, 1e-4);
        }
        default: return unknown();
    }
}

Lane f_binary(Op op, const Lane& a, const Lane& b) {
    switch (op) {
        case Op::Add: return f_add(a, b);
        case Op::Sub: return f_sub(a, b);
        case Op::Mul: return f_mul(a, b);
        case Op::Div: return f_div(a, b);
        case Op::Min: return f_min(a, b);
        case Op::Max: return f_max(a, b);
        case Op::Mod: {  // x - y * floor(x / y), each step rounded as the driver may
            const Lane q = f_div(a, b);
            if (!q.known) return unknown();
            const Lane m = f_mul(b, f_floor(q));
            if (!m.known) return unknown();
            return f_sub(a, m);
        }
        case Op::Pow: {  // x > 0: monotone in each operand
            if (a.lo <= 0) return unknown();
            double lo, hi;
            corners(a, b, [](double x, double y) { return std::pow(x, y); }, lo, hi);
            return rounded(lo - lo * 1e-5, hi + hi * 1e-5, 0, 1e-37);
        }
        case Op::Atan2: {  // x > 0: monotone in each operand
            if (b.lo <= 0) return unknown();
            double lo, hi;
            corners(a, b, [](double y, double x) { return std::atan2(y, x); }, lo, hi);
            return rounded(lo, hi, 4096, 1e-6);
        }
        case Op::Step: {  // select(x < edge, 0, 1)
            const Lane c = f_less(b, a, false);
            if (!c.known) return rounded(0, 1, 0);
            return point(c.i ? 0.0 : 1.0);
        }
        default: return unknown();
    }
}

// --- integers -------------------------------------------------------------------

Lane i_binary(Op op, Ty t, const Lane& a, const Lane& b) {
    const bool is_signed = scalar_of(t) == Ty::I;
    const std::int64_t x = a.i, y = b.i;
    switch (op) {
        case Op::Add: return integer(wrap(x + y, t));
        case Op::Sub: return integer(wrap(x - y, t));
        case Op::Mul: return integer(wrap(static_cast<std::int64_t>(bits(x) * static_cast<std::uint64_t>(bits(y))), t));
        case Op::Div: case Op::Rem:
            if (y == 0 || (is_signed && x == std::numeric_limits<std::int32_t>::min() && y == -1)) return unknown();
            return integer(wrap(op == Op::Div ? x / y : x % y, t));
        case Op::Min: return integer(std::min(x, y));
        case Op::Max: return integer(std::max(x, y));
        case Op::BitAnd: return integer(wrap(bits(x) & bits(y), t));
        case Op::BitOr: return integer(wrap(bits(x) | bits(y), t));
        case Op::BitXor: return integer(wrap(bits(x) ^ bits(y), t));
        case Op::Shl: return integer(wrap(static_cast<std::uint32_t>(bits(x) << (bits(y) & 31u)), t));
        case Op::Shr:
            if (is_signed) return integer(static_cast<std::int32_t>(x) >> (bits(y) & 31u));
            return integer(bits(x) >> (bits(y) & 31u));
        case Op::Lt: return integer(x < y);
        case Op::Le: return integer(x <= y);
        case Op::Gt: return integer(x > y);
        case Op::Ge: return integer(x >= y);
        case Op::Eq: return integer(x == y);
        case Op::Ne: return integer(x != y);
        default: return unknown();
    }
}

Lane i_unary(Op op, Ty t, Ty from, const Lane& a) {
    const std::uint32_t u = bits(a.i);
    switch (op) {
        case Op::Neg: return integer(wrap(-a.i, t));
        case Op::Abs:
            if (a.i == std::numeric_limits<std::int32_t>::min()) return unknown();
            return integer(std::abs(a.i));
        case Op::Sign: return integer(a.i > 0 ? 1 : a.i < 0 ? -1 : 0);
        case Op::BitNot: return integer(wrap(~u, t));
        case Op::BitCount: return integer(std::popcount(u));
        case Op::FindLsb: return integer(u == 0 ? -1 : std::countr_zero(u));
        case Op::FindMsb: {
            const std::uint32_t v = scalar_of(from) == Ty::I && a.i < 0 ? ~u : u;
            return integer(v == 0 ? -1 : 31 - std::countl_zero(v));
        }
        case Op::BitReverse: {
            std::uint32_t r = 0;
            for (int k = 0; k < 32; ++k)
                if (u & (1u << k)) r |= 1u << (31 - k);
            return integer(wrap(r, t));
        }
        default: return unknown();
    }
}

// --- the program ----------------------------------------------------------------

enum class Flow { Normal, Break, Continue, Return };

class Interpreter {
public:
    Interpreter(const Program& p, const Inputs& in, std::int64_t e) : p_(p), in_(in), e_(e), vars_(p.vars.size()) {
        for (int o = 0; o < kOutputCount; ++o)
            for (int c = 0; c < 4; ++c) r_.out[o][c] = is_float(output_type(o)) ? point(0) : integer(0);
    }

    ElementResult run() {
        try {
            exec(p_.body);
        } catch (const Undetermined&) {
            r_.determined = false;
        }
        return r_;
    }

private:
    const Program& p_;
    const Inputs& in_;
    std::int64_t e_;
    std::vector<V> vars_;
    ElementResult r_;
    // Loops are bounded by construction; this only keeps a broken program from hanging the check.
    std::int64_t iterations_left_ = 1 << 20;
    void iterate() {
        if (--iterations_left_ < 0) throw Undetermined{};
    }

    static V make(Ty t) {
        V v;
        v.ty = t;
        return v;
    }
    bool decide(const V& c) {
        if (!c.l[0].known) throw Undetermined{};
        return c.l[0].i != 0;
    }
    std::int64_t index(const Lane& l) {
        if (!l.known) throw Undetermined{};
        return l.i;
    }

    /// Applies f lane by lane over the node's width; unknown in, unknown out.
    template <class F>
    V lanes(Ty t, std::initializer_list<const V*> args, F f) {
        V r = make(t);
        for (int c = 0; c < width(t); ++c) {
            bool known = true;
            for (const V* a : args) known = known && a->lane(c).known;
            r.l[c] = known ? f(c) : unknown();
        }
        return r;
    }

    V eval(int id) {
        const Node& n = p_.nodes[static_cast<std::size_t>(id)];
        const Ty t = n.ty;
        auto kid = [&](int k) { return eval(n.kids[static_cast<std::size_t>(k)]); };
        switch (n.op) {
            case Op::Const: {
                V r = make(t);
                for (int c = 0; c < width(t); ++c) r.l[c] = is_float(t) ? point(n.f[c]) : integer(n.i[c]);
                return r;
            }
            case Op::Input: return input(n.aux);
            case Op::Uniform: {
                V r = make(t);
                r.l[0] = point(in_.k);
                return r;
            }
            case Op::VarRef: return vars_[static_cast<std::size_t>(n.aux)];
            case Op::IndexOf: {
                V r = make(t);
                r.l[0] = integer(e_);
                return r;
            }
            case Op::GatherF: {
                const V i = kid(0);
                const std::int64_t at = std::clamp<std::int64_t>(index(i.l[0]), 0, static_cast<std::int64_t>(in_.g.size()) - 1);
                V r = make(t);
                r.l[0] = point(in_.g[static_cast<std::size_t>(at)]);
                return r;
            }
            case Op::GatherI2: {
                const V i = kid(0);
                const std::int64_t row = std::clamp<std::int64_t>(index(i.l[0]), 0, in_.gh - 1);
                const std::int64_t col = std::clamp<std::int64_t>(index(i.l[1]), 0, in_.gw - 1);
                V r = make(t);
                r.l[0] = integer(in_.gi[static_cast<std::size_t>(row * in_.gw + col)]);
                return r;
            }
            case Op::Neg: case Op::Abs: case Op::Sign: case Op::BitNot: case Op::BitReverse: {
                const V a = kid(0);
                if (is_float(t)) return lanes(t, {&a}, [&](int c) { return f_unary(n.op, a.lane(c)); });
                return lanes(t, {&a}, [&](int c) { return i_unary(n.op, t, a.ty, a.lane(c)); });
            }
            case Op::BitCount: case Op::FindLsb: case Op::FindMsb: {
                const V a = kid(0);
                return lanes(t, {&a}, [&](int c) { return i_unary(n.op, t, a.ty, a.lane(c)); });
            }
            case Op::Floor: case Op::Ceil: case Op::Round: case Op::Trunc: case Op::Fract: case Op::Sqrt:
            case Op::InverseSqrt: case Op::Exp: case Op::Exp2: case Op::Log: case Op::Log2: case Op::Sin: case Op::Cos:
            case Op::Tan: case Op::Asin: case Op::Acos: case Op::Atan: case Op::Sinh: case Op::Cosh: case Op::Tanh:
            case Op::Asinh: case Op::Acosh: case Op::Atanh: {
                const V a = kid(0);
                return lanes(t, {&a}, [&](int c) { return f_unary(n.op, a.lane(c)); });
            }
            case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Rem: case Op::Min: case Op::Max:
            case Op::Mod: case Op::Pow: case Op::Atan2: case Op::Step: case Op::BitAnd: case Op::BitOr:
            case Op::BitXor: case Op::Shl: case Op::Shr: {
                const V a = kid(0), b = kid(1);
                if (is_float(t)) return lanes(t, {&a, &b}, [&](int c) { return f_binary(n.op, a.lane(c), b.lane(c)); });
                return lanes(t, {&a, &b}, [&](int c) { return i_binary(n.op, t, a.lane(c), b.lane(c)); });
            }
            case Op::BitExtract: {
                const V x = kid(0), off = kid(1), count = kid(2);
                return lanes(t, {&x}, [&](int c) {
                    const std::uint32_t u = bits(x.lane(c).i);
                    const auto o = static_cast<unsigned>(off.l[0].i), b = static_cast<unsigned>(count.l[0].i);
                    if (b == 0) return integer(0);
                    std::uint32_t v = (u >> o) & (b == 32 ? ~0u : (1u << b) - 1u);
                    if (scalar_of(t) == Ty::I && b < 32 && (v >> (b - 1)) & 1u) v |= ~0u << b;
                    return integer(wrap(v, t));
                });
            }
            case Op::Clamp: {  // min(max(x, lo), hi)
                const V x = kid(0), lo = kid(1), hi = kid(2);
                return lanes(t, {&x, &lo, &hi}, [&](int c) {
                    if (is_float(t)) return f_min(f_max(x.lane(c), lo.lane(c)), hi.lane(c));
                    return i_binary(Op::Min, t, i_binary(Op::Max, t, x.lane(c), lo.lane(c)), hi.lane(c));
                });
            }
            case Op::Mix: {  // x * (1 - a) + y * a, as dsl/builtins.h writes it
                const V x = kid(0), y = kid(1), a = kid(2);
                return lanes(t, {&x, &y, &a}, [&](int c) {
                    const Lane one_minus = f_sub(point(1), a.lane(c));
                    const Lane l = f_mul(x.lane(c), one_minus), r = f_mul(y.lane(c), a.lane(c));
                    return l.known && r.known ? f_add(l, r) : unknown();
                });
            }
            case Op::Fma: {  // one rounding on the CPU, two allowed on GPUs
                const V a = kid(0), b = kid(1), d = kid(2);
                return lanes(t, {&a, &b, &d}, [&](int c) {
                    double lo, hi;
                    corners(a.lane(c), b.lane(c), [](double x, double y) { return x * y; }, lo, hi);
                    const double m = std::max(std::fabs(lo), std::fabs(hi));
                    return rounded(lo + d.lane(c).lo, hi + d.lane(c).hi, 1, m * kUlp);
                });
            }
            case Op::Smoothstep: {  // t = clamp((x - e0) / (e1 - e0), 0, 1); t * t * (3 - 2 * t)
                const V e0 = kid(0), e1 = kid(1), x = kid(2);
                return lanes(t, {&x}, [&](int c) {
                    const Lane q = f_div(f_sub(x.lane(c), e0.l[0]), f_sub(e1.l[0], e0.l[0]));
                    if (!q.known) return unknown();
                    const Lane s = f_min(f_max(q, point(0)), point(1));
                    return f_mul(f_mul(s, s), f_sub(point(3), f_mul(point(2), s)));
                });
            }
            case Op::Select: {
                const V cond = kid(0), a = kid(1), b = kid(2);
                V r = make(t);
                for (int c = 0; c < width(t); ++c) {
                    if (cond.l[0].known) r.l[c] = cond.l[0].i ? a.lane(c) : b.lane(c);
                    else if (is_float(t)) r.l[c] = hull(a.lane(c), b.lane(c));
                    else r.l[c] = a.lane(c).known && b.lane(c).known && a.lane(c).i == b.lane(c).i ? a.lane(c) : unknown();
                }
                return r;
            }
            case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: {
                const V a = kid(0), b = kid(1);
                return lanes(t, {&a, &b}, [&](int) {
                    const Lane &x = a.l[0], &y = b.l[0];
                    if (!is_float(a.ty)) return i_binary(n.op, a.ty, x, y);
                    switch (n.op) {
                        case Op::Lt: return f_less(x, y, false);
                        case Op::Le: return f_less(x, y, true);
                        case Op::Gt: return f_less(y, x, false);
                        case Op::Ge: return f_less(y, x, true);
                        case Op::Eq: return f_equal(x, y);
                        default: {
                            const Lane q = f_equal(x, y);
                            return q.known ? integer(!q.i) : q;
                        }
                    }
                });
            }
            case Op::And: case Op::Or: {
                const V a = kid(0), b = kid(1);
                const Lane &x = a.l[0], &y = b.l[0];
                const std::int64_t absorbing = n.op == Op::And ? 0 : 1;
                V r = make(t);
                if ((x.known && x.i == absorbing) || (y.known && y.i == absorbing)) r.l[0] = integer(absorbing);
                else if (x.known && y.known) r.l[0] = integer(1 - absorbing);
                else r.l[0] = unknown();
                return r;
            }
            case Op::Not: {
                const V a = kid(0);
                return lanes(t, {&a}, [&](int) { return integer(!a.l[0].i); });
            }
            case Op::Cast: return cast(t, kid(0));
            case Op::FloatBitsToInt: case Op::FloatBitsToUint: {
                const V a = kid(0);
                return lanes(t, {&a}, [&](int) {
                    const Lane& x = a.l[0];
                    // Bits are defined only for one exact, normal float (zero's sign is not promised).
                    if (x.lo != x.hi || x.lo == 0 || std::fabs(x.lo) < std::numeric_limits<float>::min()) return unknown();
                    return integer(wrap(std::bit_cast<std::uint32_t>(static_cast<float>(x.lo)), t));
                });
            }
            case Op::IntBitsToFloat: case Op::UintBitsToFloat: {
                const V a = kid(0);
                return lanes(t, {&a}, [&](int) {
                    const float f = std::bit_cast<float>(bits(a.l[0].i));
                    if (f != 0 && !(std::isnormal(f) && std::fabs(f) <= 1e30f)) return unknown();
                    return point(f);
                });
            }
            case Op::Swizzle: return swizzle(n, kid(0));
            case Op::Construct: {
                V r = make(t);
                int c = 0;
                for (int k : n.kids) {
                    const V part = eval(k);
                    for (int j = 0; j < width(part.ty); ++j) r.l[c++] = part.l[j];
                }
                return r;
            }
            case Op::Dot: {
                const V a = kid(0), b = kid(1);
                V r = make(t);
                r.l[0] = dot(a, b);
                return r;
            }
            case Op::Length: case Op::Distance: {
                V v = kid(0);
                if (n.op == Op::Distance) {
                    const V b = kid(1);
                    v = lanes(v.ty, {&v, &b}, [&](int c) { return f_sub(v.l[c], b.l[c]); });
                }
                V r = make(t);
                const Lane d = dot(v, v);
                r.l[0] = d.known ? f_unary(Op::Sqrt, d) : d;
                return r;
            }
            case Op::Normalize: {  // v * inversesqrt(dot(v, v))
                const V v = kid(0);
                const Lane d = dot(v, v);
                const Lane s = d.known ? f_unary(Op::InverseSqrt, d) : d;
                return lanes(t, {&v}, [&](int c) { return s.known ? f_mul(v.l[c], s) : s; });
            }
            case Op::Cross: {  // a.yzx * b.zxy - a.zxy * b.yzx
                const V a = kid(0), b = kid(1);
                return lanes(t, {&a, &b}, [&](int c) {
                    const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
                    const Lane l = f_mul(a.l[c1], b.l[c2]), r = f_mul(a.l[c2], b.l[c1]);
                    return l.known && r.known ? f_sub(l, r) : unknown();
                });
            }
        }
        return make(t);
    }

    /// The driver's dot: any order, with or without fma; the sum's error is at
    /// most width ULPs of the sum of the products' magnitudes.
    static Lane dot(const V& a, const V& b) {
        double lo = 0, hi = 0, magnitude = 0;
        for (int c = 0; c < width(a.ty); ++c) {
            if (!a.l[c].known || !b.l[c].known) return unknown();
            double plo, phi;
            corners(a.l[c], b.l[c], [](double x, double y) { return x * y; }, plo, phi);
            lo += plo;
            hi += phi;
            magnitude += std::max(std::fabs(plo), std::fabs(phi));
        }
        return rounded(lo, hi, 0, magnitude * width(a.ty) * kUlp);
    }

    V input(int which) {
        const auto e = static_cast<std::size_t>(e_);
        V r = make(input_type(which));
        switch (which) {
            case kFa: r.l[0] = point(in_.fa[e]); break;
            case kFb: r.l[0] = point(in_.fb[e]); break;
            case kIa: r.l[0] = integer(in_.ia[e]); break;
            case kUa: r.l[0] = integer(in_.ua[e]); break;
            case kVa: for (int c = 0; c < 4; ++c) r.l[c] = point(in_.va[e][c]); break;
            case kPos: for (int c = 0; c < 3; ++c) r.l[c] = point(in_.p[e].pos[c]); break;
            case kMass: r.l[0] = point(in_.p[e].mass); break;
            case kId: r.l[0] = integer(in_.p[e].id); break;
        }
        return r;
    }

    static V swizzle(const Node& n, const V& v) {
        static const int patterns[][4] = {{0}, {1}, {2}, {3}, {0, 1, 2}, {1, 2, 0}, {0, 1}, {2, 3}, {}, {}, {0}, {1}, {1, 0}};
        V r = make(n.ty);
        for (int c = 0; c < width(n.ty); ++c) r.l[c] = v.l[patterns[n.aux][c]];
        return r;
    }

    static V cast(Ty t, const V& a) {
        V r = make(t);
        const Ty to = scalar_of(t), from = scalar_of(a.ty);
        for (int c = 0; c < width(t); ++c) {
            const Lane& x = a.l[c];
            if (!x.known) {
                r.l[c] = unknown();
                continue;
            }
            if (to == Ty::F) {
                if (from == Ty::F) r.l[c] = x;
                else if (from == Ty::B) r.l[c] = point(x.i ? 1.0 : 0.0);
                else {
                    const auto v = static_cast<double>(x.i);
                    r.l[c] = std::fabs(v) <= (1 << 24) ? point(v) : rounded(v, v, 0.5);
                }
            } else if (to == Ty::B) {
                if (from == Ty::F) r.l[c] = x.lo > 0 || x.hi < 0 ? integer(1) : x.lo == 0 && x.hi == 0 ? integer(0) : unknown();
                else r.l[c] = integer(x.i != 0);
            } else if (from == Ty::F) {
                // Truncates; out of range (and, for uint, negative) is undefined.
                const double lo = std::trunc(x.lo), hi = std::trunc(x.hi);
                const double min = to == Ty::U ? 0.0 : -2147483648.0, max = to == Ty::U ? 4294967295.0 : 2147483647.0;
                if (lo != hi || lo < min || lo > max || (to == Ty::U && x.lo < 0)) r.l[c] = unknown();
                else r.l[c] = integer(static_cast<std::int64_t>(lo));
            } else {
                r.l[c] = integer(from == Ty::B ? x.i : wrap(x.i, to));
            }
        }
        return r;
    }

    Flow exec(const std::vector<Stmt>& block) {
        for (const Stmt& s : block) {
            const Flow f = exec(s);
            if (f != Flow::Normal) return f;
        }
        return Flow::Normal;
    }

    Flow exec(const Stmt& s) {
        switch (s.kind) {
            case Stmt::Decl: case Stmt::Assign: {
                V v = eval(s.expr);
                v.ty = p_.vars[static_cast<std::size_t>(s.var)];
                vars_[static_cast<std::size_t>(s.var)] = v;
                return Flow::Normal;
            }
            case Stmt::AddAssign: {
                V& var = vars_[static_cast<std::size_t>(s.var)];
                const V add = eval(s.expr);
                const V old = var;
                var = lanes(old.ty, {&old, &add}, [&](int c) {
                    return is_float(old.ty) ? f_add(old.l[c], add.lane(c)) : i_binary(Op::Add, old.ty, old.l[c], add.lane(c));
                });
                return Flow::Normal;
            }
            case Stmt::Out: {
                const V v = eval(s.expr);
                for (int c = 0; c < width(v.ty); ++c) r_.out[s.out][c] = v.l[c];
                return Flow::Normal;
            }
            case Stmt::If: return decide(eval(s.expr)) ? exec(s.body) : exec(s.orelse);
            case Stmt::For: {
                const std::int64_t last = index(eval(s.expr).l[0]);
                for (std::int64_t i = s.begin; s.step > 0 ? i < last : i > last; i += s.step) {
                    iterate();
                    vars_[static_cast<std::size_t>(s.var)] = make(Ty::I);
                    vars_[static_cast<std::size_t>(s.var)].l[0] = integer(i);
                    const Flow f = exec(s.body);
                    if (f == Flow::Return) return f;
                    if (f == Flow::Break) break;
                }
                return Flow::Normal;
            }
            case Stmt::While: {
                V& guard = vars_[static_cast<std::size_t>(s.var)];
                while (true) {
                    // guard < bound && cond
                    if (index(guard.l[0]) >= s.step) break;
                    if (!decide(eval(s.expr))) break;
                    guard.l[0] = integer(guard.l[0].i + 1);
                    const Flow f = exec(s.body);
                    if (f == Flow::Return) return f;
                    if (f == Flow::Break) break;
                }
                return Flow::Normal;
            }
            case Stmt::Break: return Flow::Break;
            case Stmt::Continue: return Flow::Continue;
            case Stmt::Return: return Flow::Return;
        }
        return Flow::Normal;
    }
};

}  // namespace

std::vector<ElementResult> interpret(const Program& prog, const Inputs& in) {
    std::vector<ElementResult> r;
    r.reserve(static_cast<std::size_t>(in.n));
    for (std::int64_t e = 0; e < in.n; ++e) r.push_back(Interpreter(prog, in, e).run());
    return r;
}

}  // namespace rill::random_kernels
