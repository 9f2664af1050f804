// Divergent control flow: every lane takes its own branches and trip counts;
// the reference is the same program written in plain C++.
#include <algorithm>
#include <cmath>

#include "backend_fixture.h"

namespace rill::test {
namespace {

class ControlFlow : public BackendTest {};

// Collatz steps: a loop whose trip count differs per lane, with Break.
std::int32_t collatz_ref(std::int32_t v) {
    std::int32_t steps = 0;
    std::uint32_t x = static_cast<std::uint32_t>(v);
    while (x != 1 && steps < 500) {
        x = (x % 2 == 0) ? x / 2 : 3 * x + 1;
        ++steps;
    }
    return steps;
}

TEST_P(ControlFlow, DivergentWhileWithBreak) {
    auto k = kernel("collatz(v, steps)", [](In<std::int32_t> v, Out<std::int32_t> steps) {
        UInt x = cast<std::uint32_t>(v);
        Int n = 0;
        While([&] { return x != 1u; }, [&] {
            If(n >= 500, [] { Break(); });
            If((x & 1u) == 0u, [&] { x = x / 2u; }).Else([&] { x = 3u * x + 1u; });
            n += 1;
        });
        steps = n;
    });
    for (std::int64_t size : edge_sizes()) {
        SCOPED_TRACE(size);
        std::vector<std::int32_t> v = random_ints(static_cast<std::size_t>(size), 1, 100000);
        auto sv = rt().stream<std::int32_t>({size}, v);
        auto ss = rt().stream<std::int32_t>({size});
        k(sv, ss);
        std::vector<std::int32_t> got = ss.download();
        for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(got[i], collatz_ref(v[i])) << "v=" << v[i];
    }
}

TEST_P(ControlFlow, NestedLoopsContinueAndElif) {
    auto k = kernel("nested(a, r)", [](In<std::int32_t> a, Out<std::int32_t> r) {
        Int acc = 0;
        For(0, a % 13, [&](Int i) {
            If(i % 3 == 1, [] { Continue(); });
            For(i, 10, 2, [&](Int j) {
                If(j > 7, [] { Break(); })
                    .Elif(j == 4, [&] { acc += 100; })
                    .Else([&] { acc += i * j; });
            });
        });
        For(5, 0, -2, [&](Int i) { acc -= i; });  // 5, 3, 1
        r = acc;
    });
    std::vector<std::int32_t> a = random_ints(1001, 0, 1000);
    auto sa = rt().stream<std::int32_t>({1001}, a);
    auto sr = rt().stream<std::int32_t>({1001});
    k(sa, sr);
    auto got = sr.download();
    for (std::size_t n = 0; n < a.size(); ++n) {
        std::int32_t acc = 0;
        for (int i = 0; i < a[n] % 13; ++i) {
            if (i % 3 == 1) continue;
            for (int j = i; j < 10; j += 2) {
                if (j > 7) break;
                else if (j == 4) acc += 100;
                else acc += i * j;
            }
        }
        for (int i = 5; i > 0; i -= 2) acc -= i;
        ASSERT_EQ(got[n], acc) << "a=" << a[n];
    }
}

// An Elif condition reads a variable that the If's branch assigns: the read
// belongs to the else branch (it used to land after the whole If, and tracing
// failed with "a value computed inside a block is used after it ended").
TEST_P(ControlFlow, ElifConditionReadsAVariableTheIfAssigns) {
    auto k = kernel("elif(x, out)", [](In<std::int32_t> x, Out<std::int32_t> out) {
        Int r = x;
        Int a = 0;
        Int rounds = 0;
        While([&] { return a == 0; }, [&] {
            If(r > 5, [&] { r = r - 5; })
                .Elif(r == 3, [&] { a = 30 + rounds; })
                .Elif(r % 2 == 0, [&] { a = 20 + rounds; })
                .Else([&] { a = 10 + rounds; });
            rounds = rounds + 1;
        });
        out = a;
    });
    std::vector<std::int32_t> xs = random_ints(1000, 0, 40);
    auto in = rt().stream<std::int32_t>({1000}, xs);
    auto out = rt().stream<std::int32_t>({1000});
    k(in, out);
    std::vector<std::int32_t> got = out.download();
    for (int i = 0; i < 1000; ++i) {
        int r = xs[i], rounds = 0;
        while (r > 5) r -= 5, ++rounds;
        const int want = (r == 3 ? 30 : r % 2 == 0 ? 20 : 10) + rounds;
        ASSERT_EQ(got[i], want) << "x = " << xs[i];
    }
}

TEST_P(ControlFlow, EarlyReturnKeepsWhatWasAssigned) {
    auto k = kernel("early(x, r, s)", [](In<float> x, Out<float> r, Out<float> s) {
        r = 1.0f;
        If(x < 0.0f, [&] {
            s = -1.0f;
            Return();
        });
        r = sqrt(x);
        For(0, 100, [&](Int i) {
            If(cast<float>(i) > x, [] { Return(); });
            s = cast<float>(i);
        });
    });
    std::vector<float> x = random_floats(777, -50.f, 150.f);
    auto sx = rt().stream<float>({777}, x);
    auto sr = rt().stream<float>({777});
    auto ss = rt().stream<float>({777});
    k(sx, sr, ss);
    auto r = sr.download();
    auto s = ss.download();
    for (std::size_t i = 0; i < x.size(); ++i) {
        float want_r = 1.0f, want_s = 0.0f;
        if (x[i] < 0) {
            want_s = -1.0f;
        } else {
            want_r = std::sqrt(x[i]);
            for (int j = 0; j < 100; ++j) {
                if (static_cast<float>(j) > x[i]) break;
                want_s = static_cast<float>(j);
            }
        }
        ASSERT_NEAR(r[i], want_r, 3e-7f * want_r) << x[i];  // sqrt: within 3 ULP on GPUs
        ASSERT_EQ(s[i], want_s) << x[i];
    }
}

TEST_P(ControlFlow, LargeDomainsWithEarlyReturn) {
    // Large enough that GPU backends give each invocation several elements.
    auto k = kernel("big(x, r)", [](In<std::int32_t> x, Out<std::int32_t> r) {
        r = -1;
        If(x % 3 == 0, [] { Return(); });
        r = x * 2;
    });
    const std::int64_t n = (std::int64_t{1} << 22) + 3;
    std::vector<std::int32_t> x(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) x[i] = static_cast<std::int32_t>(i);
    auto sx = rt().stream<std::int32_t>({n}, x);
    auto sr = rt().stream<std::int32_t>({n});
    k(sx, sr);
    auto got = sr.download();
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], i % 3 == 0 ? -1 : 2 * x[i]) << i;
}

