// The particle engine against an O(n^2) host brute force (the pairs within
// the reach, exactly) and a float64 host engine (particles_reference.h) over
// ten steps; momentum in a closed box; the height and distance fields never
// crossed; emitters and lifetimes; rendering against a host projection;
// errors.
#include <rill/algorithms/particles.h>

#include <cmath>
#include <map>

#include "backend_fixture.h"
#include "particles_reference.h"

namespace rill::test {
namespace {

namespace ref = particles_reference;
using particles::Particle;

class Particles : public BackendTest {
protected:
    Stream<Particle> upload(const std::vector<Particle>& ps) {
        return rt().stream<Particle>({std::int64_t(ps.size())}, ps);
    }
};

/// A particle whose colour.x carries its id through the engine's reordering.
Particle make(float x, float y, float z, int id, float birth = 0, float life = 1e6f) {
    Particle p;
    p.position = {x, y, z};
    p.birth = birth;
    p.life = life;
    p.colour = {float(id), 0, 0, 1};
    return p;
}

std::vector<ref::Particle> to_reference(const std::vector<Particle>& ps) {
    std::vector<ref::Particle> out;
    for (const Particle& p : ps)
        out.push_back({{p.position.x, p.position.y, p.position.z}, {p.velocity.x, p.velocity.y, p.velocity.z}, p.birth, p.life,
                       int(p.colour.x)});
    return out;
}

/// Scattered clusters, a cloud around the box's corner (negative
/// coordinates, outside the box), points on cell boundaries, one tight
/// cluster in one cell, and particles not yet born or gone.
std::vector<Particle> scene(std::size_t n, float radius) {
    std::vector<Particle> ps;
    const float cell = 2 * radius;
    std::uniform_real_distribution<float> u(-1, 1);
    int packed = 0;
    for (std::size_t i = 0; ps.size() < n; ++i) {
        const int id = int(ps.size());
        const int kind = i % 8 == 2 && packed >= 40 ? 4 : int(i % 8);
        switch (kind) {
        case 0:  // on cell boundaries of the grid from -1
            ps.push_back(make(-1 + cell * float(int((u(rng()) + 1) * 20)), -1 + cell * float(int((u(rng()) + 1) * 20)),
                              -1 + cell * float(int((u(rng()) + 1) * 20)), id));
            break;
        case 1:  // outside the box, below its corner
            ps.push_back(make(-1.05f + 0.1f * u(rng()), -1.05f + 0.1f * u(rng()), -1.05f + 0.1f * u(rng()), id));
            break;
        case 2:  // one cell, packed (40 of them)
            ++packed;
            ps.push_back(make(0.3f + 0.4f * radius * u(rng()), 0.3f + 0.4f * radius * u(rng()), 0.3f + 0.4f * radius * u(rng()), id));
            break;
        case 3:  // not yet born, or gone
            ps.push_back(make(0.3f, 0.3f, 0.3f, id, i % 16 == 3 ? 5.0f : 0.0f, i % 16 == 3 ? 1.0f : 0.0f));
            break;
        default: {  // dense clusters
            const float cx = 0.5f * u(rng()), cy = 0.5f * u(rng()), cz = 0.5f * u(rng());
            for (int k = 0; k < 4 && ps.size() < n; ++k)
                ps.push_back(make(cx + 3 * radius * u(rng()), cy + 3 * radius * u(rng()), cz + 3 * radius * u(rng()), int(ps.size())));
        }
        }
    }
    return ps;
}

TEST_P(Particles, PairsWithinTheReachEqualABruteForce) {
    const float radius = 0.02f;
    for (std::size_t n : {1, 2, 3, 257, 5000}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        std::vector<Particle> host = scene(n, radius);
        for (particles::SortAlgorithm sort : {particles::SortAlgorithm::Radix, particles::SortAlgorithm::Bitonic}) {
            particles::Engine engine(upload(host), {.radius = radius, .sort = sort});
            const std::vector<int2> got = engine.pairs().download();
            const std::vector<Particle> now = engine.particles().download();
            ASSERT_EQ(now.size(), n);
            std::set<std::pair<int, int>> sure, ambiguous, found;
            ref::pairs_within(to_reference(now), 0, 2 * radius, 1e-5, sure, ambiguous);
            for (const int2& p : got) {
                ASSERT_LT(p.x, p.y);
                ASSERT_TRUE(found.insert({p.x, p.y}).second) << "pair (" << p.x << ", " << p.y << ") twice";
                EXPECT_TRUE(sure.count({p.x, p.y}) || ambiguous.count({p.x, p.y})) << "pair (" << p.x << ", " << p.y << ") is too far apart";
            }
            for (const auto& p : sure) EXPECT_TRUE(found.count(p)) << "pair (" << p.first << ", " << p.second << ") missed";
            if (n == 5000) {
                EXPECT_GT(sure.size(), 1000u);
            }
        }
    }
}

TEST_P(Particles, SixtyFourThousandPairsInOneRunEqualABruteForce) {
    // Large enough that every workgroup of the grid stages has many peers;
    // the brute force is O(n^2) on the host (about 2e9 distance tests).
    const float radius = 0.005f;  // 200^3 cells: a table of 64 MB, within lavapipe's largest stream
    static const std::vector<Particle> host = scene(65536, radius);
    static std::set<std::pair<int, int>> sure, ambiguous;
    particles::Engine engine(upload(host), {.radius = radius});
    const std::vector<int2> got = engine.pairs().download();
    const std::vector<Particle> now = engine.particles().download();
    // The engine's order is a permutation of the input: compare by id.
    if (sure.empty()) ref::pairs_within(to_reference(host), 0, 2 * radius, 1e-5, sure, ambiguous);
    std::set<std::pair<int, int>> found;
    for (const int2& p : got) {
        const int a = int(now[p.x].colour.x), b = int(now[p.y].colour.x);
        found.insert({std::min(a, b), std::max(a, b)});
    }
    EXPECT_EQ(found.size(), got.size()) << "a pair was reported twice";
    std::size_t missed = 0, extra = 0;
    for (const auto& p : sure) missed += !found.count(p);
    for (const auto& p : found) extra += !sure.count(p) && !ambiguous.count(p);
    EXPECT_EQ(missed, 0u);
    EXPECT_EQ(extra, 0u);
    EXPECT_GT(sure.size(), 5000u);
}

/// Steps the device engine and the float64 engine side by side and
/// compares every particle (by id) after each of ten steps.
void compare_ten_steps(Runtime& rt, const std::vector<Particle>& start, const particles::Options& o, const ref::Config& c, float dt) {
    particles::Engine engine(rt.stream<Particle>({std::int64_t(start.size())}, start), o);
    std::vector<ref::Particle> want = to_reference(start);
    double t = 0;
    for (int s = 0; s < 10; ++s) {
        engine.step(dt);
        ref::step(want, c, t, dt);
        t += double(dt);
        const std::vector<Particle> got = engine.particles().download();
        ASSERT_EQ(got.size(), want.size());
        double worst = 0;
        int worst_id = -1;
        for (const Particle& g : got) {
            const double before = worst;
            const ref::Particle& w = want.at(std::size_t(g.colour.x));
            const float gp[3] = {g.position.x, g.position.y, g.position.z}, gv[3] = {g.velocity.x, g.velocity.y, g.velocity.z};
            for (int k = 0; k < 3; ++k) {
                worst = std::max(worst, std::fabs(gp[k] - w.p[k]) / (1 + std::fabs(w.p[k])));
                worst = std::max(worst, std::fabs(gv[k] - w.v[k]) / (1 + std::fabs(w.v[k])));
            }
            if (worst > before) worst_id = int(g.colour.x);
        }
        ASSERT_LT(worst, 1e-5) << "step " << s << ", particle " << worst_id;
    }
}

TEST_P(Particles, TenStepsMatchAFloat64EngineWithContacts) {
    const float radius = 0.02f;
    std::vector<Particle> ps;
    std::uniform_real_distribution<float> u(-1, 1);
    // A heap on the floor, on a jittered lattice a little tighter than the
    // particles, so that walls, gravity and many contacts act. The springs
    // are soft enough that float positions (whose rounding moves a contact's
    // overlap by about 6e-8 here) keep each step's velocities within about
    // 1e-6 of float64's: a stiffer spring magnifies that rounding, in any
    // float engine, by stiffness * dt per contact per step.
    int id = 0;
    for (int i = 0; i < 20; ++i)
        for (int j = 0; j < 4; ++j)
            for (int k = 0; k < 20; ++k) {
                const float step = 1.9f * radius;
                Particle p = make(-0.4f + step * float(i) + 0.1f * radius * u(rng()), -0.98f + step * float(j) + 0.1f * radius * u(rng()),
                                  -0.4f + step * float(k) + 0.1f * radius * u(rng()), id++);
                p.velocity = {0.3f * u(rng()), 0.3f * u(rng()), 0.3f * u(rng())};
                ps.push_back(p);
            }
    particles::Options o{.radius = radius, .drag = 0.3f, .stiffness = 2e3f, .damping = 10};
    o.force = [](const Expr<float3>& p, const Expr<float3>&, const Expr<float>& t) {
        return Expr<float3>(Float3(-p.z(), 0.0f, p.x()) * (1.0f + t));
    };
    o.name = "particles_swirl";
    ref::Config c{.radius = radius, .drag = 0.3, .stiffness = 2e3, .damping = 10};
    c.force = [](const ref::V3& p, const ref::V3&, double t) { return ref::V3{-p[2] * (1 + t), 0, p[0] * (1 + t)}; };
    compare_ten_steps(rt(), ps, o, c, 2e-3f);
}

TEST_P(Particles, TenStepsMatchAFloat64EngineWithoutContacts) {
    std::vector<Particle> ps;
    std::uniform_real_distribution<float> u(-1, 1);
    for (int i = 0; i < 777; ++i) {
        Particle p = make(u(rng()), u(rng()), u(rng()), i, i % 5 == 0 ? 0.01f : 0.0f, i % 7 == 0 ? 0.005f : 1.0f);
        p.velocity = {u(rng()), 4 * u(rng()), u(rng())};
        ps.push_back(p);
    }
    compare_ten_steps(rt(), ps, {.radius = 0.01f, .response = particles::Response::None},
                      ref::Config{.radius = 0.01, .contacts = false}, 4e-3f);
}

TEST_P(Particles, MomentumIsConservedInAClosedBox) {
    std::vector<Particle> ps;
    std::uniform_real_distribution<float> u(-1, 1);
    for (int i = 0; i < 3000; ++i) {
        Particle p = make(0.2f * u(rng()), 0.2f * u(rng()), 0.2f * u(rng()), i);
        p.velocity = {0.5f * u(rng()), 0.5f * u(rng()), 0.5f * u(rng())};
        ps.push_back(p);
    }
    auto momentum = [](const std::vector<Particle>& q) {
        ref::V3 m{0, 0, 0};
        double size = 0;
        for (const Particle& p : q) {
            m = ref::add(m, {p.velocity.x, p.velocity.y, p.velocity.z});
            size += std::fabs(p.velocity.x) + std::fabs(p.velocity.y) + std::fabs(p.velocity.z);
        }
        return std::pair{m, size};
    };
    particles::Engine engine(upload(ps), {.radius = 0.01f, .gravity = {0, 0, 0}, .stiffness = 1e4f, .damping = 5});
    const auto [before, size] = momentum(ps);
    std::size_t contacts = 0;
    for (int s = 0; s < 20; ++s) {
        if (s == 0) contacts = engine.pairs().size();
        engine.step(1e-3f);
    }
    const auto [after, unused] = momentum(engine.particles().download());
    EXPECT_GT(contacts, 1000u) << "the test needs many contacts";
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(after[k], before[k], 1e-5 * size) << "axis " << k;
}

TEST_P(Particles, NoParticleEndsAStepBelowTheHeightFieldOrInsideTheDistanceField) {
    const int rows = 17, cols = 23;
    std::vector<float> heights(rows * cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) heights[r * cols + c] = -0.6f + 0.25f * std::sin(0.7f * c) * std::cos(0.5f * r);
    const int n = 21;  // a ball of radius 0.35 at (0, 0.2, 0), as distances on an n^3 grid
    std::vector<float> sdf(n * n * n);
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                const double x = -1 + 2.0 * i / (n - 1), y = -1 + 2.0 * j / (n - 1) - 0.2, z = -1 + 2.0 * k / (n - 1);
                sdf[(k * n + j) * n + i] = float(std::sqrt(x * x + y * y + z * z) - 0.35);
            }
    std::vector<Particle> ps;
    std::uniform_real_distribution<float> u(-1, 1);
    for (int i = 0; i < 2000; ++i) {
        Particle p = make(0.9f * u(rng()), 0.5f + 0.4f * u(rng()), 0.9f * u(rng()), i);
        p.velocity = {0, -4, 0};
        ps.push_back(p);
    }
    const float radius = 0.01f;
    particles::Engine engine(upload(ps), {.radius = radius});
    engine.set_height_field(rt().stream<float>({rows, cols}, heights));
    engine.set_distance_field(rt().stream<float>({n, n, n}, sdf));
    const ref::V3 lo{-1, -1, -1}, hi{1, 1, 1};
    int on_field = 0, on_ball = 0;
    for (int s = 0; s < 50; ++s) {
        engine.step(5e-3f);
        for (const Particle& p : engine.particles().download()) {
            const ref::V3 q{p.position.x, p.position.y, p.position.z};
            const double h = ref::height_at(heights, rows, cols, lo, hi, q[0], q[2]);
            ASSERT_GE(q[1], h + radius - 1e-5) << "step " << s << ", particle " << p.colour.x << " below the height field";
            const double d = ref::distance_at(sdf, n, n, n, lo, hi, q);
            ASSERT_GE(d, -1e-5) << "step " << s << ", particle " << p.colour.x << " inside the distance field";
            on_ball += d < 2 * radius;
            if (s == 49) on_field += q[1] < h + 2 * radius;
        }
    }
    EXPECT_GT(on_field, 100) << "particles should have reached the height field";
    EXPECT_GT(on_ball, 100) << "particles should have touched the ball";
}

TEST_P(Particles, EmittersFillFreeSlotsAndParticlesDieOnTime) {
    particles::Engine engine(rt(), 100, {.radius = 0.01f, .gravity = {0, 0, 0}, .response = particles::Response::None});
    engine.add_emitter({.position = {0.5f, 0, 0}, .position_jitter = 0.1f, .velocity = {0, 0, 0}, .rate = 1280, .life = 4.5f / 256,
                        .colour = {0, 1, 0, 1}});
    const float dt = 1.0f / 256;  // 5 particles per step, each living 5 steps
    for (int s = 1; s <= 30; ++s) {
        engine.step(dt);
        const std::vector<Particle> ps = engine.particles().download();
        const float t = float(engine.time());
        int live = 0;
        for (const Particle& p : ps)
            if (p.birth <= t && t < p.birth + p.life) {
                ++live;
                EXPECT_NEAR(p.position.x, 0.5f, 0.1f + 1e-6f);
                EXPECT_NEAR(p.position.y, 0.0f, 0.1f + 1e-6f);
                EXPECT_EQ(p.colour.y, 1.0f);
            }
        EXPECT_EQ(live, std::min(5 * s, 25)) << "step " << s;
    }
    // Emission among live particles places no particle inside one of them.
    std::vector<Particle> lattice;
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j)
            for (int k = 0; k < 8; ++k) lattice.push_back(make(-0.2f + 0.05f * float(i), -0.2f + 0.05f * float(j), -0.2f + 0.05f * float(k), 0));
    lattice.resize(lattice.size() + 200, make(0, 0, 0, 1, 0, 0));  // free slots
    particles::Engine among(upload(lattice), {.radius = 0.01f, .gravity = {0, 0, 0}, .response = particles::Response::None});
    among.add_emitter({.position_jitter = 0.2f, .rate = 100000, .life = 1, .colour = {0, 0, 1, 1}});
    among.step(1e-3f);
    int born = 0;
    for (const Particle& p : among.particles().download()) {
        if (p.colour.z != 1) continue;
        ++born;
        for (const Particle& q : lattice) {
            if (q.life == 0) continue;
            const float dx = p.position.x - q.position.x, dy = p.position.y - q.position.y, dz = p.position.z - q.position.z;
            EXPECT_GE(dx * dx + dy * dy + dz * dz, 0.02f * 0.02f * 0.999f) << "an emitted particle inside a live one";
        }
    }
    EXPECT_GT(born, 50);
    // More emitted than fit: the slots fill up and nothing else breaks.
    particles::Engine full(rt(), 64, {.radius = 0.01f, .response = particles::Response::None});
    full.add_emitter({.rate = 1e6f, .life = 10});
    full.step(1e-3f);
    full.step(1e-3f);
    int live = 0;
    for (const Particle& p : full.particles().download()) live += p.life == 10;
    EXPECT_EQ(live, 64);
}

