// rill-particles' scenes on every backend: each runs a few frames with its
// particles inside the box, above its height field and out of its bowl, and
// renders a picture with particles in it; an unknown scene is an error.
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

TEST_P(ParticlesApp, UnknownScenesAndCountsAreErrors) {
    EXPECT_EQ(error_message([&] { particles_app::make_scene(rt(), "waterfall", 10); }),
              "rill-particles: no scene 'waterfall'; give one of fountain, bowl, dam, e1, e2, e3, e4");
    EXPECT_EQ(error_message([&] { particles_app::make_scene(rt(), "dam", 0); }), "rill-particles: 0 particles; give at least 1");
}

RILL_INSTANTIATE_FOR_BACKENDS(ParticlesApp);

}  // namespace
}  // namespace rill::test
