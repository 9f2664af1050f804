// Every builtin against a float64 / int64 reference computed here with std::,
// on random inputs plus edge values, as scalars and as float4 (vector paths).
// Tolerances are the GLSL / Vulkan precision rules (docs/SEMANTICS.md), so the
// same table checks every backend.
#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <limits>

#include <rill/dsl/complex.h>

#include "backend_fixture.h"

/// A struct input whose int field is the operand below (the shape a random
/// kernel failed in: docs/TESTING.md#what-they-found).
struct SignedRecord {
    rill::float3 pos;
    float mass;
    std::int32_t id;
};
RILL_STRUCT(SignedRecord, pos, mass, id);

namespace rill::test {
namespace {

using FloatKernel = Kernel<In<float>, Out<float>>;
using Float4Kernel = Kernel<In<float4>, Out<float4>>;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
const std::vector<float> kSpecials = {0.0f, -0.0f, 1e-40f, -1e-40f, kInf, -kInf, kNaN,
                                      std::numeric_limits<float>::max(), std::numeric_limits<float>::min(), 1.0f, -1.0f};

struct UnaryCase {
    const char* name;
    FloatKernel scalar;
    Float4Kernel vector;
    double (*ref)(double);
    float lo, hi;
    double abs_tol, rel_tol;
    bool specials;  // IEEE special inputs have defined results for this function
};

#define UNARY(NAME, EXPR, REF, LO, HI, ABS, REL, SPECIALS)                                              \
    UnaryCase {                                                                                         \
        #NAME, kernel(#NAME "(x, r)", [](In<float> x, Out<float> r) { r = EXPR; }),                     \
            kernel(#NAME "4(x, r)", [](In<float4> x, Out<float4> r) { r = EXPR; }),                      \
            [](double x) -> double { return REF; }, LO, HI, ABS, REL, SPECIALS                           \
    }

constexpr double kUlp = 1.0 / (1 << 23);
constexpr double kPi = 3.14159265358979323846;

std::vector<UnaryCase> unary_cases() {
    return {
        UNARY(neg, -x, -x, -1e6f, 1e6f, 0, 0, true),
        UNARY(abs, abs(x), std::fabs(x), -1e6f, 1e6f, 0, 0, true),
        UNARY(sign, sign(x), (x > 0 ? 1.0 : x < 0 ? -1.0 : x), -10.f, 10.f, 0, 0, false),
        UNARY(floor, floor(x), std::floor(x), -1000.f, 1000.f, 0, 0, true),
        UNARY(ceil, ceil(x), std::ceil(x), -1000.f, 1000.f, 0, 0, true),
        UNARY(round, round(x), std::nearbyint(x), -1000.f, 1000.f, 0, 0, true),
        UNARY(trunc, trunc(x), std::trunc(x), -1000.f, 1000.f, 0, 0, true),
        UNARY(fract, fract(x), x - std::floor(x), -1000.f, 1000.f, 1e-4, 0, false),
        UNARY(sqrt, sqrt(x), std::sqrt(x), 0.f, 1e6f, 1e-37, 3 * kUlp, true),
        UNARY(inversesqrt, inversesqrt(x), 1.0 / std::sqrt(x), 1e-3f, 1e6f, 0, 3 * kUlp, false),
        UNARY(exp, exp(x), std::exp(x), -20.f, 20.f, 1e-37, 50 * kUlp, false),
        UNARY(exp2, exp2(x), std::exp2(x), -30.f, 30.f, 1e-37, 70 * kUlp, false),
        UNARY(log, log(x), std::log(x), 1e-20f, 1e20f, 5e-7, 4 * kUlp, false),
        UNARY(log2, log2(x), std::log2(x), 1e-20f, 1e20f, 5e-7, 4 * kUlp, false),
        UNARY(sin, sin(x), std::sin(x), -float(kPi), float(kPi), 1.0 / 2048, 0, false),
        UNARY(cos, cos(x), std::cos(x), -float(kPi), float(kPi), 1.0 / 2048, 0, false),
        UNARY(tan, tan(x), std::tan(x), -1.4f, 1.4f, 1e-3, 1e-3, false),
        // Vulkan: atan within 4096 ULP; asin, acos and atan2 inherit it.
        UNARY(asin, asin(x), std::asin(x), -1.f, 1.f, 1e-6, 4096 * kUlp, false),
        UNARY(acos, acos(x), std::acos(x), -1.f, 1.f, 1e-6, 4096 * kUlp, false),
        UNARY(atan, atan(x), std::atan(x), -100.f, 100.f, 1e-6, 4096 * kUlp, false),
        UNARY(sinh, sinh(x), std::sinh(x), -10.f, 10.f, 1e-4, 1e-4, false),
        UNARY(cosh, cosh(x), std::cosh(x), -10.f, 10.f, 1e-4, 1e-4, false),
        UNARY(tanh, tanh(x), std::tanh(x), -10.f, 10.f, 1e-4, 1e-4, false),
        UNARY(asinh, asinh(x), std::asinh(x), -100.f, 100.f, 1e-4, 1e-4, false),
        UNARY(acosh, acosh(x), std::acosh(x), 1.f, 100.f, 1e-4, 1e-4, false),
        UNARY(atanh, atanh(x), std::atanh(x), -0.99f, 0.99f, 1e-4, 1e-4, false),
        UNARY(is_nan, select(isnan(x), 1.0f, 0.0f), std::isnan(x) ? 1.0 : 0.0, -1.f, 1.f, 0, 0, true),
        UNARY(is_inf, select(isinf(x), 1.0f, 0.0f), std::isinf(x) ? 1.0 : 0.0, -1.f, 1.f, 0, 0, true),
        UNARY(square_plus, x * x + 2.0f * x - 1.0f, double(float(float(x * x) + float(2 * x)) - 1.0f), -100.f, 100.f, 0, 0, false),
        UNARY(smoothstep, smoothstep(-1.0f, 2.0f, x),
              [](double v) { double t = std::clamp((v + 1) / 3, 0.0, 1.0); return t * t * (3 - 2 * t); }(x), -3.f, 4.f,
              1e-6, 1e-6, false),
        UNARY(step, step(0.5f, x), x < 0.5 ? 0.0 : 1.0, -3.f, 4.f, 0, 0, false),
        UNARY(clamp, clamp(x, -1.0f, 2.0f), std::clamp(x, -1.0, 2.0), -3.f, 4.f, 0, 0, false),
        UNARY(mix, mix(x, 2.0f * x, 0.25f), x * 0.75 + 2 * x * 0.25, -100.f, 100.f, 1e-5, 1e-6, false),
        UNARY(mod, mod(x, 3.0f), double(x - 3.0f * std::floor(float(x) / 3.0f)), -100.f, 100.f, 1e-5, 0, false),
        UNARY(pow, pow(abs(x) + 0.01f, 1.7f), std::pow(std::fabs(x) + double(0.01f), 1.7), -10.f, 10.f, 1e-6, 1e-5, false),
        UNARY(atan2, atan2(x, 0.5f - x), std::atan2(x, 0.5 - x), -10.f, 10.f, 1e-6, 4096 * kUlp, false),
        UNARY(min, min(x, 0.5f), std::min(x, 0.5), -10.f, 10.f, 0, 0, false),
        UNARY(max, max(x, 0.5f), std::max(x, 0.5), -10.f, 10.f, 0, 0, false),
        UNARY(fma, fma(x, x, -1.0f), std::fma(double(x), double(x), -1.0), -100.f, 100.f, 1e-6, 2 * kUlp, false),
        UNARY(div, 1.0f / x, 1.0 / x, 0.01f, 1e6f, 0, 3 * kUlp, false),
        UNARY(select, select(x > 0.0f, x, -2.0f * x), x > 0 ? x : -2 * x, -10.f, 10.f, 0, 0, false),
    };
}

class Builtins : public BackendTest {};

TEST_P(Builtins, FloatFunctionsMatchFloat64Reference) {
    for (const UnaryCase& c : unary_cases()) {
        SCOPED_TRACE(c.name);
        std::vector<float> in = random_floats(3001, c.lo, c.hi);
        if (c.specials) in.insert(in.end(), kSpecials.begin(), kSpecials.end());
        const auto n = static_cast<std::int64_t>(in.size());
        auto x = rt().stream<float>({n}, in);
        auto r = rt().stream<float>({n});
        c.scalar(x, r);
        std::vector<float> got = r.download();
        int bad = 0;
        for (std::size_t i = 0; i < in.size() && bad < 5; ++i) {
            double want = c.ref(static_cast<double>(in[i]));
            // GPUs may flush a denormal input to a zero of the same sign.
            const bool denormal = in[i] != 0.0f && std::fabs(in[i]) < std::numeric_limits<float>::min();
            if (denormal && close(got[i], c.ref(std::copysign(0.0, in[i])), 1e-37, c.rel_tol)) continue;
            if (!close(got[i], want, c.abs_tol, c.rel_tol)) {
                ADD_FAILURE() << c.name << "(" << in[i] << ") = " << got[i] << ", want " << want;
                ++bad;
            }
        }
        // The same function on float4 lanes: components must match the scalar results.
        const std::int64_t m = n / 4;
        std::vector<float4> in4(static_cast<std::size_t>(m));
        std::memcpy(static_cast<void*>(in4.data()), in.data(), sizeof(float4) * in4.size());
        auto x4 = rt().stream<float4>({m}, in4);
        auto r4 = rt().stream<float4>({m});
        c.vector(x4, r4);
        std::vector<float4> got4 = r4.download();
        for (std::int64_t i = 0; i < m && bad < 5; ++i)
            for (int k = 0; k < 4; ++k) {
                const float v = got4[i][k], s = got[i * 4 + k];
                if (!(v == s || (std::isnan(v) && std::isnan(s)))) {
                    ADD_FAILURE() << c.name << " on float4 component " << k << " of " << in[i * 4 + k] << ": " << v
                                  << " vs scalar " << s;
                    ++bad;
                }
            }
    }
}

// The whole float range, not only where the textbook formulas hold: asinh and
// acosh of x >= about 2e19 were inf on the GPUs (they squared x), sinh and cosh
// overflowed where exp(|x|) does though the result is finite.
std::vector<float> log_spaced(float lo, float hi, int count, bool both_signs) {
    std::vector<float> v;
    for (int i = 0; i < count; ++i) {
        const double t = static_cast<double>(i) / (count - 1);
        const float x = static_cast<float>(std::exp(std::log(double(lo)) + t * (std::log(double(hi)) - std::log(double(lo)))));
        v.push_back(x);
        if (both_signs) v.push_back(-x);
    }
    v.push_back(hi);
    if (both_signs) v.push_back(-hi);
    return v;
}

TEST_P(Builtins, TranscendentalsOverTheWholeFloatRange) {
    constexpr float kMax = std::numeric_limits<float>::max();
    const std::vector<UnaryCase> cases = {
        UNARY(asinh, asinh(x), std::asinh(x), 1e-30f, kMax, 1e-4, 1e-4, false),
        UNARY(acosh, acosh(x), std::acosh(x), 1.0f, kMax, 1e-4, 1e-4, false),
        UNARY(sinh, sinh(x), std::sinh(x), 1e-30f, 89.4f, 1e-4, 1e-4, false),
        UNARY(cosh, cosh(x), std::cosh(x), 1e-30f, 89.4f, 1e-4, 1e-4, false),
        UNARY(tanh, tanh(x), std::tanh(x), 1e-30f, kMax, 1e-4, 1e-4, false),
        UNARY(atanh, atanh(x), std::atanh(x), 1e-30f, 0.9999f, 1e-4, 1e-4, false),
        UNARY(pow, pow(abs(x), 1.7f), std::pow(std::fabs(x), 1.7), 1e-20f, 1e22f, 1e-37, 1e-5, false),
        UNARY(powneg, pow(abs(x), -0.6f), std::pow(std::fabs(x), -0.6), 1e-30f, 1e38f, 1e-37, 1e-5, false),
        UNARY(exp, exp(x), std::exp(x), 1e-30f, 88.7f, 1e-37, 1e-5, false),
    };
    for (const UnaryCase& c : cases) {
        SCOPED_TRACE(c.name);
        const bool both_signs = std::string(c.name) != "acosh";
        std::vector<float> in = log_spaced(c.lo, c.hi, 400, both_signs);
        if (std::string(c.name) == "acosh") {  // near 1 too
            for (float e = 1e-7f; e < 1.0f; e *= 1.5f) in.push_back(1.0f + e);
        }
        const auto n = static_cast<std::int64_t>(in.size());
        auto x = rt().stream<float>({n}, in);
        auto r = rt().stream<float>({n});
        c.scalar(x, r);
        std::vector<float> got = r.download();
        // float4 lanes take the same path (a select per component).
        std::vector<float4> in4((in.size() + 3) / 4, float4{1, 1, 1, 1});
        std::memcpy(static_cast<void*>(in4.data()), in.data(), sizeof(float) * in.size());
        auto x4 = rt().stream<float4>({static_cast<std::int64_t>(in4.size())}, in4);
        auto r4 = rt().stream<float4>({static_cast<std::int64_t>(in4.size())});
        c.vector(x4, r4);
        std::vector<float4> got4 = r4.download();
        int bad = 0;
        for (std::size_t i = 0; i < in.size() && bad < 5; ++i) {
            const double want = c.ref(static_cast<double>(in[i]));
            const float v = got4[i / 4][static_cast<int>(i % 4)];
            if (!close(got[i], want, c.abs_tol, c.rel_tol) || !close(v, want, c.abs_tol, c.rel_tol)) {
                ADD_FAILURE() << c.name << "(" << in[i] << ") = " << got[i] << " (float4: " << v << "), want " << want;
                ++bad;
            }
        }
    }
}

// --- integers -----------------------------------------------------------------

using IntKernel = Kernel<In<std::int32_t>, In<std::int32_t>, Out<std::int32_t>>;
using UintKernel = Kernel<In<std::uint32_t>, In<std::uint32_t>, Out<std::uint32_t>>;

struct IntCase {
    const char* name;
    IntKernel k;
    std::int64_t (*ref)(std::int64_t, std::int64_t);
    bool nonzero_b;  // b must not be 0 (division)
    bool small_b;    // b in [0, 31] (shifts)
};

// Two's-complement wrap of an int64 reference to int32.
std::int64_t wrap(std::int64_t v) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v)); }