/// The host's projection of the renderer's pinhole camera, in double.
struct HostCamera {
    ref::V3 eye, forward, right, up;
    double focal;
    int width, height;
    HostCamera(const particles::Camera& c, int w, int h) : eye{c.eye.x, c.eye.y, c.eye.z}, width(w), height(h) {
        forward = ref::sub({c.target.x, c.target.y, c.target.z}, eye);
        forward = ref::mul(forward, 1 / std::sqrt(ref::dot(forward, forward)));
        const ref::V3 u{c.up.x, c.up.y, c.up.z};
        right = {forward[1] * u[2] - forward[2] * u[1], forward[2] * u[0] - forward[0] * u[2], forward[0] * u[1] - forward[1] * u[0]};
        right = ref::mul(right, 1 / std::sqrt(ref::dot(right, right)));
        up = {right[1] * forward[2] - right[2] * forward[1], right[2] * forward[0] - right[0] * forward[2],
              right[0] * forward[1] - right[1] * forward[0]};
        focal = 0.5 * h / std::tan(c.fov_y_degrees * 3.14159265358979 / 360);
    }
    /// Where particle p's disc falls on pixel (x, y): its distance along the
    /// view z (0 when behind the eye), and (dx, dy) in the disc (d2 <= 1 inside).
    struct Place {
        double z, dx, dy, d2;
    };
    Place place(const Particle& p, double radius, int x, int y) const {
        const ref::V3 q = ref::sub({p.position.x, p.position.y, p.position.z}, eye);
        const double z = ref::dot(q, forward);
        if (z <= radius * 1.01) return {0, 0, 0, 1e30};
        const double sx = width / 2.0 + focal * ref::dot(q, right) / z, sy = height / 2.0 - focal * ref::dot(q, up) / z;
        const double pr = std::clamp(focal * radius / z, 0.5, 48.0);
        const double dx = (x + 0.5 - sx) / pr, dy = (y + 0.5 - sy) / pr;
        return {z, dx, dy, dx * dx + dy * dy};
    }
};

