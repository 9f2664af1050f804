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

/// The live particles' places on a width x height picture through the
/// scene's camera, in normalized device coordinates ([-1, 1], y up), as
/// rill's OpenGL interop draws points straight from a stream (UberFlow's
/// way of rendering); particles not live or behind the eye go off screen.
rill::Stream<rill::float2> screen_points(rill::Runtime& rt, Scene& scene, int width, int height);

/// A rendered frame ({height, width} float4, linear) as an RGB image.
app_images::Image to_image(const rill::Stream<rill::float4>& frame);

}  // namespace particles_app
