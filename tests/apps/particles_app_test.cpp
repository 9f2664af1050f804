// rill-particles' scenes on every backend: each runs a few frames with its
// particles inside the box, above its height field and out of its bowl, and
// renders a picture with particles in it; the points drawn through OpenGL
// are the camera's projection; an unknown scene is an error.
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

TEST_P(ParticlesApp, ScreenPointsAreTheCamerasProjection) {
    particles_app::Scene s = particles_app::make_scene(rt(), "dam", 500);
    const int w = 320, h = 200;
    const std::vector<float2> got = particles_app::screen_points(rt(), s, w, h).download();
    const std::vector<particles::Particle> ps = s.engine.particles().download();
    ASSERT_EQ(got.size(), ps.size());
    // The camera's frame on the host, in double.
    const particles::Camera& c = s.camera;
    const double f[3] = {c.target.x - c.eye.x, c.target.y - c.eye.y, c.target.z - c.eye.z};
    const double fl = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    const double fw[3] = {f[0] / fl, f[1] / fl, f[2] / fl};
    double r[3] = {fw[1] * c.up.z - fw[2] * c.up.y, fw[2] * c.up.x - fw[0] * c.up.z, fw[0] * c.up.y - fw[1] * c.up.x};
    const double rl = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    for (double& x : r) x /= rl;
    const double u[3] = {r[1] * fw[2] - r[2] * fw[1], r[2] * fw[0] - r[0] * fw[2], r[0] * fw[1] - r[1] * fw[0]};
    const double focal = 1 / std::tan(c.fov_y_degrees * 3.14159265358979 / 360);
    for (std::size_t i = 0; i < ps.size(); ++i) {
        const double q[3] = {ps[i].position.x - c.eye.x, ps[i].position.y - c.eye.y, ps[i].position.z - c.eye.z};
        const double z = q[0] * fw[0] + q[1] * fw[1] + q[2] * fw[2];
        const double x = focal * double(h) / w * (q[0] * r[0] + q[1] * r[1] + q[2] * r[2]) / z;
        const double y = focal * (q[0] * u[0] + q[1] * u[1] + q[2] * u[2]) / z;
        ASSERT_NEAR(got[i].x, x, 1e-4) << "particle " << i;
        ASSERT_NEAR(got[i].y, y, 1e-4) << "particle " << i;
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