/// The renderer's shading of a sphere at (dx, dy) of its disc, in double.
ref::V3 host_shade(const Particle& p, double dx, double dy) {
    const double bulge = std::sqrt(std::max(1 - (dx * dx + dy * dy), 0.0));
    const double light = std::max(-0.45 * dx - 0.6 * dy + 0.66 * bulge, 0.0);
    return ref::mul({p.colour.x, p.colour.y, p.colour.z}, 0.18 + 0.82 * light);
}

TEST_P(Particles, RenderingCoversThePixelsOfEveryVisibleParticle) {
    const int w = 96, h = 64;
    std::vector<Particle> ps;
    std::uniform_real_distribution<float> u(-1, 1);
    for (int i = 0; i < 60; ++i) {
        Particle p = make(0.8f * u(rng()), 0.5f * u(rng()), 0.8f * u(rng()), i);
        p.colour = {0.2f + 0.8f * (u(rng()) + 1) / 2, 0.5f, 0.9f, 1};
        ps.push_back(p);
    }
    ps.push_back(make(0, 0, 6, 60));  // behind the eye
    const float radius = 0.05f;
    particles::Engine engine(upload(ps), {.radius = radius});
    const particles::Camera cam{.eye = {0, 0.5f, 3}, .target = {0, 0, 0}, .up = {0, 1, 0}, .fov_y_degrees = 50};
    const HostCamera host(cam, w, h);
    Stream<float4> image = rt().stream<float4>({h, w});
    engine.render(cam, image, {.background = {0, 0, 0, 1}});
    const std::vector<float4> got = image.download();
    // Which pixels some particle covers (pixels within 1% of a disc's edge may go either way).
    int covered = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            bool sure = false, maybe = false;
            for (const Particle& p : ps) {
                const double d2 = host.place(p, radius, x, y).d2;
                sure |= d2 < 0.99;
                maybe |= d2 < 1.01;
            }
            const float4 c = got[std::size_t(y) * w + x];
            const bool lit = c.x != 0 || c.y != 0 || c.z != 0;
            covered += sure;
            if (sure) { EXPECT_TRUE(lit) << "pixel (" << x << ", " << y << ") should show a particle"; }
            if (!maybe) { EXPECT_FALSE(lit) << "pixel (" << x << ", " << y << ") shows nothing here"; }
            if (lit) { EXPECT_NEAR(c.y / c.z, 0.5f / 0.9f, 1e-3) << "pixel (" << x << ", " << y << ")'s colour is a particle's, shaded"; }
        }
    EXPECT_GT(covered, 200);
}

