// rill's BLAS against a float64 host computation and OpenBLAS (which must
// agree with the float64 reference too, so that a wrong reference cannot
// pass): sizes 0, 1, primes, 2^k +- 1, non-square and skinny shapes, both
// ops, alpha and beta of 0, 1 and others, views with a leading dimension and
// strided vectors.
//
// Bound: an element that sums k products is within gamma(k + 2) * (|alpha|
// (|op(A)| |x|)_i + |beta y_i|) of the exact value, gamma(k) = k u / (1 - k u),
// u = 2^-24: the pairwise sums of the kernels are no worse than a sequential
// sum's k u, and the +2 covers alpha's and beta's roundings.
#include <cblas.h>

#include <cmath>
#include <limits>

#include <rill/algorithms/blas.h>

#include "backend_fixture.h"

namespace rill::test {
namespace {

class Blas : public BackendTest {};

using blas::Op;

constexpr double kUnit = 0x1p-24;
double gamma(std::int64_t k) { return double(k) * kUnit / (1.0 - double(k) * kUnit); }

/// A row-major matrix on the host with its float64 view.
struct HostMatrix {
    std::int64_t rows = 0, cols = 0;
    std::vector<float> v;
    double at(std::int64_t i, std::int64_t j, bool transposed) const {
        return transposed ? v[j * cols + i] : v[i * cols + j];
    }
};

HostMatrix random_matrix(std::int64_t rows, std::int64_t cols) {
    return HostMatrix{rows, cols, random_floats(static_cast<std::size_t>(rows * cols), -1, 1)};
}

/// A stream holding `m` as a domain of a larger matrix, with NaN around it
/// that a kernel must not read: its rows 2 elements into rows of cols + 3, or
/// with `quads` 4 into rows of cols + 4 (rows that start at multiples of 4
/// elements, which the kernels load four at a time).
Stream<float> padded_view(Runtime& rt, const HostMatrix& m, bool quads = false) {
    const std::int64_t ld = m.cols + (quads ? 4 : 3), rows = m.rows + 2, first = quads ? 4 : 2;
    std::vector<float> big(static_cast<std::size_t>(rows * ld), std::numeric_limits<float>::quiet_NaN());
    for (std::int64_t i = 0; i < m.rows; ++i)
        for (std::int64_t j = 0; j < m.cols; ++j) big[(i + 1) * ld + j + first] = m.v[i * m.cols + j];
    return rt.stream<float>({rows, ld}, big).domain({1, first}, {1 + m.rows, first + m.cols});
}

/// y on the device as every third element of a larger stream.
Stream<float> strided_vector(Runtime& rt, const std::vector<float>& y) {
    const std::int64_t n = static_cast<std::int64_t>(y.size());
    std::vector<float> big(static_cast<std::size_t>(3 * n + 1), -7.0f);
    for (std::int64_t i = 0; i < n; ++i) big[3 * i + 1] = y[i];
    return rt.stream<float>({3 * n + 1}, big).domain({1}, {3 * n + 1}).stride({3});
}

TEST_P(Blas, AxpyScalAndReductionsAtEdgeSizes) {
    for (std::int64_t n : edge_sizes()) {
        SCOPED_TRACE(n);
        const auto hx = random_floats(static_cast<std::size_t>(n), -2, 2);
        const auto hy = random_floats(static_cast<std::size_t>(n), -2, 2);
        for (bool strided : {false, true}) {
            SCOPED_TRACE(strided ? "strided views" : "dense streams");
            auto x = strided ? strided_vector(rt(), hx) : rt().stream<float>({n}, hx);
            auto y = strided ? strided_vector(rt(), hy) : rt().stream<float>({n}, hy);
            double dot = 0, dot_mag = 0, sq = 0, abs_sum = 0;
            std::int32_t first_max = -1;
            for (std::int64_t i = 0; i < n; ++i) {
                dot += double(hx[i]) * hy[i];
                dot_mag += std::fabs(double(hx[i]) * hy[i]);
                sq += double(hx[i]) * hx[i];
                abs_sum += std::fabs(hx[i]);
                if (first_max < 0 || std::fabs(hx[i]) > std::fabs(hx[first_max])) first_max = std::int32_t(i);
            }
            EXPECT_NEAR(blas::dot(x, y), dot, gamma(n) * dot_mag);
            EXPECT_NEAR(blas::asum(x), abs_sum, gamma(n) * abs_sum);
            EXPECT_NEAR(blas::nrm2(x), std::sqrt(sq), gamma(n + 2) * std::sqrt(sq));
            EXPECT_EQ(blas::iamax(x), first_max);
            if (n > 0) {
                const int inc = 1;
                EXPECT_EQ(cblas_isamax(blasint(n), hx.data(), inc), std::size_t(first_max)) << "OpenBLAS disagrees with the reference";
                EXPECT_NEAR(cblas_sdot(blasint(n), hx.data(), inc, hy.data(), inc), dot, gamma(n) * dot_mag);
            }
            // The results stay on the device when asked.
            auto r = rt().stream<float>({1});
            blas::dot(x, y, r);
            EXPECT_NEAR(r.download()[0], dot, gamma(n) * dot_mag);
            auto ri = rt().stream<std::int32_t>({1});
            blas::iamax(x, ri);
            EXPECT_EQ(ri.download()[0], first_max);

            blas::axpy(-1.5f, x, y);
            const auto got = y.download();
            for (std::int64_t i = 0; i < n; ++i) {
                const double want = -1.5 * hx[i] + hy[i];
                ASSERT_NEAR(got[i], want, 2 * kUnit * (1.5 * std::fabs(hx[i]) + std::fabs(hy[i]))) << "axpy at " << i;
            }
            blas::scal(0.25f, x);
            const auto scaled = x.download();
            for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(scaled[i], 0.25f * hx[i]) << "scal at " << i;
        }
    }
}

TEST_P(Blas, Nrm2NeitherOverflowsNorUnderflows) {
    for (float scale : {1e20f, 1e36f, 1e-20f, 1e-30f, 1.0f}) {
        SCOPED_TRACE(scale);
        for (std::int64_t n : {1, 5, 1000, 65537}) {
            auto h = random_floats(static_cast<std::size_t>(n), -1, 1);
            for (auto& v : h) v *= scale;
            double sq = 0;
            for (float v : h) sq += (double(v) / scale) * (double(v) / scale);
            const double want = std::sqrt(sq) * scale;
            EXPECT_NEAR(blas::nrm2(rt().stream<float>({n}, h)), want, gamma(n + 2) * want) << n;
        }
    }
    // Mixed magnitudes: every one of Blue's three sums in use at once.
    std::vector<float> mixed = {3e30f, 1.0f, 4e-30f, -2e30f, 0.5f, 1e-35f};
    double sq = 0;
    for (float v : mixed) sq += (double(v) / 1e30) * (double(v) / 1e30);
    EXPECT_NEAR(blas::nrm2(rt().stream<float>({6}, mixed)), std::sqrt(sq) * 1e30, 1e-6 * std::sqrt(sq) * 1e30);
    std::vector<float> tiny = {1e-30f, 2e-30f, 1.0f};
    EXPECT_NEAR(blas::nrm2(rt().stream<float>({3}, tiny)), 1.0, 1e-7);
}

TEST_P(Blas, IamaxTakesTheFirstLargestAndNaNFirst) {
    EXPECT_EQ(blas::iamax(rt().stream<float>({6}, std::vector<float>{1, -3, 2, 3, -3, 0})), 1);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(blas::iamax(rt().stream<float>({5}, std::vector<float>{1, 9, nan, -9, nan})), 2);
    EXPECT_EQ(blas::iamax(rt().stream<float>({0})), -1);
    // Ties and a NaN far apart, across workgroups.
    std::vector<float> many(100003, 0.5f);
    many[70001] = -4.0f;
    many[90001] = 4.0f;
    EXPECT_EQ(blas::iamax(rt().stream<float>({100003}, many)), 70001);
    many[99999] = nan;
    EXPECT_EQ(blas::iamax(rt().stream<float>({100003}, many)), 99999);
}

// The reductions' last workgroup folds every workgroup's partial result: up
// to 1024 of them, each over several elements an invocation (3 and 5 here),
// twice in a row on one runtime (its counter back at zero between). Strided
// views, which every backend reduces this way (the CPU backend's row tiles
// take dense streams, tested above). The bound is the summation's depth, not
// n: at most 5 terms an invocation, 8 levels of a workgroup, 4 partial
// results an invocation of the last one and its 8 levels, so gamma(32) of
// the terms' magnitudes; a partial result left out (about 1/1000 of the sum)
// is far outside it.
TEST_P(Blas, ReductionsFoldEveryWorkgroupsPartialResult) {
    for (std::int64_t n : {std::int64_t{3} << 18, (std::int64_t{1} << 20) + 5}) {
        SCOPED_TRACE(n);
        auto hx = random_floats(static_cast<std::size_t>(n), -1, 1);
        const auto hy = random_floats(static_cast<std::size_t>(n), -1, 1);
        const std::int64_t largest = n - 2;  // in the last workgroup's range
        hx[static_cast<std::size_t>(largest)] = -3.0f;
        double dot = 0, dot_mag = 0, sq = 0, abs_sum = 0;
        for (std::int64_t i = 0; i < n; ++i) {
            dot += double(hx[i]) * hy[i];
            dot_mag += std::fabs(double(hx[i]) * hy[i]);
            sq += double(hx[i]) * hx[i];
            abs_sum += std::fabs(hx[i]);
        }
        auto x = strided_vector(rt(), hx), y = strided_vector(rt(), hy);
        for (int round = 0; round < 2; ++round) {
            EXPECT_NEAR(blas::dot(x, y), dot, gamma(33) * dot_mag) << "round " << round;
            EXPECT_NEAR(blas::asum(x), abs_sum, gamma(32) * abs_sum) << "round " << round;
            EXPECT_NEAR(blas::nrm2(x), std::sqrt(sq), gamma(34) * std::sqrt(sq)) << "round " << round;
            EXPECT_EQ(blas::iamax(x), largest) << "round " << round;
        }
    }
}

struct Scalars {
    float alpha, beta;
};
const Scalars kScalars[] = {{1, 0}, {0.5f, 2}, {-2, 1}, {0, 3}, {0, 0}};

TEST_P(Blas, GemvAgainstFloat64AndOpenBLAS) {
    // Rows of a multiple of 4 elements take the kernels that load four at a time.
    const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
        {0, 5},     {5, 0},    {1, 1},      {7, 13},  {61, 257},  {255, 257}, {1025, 31}, {3, 70001}, {70001, 3},
        {1, 4099},  {4099, 1}, {300, 2050}, {65, 1024}, {5, 8192}, {1028, 12}, {8192, 8},  {1000, 64}, {3, 4},
        // Rows of 128 quads and more are taken 4 at a time: row counts that 4 does not divide, split in chunks.
        {7, 36864},
        // Rows of 2^14 quads and more take four steps of the team at a time: a last step part full.
        {5, 65540},
        // 65 quads wide, transposed: bands of 64 quads, the second of one.
        {1001, 260}};
    for (auto [m, n] : shapes) {
        const HostMatrix a = random_matrix(m, n);
        for (Op op : {Op::N, Op::T}) {
            const bool t = op == Op::T;
            const std::int64_t rows = t ? n : m, cols = t ? m : n;
            const auto hx = random_floats(static_cast<std::size_t>(cols), -1, 1);
            const auto hy = random_floats(static_cast<std::size_t>(rows), -1, 1);
            for (const Scalars s : kScalars) {
                for (bool views : {false, true}) {
                    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + (t ? " T" : " N") + " alpha " +
                                 std::to_string(s.alpha) + " beta " + std::to_string(s.beta) + (views ? " views" : ""));
                    auto A = views ? padded_view(rt(), a, n % 4 == 0) : rt().stream<float>({m, n}, a.v);
                    auto x = views ? strided_vector(rt(), hx) : rt().stream<float>({cols}, hx);
                    // beta = 0: y is not read, so NaN there must not show.
                    std::vector<float> y0 = hy;
                    if (s.beta == 0) y0.assign(y0.size(), std::numeric_limits<float>::quiet_NaN());
                    auto y = views ? strided_vector(rt(), y0) : rt().stream<float>({rows}, y0);
                    blas::gemv(op, s.alpha, A, x, s.beta, y);
                    const auto got = y.download();
                    std::vector<float> ob = y0;
                    if (rows > 0 && cols > 0)
                        cblas_sgemv(CblasRowMajor, t ? CblasTrans : CblasNoTrans, blasint(m), blasint(n), s.alpha, a.v.data(),
                                    blasint(std::max<std::int64_t>(n, 1)), hx.data(), 1, s.beta, ob.data(), 1);
                    for (std::int64_t i = 0; i < rows; ++i) {
                        if (cols == 0) {  // the reference BLAS leaves y alone
                            ASSERT_TRUE(got[i] == y0[i] || (std::isnan(got[i]) && std::isnan(y0[i]))) << "y[" << i << "]";
                            continue;
                        }
                        double sum = 0, mag = 0;
                        for (std::int64_t j = 0; j < cols; ++j) {
                            sum += a.at(i, j, t) * hx[j];
                            mag += std::fabs(a.at(i, j, t) * hx[j]);
                        }
                        const double y_in = s.beta == 0 ? 0.0 : hy[i];
                        const double want = s.alpha * sum + s.beta * y_in;
                        const double bound = gamma(cols + 2) * (std::fabs(s.alpha) * mag + std::fabs(s.beta * y_in));
                        ASSERT_NEAR(got[i], want, bound) << "y[" << i << "]";
                        ASSERT_NEAR(ob[i], want, 2 * bound) << "OpenBLAS disagrees with the reference at " << i;
                    }
                }
            }
        }
    }
}

