// Stencils against float64 host loops with every boundary rule; Perona-Malik
// diffusion against the same explicit scheme in float64; region growing
// against a breadth-first flood fill on the host; errors.
#include <rill/algorithms/segment.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "backend_fixture.h"

namespace rill::test {
namespace {

class Segment : public BackendTest {};

namespace seg = rill::segment;

// Edge shapes: single pixels, rows, columns, odd sizes, a tile and one past it, and
// one with interior tiles (every neighbour inside) at the default tile of 32 x 32.
const std::vector<std::pair<std::int64_t, std::int64_t>> kShapes = {{1, 1}, {1, 37}, {29, 1}, {3, 5}, {16, 16}, {17, 33}, {70, 45}, {100, 90}};

std::int64_t boundary_index(std::int64_t i, std::int64_t n, Boundary b, bool& zero) {
    // Mirror reflects about the edge element once, then clamps (stencil.h).
    if (b == Boundary::Mirror) i = i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i;
    const std::int64_t c = std::clamp<std::int64_t>(i, 0, n - 1);
    if (b == Boundary::Zero && c != i) zero = true;
    return c;
}

/// One step of the test stencil below, in float64.
std::vector<double> host_step(const std::vector<double>& in, std::int64_t h, std::int64_t w, Boundary b, double a) {
    std::vector<double> out(in.size());
    auto at = [&](std::int64_t y, std::int64_t x) {
        bool zero = false;
        const std::int64_t cy = boundary_index(y, h, b, zero), cx = boundary_index(x, w, b, zero);
        return zero ? 0.0 : in[cy * w + cx];
    };
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x)
            out[y * w + x] = a * at(y, x) + 0.25 * (at(y - 2, x + 1) + at(y + 1, x - 2)) - 0.125 * at(y + 2, x + 2) + 0.0625 * at(y - 1, x);
    return out;
}

/// The test stencil (radius 2) with `options`, against the host for every
/// boundary rule, shape and iteration count, out of place and in place.
void check_stencil(Runtime& rt, StencilOptions options, const std::vector<int>& iteration_counts) {
    for (Boundary b : {Boundary::Clamp, Boundary::Mirror, Boundary::Zero}) {
        const Stencil<float> stencil("segment_test_stencil", 2, [](const Neighbourhood<float>& n, const Expr<float4>& p) -> Expr<float> {
            return p.x() * n(0, 0) + 0.25f * (n(-2, 1) + n(1, -2)) - 0.125f * n(2, 2) + 0.0625f * n(-1, 0);
        }, b, options);
        for (auto [h, w] : kShapes)
            for (int iterations : iteration_counts) {
                SCOPED_TRACE("boundary " + std::to_string(int(b)) + ", " + std::to_string(h) + " x " + std::to_string(w) + ", " +
                             std::to_string(iterations) + " iterations, " + std::to_string(options.steps_per_pass) + " per pass");
                const std::vector<float> f = random_floats(static_cast<std::size_t>(h * w), -1.0f, 1.0f);
                std::vector<double> want(f.begin(), f.end());
                for (int i = 0; i < iterations; ++i) want = host_step(want, h, w, b, 0.5);
                auto in = rt.stream<float>({h, w}, f);
                auto out = rt.stream<float>({h, w});
                stencil(in, out, iterations, float4{0.5f, 0.0f, 0.0f, 0.0f});
                std::vector<float> got = out.download();
                for (std::size_t i = 0; i < got.size(); ++i) ASSERT_TRUE(close(got[i], want[i], 1e-6, 1e-6)) << i << ": " << got[i] << " against " << want[i];
                EXPECT_EQ(in.download(), f) << "the input changed";
                stencil(in, in, iterations, float4{0.5f, 0.0f, 0.0f, 0.0f});  // in place
                got = in.download();
                for (std::size_t i = 0; i < got.size(); ++i) ASSERT_TRUE(close(got[i], want[i], 1e-6, 1e-6)) << "in place, " << i;
            }
    }
}

TEST_P(Segment, StencilsAgainstTheHostWithEveryBoundary) {
    check_stencil(rt(), {.steps_per_pass = 1}, {0, 1, 2, 3});
}

// Temporal blocking: passes of 2 and 3 iterations in shared memory (halos of
// 4 and 6 elements at radius 2), with single iterations after them (7 = 3 + 3 + 1),
// on tiles at every edge and inside (100 x 90 has an interior one).
TEST_P(Segment, BlockedStencilsAgainstTheHostWithEveryBoundary) {
    check_stencil(rt(), {.steps_per_pass = 2}, {2, 5});
    check_stencil(rt(), {.steps_per_pass = 3}, {3, 7});
    // Invocations of two columns (reads at column offsets of the invocation's second).
    ScopedEnv columns("RILL_STENCIL_BLOCK_COLUMNS", "2");
    check_stencil(rt(), {.steps_per_pass = 3}, {3});
}

// Vector elements (two words an element in the blocked tiles' shared memory):
// a float2 stencil that mixes the components, blocked and not, and in 3D,
// against the host.
TEST_P(Segment, StencilsOfVectorElements) {
    auto body = [](const Neighbourhood<float2>& n, const Expr<float4>& p) -> Expr<float2> {
        Float2 c = n(0, 0), e = n(0, 1), s = n(1, 0);
        return Float2(c.x() * p.x() - c.y() * p.y() + 0.25f * e.y(), c.y() * p.x() + c.x() * p.y() - 0.25f * s.x());
    };
    auto host = [](const std::vector<double>& in, std::int64_t d, std::int64_t h, std::int64_t w, double a, double b) {
        std::vector<double> out(in.size());
        auto at = [&](std::int64_t z, std::int64_t y, std::int64_t x, int k) {
            return in[static_cast<std::size_t>(2 * ((z * h + std::clamp<std::int64_t>(y, 0, h - 1)) * w + std::clamp<std::int64_t>(x, 0, w - 1)) + k)];
        };
        for (std::int64_t z = 0; z < d; ++z)
            for (std::int64_t y = 0; y < h; ++y)
                for (std::int64_t x = 0; x < w; ++x) {
                    const std::size_t i = static_cast<std::size_t>(2 * ((z * h + y) * w + x));
                    out[i] = at(z, y, x, 0) * a - at(z, y, x, 1) * b + 0.25 * at(z, y, x + 1, 1);
                    out[i + 1] = at(z, y, x, 1) * a + at(z, y, x, 0) * b - 0.25 * at(z, y + 1, x, 0);
                }
        return out;
    };
    const float a = 0.6f, b = 0.3f;
    for (auto [options, shape] : std::vector<std::pair<StencilOptions, std::vector<std::int64_t>>>{
             {{.steps_per_pass = 1}, {70, 45}}, {{.steps_per_pass = 3}, {70, 45}}, {{.steps_per_pass = 3}, {100, 90}},
             {{.dimensions = 3}, {6, 11, 37}}}) {
        const Stencil<float2> stencil("segment_test_float2", 1, body, Boundary::Clamp, options);
        const std::int64_t d = shape.size() == 3 ? shape[0] : 1, h = shape[shape.size() - 2], w = shape.back();
        SCOPED_TRACE(std::to_string(d) + " x " + std::to_string(h) + " x " + std::to_string(w) + ", " +
                     std::to_string(options.steps_per_pass) + " per pass");
        const std::vector<float> f = random_floats(static_cast<std::size_t>(2 * d * h * w), -1.0f, 1.0f);
        std::vector<float2> values;
        for (std::size_t i = 0; i < f.size(); i += 2) values.push_back(float2{f[i], f[i + 1]});
        std::vector<double> want(f.begin(), f.end());
        constexpr int kIterations = 7;
        for (int i = 0; i < kIterations; ++i) want = host(want, d, h, w, a, b);
        auto in = shape.size() == 3 ? rt().stream<float2>({d, h, w}, values) : rt().stream<float2>({h, w}, values);
        stencil(in, in, kIterations, float4{a, b, 0.0f, 0.0f});
        const std::vector<float2> got = in.download();
        for (std::size_t i = 0; i < got.size(); ++i) {
            ASSERT_TRUE(close(got[i].x, want[2 * i], 1e-5, 1e-5)) << i << ": " << got[i].x << " against " << want[2 * i];
            ASSERT_TRUE(close(got[i].y, want[2 * i + 1], 1e-5, 1e-5)) << i << ": " << got[i].y << " against " << want[2 * i + 1];
        }
    }
}

// Bodies in conservative form (Neighbourhood::flux): a nonlinear flux shared by
// the elements of an invocation that meet at an edge, against the same sum in
// float64 on the host, one iteration a dispatch and four, with every number
// of rows a blocked invocation may take (RILL_STENCIL_BLOCK_ROWS; at 4 and 8
// a column's last strip overlaps the one before, the regions being 38 and 34
// high, and by default, where the rows fit the region, at 7 and 5 rows) and
// two columns, every boundary rule and shape; the same sum through
// Neighbourhood::edge; then in 3D, and the errors. (A shared flux taken
// without its negation, or a shared weight with one, fails here.)
TEST_P(Segment, StencilFluxesAgainstTheHost) {
    // f(a, b) = (b - a) / (1 + (b - a)^2), antisymmetric bit for bit.
    auto f = [](const Expr<float>& a, const Expr<float>& b) -> Expr<float> {
        Float d = b - a;
        return d / (1.0f + d * d);
    };
    auto host_f = [](double a, double b) { return (b - a) / (1.0 + (b - a) * (b - a)); };
    // The same sum through Neighbourhood::edge: g(d) = 1 / (1 + d^2), even, and
    // the terms g(d) d added by fma.
    auto g = [](const Expr<float>& d) -> Expr<float> { return 1.0f / (1.0f + d * d); };
    for (bool edges : {false, true})
    for (Boundary b : {Boundary::Clamp, Boundary::Mirror, Boundary::Zero})
        for (int steps : {1, 4}) {
            const Stencil<float> stencil(edges ? "segment_test_edges" : "segment_test_fluxes", 1,
                                         [&f, &g, edges](const Neighbourhood<float>& n, const Expr<float4>& p) -> Expr<float> {
                if (!edges) return n(0, 0) + p.x() * (n.flux(-1, 0, f) + n.flux(1, 0, f) + 0.5f * n.flux(0, -1, f) + n.flux(0, 1, f));
                auto up = n.edge(-1, 0, g), down = n.edge(1, 0, g), left = n.edge(0, -1, g), right = n.edge(0, 1, g);
                Float sum = fma(right.weight, right.difference,
                                fma(0.5f * left.weight, left.difference, fma(down.weight, down.difference, up.weight * up.difference)));
                return fma(p.x(), sum, n(0, 0));
            }, b, {.steps_per_pass = steps});
            for (auto [rows, columns] : std::vector<std::pair<const char*, const char*>>{
                     {"fit", "1"}, {"4", "1"}, {"1", "1"}, {"2", "1"}, {"8", "1"}, {"fit", "2"}, {"4", "2"}, {"1", "2"}}) {
                // The rows and columns matter only where a blocked pass's tile is interior
                // (100 x 90), where the boundary rule is never applied: all of them with Clamp.
                // Four rows (the strips of the steps alike) with every rule too. Edges share
                // what fluxes share: the fitted rows, one and two columns.
                const std::string shape = std::string(rows) + columns;
                if ((steps == 1 || b != Boundary::Clamp) && shape != "fit1" && !(steps > 1 && shape == "41")) continue;
                if (edges && shape != "fit1" && shape != "fit2") continue;
                ScopedEnv knob("RILL_STENCIL_BLOCK_ROWS", rows), knob2("RILL_STENCIL_BLOCK_COLUMNS", columns);
                for (auto [h, w] : kShapes) {
                    SCOPED_TRACE(std::string(edges ? "edges" : "fluxes") + ", boundary " + std::to_string(int(b)) + ", " +
                                 std::to_string(h) + " x " + std::to_string(w) + ", " + std::to_string(steps) + " per pass, " + rows +
                                 " rows, " + columns + " columns");
                    const std::vector<float> v = random_floats(static_cast<std::size_t>(h * w), -2.0f, 2.0f);
                    std::vector<double> want(v.begin(), v.end());
                    constexpr int kIterations = 5;
                    for (int i = 0; i < kIterations; ++i) {
                        std::vector<double> next(want.size());
                        auto at = [&](std::int64_t y, std::int64_t x) {
                            bool zero = false;
                            const std::int64_t cy = boundary_index(y, h, b, zero), cx = boundary_index(x, w, b, zero);
                            return zero ? 0.0 : want[static_cast<std::size_t>(cy * w + cx)];
                        };
                        for (std::int64_t y = 0; y < h; ++y)
                            for (std::int64_t x = 0; x < w; ++x) {
                                const double c = at(y, x);
                                next[static_cast<std::size_t>(y * w + x)] =
                                    c + 0.2 * (host_f(c, at(y - 1, x)) + host_f(c, at(y + 1, x)) + 0.5 * host_f(c, at(y, x - 1)) +
                                               host_f(c, at(y, x + 1)));
                            }
                        want = next;
                    }
                    auto in = rt().stream<float>({h, w}, v);
                    stencil(in, in, kIterations, float4{0.2f, 0.0f, 0.0f, 0.0f});
                    const std::vector<float> got = in.download();
                    for (std::size_t i = 0; i < got.size(); ++i)
                        ASSERT_TRUE(close(got[i], want[i], 1e-5, 1e-5)) << i << ": " << got[i] << " against " << want[i];
                }
            }
        }
    // 3D: the six faces' fluxes, and their terms by fma over edges, clamped, against the host.
    const Stencil<float> heat("segment_test_fluxes_3d", 1, [&f](const Neighbourhood<float>& n, const Expr<float4>& p) -> Expr<float> {
        return n(0, 0, 0) + p.x() * (n.flux(-1, 0, 0, f) + n.flux(1, 0, 0, f) + n.flux(0, -1, 0, f) + n.flux(0, 1, 0, f) +
                                     n.flux(0, 0, -1, f) + n.flux(0, 0, 1, f));
    }, Boundary::Clamp, {.dimensions = 3});
    const Stencil<float> heat_edges("segment_test_edges_3d", 1, [&g](const Neighbourhood<float>& n, const Expr<float4>& p) -> Expr<float> {
        Float sum = 0.0f;
        for (auto [dz, dy, dx] : {std::tuple{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}}) {
            auto e = n.edge(dz, dy, dx, g);
            sum = fma(e.weight, e.difference, sum);
        }
        return fma(p.x(), sum, n(0, 0, 0));
    }, Boundary::Clamp, {.dimensions = 3});
    const std::int64_t d = 6, h = 11, w = 37;
    const std::vector<float> v = random_floats(static_cast<std::size_t>(d * h * w), -2.0f, 2.0f);
    auto at = [&](std::int64_t z, std::int64_t y, std::int64_t x) {
        return static_cast<double>(v[static_cast<std::size_t>((std::clamp<std::int64_t>(z, 0, d - 1) * h + std::clamp<std::int64_t>(y, 0, h - 1)) * w +
                                                             std::clamp<std::int64_t>(x, 0, w - 1))]);
    };
    for (const Stencil<float>* stencil : {&heat, &heat_edges}) {
        SCOPED_TRACE(stencil->name());
        auto in = rt().stream<float>({d, h, w}, v), out = rt().stream<float>({d, h, w});
        (*stencil)(in, out, 1, float4{0.1f, 0.0f, 0.0f, 0.0f});
        const std::vector<float> got = out.download();
        for (std::int64_t z = 0; z < d; ++z)
            for (std::int64_t y = 0; y < h; ++y)
                for (std::int64_t x = 0; x < w; ++x) {
                    const double c = at(z, y, x);
                    const double want = c + 0.1 * (host_f(c, at(z - 1, y, x)) + host_f(c, at(z + 1, y, x)) + host_f(c, at(z, y - 1, x)) +
                                                   host_f(c, at(z, y + 1, x)) + host_f(c, at(z, y, x - 1)) + host_f(c, at(z, y, x + 1)));
                    const float e = got[static_cast<std::size_t>((z * h + y) * w + x)];
                    ASSERT_TRUE(close(e, want, 1e-5, 1e-5)) << z << ", " << y << ", " << x << ": " << e << " against " << want;
                }
    }
    // Beyond the radius, and a 3D flux or edge in a 2D stencil: errors when the body is traced.
    EXPECT_THROW(Stencil<float>("segment_test_flux_reach", 1,
                                [&f](const Neighbourhood<float>& n, const Expr<float4>&) { return n.flux(2, 0, f); }),
                 Error);
    EXPECT_THROW(Stencil<float>("segment_test_flux_3d_in_2d", 1,
                                [&f](const Neighbourhood<float>& n, const Expr<float4>&) { return n.flux(0, 1, 0, f); }),
                 Error);
    EXPECT_THROW(Stencil<float>("segment_test_edge_reach", 1,
                                [&g](const Neighbourhood<float>& n, const Expr<float4>&) { return n.edge(0, -2, g).weight; }),
                 Error);
    EXPECT_THROW(Stencil<float>("segment_test_edge_3d_in_2d", 1,
                                [&g](const Neighbourhood<float>& n, const Expr<float4>&) { return n.edge(1, 0, 0, g).difference; }),
                 Error);
}

// The stencil's tuning knobs, set to what they do not take: a rill::Error that
// names the knob and what to give, before anything runs.
TEST_P(Segment, StencilKnobsOutOfRangeThrow) {
    const Stencil<float> stencil("segment_test_knobs", 1, [](const Neighbourhood<float>& n, const Expr<float4>&) { return n(0, 1); },
                                 Boundary::Clamp, {.steps_per_pass = 2});
    auto in = rt().stream<float>({40, 40}), out = rt().stream<float>({40, 40});
    for (auto [knob, value] : std::vector<std::pair<const char*, const char*>>{
             {"RILL_STENCIL_STEPS", "0"}, {"RILL_STENCIL_STEPS", "many"}, {"RILL_STENCIL_BLOCK_ROWS", "3"},
             {"RILL_STENCIL_BLOCK_COLUMNS", "4"}}) {
        SCOPED_TRACE(std::string(knob) + "=" + value);
        ScopedEnv set(knob, value);
        try {
            stencil(in, out, 2);
            ADD_FAILURE() << "no error";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(knob), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("give"), std::string::npos) << e.what();
        }
    }
}