TEST_P(Particles, TranslucentRenderingBlendsFrontToBack) {
    // Overlapping semi-transparent particles of random colours and opacities
    // (one behind the eye, one not yet born, one gone), each pixel against
    // the host's compositing of the particles covering it, sorted by their
    // centres' distance along the view, front to back over the background.
    // Pixels near a disc's edge or with two particles at nearly one distance
    // may go either way and are not compared.
    const int w = 80, h = 56;
    const float radius = 0.12f;
    std::vector<Particle> ps;
    std::uniform_real_distribution<float> u(-1, 1);
    for (int i = 0; i < 90; ++i) {
        Particle p = make(0.6f * u(rng()), 0.4f * u(rng()), 0.6f * u(rng()), i);
        p.colour = {(u(rng()) + 1) / 2, (u(rng()) + 1) / 2, (u(rng()) + 1) / 2, 0.15f + 0.4f * (u(rng()) + 1)};
        ps.push_back(p);
    }
    ps.push_back(make(0, 0, 6, 90));           // behind the eye
    ps.push_back(make(0, 0, 0, 91, 50, 1));    // not born yet
    ps.push_back(make(0.1f, 0, 0, 92, 0, 0));  // a free slot (life 0)
    for (int i = 90; i < 93; ++i) ps[i].colour = {1, 1, 1, 1};
    particles::Engine engine(upload(ps), {.radius = radius, .response = particles::Response::None});
    const particles::Camera cam{.eye = {0.2f, 0.6f, 2.5f}, .target = {0, 0, 0}, .up = {0, 1, 0}, .fov_y_degrees = 55};
    const HostCamera host(cam, w, h);
    const ref::V3 background{0.1, 0.2, 0.3};
    Stream<float4> image = rt().stream<float4>({h, w});
    engine.render(cam, image, {.background = {0.1f, 0.2f, 0.3f, 0}, .translucent = true});
    const std::vector<float4> got = image.download();
    int compared = 0, layered = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            std::vector<std::pair<double, int>> covering;  // (z, particle)
            bool edge = false;
            for (int i = 0; i < 90; ++i) {
                const HostCamera::Place at = host.place(ps[i], radius, x, y);
                edge |= at.d2 > 0.98 && at.d2 < 1.02;
                if (at.d2 <= 1) covering.push_back({at.z, i});
            }
            std::sort(covering.begin(), covering.end());
            for (std::size_t k = 1; k < covering.size(); ++k) edge |= covering[k].first - covering[k - 1].first < 1e-5;
            if (edge) continue;
            ref::V3 colour{0, 0, 0};
            double through = 1;
            for (const auto& [z, i] : covering) {
                const HostCamera::Place at = host.place(ps[i], radius, x, y);
                const double alpha = ps[i].colour.w;
                colour = ref::add(colour, ref::mul(host_shade(ps[i], at.dx, at.dy), through * alpha));
                through *= 1 - alpha;
            }
            colour = ref::add(colour, ref::mul(background, through));
            const float4 c = got[std::size_t(y) * w + x];
            ASSERT_NEAR(c.x, colour[0], 1e-4) << "pixel (" << x << ", " << y << "), " << covering.size() << " particles";
            ASSERT_NEAR(c.y, colour[1], 1e-4) << "pixel (" << x << ", " << y << ")";
            ASSERT_NEAR(c.z, colour[2], 1e-4) << "pixel (" << x << ", " << y << ")";
            ASSERT_NEAR(c.w, 1 - through, 1e-4) << "pixel (" << x << ", " << y << ")";
            ++compared;
            layered += covering.size() >= 3;
        }
    EXPECT_GT(compared, w * h / 2);
    EXPECT_GT(layered, 100) << "too few pixels with three or more particles to test the order";
    // Nothing on screen: the background everywhere.
    const particles::Camera away{.eye = {0.7f, 0, 0}, .target = {5, 0, 0}, .up = {0, 1, 0}};
    engine.render(away, image, {.background = {0.1f, 0.2f, 0.3f, 1}, .translucent = true});
    for (const float4& c : image.download()) ASSERT_EQ(c, (float4{0.1f, 0.2f, 0.3f, 1}));
}

