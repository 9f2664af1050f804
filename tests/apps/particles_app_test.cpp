// rill-particles' scenes on every backend: each runs a few frames with its
// particles inside the box, above its height field and out of its bowl, and
// renders a picture with particles in it; the points drawn through OpenGL
// are the camera's projection; an unknown scene is an error.
#include <cmath>
#include <algorithm>
#include "../backend_fixture.h"
#include "particles_app.h"

namespace rill::test {
namespace {

class ParticlesApp : public BackendTest {};

TEST_P(ParticlesApp, EverySceneStepsAndRenders) {
    for (const std::string& name : particles_app::scene_names()) {
        SCOPED_TRACE(name);
        particles_app::Scene s = particles_app::make_scene(rt(), name, 3000);
        const float dt = 1.0f / (60.0f * static_cast<float>(s.substeps));
        for (int f = 0; f < 6; ++f)
            for (int k = 0; k < s.substeps; ++k) s.engine.step(dt);
        const particles::Options& o = s.engine.options();
        const float t = static_cast<float>(s.engine.time());
        int live = 0;
        for (const particles::Particle& p : s.engine.particles().download()) {
            if (!(p.birth <= t && t < p.birth + p.life)) continue;
            ++live;
            EXPECT_GE(p.position.y, o.box.lo.y + o.radius * 0.999f);
            EXPECT_LE(p.position.y, o.box.hi.y - o.radius * 0.999f);
            EXPECT_LE(std::fabs(p.position.x), o.box.hi.x - o.radius * 0.999f);
        }
        EXPECT_GT(live, 50);
        Stream<float4> frame = rt().stream<float4>({48, 64});
        s.engine.render(s.camera, frame, s.render);
        const app_images::Image img = particles_app::to_image(frame);
        int lit = 0;
        for (int i = 0; i < 48 * 64; ++i) lit += img.pixels[i] > 0.3f || img.pixels[2 * 48 * 64 + i] > 0.3f;
        EXPECT_GT(lit, 20) << "the picture should show particles";
    }
}

/// The host's projection of particle p through the scene's camera for a
/// w x h picture, in double: (x, y) in normalized device coordinates and
/// the distance along the view z.
struct HostPoint {
    double x, y, z;
};
HostPoint host_point(const particles::Camera& c, const particles::Particle& p, int w, int h) {
    const double f[3] = {c.target.x - c.eye.x, c.target.y - c.eye.y, c.target.z - c.eye.z};
    const double fl = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    const double fw[3] = {f[0] / fl, f[1] / fl, f[2] / fl};
    double r[3] = {fw[1] * c.up.z - fw[2] * c.up.y, fw[2] * c.up.x - fw[0] * c.up.z, fw[0] * c.up.y - fw[1] * c.up.x};
    const double rl = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    for (double& x : r) x /= rl;
    const double u[3] = {r[1] * fw[2] - r[2] * fw[1], r[2] * fw[0] - r[0] * fw[2], r[0] * fw[1] - r[1] * fw[0]};
    const double focal = 1 / std::tan(c.fov_y_degrees * 3.14159265358979 / 360);
    const double q[3] = {p.position.x - c.eye.x, p.position.y - c.eye.y, p.position.z - c.eye.z};
    const double z = q[0] * fw[0] + q[1] * fw[1] + q[2] * fw[2];
    return {focal * double(h) / w * (q[0] * r[0] + q[1] * r[1] + q[2] * r[2]) / z, focal * (q[0] * u[0] + q[1] * u[1] + q[2] * u[2]) / z, z};
}

TEST_P(ParticlesApp, ScreenPointsAreTheCamerasProjection) {
    particles_app::Scene s = particles_app::make_scene(rt(), "dam", 500);
    const int w = 320, h = 200;
    const particles_app::ScreenPoints points = particles_app::screen_points(rt(), s, w, h);
    const std::vector<float2> got = points.ndc.download();
    const std::vector<float4> colours = points.colours.download();
    const std::vector<particles::Particle> ps = s.engine.particles().download();
    ASSERT_EQ(got.size(), ps.size());
    for (std::size_t i = 0; i < ps.size(); ++i) {
        const HostPoint want = host_point(s.camera, ps[i], w, h);
        ASSERT_NEAR(got[i].x, want.x, 1e-4) << "particle " << i;
        ASSERT_NEAR(got[i].y, want.y, 1e-4) << "particle " << i;
        ASSERT_EQ(colours[i], ps[i].colour) << "particle " << i;
    }
}

TEST_P(ParticlesApp, TranslucentScenesGivePointsNearestFirst) {
    // E3 after some steps (particles born, some gone): every live particle in
    // front of the eye once, nearest first, with its place and colour; the
    // rest last, off screen.
    particles_app::Scene s = particles_app::make_scene(rt(), "e3", 700);
    ASSERT_TRUE(s.render.translucent);
    for (int k = 0; k < 30; ++k) s.engine.step(1.0f / 60);
    const int w = 200, h = 150;
    const particles_app::ScreenPoints points = particles_app::screen_points(rt(), s, w, h);
    const std::vector<float2> ndc = points.ndc.download();
    const std::vector<float4> colours = points.colours.download();
    const std::vector<float> depths = points.depths.download();
    const std::vector<particles::Particle> ps = s.engine.particles().download();
    const float time = static_cast<float>(s.engine.time());
    std::vector<std::pair<double, std::size_t>> shown;
    for (std::size_t i = 0; i < ps.size(); ++i) {
        const HostPoint at = host_point(s.camera, ps[i], w, h);
        if (ps[i].birth <= time && time < ps[i].birth + ps[i].life && at.z > 1e-6) shown.push_back({at.z, i});
    }
    std::sort(shown.begin(), shown.end());
    ASSERT_GT(shown.size(), 100u);
    for (std::size_t k = 0; k < ps.size(); ++k) {
        if (k >= shown.size()) {
            ASSERT_EQ(ndc[k], (float2{4, 4})) << "point " << k << " is no live particle's";
            ASSERT_TRUE(std::isinf(depths[k]));
            continue;
        }
        if (k > 0) {
            ASSERT_LE(depths[k - 1], depths[k]) << "point " << k;
        }
        // Nearly equal distances may come in either order: match by distance.
        const HostPoint want = host_point(s.camera, ps[shown[k].second], w, h);
        ASSERT_NEAR(depths[k], want.z, 1e-5 * std::max(1.0, want.z)) << "point " << k;
        bool found = false;
        for (std::size_t j = k > 3 ? k - 3 : 0; j < std::min(shown.size(), k + 4) && !found; ++j) {
            const particles::Particle& p = ps[shown[j].second];
            const HostPoint at = host_point(s.camera, p, w, h);
            found = std::abs(ndc[k].x - at.x) < 1e-4 && std::abs(ndc[k].y - at.y) < 1e-4 && colours[k] == p.colour;
        }
        ASSERT_TRUE(found) << "point " << k << " is not the particle at its distance";
    }
}

TEST_P(ParticlesApp, UnknownScenesAndCountsAreErrors) {
    EXPECT_EQ(error_message([&] { particles_app::make_scene(rt(), "waterfall", 10); }),
              "rill-particles: no scene 'waterfall'; give one of fountain, bowl, dam, e1, e2, e3, e4");
    EXPECT_EQ(error_message([&] { particles_app::make_scene(rt(), "dam", 0); }), "rill-particles: 0 particles; give at least 1");
}

RILL_INSTANTIATE_FOR_BACKENDS(ParticlesApp);

}  // namespace
}  // namespace rill::test
