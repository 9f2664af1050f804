// Chains of +, - and * (multiply-add and its relatives) against a host
// reference computed in the same type and order, on every backend. The CPU
// executor runs two such nodes in one fused loop and writes large outputs with
// non-temporal stores; these tests cover each shape it fuses (either operand
// of the outer node, Sub in both orders), a node with two users (which must
// not be fused), uniform operands, vectors, and an output past the
// non-temporal threshold.
#include "backend_fixture.h"

namespace rill::test {
namespace {

class ArithmeticChains : public BackendTest {};

template <class T>
std::vector<T> random_values(std::size_t n) {
    if constexpr (std::is_same_v<T, float>) return random_floats(n, -100.0f, 100.0f);
    else {
        std::vector<std::int32_t> v = random_ints(n, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max());
        return std::vector<T>(v.begin(), v.end());
    }
}

// Integer arithmetic wraps (two's complement) on every backend.
template <class T>
T add(T a, T b) {
    if constexpr (std::is_same_v<T, float>) return a + b;
    else return static_cast<T>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
template <class T>
T sub(T a, T b) {
    if constexpr (std::is_same_v<T, float>) return a - b;
    else return static_cast<T>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}
template <class T>
T mul(T a, T b) {
    if constexpr (std::is_same_v<T, float>) return a * b;
    else return static_cast<T>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}

constexpr int kOutputs = 8;

template <class T>
T reference(int o, T x, T y, T z) {
    switch (o) {
        case 0: return add(mul(x, y), z);
        case 1: return sub(z, mul(x, z));
        case 2: return sub(mul(y, z), x);
        case 3: return mul(add(x, y), z);
        case 4: return mul(z, sub(x, y));
        case 5: return sub(sub(y, z), x);
        case 6: return add(x, add(y, z));
        default: return sub(mul(z, z), mul(y, y));  // two fusable operands: one is fused
    }
}

template <class T>
void check_chains(Runtime& rt) {
    using E = Expr<T>;
    static auto k = kernel(std::string("chains_") + to_string(dsl::type_v<T>),
                           [](In<T> x, In<T> y, In<T> z, Out<T> o0, Out<T> o1, Out<T> o2, Out<T> o3, Out<T> o4,
                              Out<T> o5, Out<T> o6, Out<T> o7, Out<T> shared_a, Out<T> shared_b) {
                               E xv = x, yv = y, zv = z;
                               // No two outputs share a subexpression (it would
                               // be computed once, and not fused).
                               o0 = xv * yv + zv;
                               o1 = zv - xv * zv;
                               o2 = yv * zv - xv;
                               o3 = (xv + yv) * zv;
                               o4 = zv * (xv - yv);
                               o5 = (yv - zv) - xv;
                               o6 = xv + (yv + zv);
                               o7 = zv * zv - yv * yv;
                               // x - z has two users: each must see it whole.
                               E t = xv - zv;
                               shared_a = t * yv;
                               shared_b = t + yv;
                           });
    for (std::int64_t n : edge_sizes()) {
        SCOPED_TRACE(n);
        const std::vector<T> x = random_values<T>(n), y = random_values<T>(n), z = random_values<T>(n);
        auto xs = rt.stream<T>({n}, x), ys = rt.stream<T>({n}, y), zs = rt.stream<T>({n}, z);
        std::vector<Stream<T>> outs;
        for (int i = 0; i < kOutputs + 2; ++i) outs.push_back(rt.stream<T>({n}));
        k(xs, ys, zs, outs[0], outs[1], outs[2], outs[3], outs[4], outs[5], outs[6], outs[7], outs[8], outs[9]);
        for (int o = 0; o < kOutputs + 2; ++o) {
            const std::vector<T> got = outs[o].download();
            for (std::int64_t i = 0; i < n; ++i) {
                const T want = o < kOutputs ? reference(o, x[i], y[i], z[i])
                                            : o == kOutputs ? mul(sub(x[i], z[i]), y[i]) : add(sub(x[i], z[i]), y[i]);
                ASSERT_EQ(got[i], want) << "output " << o << " element " << i;
            }
        }
    }
}

TEST_P(ArithmeticChains, FloatChainsMatchHostReference) { check_chains<float>(rt()); }
TEST_P(ArithmeticChains, IntChainsWrapLikeHostReference) { check_chains<std::int32_t>(rt()); }
TEST_P(ArithmeticChains, UintChainsWrapLikeHostReference) { check_chains<std::uint32_t>(rt()); }

TEST_P(ArithmeticChains, Float4MultiplyAddWithUniform) {
    static auto k = kernel("axpy4(a, x, y, r)", [](Float4 a, In<float4> x, In<float4> y, Out<float4> r) { r = a * x + y; });
    const float4 a{2.0f, -0.5f, 3.0f, 0.0f};
    for (std::int64_t n : edge_sizes()) {
        SCOPED_TRACE(n);
        const std::vector<float> xf = random_floats(4 * n, -10.0f, 10.0f), yf = random_floats(4 * n, -10.0f, 10.0f);
        std::vector<float4> x(n), y(n);
        for (std::int64_t i = 0; i < n; ++i) {
            x[i] = {xf[4 * i], xf[4 * i + 1], xf[4 * i + 2], xf[4 * i + 3]};
            y[i] = {yf[4 * i], yf[4 * i + 1], yf[4 * i + 2], yf[4 * i + 3]};
        }
        auto r = rt().stream<float4>({n});
        k(a, rt().stream<float4>({n}, x), rt().stream<float4>({n}, y), r);
        const std::vector<float4> got = r.download();
        for (std::int64_t i = 0; i < n; ++i)
            for (int c = 0; c < 4; ++c) ASSERT_EQ(got[i][c], a[c] * x[i][c] + y[i][c]) << i << "." << c;
    }
}

// Uniform operands in every position of a fused and of a plain loop (the CPU
// executor reads a uniform's broadcast column from its first lanes only), two
// uniforms in one loop, and vectors, whose loops it then runs per component.
template <class T>
void check_uniform_operands(Runtime& rt) {
    using E = Expr<T>;
    using V3 = vec<T, 3>;
    static auto k = kernel(std::string("uniform_operands_") + to_string(dsl::type_v<T>),
                           [](Var<T> a, Var<T> b, Var<V3> u, In<T> x, In<T> y, In<V3> v, Out<T> o0, Out<T> o1,
                              Out<T> o2, Out<T> o3, Out<T> o4, Out<V3> o5) {
                               E xv = x, yv = y;
                               o0 = a * xv + yv;
                               o1 = xv * a + b;
                               o2 = b - xv * yv;
                               E t = yv - a;  // two users: a plain loop with a uniform second operand
                               o3 = t * b;
                               o4 = t + xv;
                               o5 = u * Expr<V3>(v) - u;
                           });
    const T a = random_values<T>(1)[0], b = random_values<T>(1)[0];
    const std::vector<T> u = random_values<T>(3);
    for (std::int64_t n : edge_sizes()) {
        SCOPED_TRACE(n);
        const std::vector<T> x = random_values<T>(n), y = random_values<T>(n), vf = random_values<T>(3 * n);
        std::vector<V3> v(n);
        for (std::int64_t i = 0; i < n; ++i) v[i] = {vf[3 * i], vf[3 * i + 1], vf[3 * i + 2]};
        std::vector<Stream<T>> outs;
        for (int i = 0; i < 5; ++i) outs.push_back(rt.stream<T>({n}));
        auto o5 = rt.stream<V3>({n});
        k(a, b, V3{u[0], u[1], u[2]}, rt.stream<T>({n}, x), rt.stream<T>({n}, y), rt.stream<V3>({n}, v), outs[0],
          outs[1], outs[2], outs[3], outs[4], o5);
        std::vector<std::vector<T>> got;
        for (auto& o : outs) got.push_back(o.download());
        const std::vector<V3> got5 = o5.download();
        for (std::int64_t i = 0; i < n; ++i) {
            const T t = sub(y[i], a);
            const T want[5] = {add(mul(a, x[i]), y[i]), add(mul(x[i], a), b), sub(b, mul(x[i], y[i])), mul(t, b),
                               add(t, x[i])};
            for (int o = 0; o < 5; ++o) ASSERT_EQ(got[o][i], want[o]) << "output " << o << " element " << i;
            for (int c = 0; c < 3; ++c)
                ASSERT_EQ(got5[i][c], sub(mul(u[c], v[i][c]), u[c])) << "vector output element " << i << "." << c;
        }
    }
}

TEST_P(ArithmeticChains, FloatUniformOperandsInEveryPosition) { check_uniform_operands<float>(rt()); }
TEST_P(ArithmeticChains, IntUniformOperandsInEveryPosition) { check_uniform_operands<std::int32_t>(rt()); }
TEST_P(ArithmeticChains, UintUniformOperandsInEveryPosition) { check_uniform_operands<std::uint32_t>(rt()); }

// 2^23 + 5 floats: 32 MiB and more, past the CPU backend's non-temporal
// threshold on any machine; an odd count, so the last block is partial.
TEST_P(ArithmeticChains, LargeOutputPastTheStreamingThreshold) {
    static auto k = kernel("large_axpy(a, x, y, r)", [](Float a, In<float> x, In<float> y, Out<float> r) { r = a * x + y; });
    const std::int64_t n = (std::int64_t{1} << 23) + 5;
    const std::vector<float> x = random_floats(n, -10.0f, 10.0f), y = random_floats(n, -10.0f, 10.0f);
    auto r = rt().stream<float>({n});
    k(1.5f, rt().stream<float>({n}, x), rt().stream<float>({n}, y), r);
    const std::vector<float> got = r.download();
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], 1.5f * x[i] + y[i]) << i;
    // A view that starts off a 16-byte boundary takes the ordinary store path.
    auto out = rt().stream<float>({n + 1});
    auto tail = out.domain({1}, {n + 1});
    k(1.5f, rt().stream<float>({n}, x), rt().stream<float>({n}, y), tail);
    const std::vector<float> got2 = out.download();
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got2[i + 1], 1.5f * x[i] + y[i]) << i;
}

RILL_INSTANTIATE_FOR_BACKENDS(ArithmeticChains);

}  // namespace
}  // namespace rill::test
