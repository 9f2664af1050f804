// rill-particles: a scene of rill::particles stepped on the device and
// rendered there; writes every k-th frame as a PNG and prints the
// backend, the time of each stage of a step and the steps per second.
//
//   rill-particles [scene] [--particles N] [--frames F] [--every K] [--out PREFIX] [--size WxH]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <unistd.h>

#ifdef RILL_PARTICLES_GL_POINTS
#include <rill/backends/opengl.h>
#endif

#include "arguments.h"
#include "particles_app.h"
#include "stopwatch.h"

namespace {

const char kUsage[] =
    "usage: rill-particles [scene] [options]\n"
    "Steps a particle scene on the device (grid sort, exact neighbour search, contacts,\n"
    "height and distance fields) and renders it there; prints per-stage times and steps\n"
    "per second, writes PNG frames.\n"
    "  scene             fountain (default), bowl, dam, or UberFlow's e1, e2, e3, e4\n"
    "  --particles N     particles (or slots for the emitters), 1 to 2^26 (default 65536)\n"
    "  --frames F        frames of 1/60 s, each of the scene's substeps (default 120)\n"
    "  --every K         write every K-th frame, and the last (default 30; 0: only the last)\n"
    "  --out PREFIX      frames go to PREFIX_0030.png ... (default particles)\n"
    "  --size WxH        the frames' size (default 960x540)\n"
    "  --gl-points       OpenGL only: also draw the last frame as GL sprites in the particles'\n"
    "                    colours straight from streams (rill's interop, UberFlow's way; e3 blended\n"
    "                    front to back) to PREFIX_points.png\n"
    "RILL_BACKEND=cpu|vulkan|opengl picks the backend (default: the best one here).\n";

const app_args::Usage kArgs{"rill-particles", kUsage};

using app_time::Clock;
using app_time::ms_since;

}  // namespace

int main(int argc, char** argv) {
    std::string scene = "fountain", prefix = "particles";
    int frames = 120, every = 30, width = 960, height = 540;
    std::int64_t count = 65536;
    bool gl_points = false;
    app_args::Walker w(kArgs, argc, argv);
    while (w.next()) {
        if (w.is("--particles")) count = w.integer(1, 1 << 26, "1 to 2^26 (67108864)");
        else if (w.is("--frames")) frames = w.integer(1, 100000, "1 to 100000");
        else if (w.is("--every")) every = w.integer(0, 1 << 30, "0 or more");
        else if (w.is("--out")) prefix = w.value();
        else if (w.flag("--gl-points")) gl_points = true;
        else if (w.is("--size")) w.size(width, height);
        else if (w.positional() && w.position() == 1) scene = w.arg();
        else w.unknown();
    }
    try {
        rill::Runtime rt;
        std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
#ifdef RILL_PARTICLES_GL_POINTS
        const bool gl_built = true;
#else
        const bool gl_built = false;
#endif
        if (gl_points && (!gl_built || rt.backend_name() != "opengl"))
            throw rill::Error("rill-particles: --gl-points draws through OpenGL; run with RILL_BACKEND=opengl (this run has " +
                              rt.backend_name() + ")");
        particles_app::Scene s = particles_app::make_scene(rt, scene, count);
        const rill::int3 g = s.engine.grid();
        std::printf("scene %s: %s; %lld particles of radius %g, grid %dx%dx%d, %d steps per frame\n", scene.c_str(),
                    s.description.c_str(), static_cast<long long>(count), s.engine.options().radius, g.x, g.y, g.z, s.substeps);
        rill::Stream<rill::float4> frame = rt.stream<rill::float4>({height, width});
        const float dt = 1.0f / (60.0f * static_cast<float>(s.substeps));
        rill::particles::StageTimes sum, one;
        int timed = 0, untimed = 0;
        double untimed_ms = 0, render_ms = 0;
        int rendered = 0;
        const bool progress = isatty(STDERR_FILENO);  // a progress line, on a terminal only
        for (int f = 1; f <= frames; ++f) {
            // Every 10th frame's first step is timed stage by stage (the
            // device finishing each stage); the rest run as they would.
            for (int k = 0; k < s.substeps; ++k) {
                if (k == 0 && f % 10 == 1) {
                    s.engine.step(dt, &one);
                    sum.keys += one.keys, sum.sort += one.sort, sum.neighbours += one.neighbours;
                    sum.collide += one.collide, sum.integrate += one.integrate, sum.emit += one.emit;
                    ++timed;
                } else {
                    rt.finish();
                    const auto t0 = Clock::now();
                    s.engine.step(dt);
                    rt.finish();
                    untimed_ms += ms_since(t0);
                    ++untimed;
                }
            }
            if ((every > 0 && f % every == 0) || f == frames) {
                rt.finish();
                const auto t0 = Clock::now();
                s.engine.render(s.camera, frame, s.render);
                rt.finish();
                render_ms += ms_since(t0);
                ++rendered;
                char name[64];
                std::snprintf(name, sizeof name, "_%04d.png", f);
                app_images::write_png("rill-particles", prefix + name, particles_app::to_image(frame));
                if (progress) std::fprintf(stderr, "\rframe %d/%d, wrote %s%s   ", f, frames, prefix.c_str(), name);
                else std::printf("frame %d: wrote %s%s\n", f, prefix.c_str(), name);
            } else if (progress) {
                std::fprintf(stderr, "\rframe %d/%d   ", f, frames);
            }
        }
        if (progress) std::fprintf(stderr, "\n");
        s.engine.check();
        auto avg = [&](double v) { return v / std::max(timed, 1); };
        std::printf("stages of a step (ms, averaged over %d timed steps): keys %.3f, sort %.3f, neighbours %.3f, collide %.3f, "
                    "integrate %.3f, emit %.3f\n",
                    timed, avg(sum.keys), avg(sum.sort), avg(sum.neighbours), avg(sum.collide), avg(sum.integrate), avg(sum.emit));
        if (untimed > 0)
            std::printf("%d steps at %.3f ms each: %.1f steps per second (%.1f frames of %d steps)\n", untimed, untimed_ms / untimed,
                        1e3 * untimed / untimed_ms, 1e3 * untimed / untimed_ms / s.substeps, s.substeps);
        std::printf("render %dx%d: %.3f ms per frame (%d frames; the first includes compiling)\n", width, height, render_ms / rendered,
                    rendered);
#ifdef RILL_PARTICLES_GL_POINTS
        if (gl_points) {
            const particles_app::ScreenPoints points = particles_app::screen_points(rt, s, width, height);
            rill::opengl::OffscreenRenderer gl(rt, width, height);
            const rill::float4 b = s.render.background;
            // Sprites as wide as a particle at the camera's target.
            const rill::particles::Camera& c = s.camera;
            const float dx = c.target.x - c.eye.x, dy = c.target.y - c.eye.y, dz = c.target.z - c.eye.z;
            const float size = std::max(2.0f, 2 * s.engine.options().radius * 0.5f * height /
                                                  std::tan(c.fov_y_degrees * 3.14159265f / 360) / std::sqrt(dx * dx + dy * dy + dz * dz));
            if (s.render.translucent) {  // nearest first, each under those drawn
                gl.clear(rill::float4{0, 0, 0, 0});
                gl.draw_points(points.ndc, points.colours, size, rill::opengl::Blend::Under);
                gl.draw_background(b);
            } else {
                gl.clear(b);
                gl.draw_points(points.ndc, points.colours, size);
            }
            gl.save_png(prefix + "_points.png");
            std::printf("wrote %s_points.png (GL point sprites from the streams' buffers)\n", prefix.c_str());
        }
#endif
    } catch (const rill::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