TEST_P(Blas, GemvManyRowsOfManyQuads) {
    // 2^15 rows and more of at least 128 quads: GPUs give teams of 32 lanes
    // 4 rows each there (fewer rows keep one row a team), the last group partial.
    const std::int64_t m = 32771, n = 516;
    const HostMatrix a = random_matrix(m, n);
    const auto hx = random_floats(static_cast<std::size_t>(n), -1, 1);
    const auto hy = random_floats(static_cast<std::size_t>(m), -1, 1);
    auto A = rt().stream<float>({m, n}, a.v);
    auto x = rt().stream<float>({n}, hx);
    auto y = rt().stream<float>({m}, hy);
    blas::gemv(Op::N, 0.5f, A, x, 2.0f, y);
    const auto got = y.download();
    for (std::int64_t i = 0; i < m; ++i) {
        double sum = 0, mag = 0;
        for (std::int64_t j = 0; j < n; ++j) {
            sum += a.at(i, j, false) * hx[j];
            mag += std::fabs(a.at(i, j, false) * hx[j]);
        }
        const double want = 0.5 * sum + 2.0 * hy[i];
        ASSERT_NEAR(got[i], want, gamma(n + 2) * (0.5 * mag + std::fabs(2.0 * hy[i]))) << "y[" << i << "]";
    }
}