TEST_P(Segment, StencilsChooseTheirStepsPerPass) {
    const Stencil<float> one("segment_test_steps", 1, [](const Neighbourhood<float>& n, const Expr<float4>&) { return n(0, 1); });
    const int steps = one.steps_per_pass(rt().info());
    EXPECT_GE(steps, 1);
    EXPECT_LE(steps, kDefaultStencilSteps);
    const Stencil<float4> wide("segment_test_steps4", 16, [](const Neighbourhood<float4>& n, const Expr<float4>&) { return n(16, 0); },
                               Boundary::Clamp, {.steps_per_pass = 8});
    // The tile with its halo, and the odd steps' buffer one radius smaller on each edge.
    const std::int64_t side = 32 + 2 * 16 * wide.steps_per_pass(rt().info()), odd = side - 2 * 16;
    EXPECT_TRUE(wide.steps_per_pass(rt().info()) == 1 ||
                (side * side + odd * odd) * 16 <= std::int64_t(rt().info().limits.shared_memory_bytes))
        << "two tiles with their halos must fit in shared memory";
    EXPECT_THROW(Stencil<float>("segment_test_steps", 1, [](const Neighbourhood<float>& n, const Expr<float4>&) { return n(0, 0); },
                                Boundary::Clamp, {.steps_per_pass = -1}),
                 Error);
}

