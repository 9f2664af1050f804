// Brook's Segment (Buck et al. 2004, after Sherbondy, Houston and Napel 2003):
// Perona-Malik nonlinear diffusion of a 2D image, then seeded region growing
// on the diffused image.
//
//   #include <rill/algorithms/segment.h>
//   namespace seg = rill::segment;
//   seg::diffuse(image, smooth, {.iterations = 100, .time_step = 0.2f, .contrast = 0.05f});
//   auto mask = rt.stream<std::uint32_t>(image.shape());
//   seg::Growth growth{.low = 0.4f, .high = 1.0f};
//   seg::GrowthStats s = seg::segment(image, {{120, 80}}, smooth, mask, {.diffusion = {}, .growth = growth});
//
// Diffusion is the explicit scheme of Perona and Malik (1990) on the four
// neighbours, every pixel at once:
//   I' = I + dt * sum over n, s, e, w of g(|d|) d,   d = I(neighbour) - I,
// with the conductance g(d) = exp(-(d / K)^2) (Conductance::Exponential) or
// 1 / (1 + (d / K)^2) (Conductance::Rational), K the contrast. The time step dt
// is at most 0.25 (the scheme's stability bound). Outside the image the
// boundary rule of rill/algorithms/stencil.h holds (Clamp: no flux).
//
// Growth: the region is the set of pixels connected to a seed through
// 4-neighbours whose value lies in [low, high] (seeds belong to it whatever
// their value). It is grown in tiles of 32 x 32 pixels: each pass grows every
// active tile to its fixed point in shared memory, and a tile is active in the
// next pass only where a neighbouring tile's border pixels joined the region.
// The active tiles are found by rill's compaction (Horn's filtering, GPU Gems 2
// ch. 36), so the work follows the front, not the image. Each pass reads one
// count back to the host.
//
// Streams must be dense (a fresh stream or a reshape of one). Bad arguments
// (a seed outside the image, an image of 0 pixels, dt outside (0, 0.25], K
// outside [kMinContrast, kMaxContrast], low > high, shapes that differ) throw rill::Error before anything
// is written. Performance: docs/PERFORMANCE.md#segment.
#pragma once

#include <cstdint>
#include <vector>

#include <rill/algorithms/stencil.h>

namespace rill::segment {

/// Perona and Malik's two conductance functions of the gradient d.
enum class Conductance {
    Exponential,  ///< exp(-(d / K)^2): favours high-contrast edges over low-contrast ones
    Rational,     ///< 1 / (1 + (d / K)^2): favours wide regions over small ones
};

/// The contrasts K that diffuse() takes: 1e-18 to 1e18, in the image's units
/// (the exponential conductance's kernel holds -log2(e) / K^2 as a float).
inline constexpr float kMinContrast = 1e-18f, kMaxContrast = 1e18f;

struct Diffusion {
    int iterations = 100;
    float time_step = 0.2f;  ///< dt, in (0, 0.25]
    float contrast = 0.1f;   ///< K, in the image's units: gradients well above it are edges; kMinContrast to kMaxContrast
    Conductance conductance = Conductance::Exponential;
    Boundary boundary = Boundary::Clamp;
};

/// out = `d.iterations` steps of the diffusion of image (out may be image;
/// 0 iterations copy it).
void diffuse(const Stream<float>& image, const Stream<float>& out, const Diffusion& d = {});

struct Growth {
    float low = 0.0f, high = 1.0f;  ///< pixels with a value in [low, high] may join
    int max_passes = 0;             ///< 0: until no tile changes
};

struct GrowthStats {
    int passes = 0;                    ///< passes over the active tiles
    bool converged = false;            ///< false when max_passes stopped it first
    std::int64_t tiles_processed = 0;  ///< tiles of 32 x 32 pixels, summed over the passes
};

/// Grows the region of `mask` (nonzero: a seed; same shape as image) into the
/// image; on return mask is 1 in the region and 0 elsewhere.
GrowthStats grow(const Stream<float>& image, const Stream<std::uint32_t>& mask, const Growth& g);

/// mask = 1 at the seeds (row, column), 0 elsewhere (a 2D stream).
void seed_mask(const std::vector<int2>& seeds, const Stream<std::uint32_t>& mask);

struct Options {
    Diffusion diffusion = {};
    Growth growth = {};
};

/// Diffuses image into `diffused`, then grows from the seeds (row, column)
/// into `mask` on the diffused image.
GrowthStats segment(const Stream<float>& image, const std::vector<int2>& seeds, const Stream<float>& diffused,
                    const Stream<std::uint32_t>& mask, const Options& options = {});
/// The same with the seeds given as a mask (nonzero: a seed), grown in place.
GrowthStats segment(const Stream<float>& image, const Stream<float>& diffused, const Stream<std::uint32_t>& mask,
                    const Options& options = {});

}  // namespace rill::segment
