// Reductions against float64 / int64 references: to one value, and to
// smaller streams whose shape decides the blocks, in 1 to 4 dimensions.
#include <cmath>
#include <numeric>

#include "backend_fixture.h"

struct ArgMin {
    float value;
    std::int32_t index;
};
RILL_STRUCT(ArgMin, value, index);

namespace rill::test {
namespace {

class Reductions : public BackendTest {};

auto float_sum() {
    return reduction("sum", [](In<float> a, Reduce<float> r) { r += a; });
}

// A sum of n floats in any order is within n * eps * sum|x| of the exact sum.
double sum_tolerance(std::size_t n, double abs_sum) { return 2.0 * std::max<double>(n, 1) * 1.2e-7 * abs_sum + 1e-30; }

TEST_P(Reductions, SumToOneValueAtEdgeSizes) {
    auto sum = float_sum();
    for (std::int64_t n : edge_sizes()) {
        if (n == 0) continue;
        SCOPED_TRACE(n);
        std::vector<float> x = random_floats(static_cast<std::size_t>(n), -1, 1);
        double want = 0, abs_sum = 0;
        for (float v : x) {
            want += v;
            abs_sum += std::fabs(v);
        }
        auto s = rt().stream<float>({n}, x);
        EXPECT_NEAR(sum.value(s), want, sum_tolerance(x.size(), abs_sum));
    }
    // 2^24 + 1 ones: a sequential float sum would stop at 2^24.
    const std::int64_t big = (1 << 24) + 1;
    auto ones = rt().stream<float>({big}, std::vector<float>(big, 1.0f));
    EXPECT_NEAR(sum.value(ones), double(big), 2.0);
}

TEST_P(Reductions, IntegerMinMaxAreExact) {
    auto mn = reduction("min", [](In<std::int32_t> a, Reduce<std::int32_t> r) { r = min(r, a); });
    auto mx = reduction("max", [](In<std::int32_t> a, Reduce<std::int32_t> r) { r = max(r, a); });
    auto sum = reduction("isum", [](In<std::int32_t> a, Reduce<std::int32_t> r) { r += a; });
    for (std::int64_t n : {1, 2, 1000, 65537, 1000003}) {
        if (past_largest(rt(), n)) continue;
        std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), -100000000, 100000000);
        auto s = rt().stream<std::int32_t>({n}, x);
        EXPECT_EQ(mn.value(s), *std::min_element(x.begin(), x.end()));
        EXPECT_EQ(mx.value(s), *std::max_element(x.begin(), x.end()));
        std::int64_t total = std::accumulate(x.begin(), x.end(), std::int64_t{0});
        EXPECT_EQ(sum.value(s), static_cast<std::int32_t>(static_cast<std::uint32_t>(total)));  // wraps
    }
}

TEST_P(Reductions, StructCombinerArgMin) {
    auto argmin = reduction("argmin", [](In<ArgMin> a, Reduce<ArgMin> r) {
        If(a.value < r.value || (a.value == r.value && a.index < r.index), [&] { r = a; });
    });
    const std::int64_t n = 100003;
    std::vector<ArgMin> x(n);
    auto v = random_ints(n, 0, 5000);  // many ties: the lowest index must win
    for (std::int64_t i = 0; i < n; ++i) x[i] = ArgMin{float(v[i]), std::int32_t(i)};
    auto s = rt().stream<ArgMin>({n}, x);
    ArgMin got = argmin.value(s);
    auto it = std::min_element(x.begin(), x.end(), [](const ArgMin& a, const ArgMin& b) { return a.value < b.value; });
    EXPECT_EQ(got.value, it->value);
    EXPECT_EQ(got.index, it->index);
}

TEST_P(Reductions, NonCommutativeCombinerKeepsOrder) {
    // Composition of affine maps x -> a x + b is associative but not commutative.
    auto compose = reduction("compose", [](In<float2> f, Reduce<float2> acc) {
        acc = Float2(f.x() * acc.x(), f.x() * acc.y() + f.y());
    });
    const std::int64_t n = 5000;
    std::vector<float2> f(n);
    for (auto& v : f) v = float2{random_floats(1, 0.9f, 1.1f)[0], random_floats(1, -1, 1)[0]};
    auto s = rt().stream<float2>({n}, f);
    float2 got = compose.value(s);
    double a = 1, b = 0;  // apply f[0], then f[1], ...
    for (const auto& v : f) {
        a = v.x * a;
        b = v.x * b + v.y;
    }
    // The combined map of f[0..n) in order is x -> a*x + b with a = prod, b as above.
    EXPECT_NEAR(got.x, a, 1e-3 * std::fabs(a));
    EXPECT_NEAR(got.y, b, 1e-3 * (std::fabs(b) + 1));
}