#define INT_CASE(NAME, EXPR, REF, NZ, SMALL)                                                                       \
    IntCase {                                                                                                      \
        #NAME, kernel(#NAME "(a, b, r)", [](In<std::int32_t> a, [[maybe_unused]] In<std::int32_t> b, Out<std::int32_t> r) { r = EXPR; }), \
            []([[maybe_unused]] std::int64_t a, [[maybe_unused]] std::int64_t b) -> std::int64_t { return REF; }, NZ, SMALL                           \
    }

std::vector<IntCase> int_cases() {
    return {
        INT_CASE(add, a + b, wrap(a + b), false, false),
        INT_CASE(sub, a - b, wrap(a - b), false, false),
        INT_CASE(mul, a * b, wrap(a * b), false, false),
        INT_CASE(div, a / b, wrap(a / b), true, false),
        INT_CASE(rem, a % b, a % b, true, false),
        // Division by a constant: the GLSL generator spells it through unsigned division (docs/DESIGN.md).
        INT_CASE(div_by_3, a / 3, a / 3, false, false),
        INT_CASE(div_by_38, a / 38, a / 38, false, false),
        INT_CASE(rem_by_38, a % 38, a % 38, false, false),
        INT_CASE(rem_by_1000, a % 1000, a % 1000, false, false),
        INT_CASE(div_by_int_max, a / 2147483647, a / 2147483647, false, false),
        INT_CASE(div_by_minus_7, a / -7, a / -7, false, false),
        INT_CASE(rem_by_minus_7, a % -7, a % -7, false, false),
        INT_CASE(min, min(a, b), std::min(a, b), false, false),
        INT_CASE(max, max(a, b), std::max(a, b), false, false),
        INT_CASE(and, a & b, a & b, false, false),
        INT_CASE(or, a | b, a | b, false, false),
        INT_CASE(xor, a ^ b, a ^ b, false, false),
        INT_CASE(not, ~a, ~a, false, false),
        INT_CASE(neg, -a, wrap(-a), false, false),
        INT_CASE(abs, abs(a), wrap(std::llabs(a)), false, false),
        INT_CASE(sign, sign(a), (a > 0) - (a < 0), false, false),
        INT_CASE(shl, a << b, wrap(static_cast<std::int64_t>(static_cast<std::uint32_t>(a) << b)), false, true),
        INT_CASE(shr, a >> b, a >> b, false, true),
        INT_CASE(bit_count, bit_count(a), std::popcount(static_cast<std::uint32_t>(a)), false, false),
        INT_CASE(find_lsb, find_lsb(a), a == 0 ? -1 : std::countr_zero(static_cast<std::uint32_t>(a)), false, false),
        INT_CASE(find_msb, find_msb(a),
                 ([](std::int64_t v) -> std::int64_t {
                     std::uint32_t u = static_cast<std::uint32_t>(v < 0 ? ~v : v);
                     return u == 0 ? -1 : 31 - std::countl_zero(u);
                 }(a)),
                 false, false),
        INT_CASE(bitfield_reverse, bitfield_reverse(a),
                 ([](std::int64_t v) -> std::int64_t {
                     std::uint32_t u = static_cast<std::uint32_t>(v), r = 0;
                     for (int i = 0; i < 32; ++i) r |= ((u >> i) & 1u) << (31 - i);
                     return static_cast<std::int32_t>(r);
                 }(a)),
                 false, false),
        // offset + bits beyond 32 is undefined in GLSL: keep offsets in [0, 27]
        INT_CASE(bitfield_extract, bitfield_extract(a, b % 28, 5),
                 ([](std::int64_t v, std::int64_t off) -> std::int64_t {
                     std::int64_t f = (static_cast<std::uint32_t>(v) >> (off % 28)) & 31;
                     return f >= 16 ? f - 32 : f;  // sign-extended 5-bit field
                 }(a, b)),
                 false, true),
        INT_CASE(compare, select(a < b, 1, 0) + select(a <= b, 2, 0) + select(a > b, 4, 0) + select(a >= b, 8, 0) +
                              select(a == b, 16, 0) + select(a != b, 32, 0),
                 (a < b) + 2 * (a <= b) + 4 * (a > b) + 8 * (a >= b) + 16 * (a == b) + 32 * (a != b), false, false),
        INT_CASE(float_round_trip, cast<int>(cast<float>(a) * 0.5f), static_cast<std::int64_t>(std::trunc(double(float(a)) * 0.5)), false, false),
    };
}