/// One step of the 3D test stencil below, in float64.
std::vector<double> host_step_3d(const std::vector<double>& in, std::int64_t d, std::int64_t h, std::int64_t w, Boundary b, double a) {
    std::vector<double> out(in.size());
    auto at = [&](std::int64_t z, std::int64_t y, std::int64_t x) {
        bool zero = false;
        const std::int64_t cz = boundary_index(z, d, b, zero), cy = boundary_index(y, h, b, zero), cx = boundary_index(x, w, b, zero);
        return zero ? 0.0 : in[(cz * h + cy) * w + cx];
    };
    for (std::int64_t z = 0; z < d; ++z)
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x)
                out[(z * h + y) * w + x] = a * at(z, y, x) + 0.25 * (at(z - 2, y + 1, x) + at(z + 1, y - 2, x + 2)) -
                                           0.125 * at(z + 2, y + 2, x - 1) + 0.0625 * at(z, y - 1, x) + 0.03125 * at(z - 1, y, x - 2);
    return out;
}

// 3D stencils: planes, rows and columns of 1, odd sizes, and 11 x 20 x 70, which
// has an interior tile (32 x 8 x 4 elements, every neighbour within radius 2 inside).
TEST_P(Segment, Stencils3DAgainstTheHostWithEveryBoundary) {
    const std::vector<std::array<std::int64_t, 3>> shapes = {{1, 1, 1}, {1, 5, 7}, {3, 1, 1}, {2, 3, 40}, {5, 9, 33}, {11, 20, 70}};
    for (Boundary b : {Boundary::Clamp, Boundary::Mirror, Boundary::Zero}) {
        const Stencil<float> stencil("segment_test_stencil_3d", 2, [](const Neighbourhood<float>& n, const Expr<float4>& p) -> Expr<float> {
            return p.x() * n(0, 0, 0) + 0.25f * (n(-2, 1, 0) + n(1, -2, 2)) - 0.125f * n(2, 2, -1) + 0.0625f * n(-1, 0) +
                   0.03125f * n(-1, 0, -2);
        }, b, {.dimensions = 3});
        for (auto [d, h, w] : shapes)
            for (int iterations : {0, 1, 3}) {
                SCOPED_TRACE("boundary " + std::to_string(int(b)) + ", " + std::to_string(d) + " x " + std::to_string(h) + " x " +
                             std::to_string(w) + ", " + std::to_string(iterations) + " iterations");
                const std::vector<float> f = random_floats(static_cast<std::size_t>(d * h * w), -1.0f, 1.0f);
                std::vector<double> want(f.begin(), f.end());
                for (int i = 0; i < iterations; ++i) want = host_step_3d(want, d, h, w, b, 0.5);
                auto in = rt().stream<float>({d, h, w}, f);
                auto out = rt().stream<float>({d, h, w});
                stencil(in, out, iterations, float4{0.5f, 0.0f, 0.0f, 0.0f});
                std::vector<float> got = out.download();
                for (std::size_t i = 0; i < got.size(); ++i) ASSERT_TRUE(close(got[i], want[i], 1e-6, 1e-6)) << i << ": " << got[i] << " against " << want[i];
                stencil(in, in, iterations, float4{0.5f, 0.0f, 0.0f, 0.0f});  // in place
                got = in.download();
                for (std::size_t i = 0; i < got.size(); ++i) ASSERT_TRUE(close(got[i], want[i], 1e-6, 1e-6)) << "in place, " << i;
            }
    }
}

