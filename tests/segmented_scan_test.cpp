// Scans under DSL combiners (a non-commutative struct combiner, vectors) and
// segmented scans (built-in operators and DSL combiners) against sequential
// host scans: every size up to 1000, tile edges, 2^k +- 1, a large prime;
// random heads, every element a head, none, the first only.
#include <rill/algorithms/segmented_scan.h>

#include "backend_fixture.h"

/// x -> a x + b, in uint32 arithmetic (exact on host and device).
struct Affine {
    std::uint32_t a, b;
    bool operator==(const Affine&) const = default;
};
RILL_STRUCT(Affine, a, b);

namespace rill::test {
namespace {

class SegmentedScans : public BackendTest {};

/// f then g: x -> g.a (f.a x + f.b) + g.b. Associative, not commutative.
Affine then(const Affine& f, const Affine& g) { return Affine{f.a * g.a, g.a * f.b + g.b}; }

const Scan<Affine>& compose() {
    static const Scan<Affine> scan("compose", [](const Var<Affine>& f, const Var<Affine>& g) {
        Var<Affine> r;
        r.a = f.a * g.a;
        r.b = g.a * f.b + g.b;
        return r;
    }, Affine{1, 0});
    return scan;
}

std::vector<Affine> random_affine(std::int64_t n) {
    std::vector<Affine> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = Affine{static_cast<std::uint32_t>(rng()() % 7) * 2 + 1, static_cast<std::uint32_t>(rng()())};
    return v;
}

/// Head flags of the kinds that break segmented scans.
std::vector<std::uint32_t> heads_of(std::int64_t n, int kind) {
    std::vector<std::uint32_t> h(static_cast<std::size_t>(n), 0u);
    for (std::int64_t i = 0; i < n; ++i) {
        if (kind == 0) h[i] = rng()() % 20 == 0 ? 1u : 0u;  // random
        if (kind == 1) h[i] = 1u;                            // every element
        if (kind == 3) h[i] = i == 0 ? 1u : 0u;              // the first only
    }                                                        // kind 2: none
    return h;
}

/// The sequential scan on the host (heads empty: not segmented).
template <class T, class F>
std::vector<T> host_scan(const std::vector<T>& x, const std::vector<std::uint32_t>& heads, F op, T identity, T init,
                         bool inclusive) {
    std::vector<T> out(x.size());
    T acc = init;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (!heads.empty() && heads[i]) acc = identity;
        if (!inclusive) out[i] = acc;
        acc = op(acc, x[i]);
        if (inclusive) out[i] = acc;
    }
    return out;
}

std::vector<std::int64_t> sizes(Runtime& rt) {
    std::vector<std::int64_t> s;
    for (std::int64_t n = 0; n <= 1000; n += (n < 300 ? 1 : 7)) s.push_back(n);
    for (std::int64_t n : {2047, 2048, 2049, 4095, 4097, 65535, 65537, 1000003})
        if (!past_largest(rt, n)) s.push_back(n);
    return s;
}

TEST_P(SegmentedScans, StructCombinerInStreamOrder) {
    for (std::int64_t n : sizes(rt())) {
        SCOPED_TRACE(n);
        const std::vector<Affine> x = random_affine(n);
        auto in = rt().stream<Affine>({n}, x);
        auto out = rt().stream<Affine>({n});
        compose().inclusive(in, out);
        ASSERT_EQ(out.download(), host_scan<Affine>(x, {}, then, Affine{1, 0}, Affine{1, 0}, true));
        const Affine init{3, 5};
        compose().exclusive(in, out, init);
        ASSERT_EQ(out.download(), host_scan<Affine>(x, {}, then, Affine{1, 0}, init, false));
        if (n % 5 == 0 || n > 1000) {
            const std::vector<std::uint32_t> h = heads_of(n, static_cast<int>(n % 4));
            auto heads = rt().stream<std::uint32_t>({n}, h);
            compose().exclusive(in, out, heads);
            ASSERT_EQ(out.download(), host_scan<Affine>(x, h, then, Affine{1, 0}, Affine{1, 0}, false)) << "segmented";
            compose().inclusive(in, in, heads);  // in place
            ASSERT_EQ(in.download(), host_scan<Affine>(x, h, then, Affine{1, 0}, Affine{1, 0}, true)) << "segmented, in place";
        }
    }
}

TEST_P(SegmentedScans, BuiltInOperatorsSegmented) {
    for (std::int64_t n : {1, 2, 3, 100, 2049, 4097, 65537, 1000003}) {
        if (past_largest(rt(), n)) continue;
        for (int kind = 0; kind < 4; ++kind) {
            SCOPED_TRACE("n = " + std::to_string(n) + ", heads kind " + std::to_string(kind));
            const std::vector<std::uint32_t> h = heads_of(n, kind);
            auto heads = rt().stream<std::uint32_t>({n}, h);
            std::vector<std::uint32_t> u(static_cast<std::size_t>(n));
            for (auto& v : u) v = static_cast<std::uint32_t>(rng()());
            auto in = rt().stream<std::uint32_t>({n}, u);
            auto out = rt().stream<std::uint32_t>({n});
            inclusive_scan(in, out, heads);
            ASSERT_EQ(out.download(), host_scan<std::uint32_t>(u, h, std::plus<>(), 0u, 0u, true)) << "uint32 add";
            exclusive_scan(in, out, heads, ScanOp::Xor);
            ASSERT_EQ(out.download(), host_scan<std::uint32_t>(u, h, std::bit_xor<>(), 0u, 0u, false)) << "uint32 xor";
            const std::vector<std::int32_t> s = random_ints(static_cast<std::size_t>(n), -1000000, 1000000);
            auto si = rt().stream<std::int32_t>({n}, s);
            auto so = rt().stream<std::int32_t>({n});
            inclusive_scan(si, so, heads, ScanOp::Max);
            auto max = [](std::int32_t a, std::int32_t b) { return std::max(a, b); };
            ASSERT_EQ(so.download(), host_scan<std::int32_t>(s, h, max, INT32_MIN, INT32_MIN, true)) << "int32 max";
            // Float sums against float64: tolerance from the segment's length and magnitudes.
            const std::vector<float> f = random_floats(static_cast<std::size_t>(n), -1.0f, 1.0f);
            auto fi = rt().stream<float>({n}, f);
            auto fo = rt().stream<float>({n});
            exclusive_scan(fi, fo, heads);
            const std::vector<float> got = fo.download();
            double acc = 0, abs_sum = 0;
            std::int64_t len = 0;
            for (std::int64_t i = 0; i < n; ++i) {
                if (h[i]) acc = 0, abs_sum = 0, len = 0;
                ASSERT_TRUE(close(got[i], acc, 1e-6 * (len + 1) * (abs_sum + 1), 0)) << "float add at " << i << ": " << got[i]
                                                                                      << " against " << acc;
                acc += f[i], abs_sum += std::fabs(f[i]), ++len;
            }
        }
    }
}

TEST_P(SegmentedScans, VectorElementsAndErrors) {
    Scan<float3> sum3("sum3", [](const Expr<float3>& a, const Expr<float3>& b) { return a + b; }, float3{0, 0, 0});
    for (std::int64_t n : {1, 1023, 1025, 70001}) {
        SCOPED_TRACE(n);
        const std::vector<float> c = random_floats(static_cast<std::size_t>(3 * n), -1, 1);
        std::vector<float3> x(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) x[i] = float3{c[3 * i], c[3 * i + 1], c[3 * i + 2]};
        auto in = rt().stream<float3>({n}, x);
        auto out = rt().stream<float3>({n});
        sum3.inclusive(in, out);
        const std::vector<float3> got = out.download();
        double acc[3] = {0, 0, 0};
        for (std::int64_t i = 0; i < n; ++i)
            for (int k = 0; k < 3; ++k) {
                acc[k] += x[i][k];
                ASSERT_TRUE(close(got[i][k], acc[k], 1e-5 * std::sqrt(double(i + 1)) + 1e-5, 1e-5)) << i << "." << k;
            }
    }
    auto in = rt().stream<float3>({10});
    auto out = rt().stream<float3>({11});
    auto heads = rt().stream<std::uint32_t>({9});
    EXPECT_NE(error_message([&] { sum3.inclusive(in, out); }).find("scan into a stream of the input's shape"), std::string::npos);
    EXPECT_NE(error_message([&] { sum3.exclusive(in, in, heads); }).find("give one flag per element"), std::string::npos);
    auto f = rt().stream<float>({9});
    EXPECT_NE(error_message([&] { inclusive_scan(f, f, heads, ScanOp::And); }).find("needs int32 or uint32 elements"),
              std::string::npos);
}

}  // namespace

RILL_INSTANTIATE_FOR_BACKENDS(SegmentedScans);

}  // namespace rill::test