// Helper functions on DSL types are ordinary C++ functions, inlined by tracing.
Expr<float> horner(const Float& x, const std::vector<float>& coeffs) {
    Float acc = 0.0f;
    for (float c : coeffs) acc = acc * x + c;
    return acc;
}

TEST_P(ControlFlow, CppHelperFunctionsAndConstants) {
    const std::vector<float> coeffs = {0.5f, -1.0f, 2.0f, 3.0f};
    auto k = kernel("poly(x, scale, r)", [&](In<float> x, Float scale, Out<float> r) { r = horner(x, coeffs) * scale; });
    std::vector<float> x = random_floats(500, -2.f, 2.f);
    auto sx = rt().stream<float>({500}, x);
    auto sr = rt().stream<float>({500});
    k(sx, 3.0f, sr);
    auto got = sr.download();
    for (std::size_t i = 0; i < x.size(); ++i) {
        float acc = 0.0f;
        for (float c : coeffs) acc = acc * x[i] + c;
        ASSERT_EQ(got[i], acc * 3.0f);
    }
}

// A counting loop whose bound is a clamp (or a min or max) of a constant, its
// counter moving away from that constant first: every trip must run.
TEST_P(ControlFlow, LoopBoundsClampedToAConstant) {
    struct Counted {
        std::int32_t trips, last;
    };
    // (begin, step, bound) as the host computes them
    auto reference = [](std::int32_t begin, std::int32_t step, std::int32_t bound) {
        Counted c{0, -100};
        for (std::int32_t i = begin; step > 0 ? i < bound : i > bound; i += step) c.trips += 1, c.last = i;
        return c;
    };
    auto down_clamp = kernel("down_clamp(x, trips, last)", [](In<std::int32_t> x, Out<std::int32_t> trips, Out<std::int32_t> last) {
        Int n = 0, l = -100;
        For(5, clamp(x, -3, 3), -2, [&](Int i) { n += 1, l = i; });
        trips = n, last = l;
    });
    auto down_min = kernel("down_min(x, trips, last)", [](In<std::int32_t> x, Out<std::int32_t> trips, Out<std::int32_t> last) {
        Int n = 0, l = -100;
        For(5, min(x, 3), -1, [&](Int i) { n += 1, l = i; });
        trips = n, last = l;
    });
    auto up_clamp = kernel("up_clamp(x, trips, last)", [](In<std::int32_t> x, Out<std::int32_t> trips, Out<std::int32_t> last) {
        Int n = 0, l = -100;
        For(-5, clamp(x, -3, 3), 2, [&](Int i) { n += 1, l = i; });
        trips = n, last = l;
    });
    auto up_max = kernel("up_max(x, trips, last)", [](In<std::int32_t> x, Out<std::int32_t> trips, Out<std::int32_t> last) {
        Int n = 0, l = -100;
        For(-5, max(x, -3), 1, [&](Int i) { n += 1, l = i; });
        trips = n, last = l;
    });
    std::vector<std::int32_t> x;
    for (std::int32_t v = -8; v <= 8; ++v) x.push_back(v);
    auto sx = rt().stream<std::int32_t>({std::int64_t(x.size())}, x);
    auto st = rt().stream<std::int32_t>({std::int64_t(x.size())}), sl = rt().stream<std::int32_t>({std::int64_t(x.size())});
    auto check = [&](const char* name, auto& k, std::int32_t begin, std::int32_t step, auto bound) {
        k(sx, st, sl);
        const std::vector<std::int32_t> trips = st.download(), last = sl.download();
        for (std::size_t i = 0; i < x.size(); ++i) {
            const Counted want = reference(begin, step, bound(x[i]));
            EXPECT_EQ(trips[i], want.trips) << name << ", x = " << x[i];
            EXPECT_EQ(last[i], want.last) << name << ", x = " << x[i];
        }
    };
    check("For(5, clamp(x, -3, 3), -2)", down_clamp, 5, -2, [](std::int32_t v) { return std::clamp(v, -3, 3); });
    check("For(5, min(x, 3), -1)", down_min, 5, -1, [](std::int32_t v) { return std::min(v, 3); });
    check("For(-5, clamp(x, -3, 3), 2)", up_clamp, -5, 2, [](std::int32_t v) { return std::clamp(v, -3, 3); });
    check("For(-5, max(x, -3), 1)", up_max, -5, 1, [](std::int32_t v) { return std::max(v, -3); });
}

