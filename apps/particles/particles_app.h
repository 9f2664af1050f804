// rill-particles' library part: named scenes of rill::particles (a
// fountain over a height field, particles poured into a bowl given as a
// distance field, a dam break, and UberFlow's effects E1 to E4), and the
// conversion of a rendered frame to a PNG image. The app, its tests and the
// benchmark build their engines here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <rill/algorithms/particles.h>

#include "images.h"

namespace particles_app {

/// The scenes by name, for --help and errors.
const std::vector<std::string>& scene_names();

struct Scene {
    rill::particles::Engine engine;
    rill::particles::Camera camera;
    rill::particles::RenderOptions render;
    /// Steps per 1/60 s frame that keep the contact springs stable.
    int substeps = 1;
    std::string description;
};

/// Scene `name` (scene_names()) with `particles` particles (or slots that
/// its emitters fill); throws rill::Error for an unknown name or a count
/// below 1. Particle sizes follow the count, so that any count fills the
/// scene alike.
Scene make_scene(rill::Runtime& rt, const std::string& name, std::int64_t particles);

/// The particles as points for a width x height picture through the
/// scene's camera, for rill's OpenGL interop to draw straight from the
/// streams (UberFlow's way of rendering): places in normalized device
/// coordinates ([-1, 1], y up; particles not live or behind the eye go off
/// screen), colours, and distances along the view (infinity for those not
/// drawn). For a translucent scene (E3) the points come nearest first, for
/// Blend::Under; otherwise in the engine's order.
struct ScreenPoints {
    rill::Stream<rill::float2> ndc;
    rill::Stream<rill::float4> colours;
    rill::Stream<float> depths;
};
ScreenPoints screen_points(rill::Runtime& rt, Scene& scene, int width, int height);

/// A rendered frame ({height, width} float4, linear) as an RGB image.
app_images::Image to_image(const rill::Stream<rill::float4>& frame);

}  // namespace particles_app
