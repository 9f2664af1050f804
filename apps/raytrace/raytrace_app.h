// rill-raytrace's library part: a camera, and a path tracer of one diffuse
// bounce under a square area light and a sky, written as streams of rays
// (primary, shadow, bounce, shadow) traced through rill::bvh. Tests and the
// benchmark reuse it.
#pragma once

#include <functional>
#include <string>

#include <rill/algorithms/bvh.h>

#include "images.h"
#include "meshes.h"

namespace raytrace_app {

struct Camera {
    rill::float3 eye{0, 0, 0}, target{0, 0, -1};
    float fov_degrees = 45.0f;  ///< vertical
};

/// A camera that sees the whole mesh from the front, a little above
/// (distance_scale < 1 moves it closer).
Camera frame(const app_meshes::Mesh& mesh, float distance_scale = 1.0f);

struct Settings {
    int width = 960, height = 540;
    int samples = 4;  ///< per pixel, each a primary ray, two shadow rays and a bounce
    Camera camera;
};

/// Ray counts and device times of one render (the host waits after each stage).
struct Stats {
    double build_ms = 0;
    double primary_ms = 0, shadow_ms = 0, bounce_ms = 0, shade_ms = 0;
    std::int64_t primary_rays = 0, shadow_rays = 0, bounce_rays = 0;
    std::int64_t triangles = 0, skipped = 0;
};

struct Result {
    app_images::Image image;  ///< RGB, tone mapped
    Stats stats;
};

/// Renders the mesh; `progress(done, total)` after each sample.
Result render(rill::Runtime& rt, const app_meshes::Mesh& mesh, const Settings& s,
              const std::function<void(int, int)>& progress = {});

/// The primary rays of sample `sample` (pixel (x, y) at index y * width + x):
/// through the pixels' centres for sample 0, jittered within them for the
/// renderer's samples 1, 2, ...
void camera_rays(const Settings& s, int sample, const rill::Stream<rill::float4>& origins,
                 const rill::Stream<rill::float4>& directions);

/// The rays of one sample as the renderer makes them: primary rays, and from
/// their hits a shadow ray towards the light and a diffuse bounce (empty
/// rays, t_min > t_max, where the primary ray missed). For benchmarks that
/// trace the same rays through other tracers.
struct SampleRays {
    rill::Stream<rill::float4> primary_o, primary_d, shadow_o, shadow_d, bounce_o, bounce_d;
};
SampleRays sample_rays(rill::Runtime& rt, const rill::bvh::Bvh& tree, const app_meshes::Mesh& mesh,
                       const rill::Stream<rill::int4>& faces, const rill::Stream<rill::float4>& vertices, const Settings& s,
                       int sample);

/// The sky's colour, what a pixel whose every ray misses shows.
rill::float3 sky();

}  // namespace raytrace_app