TEST_P(Segment, StencilsOfTheWrongDimensionsThrow) {
    const Stencil<float> flat("segment_test_flat", 1, [](const Neighbourhood<float>& n, const Expr<float4>&) { return n(0, 1); });
    const Stencil<float> solid("segment_test_solid", 1, [](const Neighbourhood<float>& n, const Expr<float4>&) { return n(1, 0, 0); },
                               Boundary::Clamp, {.dimensions = 3});
    auto cube = rt().stream<float>({2, 3, 4}), square = rt().stream<float>({3, 4});
    EXPECT_EQ(error_message([&] { flat(cube, cube); }),
              "rill::Stencil 'segment_test_flat': the input has shape 2x3x4 but the stencil is 2D; give a 2D stream (rows x columns), "
              "or a Stencil of StencilOptions{.dimensions = 3}");
    EXPECT_EQ(error_message([&] { solid(square, square); }),
              "rill::Stencil 'segment_test_solid': the input has shape 3x4 but the stencil is 3D; give a 3D stream (planes x rows x "
              "columns), or a Stencil of StencilOptions{.dimensions = 2}");
    EXPECT_EQ(error_message([&] {
                  Stencil<float>("segment_test_planes", 1, [](const Neighbourhood<float>& n, const Expr<float4>&) { return n(1, 0, 0); });
              }),
              "rill::Stencil: the body reads n(1, 0, 0) of a 3D neighbourhood but the stencil is 2D; read n(dy, dx), or give the "
              "Stencil StencilOptions{.dimensions = 3}");
    EXPECT_EQ(error_message([&] {
                  Stencil<float>("segment_test_reach", 1, [](const Neighbourhood<float>& n, const Expr<float4>&) { return n(0, 2, 0); },
                                 Boundary::Clamp, {.dimensions = 3});
              }),
              "rill::Stencil: the body reads n(0, 2, 0) but the stencil's radius is 1; give the Stencil a radius of at least 2");
    EXPECT_EQ(error_message([&] {
                  Stencil<float>("segment_test_4d", 1, [](const Neighbourhood<float>& n, const Expr<float4>&) { return n(0, 0); },
                                 Boundary::Clamp, {.dimensions = 4});
              }),
              "rill::Stencil 'segment_test_4d': dimensions is 4; give 2 or 3");
}