TEST_P(Builtins, IntegerOpsWrapLikeTwosComplement) {
    const std::vector<std::int32_t> specials = {0, 1, -1, 2147483647, -2147483647 - 1, 65536, -65536};
    for (const IntCase& c : int_cases()) {
        SCOPED_TRACE(c.name);
        std::vector<std::int32_t> a = random_ints(2000, std::numeric_limits<std::int32_t>::min(),
                                                  std::numeric_limits<std::int32_t>::max());
        std::vector<std::int32_t> b = c.small_b ? random_ints(2000, 0, 31) : random_ints(2000, -1000, 1000);
        for (std::size_t i = 0; i < specials.size(); ++i) {
            a[i] = specials[i];
            if (!c.small_b) b[i + specials.size()] = specials[i];
        }
        for (auto& v : b)
            if (c.nonzero_b && (v == 0 || v == -1)) v = 7;  // undefined in GLSL
        const auto n = static_cast<std::int64_t>(a.size());
        auto sa = rt().stream<std::int32_t>({n}, a);
        auto sb = rt().stream<std::int32_t>({n}, b);
        auto sr = rt().stream<std::int32_t>({n});
        c.k(sa, sb, sr);
        std::vector<std::int32_t> got = sr.download();
        int bad = 0;
        for (std::size_t i = 0; i < a.size() && bad < 5; ++i) {
            std::int64_t want = c.ref(a[i], b[i]);
            if (got[i] != want) {
                ADD_FAILURE() << c.name << "(" << a[i] << ", " << b[i] << ") = " << got[i] << ", want " << want;
                ++bad;
            }
        }
    }
}