TEST_P(Particles, BadInputIsAClearError) {
    std::vector<Particle> one{make(0, 0, 0, 0)};
    EXPECT_EQ(error_message([&] { particles::Engine(rt(), 0); }),
              "rill::particles::Engine: capacity is 0; give at least 1 particle slot");
    EXPECT_EQ(error_message([&] { particles::Engine(rt().stream<Particle>({0})); }),
              "rill::particles::Engine: the particle stream is empty; give at least one particle (free slots have life 0)");
    EXPECT_EQ(error_message([&] { particles::Engine(upload(one), {.radius = 0}); }),
              "rill::particles::Engine: Options::radius is 0; give a positive radius (the grid's cells are twice the radius wide)");
    EXPECT_NE(error_message([&] { particles::Engine(upload(one), {.radius = std::nanf("")}); }).find("Options::radius is nan"),
              std::string::npos);
    EXPECT_NE(error_message([&] { particles::Engine(upload(one), {.box = {{0, 0, 0}, {1, -1, 1}}}); }).find("lo < hi on every axis"),
              std::string::npos);
    EXPECT_NE(error_message([&] { particles::Engine(upload(one), {.radius = 1e-5f}); }).find("more than 2^27"), std::string::npos);
    EXPECT_NE(error_message([&] { particles::Engine(upload(one), {.restitution = 2}); }).find("give 0 (no bounce) to 1"),
              std::string::npos);
    // A grid whose cell table (8 bytes a cell) outgrows the device's largest stream.
    const std::uint64_t limit = rt().info().limits.max_buffer_bytes;
    if (limit > 0 && limit < (std::uint64_t{1} << 30)) {
        const float radius = 1.0f / std::cbrt(float(limit / 8) * 2.0f);  // twice the cells that fit
        EXPECT_NE(error_message([&] { particles::Engine(upload(one), {.radius = radius}); }).find("more than the largest stream of this device"),
                  std::string::npos);
    }
    particles::Engine engine(upload(one));
    EXPECT_EQ(error_message([&] { engine.set_height_field(rt().stream<float>({2, 2, 2})); }),
              "rill::particles::Engine::set_height_field: the field has rank 3; give a 2D stream {rows, columns} of heights (rows "
              "along the box's z, columns along its x)");
    EXPECT_EQ(error_message([&] { engine.set_distance_field(rt().stream<float>({4, 4})); }),
              "rill::particles::Engine::set_distance_field: the field has rank 2; give a 3D stream {nz, ny, nx} of signed distances "
              "over the box (negative inside the solid)");
    EXPECT_EQ(error_message([&] { engine.step(0); }),
              "rill::particles::Engine::step: dt is 0; give a positive, finite time step in seconds");
    EXPECT_NE(error_message([&] { engine.step(std::nanf("")); }).find("dt is nan"), std::string::npos);
    EXPECT_NE(error_message([&] { engine.add_emitter({.rate = -1}); }).find("a rate >= 0"), std::string::npos);
    EXPECT_NE(error_message([&] { engine.render({}, rt().stream<float4>({4})); }).find("the image has rank 1"), std::string::npos);
    EXPECT_NE(error_message([&] { engine.render({.eye = {0, 0, 0}, .target = {0, 0, 0}}, rt().stream<float4>({4, 4})); })
                  .find("give an eye apart from the target"),
              std::string::npos);
}