TEST_P(Blas, GemvAlphaZeroReadsNeitherAnorX) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto A = rt().stream<float>({3, 4}, std::vector<float>(12, nan));
    auto x = rt().stream<float>({4}, std::vector<float>(4, nan));
    auto y = rt().stream<float>({3}, std::vector<float>{1, 2, 3});
    blas::gemv(Op::N, 0.0f, A, x, 2.0f, y);
    EXPECT_EQ(y.download(), (std::vector<float>{2, 4, 6}));
}

TEST_P(Blas, GemmAgainstFloat64AndOpenBLAS) {
    struct Case {
        std::int64_t m, n, k;
    };
    const Case cases[] = {{1, 1, 1},     {0, 3, 4},     {3, 0, 4},      {3, 4, 0},      {17, 5, 300},
                          {128, 128, 8}, {129, 127, 9}, {257, 131, 33}, {64, 300, 1},   {1, 513, 70},
                          {96, 68, 16},  {128, 256, 24}};
    for (const Case c : cases) {
        for (Op ta : {Op::N, Op::T})
            for (Op tb : {Op::N, Op::T}) {
                const bool at = ta == Op::T, bt = tb == Op::T;
                const HostMatrix a = at ? random_matrix(c.k, c.m) : random_matrix(c.m, c.k);
                const HostMatrix b = bt ? random_matrix(c.n, c.k) : random_matrix(c.k, c.n);
                const HostMatrix c0 = random_matrix(c.m, c.n);
                // Every alpha and beta, with and without views, on one shape;
                // one combination of them, in turn, on the others (the
                // software rasterizers of CI take seconds per product).
                const bool every = c.m == 129;
                for (std::size_t which = 0; which < std::size(kScalars) * 2; ++which) {
                    const Scalars s = kScalars[which / 2];
                    const bool views = which % 2 == 1;
                    if (!every && which != (std::size_t(c.m + c.n + c.k) + (at ? 3 : 0) + (bt ? 5 : 0)) % (std::size(kScalars) * 2))
                        continue;
                    {
                        SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + (at ? " T" : " N") +
                                     (bt ? "T" : "N") + " alpha " + std::to_string(s.alpha) + " beta " + std::to_string(s.beta) +
                                     (views ? " views" : ""));
                        HostMatrix cin = c0;
                        if (s.beta == 0) cin.v.assign(cin.v.size(), std::numeric_limits<float>::quiet_NaN());
                        // Views of rows of whole quads start at quads, so that the
                        // kernels that load A^T and B in 16-byte vectors take them.
                        auto A = views ? padded_view(rt(), a, a.cols % 4 == 0) : rt().stream<float>({a.rows, a.cols}, a.v);
                        auto B = views ? padded_view(rt(), b, b.cols % 4 == 0) : rt().stream<float>({b.rows, b.cols}, b.v);
                        auto C = views ? padded_view(rt(), cin) : rt().stream<float>({c.m, c.n}, cin.v);
                        blas::gemm(ta, tb, s.alpha, A, B, s.beta, C);
                        const auto got = C.download();
                        std::vector<float> ob = cin.v;
                        if (c.m > 0 && c.n > 0)
                            cblas_sgemm(CblasRowMajor, at ? CblasTrans : CblasNoTrans, bt ? CblasTrans : CblasNoTrans, blasint(c.m),
                                        blasint(c.n), blasint(c.k), s.alpha, a.v.data(), blasint(std::max<std::int64_t>(a.cols, 1)),
                                        b.v.data(), blasint(std::max<std::int64_t>(b.cols, 1)), s.beta, ob.data(),
                                        blasint(std::max<std::int64_t>(c.n, 1)));
                        for (std::int64_t i = 0; i < c.m; ++i)
                            for (std::int64_t j = 0; j < c.n; ++j) {
                                double sum = 0, mag = 0;
                                for (std::int64_t p = 0; p < c.k; ++p) {
                                    sum += a.at(i, p, at) * b.at(p, j, bt);
                                    mag += std::fabs(a.at(i, p, at) * b.at(p, j, bt));
                                }
                                const double c_in = s.beta == 0 ? 0.0 : c0.v[i * c.n + j];
                                const double want = s.alpha * sum + s.beta * c_in;
                                const double bound = gamma(c.k + 2) * (std::fabs(s.alpha) * mag + std::fabs(s.beta * c_in));
                                ASSERT_NEAR(got[i * c.n + j], want, bound) << "C[" << i << "][" << j << "]";
                                ASSERT_NEAR(ob[i * c.n + j], want, 2 * bound) << "OpenBLAS disagrees with the reference";
                            }
                    }
                }
            }
    }
}