// nonnegative_quotient against the host's division, for ints from 0 to 2^31 - 1
// and divisors from 1 to 2^32 - 1 (powers of two and not).
TEST_P(Builtins, NonnegativeQuotientsEqualTheHosts) {
    for (std::uint32_t d : {1u, 2u, 3u, 7u, 38u, 40u, 1000u, 65537u, 0x7fffffffu, 0x80000000u, 0xffffffffu}) {
        SCOPED_TRACE("divisor " + std::to_string(d));
        auto k = kernel("q(a, r)", [d](In<std::int32_t> a, Out<std::int32_t> r) { r = nonnegative_quotient(a, d); });
        std::vector<std::int32_t> a = random_ints(3000, 0, std::numeric_limits<std::int32_t>::max());
        const std::vector<std::int32_t> edges = {0, 1, 2, 37, 38, 39, 40, 41, 999, 1000, 1001, 65536, 65537, 2147483646, 2147483647};
        std::copy(edges.begin(), edges.end(), a.begin());
        auto sa = rt().stream<std::int32_t>({static_cast<std::int64_t>(a.size())}, a);
        auto sr = rt().stream<std::int32_t>({static_cast<std::int64_t>(a.size())});
        k(sa, sr);
        const std::vector<std::int32_t> got = sr.download();
        for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(got[i], a[i] / static_cast<std::int64_t>(d)) << a[i] << " / " << d;
    }
}

