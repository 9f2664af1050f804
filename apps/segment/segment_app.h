// The library part of rill-segment (reused by its test): a procedural test
// image, grey conversion, the segmentation with timings, and the overlay.
#pragma once

#include <functional>
#include <vector>

#include <rill/algorithms/segment.h>

#include "images.h"

namespace segment_app {

using app_images::Image;

/// A grey test image: a bright disc, a mid-grey bar and a ring on a dark
/// background, with Gaussian noise of the given standard deviation.
Image procedural_image(int width, int height, float noise = 0.06f);
/// One channel: the image itself if grey, else its luminance (Rec. 709).
Image grey(const Image& image);

struct Settings {
    rill::segment::Diffusion diffusion = {};
    std::vector<rill::int2> seeds;  ///< (row, column); none: the image's centre
    /// The range a pixel's diffused value must lie in to join: [low, high]
    /// when given, else the first seed's diffused value +- tolerance.
    float low = 0, high = 0, tolerance = 0.1f;
    bool range_given = false;
    int max_passes = 0;
};

struct Result {
    Image diffused;                   // one channel
    std::vector<std::uint32_t> mask;  // 1 in the region
    rill::segment::GrowthStats growth;
    float low = 0, high = 0;          // the range used
    double diffusion_ms = 0, growth_ms = 0;
};

/// Segments a grey image on rt. `progress(done, total)` is called between
/// chunks of diffusion iterations. Throws rill::Error for a bad argument.
Result segment(rill::Runtime& rt, const Image& grey, const Settings& settings,
               const std::function<void(int, int)>& progress = {});

/// The grey image in RGB with the region tinted and its border drawn.
Image overlay(const Image& grey, const std::vector<std::uint32_t>& mask);

}  // namespace segment_app