// An input read in a loop's bound and again after the loop. Mesa's llvmpipe
// gave 0 after the loop in every invocation but the one with the most
// iterations: the GLSL loaded the input twice, once inside the loop's block
// (docs/SEMANTICS.md#inputs-are-read-once).
TEST_P(ControlFlow, InputReadInALoopBoundAndAfterTheLoop) {
    auto for_loop = kernel("for_bound(x, r)", [](In<float> x, Out<float> r) {
        For(0, cast<std::int32_t>(x), [&](Expr<std::int32_t>) {});
        r = x;
    });
    auto while_loop = kernel("while_bound(x, r, trips)", [](In<float> x, Out<float> r, Out<std::int32_t> trips) {
        Int i = 0;
        While([&] { return cast<float>(i) < x; }, [&] { i += 1; });
        r = x;
        trips = i;
    });
    auto swizzled = kernel("swizzle_bound(v, r, trips)", [](In<float2> v, Out<float> r, Out<std::int32_t> trips) {
        Int n = 0;
        For(0, cast<std::int32_t>(v.y()), 2, [&](Int) { n += 1; });
        r = v.y();
        trips = n;
    });
    // A gather in the condition reads the stream's geometry from the info words,
    // which the same gather after the loop reads again.
    auto gathered = kernel("gather_bound(x, g, r, trips)", [](In<float> x, Gather<float> g, Out<float> r,
                                                              Out<std::int32_t> trips) {
        Int i = 0;
        Int at = cast<std::int32_t>(abs(x));
        While([&] { return cast<float>(i) < g[at]; }, [&] { i += 1; });
        r = g[at];
        trips = i;
    });
    for (std::int64_t size : edge_sizes()) {
        SCOPED_TRACE(size);
        std::vector<float> x = random_floats(static_cast<std::size_t>(size), -3.f, 9.f);
        if (size >= 8) std::copy_n(std::vector<float>{-1.5f, 0, 0.5f, 1, 2, 3, 5, 7}.begin(), 8, x.begin());
        std::vector<float2> v(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) v[i] = {x[i] * 0.5f, x[i]};
        auto sx = rt().stream<float>({size}, x);
        auto sv = rt().stream<float2>({size}, v);
        auto sr = rt().stream<float>({size});
        auto strips = rt().stream<std::int32_t>({size});
        for_loop(sx, sr);
        std::vector<float> got = sr.download();
        for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], x[i]) << "For, x=" << x[i];
        while_loop(sx, sr, strips);
        got = sr.download();
        std::vector<std::int32_t> trips = strips.download();
        for (std::size_t i = 0; i < x.size(); ++i) {
            std::int32_t n = 0;
            while (static_cast<float>(n) < x[i]) ++n;
            ASSERT_EQ(got[i], x[i]) << "While, x=" << x[i];
            ASSERT_EQ(trips[i], n) << "While, x=" << x[i];
        }
        swizzled(sv, sr, strips);
        got = sr.download();
        trips = strips.download();
        for (std::size_t i = 0; i < x.size(); ++i) {
            std::int32_t n = 0;
            for (std::int32_t k = 0; k < static_cast<std::int32_t>(x[i]); k += 2) ++n;
            ASSERT_EQ(got[i], x[i]) << "swizzle, x=" << x[i];
            ASSERT_EQ(trips[i], n) << "swizzle, x=" << x[i];
        }
        if (size == 0) continue;  // nothing to gather from
        gathered(sx, sx, sr, strips);
        got = sr.download();
        trips = strips.download();
        for (std::size_t i = 0; i < x.size(); ++i) {
            const float g = x[std::min(static_cast<std::size_t>(std::abs(x[i])), x.size() - 1)];
            std::int32_t n = 0;
            while (static_cast<float>(n) < g) ++n;
            ASSERT_EQ(got[i], g) << "gather, x=" << x[i];
            ASSERT_EQ(trips[i], n) << "gather, x=" << x[i];
        }
    }
}

RILL_INSTANTIATE_FOR_BACKENDS(ControlFlow);

}  // namespace
}  // namespace rill::test