TEST_P(Builtins, UnsignedOpsAndConversions) {
    auto k = kernel("u(a, b, r)", [](In<std::uint32_t> a, In<std::uint32_t> b, Out<std::uint32_t> r) {
        UInt v = a * b + (a >> 3u) - (b << 2u);
        v ^= min(a, b) / (b | 1u);
        v += cast<std::uint32_t>(cast<float>(a & 0xffffu) * 0.5f);
        v += select(a > b, 1u, 0u) + cast<std::uint32_t>(bit_count(a)) + cast<std::uint32_t>(find_msb(b));
        r = v;
    });
    const std::size_t n = 5000;
    std::vector<std::uint32_t> a(n), b(n);
    std::uniform_int_distribution<std::uint32_t> d;
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = d(rng());
        b[i] = d(rng()) >> (i % 32);
    }
    a[0] = 0xffffffffu;
    b[0] = 0;
    auto sa = rt().stream<std::uint32_t>({std::int64_t(n)}, a);
    auto sb = rt().stream<std::uint32_t>({std::int64_t(n)}, b);
    auto sr = rt().stream<std::uint32_t>({std::int64_t(n)});
    k(sa, sb, sr);
    std::vector<std::uint32_t> got = sr.download();
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t x = a[i], y = b[i];
        std::uint32_t v = x * y + (x >> 3) - (y << 2);
        v ^= std::min(x, y) / (y | 1u);
        v += static_cast<std::uint32_t>(static_cast<float>(x & 0xffffu) * 0.5f);
        v += (x > y ? 1u : 0u) + static_cast<std::uint32_t>(std::popcount(x)) +
             static_cast<std::uint32_t>(y == 0 ? -1 : 31 - std::countl_zero(y));
        ASSERT_EQ(got[i], v) << "a=" << x << " b=" << y;
    }
}

// bit_count, find_lsb and find_msb give ints, also of uint operands, and signed
// operations on them treat them as ints. NVIDIA's OpenGL compiler treated them
// as uint: clamp(bit_count(0u), -7, 8) was 8 and cast<float>(find_msb(0u))
// 4294967295 (found by the random kernels).
TEST_P(Builtins, BitQueriesOfUnsignedValuesAreSignedInts) {
    auto k = kernel("uint_bit_queries(u, r)", [](In<std::uint32_t> u, Out<int4> r) {
        r = Expr<int4>(clamp(bit_count(u), -7, 4), max(find_lsb(u), -5) * 3, min(find_msb(u), 40) - 2,
                       cast<std::int32_t>(cast<float>(find_msb(u)) + cast<float>(find_lsb(u))));
    });
    auto k2 = kernel("uint2_bit_queries(u, r)", [](In<std::uint32_t> u, Out<int4> r) {
        UInt2 v = Expr<uint2>(u, ~u);
        r = Expr<int4>(clamp(find_msb(v), -3, 30), clamp(bit_count(v) - 16, -20, 20));
    });
    std::vector<std::uint32_t> u = {0u, 1u, 2u, 3u, 26u, 0x80000000u, 0xffffffffu, 0x7fffffffu, 0x00010000u, 12345678u};
    for (int i = 0; i < 300; ++i) u.push_back(static_cast<std::uint32_t>(rng()()));
    const auto n = static_cast<std::int64_t>(u.size());
    auto su = rt().stream<std::uint32_t>({n}, u);
    auto sr = rt().stream<int4>({n});
    auto msb = [](std::uint32_t x) { return x == 0 ? -1 : 31 - std::countl_zero(x); };
    auto lsb = [](std::uint32_t x) { return x == 0 ? -1 : std::countr_zero(x); };
    k(su, sr);
    std::vector<int4> got = sr.download();
    for (std::size_t i = 0; i < u.size(); ++i) {
        const int4 want{std::clamp(std::popcount(u[i]), -7, 4), std::max(lsb(u[i]), -5) * 3, std::min(msb(u[i]), 40) - 2,
                        msb(u[i]) + lsb(u[i])};
        ASSERT_EQ(got[i], want) << "u = " << u[i];
    }
    k2(su, sr);
    got = sr.download();
    for (std::size_t i = 0; i < u.size(); ++i) {
        const int4 want{std::clamp(msb(u[i]), -3, 30), std::clamp(msb(~u[i]), -3, 30),
                        std::clamp(std::popcount(u[i]) - 16, -20, 20), std::clamp(std::popcount(~u[i]) - 16, -20, 20)};
        ASSERT_EQ(got[i], want) << "u = " << u[i];
    }
}