/// The explicit Perona-Malik scheme of segment.h in float64, clamped edges.
std::vector<double> host_diffusion(std::vector<double> u, std::int64_t h, std::int64_t w, const seg::Diffusion& d) {
    const double k = d.contrast, dt = d.time_step;
    auto g = [&](double x) {
        const double s = (x / k) * (x / k);
        return d.conductance == seg::Conductance::Exponential ? std::exp(-s) : 1.0 / (1.0 + s);
    };
    std::vector<double> next(u.size());
    for (int it = 0; it < d.iterations; ++it) {
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x) {
                const double c = u[y * w + x];
                double sum = 0.0;
                for (auto [dy, dx] : {std::pair{-1, 0}, std::pair{1, 0}, std::pair{0, 1}, std::pair{0, -1}}) {
                    const std::int64_t yy = std::clamp<std::int64_t>(y + dy, 0, h - 1), xx = std::clamp<std::int64_t>(x + dx, 0, w - 1);
                    const double diff = u[yy * w + xx] - c;
                    sum += g(diff) * diff;
                }
                next[y * w + x] = c + dt * sum;
            }
        std::swap(u, next);
    }
    return u;
}

/// Pieces of constant brightness (a disc, a bar, the background) with noise:
/// what diffusion smooths inside the pieces and keeps at their edges.
std::vector<float> structured_image(std::int64_t h, std::int64_t w, float noise) {
    std::vector<float> f(static_cast<std::size_t>(h * w));
    std::normal_distribution<float> n(0.0f, noise);
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) {
            const double dy = y - 0.45 * h, dx = x - 0.4 * w, r = 0.3 * std::min(h, w) + 1.0;
            float v = 0.15f;
            if (dy * dy + dx * dx < r * r) v = 0.8f;
            if (x > 0.75 * w && y > 0.2 * h) v = 0.55f;
            f[y * w + x] = v + n(rng());
        }
    return f;
}