TEST_P(Particles, ANonFiniteForceIsReportedWithTheParticle) {
    std::vector<Particle> ps;
    for (int i = 0; i < 40; ++i) ps.push_back(make(-0.5f + 0.025f * float(i), 0, 0, i));
    particles::Options o{.radius = 0.005f, .response = particles::Response::None};
    o.force = [](const Expr<float3>& p, const Expr<float3>&, const Expr<float>&) {
        return Expr<float3>(Float3(0.0f, 1.0f / abs(p.x()), 0.0f));  // infinite at x = 0
    };
    o.name = "particles_bad_force";
    particles::Engine engine(upload(ps), o);
    engine.step(1e-3f);
    const std::string e = error_message([&] { engine.check(); });
    EXPECT_NE(e.find("rill::particles::Engine::step: the particle at place "), std::string::npos) << e;
    EXPECT_NE(e.find("of step 0 got a non-finite state (position (0, "), std::string::npos) << e;
    EXPECT_NE(e.find("inf, 0)"), std::string::npos) << e;
    EXPECT_NE(e.find("; 1 such particles); Options::force gave a non-finite acceleration"), std::string::npos) << e;
    EXPECT_EQ(error_message([&] { engine.check(); }), kNoError) << "reported once";
    // The particle is removed; the others go on.
    int live = 0;
    for (const Particle& p : engine.particles().download()) live += p.life > 0;
    EXPECT_EQ(live, 39);
}

RILL_INSTANTIATE_FOR_BACKENDS(Particles);

}  // namespace
}  // namespace rill::test