// clamp(x, lo, hi) is min(max(x, lo), hi) (dsl/builtins.h): hi when lo > hi, and
// a clamp of a clamp to a disjoint range gives the outer range's near end.
// NVIDIA's OpenGL compiler merged the min/max chains into clamps that returned
// lo, and the inner range's end (found by the random kernels).
TEST_P(Builtins, ClampIsMinOfMaxForAnyBounds) {
    auto k = kernel("clamps(x, i, r, ri)", [](In<float4> x, In<int2> i, Out<float4> r, Out<int4> ri) {
        r = Expr<float4>(clamp(x.x(), 0.0f, -3.25f), clamp(clamp(x.y(), -4.5f, -3.25f), 0.5f, 4.5f),
                         clamp(clamp(x.z(), 1.0f, 2.0f), -3.0f, -1.0f), min(max(x.w(), 2.0f), 1.0f));
        const Expr<float2> v = clamp(clamp(x.xy(), -4.0f, -3.0f), 0.5f, 4.5f);
        r += Expr<float4>(v, clamp(x.zw(), 1.0f, -1.0f)) * 100.0f;
        ri = Expr<int4>(clamp(i.x(), 0, -3), clamp(clamp(i.y(), -9, -5), 2, 7), clamp(clamp(i, 1, 2), -5, -3));
    });
    std::vector<float4> x;
    std::vector<int2> iv;
    for (int n = 0; n < 200; ++n) {
        const float a = static_cast<float>(n) / 10.0f - 10.0f;
        x.push_back({a, -a, a * 0.5f, a + 1.0f});
        iv.push_back({n - 100, 50 - n});
    }
    const auto n = static_cast<std::int64_t>(x.size());
    auto sx = rt().stream<float4>({n}, x);
    auto si = rt().stream<int2>({n}, iv);
    auto sr = rt().stream<float4>({n});
    auto sri = rt().stream<int4>({n});
    k(sx, si, sr, sri);
    const std::vector<float4> got = sr.download();
    const std::vector<int4> goti = sri.download();
    auto cl = [](auto v, auto lo, auto hi) { return std::min(std::max(v, lo), hi); };  // GLSL's min/max: no NaN here
    for (std::size_t e = 0; e < x.size(); ++e) {
        const float4 want{cl(x[e].x, 0.0f, -3.25f) + 100.0f * cl(cl(x[e].x, -4.0f, -3.0f), 0.5f, 4.5f),
                          cl(cl(x[e].y, -4.5f, -3.25f), 0.5f, 4.5f) + 100.0f * cl(cl(x[e].y, -4.0f, -3.0f), 0.5f, 4.5f),
                          cl(cl(x[e].z, 1.0f, 2.0f), -3.0f, -1.0f) + 100.0f * cl(x[e].z, 1.0f, -1.0f),
                          cl(x[e].w, 2.0f, 1.0f) + 100.0f * cl(x[e].w, 1.0f, -1.0f)};
        ASSERT_EQ(got[e], want) << "x = " << x[e].x << ", " << x[e].y << ", " << x[e].z << ", " << x[e].w;
        const int4 wanti{cl(iv[e].x, 0, -3), cl(cl(iv[e].y, -9, -5), 2, 7), cl(cl(iv[e].x, 1, 2), -5, -3),
                         cl(cl(iv[e].y, 1, 2), -5, -3)};
        ASSERT_EQ(goti[e], wanti) << "i = " << iv[e].x << ", " << iv[e].y;
    }
}

TEST_P(Builtins, ClampsThroughVariablesAreMinOfMax) {
    // A min of a variable that holds a max (and the other way round) is the clamp
    // pattern too: NVIDIA's OpenGL keeps its workaround for it (docs/SEMANTICS.md#driver-workarounds).
    auto k = kernel("clamps_through_variables(x, r)", [](In<float4> x, Out<float4> r) {
        Var<float> lo = 0.0f, hi = 0.0f, copy = 0.0f;
        If(x.w() > -100.0f, [&] {
            lo = max(x.x(), 2.0f);
            hi = min(x.y(), -1.0f);
        });
        If(x.w() > -200.0f, [&] { copy = lo; });
        r = Expr<float4>(min(lo, 1.0f), max(hi, 3.0f), min(copy, 0.5f), max(min(copy, 1.5f), hi) + min(x.z(), 0.0f));
    });
    std::vector<float4> x;
    for (int n = 0; n < 100; ++n) {
        const float a = static_cast<float>(n) / 10.0f - 5.0f;
        x.push_back({a, -a, a * 0.5f, 0.0f});
    }
    const auto n = static_cast<std::int64_t>(x.size());
    auto sx = rt().stream<float4>({n}, x);
    auto sr = rt().stream<float4>({n});
    k(sx, sr);
    const std::vector<float4> got = sr.download();
    for (std::size_t e = 0; e < x.size(); ++e) {
        const float lo = std::max(x[e].x, 2.0f), hi = std::min(x[e].y, -1.0f);
        const float4 want{std::min(lo, 1.0f), std::max(hi, 3.0f), std::min(lo, 0.5f), std::max(std::min(lo, 1.5f), hi) + std::min(x[e].z, 0.0f)};
        ASSERT_EQ(got[e], want) << "x = " << x[e].x << ", " << x[e].y << ", " << x[e].z;
    }
}