TEST_P(Segment, PeronaMalikAgainstFloat64) {
    for (seg::Conductance c : {seg::Conductance::Exponential, seg::Conductance::Rational})
        for (auto [h, w] : kShapes)
            for (bool structured : {false, true}) {
                SCOPED_TRACE(std::string(c == seg::Conductance::Exponential ? "exp" : "rational") + ", " + std::to_string(h) + " x " +
                             std::to_string(w) + (structured ? ", structured" : ", random"));
                const std::vector<float> f = structured ? structured_image(h, w, 0.03f) : random_floats(static_cast<std::size_t>(h * w), 0.0f, 1.0f);
                // Where gradients exceed about K the scheme diffuses backwards and
                // amplifies rounding (Perona-Malik is ill-posed there): a float32
                // run follows float64 to 1e-5 only where the flux is ~0 (edges far
                // above K, the structured images) or gradients stay below K (the
                // random images get K = 1).
                const seg::Diffusion d{.iterations = 100, .time_step = 0.2f, .contrast = structured ? 0.1f : 1.0f, .conductance = c};
                const std::vector<double> want = host_diffusion(std::vector<double>(f.begin(), f.end()), h, w, d);
                auto image = rt().stream<float>({h, w}, f);
                auto out = rt().stream<float>({h, w});
                seg::diffuse(image, out, d);
                const std::vector<float> got = out.download();
                double scale = 0.0;
                for (double v : want) scale = std::max(scale, std::abs(v));
                for (std::size_t i = 0; i < got.size(); ++i)
                    ASSERT_LE(std::abs(got[i] - want[i]), 1e-5 * scale) << i << ": " << got[i] << " against " << want[i];
            }
    // The ends of the contrast range, on images in those units (gradients
    // about K, so that the conductance is neither 0 nor 1).
    for (float k : {seg::kMinContrast, seg::kMaxContrast}) {
        SCOPED_TRACE("contrast " + std::to_string(k));
        const std::int64_t h = 21, w = 19;
        std::vector<float> f = random_floats(static_cast<std::size_t>(h * w), 0.0f, 3.0f);
        for (float& v : f) v *= k;
        const seg::Diffusion d{.iterations = 20, .time_step = 0.2f, .contrast = k};
        const std::vector<double> want = host_diffusion(std::vector<double>(f.begin(), f.end()), h, w, d);
        auto image = rt().stream<float>({h, w}, f);
        seg::diffuse(image, image, d);
        const std::vector<float> got = image.download();
        for (std::size_t i = 0; i < got.size(); ++i)
            ASSERT_LE(std::abs(got[i] - want[i]), 1e-5 * 3.0 * k) << i << ": " << got[i] << " against " << want[i];
    }
    // A constant image stays constant; a step's two sides keep their order.
    auto flat = rt().stream<float>({9, 13}, std::vector<float>(9 * 13, 0.375f));
    seg::diffuse(flat, flat, {.iterations = 50, .conductance = seg::Conductance::Rational});
    EXPECT_EQ(flat.download(), std::vector<float>(9 * 13, 0.375f));
}