TEST_P(Reductions, NonCommutativeCombinerKeepsOrderOverSeveralPasses) {
    // Maps x -> s x + b with s = +-1: exact products, and every swap of two
    // maps with different signs moves the result far.
    auto compose = reduction("compose_signs", [](In<float2> f, Reduce<float2> acc) {
        acc = Float2(f.x() * acc.x(), f.x() * acc.y() + f.y());
    });
    // On GPUs (4 elements an invocation): 69 workgroups' runs, whose partial
    // results the last to finish folds; then 1026 workgroups' runs, more than
    // the last folds: a second pass, whose 2 workgroups' results its last
    // folds. The CPU backend's invocations take runs of up to 1024 elements
    // (reduce.cpp), so both are one pass of 69 and 65 workgroups there.
    for (std::int64_t n : {70001, (1 << 20) + 1025}) {
        SCOPED_TRACE(n);
        std::vector<float2> f(n);
        for (auto& v : f) v = float2{rng()() % 2 ? 1.0f : -1.0f, random_floats(1, -1, 1)[0]};
        double a = 1, b = 0, mag = 0;
        for (const auto& v : f) {
            a = v.x * a;
            b = v.x * b + v.y;
            mag = std::max(mag, std::fabs(b));
        }
        const float2 got = compose.value(rt().stream<float2>({n}, f));
        EXPECT_EQ(got.x, a);
        EXPECT_NEAR(got.y, b, sum_tolerance(f.size(), mag));
    }
}

TEST_P(Reductions, ToSmallerStreamsInEveryRank) {
    auto sum = float_sum();
    struct Case {
        Shape in, out;
    };
    const std::vector<Case> cases = {
        {{1000}, {10}},      {{1000}, {1000}},          {{50, 50}, {50, 1}},    {{50, 50}, {1, 50}},
        {{64, 30}, {8, 5}},  {{3, 4, 5}, {3, 2, 1}},    {{2, 6, 4, 9}, {2, 3, 1, 3}}, {{7, 300007}, {7, 1}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.in.str() + " -> " + c.out.str());
        std::vector<float> x = random_floats(static_cast<std::size_t>(c.in.size()), -1, 1);
        auto si = rt().stream<float>(c.in, x);
        auto so = rt().stream<float>(c.out);
        sum(si, so);
        auto got = so.download();
        std::vector<double> want(static_cast<std::size_t>(c.out.size()), 0.0), mag(want.size(), 0.0);
        for (std::int64_t i = 0; i < c.in.size(); ++i) {
            std::int64_t rem = i, o = 0, stride = 1;
            std::int64_t pos[4];
            for (int d = c.in.rank - 1; d >= 0; --d) {
                pos[d] = rem % c.in.dims[d];
                rem /= c.in.dims[d];
            }
            for (int d = c.in.rank - 1; d >= 0; --d) {
                o += pos[d] / (c.in.dims[d] / c.out.dims[d]) * stride;
                stride *= c.out.dims[d];
            }
            want[o] += x[i];
            mag[o] += std::fabs(x[i]);
        }
        const double block = double(c.in.size()) / double(c.out.size());
        for (std::size_t o = 0; o < want.size(); ++o)
            ASSERT_NEAR(got[o], want[o], sum_tolerance(std::size_t(block), mag[o])) << "output " << o;
    }
    // The rows of 300007 counted their workgroups in Runtime::zeroed_words,
    // which they must leave zero.
    EXPECT_EQ(rt().zeroed_words(7).download(), std::vector<std::uint32_t>(7, 0u));
}

TEST_P(Reductions, LongRunsIntoAStridedView) {
    // Rows long enough for several passes of the run reduction, written into
    // the first column of a larger matrix, whose other columns stay.
    auto sum = float_sum();
    const std::int64_t rows = 5, cols = 300007;
    std::vector<float> x = random_floats(static_cast<std::size_t>(rows * cols), -1, 1);
    auto si = rt().stream<float>({rows, cols}, x);
    auto big = rt().stream<float>({rows, 3}, std::vector<float>(rows * 3, 42.0f));
    sum(si, big.domain({0, 0}, {rows, 1}));
    const auto got = big.download();
    for (std::int64_t r = 0; r < rows; ++r) {
        double want = 0, mag = 0;
        for (std::int64_t c = 0; c < cols; ++c) want += x[r * cols + c], mag += std::fabs(x[r * cols + c]);
        EXPECT_NEAR(got[r * 3], want, sum_tolerance(cols, mag)) << "row " << r;
        EXPECT_EQ(got[r * 3 + 1], 42.0f);
        EXPECT_EQ(got[r * 3 + 2], 42.0f);
    }
}