TEST_P(Builtins, ClampsOfANegatedAbsoluteValue) {
    // clamp(-abs(id), -2, hi) of a struct's int field: NVIDIA's OpenGL driver
    // (580.159.04) gave -2 for id = 1 and hi = 0 in a random kernel (seed 2221).
    auto k = kernel("negated_abs(p, r)", [](In<SignedRecord> p, Out<int4> r) {
        r = Int4(clamp(-abs(p.id), -2, 0), clamp(-abs(p.id), -2, -1), max(-abs(p.id), -2), min(-abs(p.id), -1));
    });
    std::vector<SignedRecord> in;
    for (int id = -6; id <= 6; ++id) in.push_back({{0.5f, -0.25f, 1.75f}, 0.5f, id});
    in.push_back({{0, 0, 0}, 0, std::numeric_limits<std::int32_t>::max()});
    const auto n = static_cast<std::int64_t>(in.size());
    auto sp = rt().stream<SignedRecord>({n}, in);
    auto sr = rt().stream<int4>({n});
    k(sp, sr);
    const std::vector<int4> got = sr.download();
    for (std::size_t e = 0; e < in.size(); ++e) {
        const int a = -std::abs(in[e].id);
        const int4 want{std::clamp(a, -2, 0), std::clamp(a, -2, -1), std::max(a, -2), std::min(a, -1)};
        ASSERT_EQ(got[e], want) << "id = " << in[e].id;
    }
}

TEST_P(Builtins, VectorGeometry) {
    auto k = kernel("geometry(a, b, r)", [](In<float3> a, In<float3> b, Out<float4> r) {
        Float3 n = normalize(b);
        Float4 out;
        out.x() = dot(a, b);
        out.y() = length(cross(a, b));
        out.z() = distance(a, b) + dot(reflect(a, n), n);
        out.w() = dot(refract(normalize(a), n, 0.7f), Float3(1.0f, 2.0f, 3.0f));
        r = out;
    });
    const std::size_t n = 2000;
    std::vector<float> fa = random_floats(3 * n, -5.f, 5.f), fb = random_floats(3 * n, -5.f, 5.f);
    std::vector<float3> a(n), b(n);
    std::memcpy(static_cast<void*>(a.data()), fa.data(), sizeof(float3) * n);
    std::memcpy(static_cast<void*>(b.data()), fb.data(), sizeof(float3) * n);
    auto sa = rt().stream<float3>({std::int64_t(n)}, a);
    auto sb = rt().stream<float3>({std::int64_t(n)}, b);
    auto sr = rt().stream<float4>({std::int64_t(n)});
    k(sa, sb, sr);
    std::vector<float4> got = sr.download();
    auto dotd = [](const double* p, const double* q) { return p[0] * q[0] + p[1] * q[1] + p[2] * q[2]; };
    for (std::size_t i = 0; i < n; ++i) {
        double A[3] = {a[i].x, a[i].y, a[i].z}, B[3] = {b[i].x, b[i].y, b[i].z};
        double lb = std::sqrt(dotd(B, B)), la = std::sqrt(dotd(A, A));
        double N[3] = {B[0] / lb, B[1] / lb, B[2] / lb}, An[3] = {A[0] / la, A[1] / la, A[2] / la};
        double C[3] = {A[1] * B[2] - A[2] * B[1], A[2] * B[0] - A[0] * B[2], A[0] * B[1] - A[1] * B[0]};
        double D[3] = {A[0] - B[0], A[1] - B[1], A[2] - B[2]};
        double dn = dotd(N, A);
        double R[3] = {A[0] - 2 * dn * N[0], A[1] - 2 * dn * N[1], A[2] - 2 * dn * N[2]};
        double di = dotd(N, An), eta = 0.7f, kk = 1 - eta * eta * (1 - di * di);
        double T[3] = {0, 0, 0};
        if (kk >= 0)
            for (int j = 0; j < 3; ++j) T[j] = eta * An[j] - (eta * di + std::sqrt(kk)) * N[j];
        const double want[4] = {dotd(A, B), std::sqrt(dotd(C, C)), std::sqrt(dotd(D, D)) + dotd(R, N),
                                T[0] + 2 * T[1] + 3 * T[2]};
        for (int j = 0; j < 4; ++j)
            ASSERT_TRUE(close(got[i][j], want[j], 2e-4, 2e-5)) << "component " << j << " of element " << i << ": "
                                                               << got[i][j] << " vs " << want[j];
    }
}