/// The 4-connected pixels in [low, high] reached from the seeds, and the seeds.
std::vector<std::uint32_t> flood_fill(const std::vector<float>& f, std::int64_t h, std::int64_t w, const std::vector<int2>& seeds, float low,
                                      float high) {
    std::vector<std::uint32_t> m(f.size(), 0u);
    std::deque<std::int64_t> todo;
    for (const int2& s : seeds) {
        m[s.x * w + s.y] = 1u;
        todo.push_back(s.x * w + s.y);
    }
    while (!todo.empty()) {
        const std::int64_t i = todo.front(), y = i / w, x = i % w;
        todo.pop_front();
        for (auto [dy, dx] : {std::pair{-1, 0}, std::pair{1, 0}, std::pair{0, 1}, std::pair{0, -1}}) {
            const std::int64_t yy = y + dy, xx = x + dx, j = yy * w + xx;
            if (yy < 0 || yy >= h || xx < 0 || xx >= w || m[j] || f[j] < low || f[j] > high) continue;
            m[j] = 1u;
            todo.push_back(j);
        }
    }
    return m;
}

std::vector<int2> random_seeds(std::int64_t h, std::int64_t w, int count) {
    std::vector<int2> s;
    for (int i = 0; i < count; ++i) s.push_back(int2{int(rng()() % h), int(rng()() % w)});
    return s;
}

TEST_P(Segment, ThresholdGrowthIsAFloodFill) {
    auto shapes = kShapes;
    shapes.push_back({131, 200});
    for (auto [h, w] : shapes)
        for (float fraction : {0.45f, 0.6f, 0.9f}) {  // below, near and above the percolation threshold
            SCOPED_TRACE(std::to_string(h) + " x " + std::to_string(w) + ", fraction " + std::to_string(fraction));
            const std::vector<float> f = random_floats(static_cast<std::size_t>(h * w), 0.0f, 1.0f);
            const std::vector<int2> seeds = random_seeds(h, w, 1 + int(rng()() % 3));
            auto image = rt().stream<float>({h, w}, f);
            auto diffused = rt().stream<float>({h, w});
            auto mask = rt().stream<std::uint32_t>({h, w});
            const seg::GrowthStats s = seg::segment(image, seeds, diffused, mask, {.diffusion = {.iterations = 0}, .growth = {.low = 0.0f, .high = fraction}});
            EXPECT_TRUE(s.converged);
            ASSERT_EQ(mask.download(), flood_fill(f, h, w, seeds, 0.0f, fraction));
            EXPECT_EQ(diffused.download(), f) << "0 iterations of diffusion copy the image";
        }
}

TEST_P(Segment, GrowthAlongASpiralCrossesTilesManyTimes) {
    // A one-pixel path winding through 96 x 96 pixels: every tile is entered
    // and left many times, and the front is one pixel wide.
    const std::int64_t n = 96;
    std::vector<float> f(static_cast<std::size_t>(n * n), 0.0f);
    for (std::int64_t y = 0; y < n; y += 2)
        for (std::int64_t x = 0; x < n; ++x) f[y * n + x] = 1.0f;
    for (std::int64_t y = 1; y < n; y += 2) f[y * n + ((y / 2) % 2 ? 0 : n - 1)] = 1.0f;
    const std::vector<int2> seeds = {{0, 0}};
    auto image = rt().stream<float>({n, n}, f);
    auto mask = rt().stream<std::uint32_t>({n, n});
    auto seed_mask = std::vector<std::uint32_t>(f.size(), 0u);
    seed_mask[0] = 7u;  // any nonzero value seeds
    mask.upload(seed_mask);
    const seg::GrowthStats s = seg::grow(image, mask, {.low = 0.5f, .high = 1.5f});
    EXPECT_TRUE(s.converged);
    EXPECT_EQ(mask.download(), flood_fill(f, n, n, seeds, 0.5f, 1.5f));
    auto limited = rt().stream<std::uint32_t>({n, n}, seed_mask);
    const seg::GrowthStats part = seg::grow(image, limited, {.low = 0.5f, .high = 1.5f, .max_passes = 3});
    EXPECT_FALSE(part.converged);
    EXPECT_EQ(part.passes, 3);
}

TEST_P(Segment, GrowthWorksOnTheFrontOnly) {
    // A region of 20 x 20 pixels in a 512 x 512 image: the passes touch the
    // tiles around it, not the image's 1,024 tiles.
    const std::int64_t n = 512;
    std::vector<float> f(static_cast<std::size_t>(n * n), 0.0f);
    for (std::int64_t y = 300; y < 320; ++y)
        for (std::int64_t x = 100; x < 120; ++x) f[y * n + x] = 1.0f;
    auto image = rt().stream<float>({n, n}, f);
    auto diffused = rt().stream<float>({n, n});
    auto mask = rt().stream<std::uint32_t>({n, n});
    const seg::GrowthStats s = seg::segment(image, {{310, 110}}, diffused, mask, {.diffusion = {.iterations = 0}, .growth = {.low = 0.5f, .high = 2.0f}});
    EXPECT_TRUE(s.converged);
    EXPECT_LE(s.tiles_processed, 20);
    EXPECT_EQ(mask.download(), flood_fill(f, n, n, {{310, 110}}, 0.5f, 2.0f));
}