TEST_P(Blas, ShapeErrorsNameTheArgumentAndTheShapeExpected) {
    auto A = rt().stream<float>({3, 4});
    auto x4 = rt().stream<float>({4});
    auto x5 = rt().stream<float>({5});
    auto y3 = rt().stream<float>({3});
    EXPECT_EQ(error_message([&] { blas::gemv(Op::N, 1, A, x5, 0, y3); }),
              "rill::blas::gemv: x has shape 5 but op(A) has 4 columns (A has shape 3x4); pass x of shape 4");
    EXPECT_EQ(error_message([&] { blas::gemv(Op::T, 1, A, x4, 0, x4); }),
              "rill::blas::gemv: x has shape 4 but op(A) has 3 columns (A has shape 3x4, transposed); pass x of shape 3");
    EXPECT_EQ(error_message([&] { blas::gemv(Op::N, 1, x4, x4, 0, y3); }),
              "rill::blas::gemv: A has shape 4; matrices are 2D streams {rows, columns} (reshape it)");
    EXPECT_EQ(error_message([&] { blas::dot(x4, x5); }),
              "rill::blas::dot: y has shape 5 but x has 4 elements; pass y of shape 4");
    EXPECT_EQ(error_message([&] { blas::dot(x4, x4, x4); }),
              "rill::blas::dot: result has shape 4; pass a stream of one element (shape 1)");
    auto B = rt().stream<float>({5, 2});
    auto C = rt().stream<float>({3, 2});
    EXPECT_EQ(error_message([&] { blas::gemm(Op::N, Op::N, 1, A, B, 0, C); }),
              "rill::blas::gemm: B has shape 5x2 but op(A) has 4 columns (A has shape 3x4), so op(B) needs 4 rows; pass B of "
              "shape 4x2");
    auto B4 = rt().stream<float>({4, 2});
    auto C33 = rt().stream<float>({3, 3});
    EXPECT_EQ(error_message([&] { blas::gemm(Op::N, Op::N, 1, A, B4, 0, C33); }),
              "rill::blas::gemm: C has shape 3x3 but op(A) op(B) is 3x4 times 4x2; pass C of shape 3x2");
    EXPECT_EQ(error_message([&] { blas::gemm(Op::N, Op::N, 1, A, B4, 0, rt().stream<float>({2}).repeat(3)); }),
              "rill::blas::gemm: C is a repeat view, whose elements appear several times; write into a stream of its own");
}

RILL_INSTANTIATE_FOR_BACKENDS(Blas);

}  // namespace
}  // namespace rill::test