TEST_P(Builtins, SwizzlesReadAndWrite) {
    auto k = kernel("swz(v, r)", [](In<float4> v, Out<float4> r) {
        Float4 t = v.wzyx();
        t.xy() = v.zw() * 2.0f;
        t.w() += 100.0f;
        t.zx() = Float2(v.y(), -v.x());
        r = Float4(t.xyz(), t.w()) + v.xxxx().yzwx();
    });
    std::vector<float> f = random_floats(4 * 500, -10, 10);
    std::vector<float4> v(500);
    std::memcpy(static_cast<void*>(v.data()), f.data(), sizeof(float4) * v.size());
    auto sv = rt().stream<float4>({500}, v);
    auto sr = rt().stream<float4>({500});
    k(sv, sr);
    auto got = sr.download();
    for (std::size_t i = 0; i < v.size(); ++i) {
        float4 t{v[i].w, v[i].z, v[i].y, v[i].x};
        t.x = v[i].z * 2;
        t.y = v[i].w * 2;
        t.w += 100;
        t.z = v[i].y;
        t.x = -v[i].x;
        float4 want{t.x + v[i].x, t.y + v[i].x, t.z + v[i].x, t.w + v[i].x};
        ASSERT_EQ(got[i], want) << i;
    }
}

TEST_P(Builtins, CastsAndBitcasts) {
    auto k = kernel("casts(f, i, r)", [](In<float> f, In<std::int32_t> i, Out<int4> r) {
        r = Int4(cast<int>(f), float_bits_to_int(f), cast<int>(int_bits_to_float(i) > 0.0f),
                 cast<int>(uint_bits_to_float(float_bits_to_uint(f)) == f) + cast<int>(cast<bool>(i)) * 2);
    });
    std::vector<float> f = random_floats(1000, -1e9f, 1e9f);
    f[0] = 0.5f; f[1] = -0.5f; f[2] = 2.9f; f[3] = -2.9f; f[4] = 3e9f; f[5] = -3e9f; f[6] = kNaN;
    std::vector<std::int32_t> i = random_ints(1000, -2147483647, 2147483647);
    i[0] = 0;
    auto sf = rt().stream<float>({1000}, f);
    auto si = rt().stream<std::int32_t>({1000}, i);
    auto sr = rt().stream<int4>({1000});
    k(sf, si, sr);
    auto got = sr.download();
    for (std::size_t j = 0; j < f.size(); ++j) {
        if (std::fabs(f[j]) < 2e9f) {
            EXPECT_EQ(got[j].x, static_cast<std::int32_t>(f[j])) << f[j];  // out of range: undefined
        }
        EXPECT_EQ(got[j].y, std::bit_cast<std::int32_t>(f[j]));
        const float as_float = std::bit_cast<float>(i[j]);
        if (std::fabs(as_float) >= std::numeric_limits<float>::min() || as_float == 0.0f || as_float != as_float) {
            EXPECT_EQ(got[j].z, as_float > 0.0f ? 1 : 0) << i[j];  // denormals may be flushed: either answer
        }
        EXPECT_EQ(got[j].w, (f[j] == f[j] ? 1 : 0) + (i[j] != 0 ? 2 : 0));
    }
}

// rill/dsl/complex.h against std::complex<double>: each component of a
// product within 4 float roundings of the magnitudes it sums; conjugates and
// multiplications by +-i exact.
TEST_P(Builtins, ComplexHelpers) {
    auto k = kernel("complex_helpers(a, b, p, c, i, ni, n)",
                    [](In<float2> a, In<float2> b, Out<float2> p, Out<float2> c, Out<float2> i, Out<float2> ni, Out<float> n) {
                        p = cmul(a, b);
                        c = conj(a);
                        i = mul_i(a);
                        ni = mul_neg_i(a);
                        n = norm2(b);
                    });
    const auto ra = random_floats(2000, -100, 100), rb = random_floats(2000, -100, 100);
    std::vector<float2> ha(1000), hb(1000);
    for (std::size_t j = 0; j < 1000; ++j) ha[j] = float2{ra[2 * j], ra[2 * j + 1]}, hb[j] = float2{rb[2 * j], rb[2 * j + 1]};
    auto a = rt().stream<float2>({1000}, ha), b = rt().stream<float2>({1000}, hb);
    auto p = rt().stream<float2>({1000}), c = rt().stream<float2>({1000}), i = rt().stream<float2>({1000}),
         ni = rt().stream<float2>({1000});
    auto n = rt().stream<float>({1000});
    k(a, b, p, c, i, ni, n);
    const auto hp = p.download(), hc = c.download(), hi = i.download(), hni = ni.download();
    const auto hn = n.download();
    for (std::size_t j = 0; j < 1000; ++j) {
        const std::complex<double> x(ha[j].x, ha[j].y), y(hb[j].x, hb[j].y), want = x * y;
        const double mag_re = std::fabs(x.real() * y.real()) + std::fabs(x.imag() * y.imag());
        const double mag_im = std::fabs(x.real() * y.imag()) + std::fabs(x.imag() * y.real());
        EXPECT_NEAR(hp[j].x, want.real(), 4 * kUlp * mag_re) << j;
        EXPECT_NEAR(hp[j].y, want.imag(), 4 * kUlp * mag_im) << j;
        EXPECT_EQ(hc[j].x, ha[j].x);
        EXPECT_EQ(hc[j].y, -ha[j].y);
        EXPECT_EQ(hi[j].x, -ha[j].y);
        EXPECT_EQ(hi[j].y, ha[j].x);
        EXPECT_EQ(hni[j].x, ha[j].y);
        EXPECT_EQ(hni[j].y, -ha[j].x);
        EXPECT_NEAR(hn[j], std::norm(y), 4 * kUlp * std::norm(y)) << j;
    }
}

RILL_INSTANTIATE_FOR_BACKENDS(Builtins);

}  // namespace
}  // namespace rill::test