TEST_P(Segment, SegmentationMatchesTheFloat64Reference) {
    // Values kept away from the threshold, so that float32 rounding cannot move a pixel across it.
    for (auto [h, w] : {std::pair<std::int64_t, std::int64_t>{1, 50}, {50, 1}, {33, 47}, {96, 128}})
        for (seg::Conductance c : {seg::Conductance::Exponential, seg::Conductance::Rational}) {
            SCOPED_TRACE(std::to_string(h) + " x " + std::to_string(w));
            const std::vector<float> f = structured_image(h, w, 0.02f);
            seg::Options o{.diffusion = {.iterations = 100, .time_step = 0.2f, .contrast = 0.1f, .conductance = c}};
            const std::vector<double> smooth = host_diffusion(std::vector<double>(f.begin(), f.end()), h, w, o.diffusion);
            std::vector<float> smooth_f(smooth.begin(), smooth.end());
            // The threshold: the middle of the widest gap between diffused values in
            // (0.2, 0.7), which the rational conductance narrows by smoothing across edges.
            std::vector<double> sorted = smooth;
            std::sort(sorted.begin(), sorted.end());
            double gap = 0, low = 0;
            for (std::size_t i = 1; i < sorted.size(); ++i)
                if (sorted[i] > 0.2 && sorted[i - 1] < 0.7 && sorted[i] - sorted[i - 1] > gap) gap = sorted[i] - sorted[i - 1], low = 0.5 * (sorted[i] + sorted[i - 1]);
            ASSERT_GT(gap, 1e-3) << "no diffused value keeps away from a threshold";
            o.growth = {.low = float(low), .high = 1.0f};
            const std::vector<int2> seeds = {{int(0.45 * h), int(0.4 * w)}, {int(h - 1), int(w - 1)}};
            auto image = rt().stream<float>({h, w}, f);
            auto diffused = rt().stream<float>({h, w});
            auto mask = rt().stream<std::uint32_t>({h, w});
            seg::segment(image, seeds, diffused, mask, o);
            EXPECT_EQ(mask.download(), flood_fill(smooth_f, h, w, seeds, float(low), 1.0f));
        }
}

TEST_P(Segment, BadCallsThrowAndWriteNothing) {
    auto image = rt().stream<float>({4, 6}, random_floats(24, 0.0f, 1.0f));
    const std::vector<std::uint32_t> sentinel(24, 9u);
    auto mask = rt().stream<std::uint32_t>({4, 6}, sentinel);
    auto diffused = rt().stream<float>({4, 6});
    EXPECT_EQ(error_message([&] { seg::segment(image, {{4, 0}}, diffused, mask); }),
              "rill::segment::segment: seed 0 at (row 4, column 0) is outside the image of 4x6; give seeds with 0 <= row < 4 and 0 <= column < 6");
    EXPECT_EQ(error_message([&] { seg::segment(image, {{0, -1}}, diffused, mask); }),
              "rill::segment::segment: seed 0 at (row 0, column -1) is outside the image of 4x6; give seeds with 0 <= row < 4 and 0 <= column < 6");
    auto empty = rt().stream<float>({0, 6});
    EXPECT_EQ(error_message([&] { seg::diffuse(empty, empty); }),
              "rill::segment::diffuse: the image has 0 pixels (0x6); give an image of at least 1 x 1");
    EXPECT_EQ(error_message([&] { seg::diffuse(image, diffused, {.time_step = 0.3f}); }),
              "rill::segment::diffuse: diffusion.time_step is 0.300000; give a time step in (0, 0.25] (above 0.25 the explicit "
              "scheme on four neighbours is unstable)");
    for (auto [k, shown] : std::vector<std::pair<float, std::string>>{
             {0.0f, "0"}, {-1.0f, "-1"}, {1e-19f, "1e-19"}, {2e18f, "2e+18"}, {std::numeric_limits<float>::infinity(), "inf"},
             {std::numeric_limits<float>::quiet_NaN(), "nan"}})
        EXPECT_EQ(error_message([&] { seg::diffuse(image, diffused, {.contrast = k}); }),
                  "rill::segment::diffuse: diffusion.contrast is " + shown +
                      "; give a K from 1e-18 to 1e18 in the image's units (gradients well above K are kept as edges)");
    EXPECT_EQ(error_message([&] { seg::grow(image, mask, {.low = 0.6f, .high = 0.5f}); }),
              "rill::segment::grow: growth.low 0.600000 and growth.high 0.500000 give no range; give low <= high");
    auto wrong = rt().stream<std::uint32_t>({6, 4});
    EXPECT_EQ(error_message([&] { seg::grow(image, wrong, {}); }),
              "rill::segment::grow: the mask has shape 6x4 but the image 4x6; give the mask of the image's shape");
    auto big = rt().stream<std::uint32_t>({4, 8});
    EXPECT_EQ(error_message([&] { seg::grow(image, big.domain({0, 0}, {4, 6}), {}); }),
              "rill::segment::grow: the mask is a view (domain, stride, repeat or iterator); give a dense stream (copy the view first)");
    EXPECT_EQ(error_message([&] {
                  Stencil<float>("segment_test_radius", 1, [](const Neighbourhood<float>& n, const Expr<float4>&) { return n(2, 0); });
              }),
              "rill::Stencil: the body reads n(2, 0) but the stencil's radius is 1; give the Stencil a radius of at least 2");
    EXPECT_EQ(mask.download(), sentinel) << "a failed call wrote the mask";
}

RILL_INSTANTIATE_FOR_BACKENDS(Segment);

}  // namespace
}  // namespace rill::test