TEST_P(Reductions, SgemvThroughMulAndSum) {
    // Brook's example: T = A * x (x repeated over rows), then y = row sums of T.
    auto mul = kernel("mul(a, b, c)", [](In<float> a, In<float> b, Out<float> c) { c = a * b; });
    auto sum = float_sum();
    const std::int64_t rows = 97, cols = 131;
    auto A = random_floats(rows * cols, -1, 1);
    auto x = random_floats(cols, -1, 1);
    auto sA = rt().stream<float>({rows, cols}, A);
    auto sx = rt().stream<float>({1, cols}, x);
    auto T = rt().stream<float>({rows, cols});
    auto y = rt().stream<float>({rows, 1});
    mul(sA, sx, T);
    sum(T, y);
    auto got = y.download();
    for (std::int64_t i = 0; i < rows; ++i) {
        double want = 0, mag = 0;
        for (std::int64_t j = 0; j < cols; ++j) {
            want += double(A[i * cols + j]) * x[j];
            mag += std::fabs(double(A[i * cols + j]) * x[j]);
        }
        ASSERT_NEAR(got[i], want, sum_tolerance(cols, mag) + 1e-6) << i;
    }
}

RILL_INSTANTIATE_FOR_BACKENDS(Reductions);

}  // namespace
}  // namespace rill::test

namespace rill::test {
namespace {

class BuiltinReductions : public BackendTest {};

TEST_P(BuiltinReductions, SumProductMinMaxOnScalarsAndVectors) {
    for (std::int64_t n : {1, 2, 255, 4093, 65537}) {
        SCOPED_TRACE(n);
        auto xi = random_ints(static_cast<std::size_t>(n), -1000, 1000);
        auto si = rt().stream<std::int32_t>({n}, xi);
        std::int64_t s = 0;
        for (auto v : xi) s += v;
        EXPECT_EQ(reductions::sum<std::int32_t>().value(si), s);
        EXPECT_EQ(reductions::min<std::int32_t>().value(si), *std::min_element(xi.begin(), xi.end()));
        EXPECT_EQ(reductions::max<std::int32_t>().value(si), *std::max_element(xi.begin(), xi.end()));
        auto xf = random_floats(static_cast<std::size_t>(n * 4), 0.5f, 1.5f);
        std::vector<float4> v4(static_cast<std::size_t>(n));
        std::memcpy(static_cast<void*>(v4.data()), xf.data(), sizeof(float4) * v4.size());
        auto s4 = rt().stream<float4>({n}, v4);
        const float4 mx = reductions::max<float4>().value(s4), sm = reductions::sum<float4>().value(s4);
        for (int c = 0; c < 4; ++c) {
            float m = -1;
            double t = 0;
            for (auto& v : v4) {
                m = std::max(m, v[c]);
                t += v[c];
            }
            EXPECT_EQ(mx[c], m);
            EXPECT_NEAR(sm[c], t, 2.4e-7 * n * 1.5 + 1e-6);
        }
    }
    // product of values near 1 against float64
    auto xp = random_floats(1000, 0.999f, 1.001f);
    auto sp = rt().stream<float>({1000}, xp);
    double want = 1;
    for (float v : xp) want *= v;
    EXPECT_NEAR(reductions::product<float>().value(sp), want, 1e-4);
}

TEST_P(BuiltinReductions, LogicalAndOr) {
    std::vector<bool32> all_true(777, bool32(true)), one_false = all_true;
    one_false[500] = false;
    auto a = rt().stream<bool32>({777}, all_true), b = rt().stream<bool32>({777}, one_false);
    EXPECT_TRUE(bool(reductions::logical_and().value(a)));
    EXPECT_FALSE(bool(reductions::logical_and().value(b)));
    std::vector<bool32> none(777, bool32(false)), one = none;
    one[3] = true;
    EXPECT_FALSE(bool(reductions::logical_or().value(rt().stream<bool32>({777}, none))));
    EXPECT_TRUE(bool(reductions::logical_or().value(rt().stream<bool32>({777}, one))));
}

TEST_P(BuiltinReductions, ArgMinArgMaxTakeTheFirstOfTies) {
    auto x = random_ints(50021, -30, 30);  // many ties
    auto s = rt().stream<std::int32_t>({50021}, x);
    auto mn = reductions::argmin(s), mx = reductions::argmax(s);
    auto imin = std::min_element(x.begin(), x.end()), imax = std::max_element(x.begin(), x.end());
    EXPECT_EQ(mn.value, *imin);
    EXPECT_EQ(mn.index, imin - x.begin());
    EXPECT_EQ(mx.value, *imax);
    EXPECT_EQ(mx.index, imax - x.begin());
    auto f = random_floats(3 * 7 * 11, -5, 5);
    auto sf = rt().stream<float>({3, 7, 11}, f);
    auto fm = reductions::argmax(sf);
    auto it = std::max_element(f.begin(), f.end());
    EXPECT_EQ(fm.value, *it);
    EXPECT_EQ(fm.index, it - f.begin());
}

RILL_INSTANTIATE_FOR_BACKENDS(BuiltinReductions);

}  // namespace
}  // namespace rill::test
