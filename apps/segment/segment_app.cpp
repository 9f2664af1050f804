#include "segment_app.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "stopwatch.h"

namespace segment_app {

namespace {

using app_time::Clock;
using app_time::ms_since;

}  // namespace

Image procedural_image(int width, int height, float noise) {
    Image img{1, width, height, std::vector<float>(static_cast<std::size_t>(width) * height)};
    std::mt19937 gen(11);
    std::normal_distribution<float> n(0.0f, noise);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const float u = (x + 0.5f) / width, v = (y + 0.5f) / height;
            const float disc = std::hypot(u - 0.35f, v - 0.45f), ring = std::hypot(u - 0.76f, v - 0.3f);
            float value = 0.15f + 0.05f * u;                               // background, a gentle ramp
            if (u > 0.6f && u < 0.9f && v > 0.55f && v < 0.7f) value = 0.5f;  // bar
            if (ring > 0.11f && ring < 0.16f) value = 0.7f;                  // ring
            if (disc < 0.22f) value = 0.85f;                                 // disc
            img.pixels[static_cast<std::size_t>(y) * width + x] = value + n(gen);
        }
    return img;
}

Image grey(const Image& image) {
    if (image.channels == 1) return image;
    const std::size_t plane = static_cast<std::size_t>(image.width) * image.height;
    Image g{1, image.width, image.height, std::vector<float>(plane)};
    for (std::size_t i = 0; i < plane; ++i)
        g.pixels[i] = 0.2126f * image.pixels[i] + 0.7152f * image.pixels[plane + i] + 0.0722f * image.pixels[2 * plane + i];
    return g;
}

Result segment(rill::Runtime& rt, const Image& grey, const Settings& s, const std::function<void(int, int)>& progress) {
    if (grey.channels != 1 || grey.width < 1 || grey.height < 1)
        throw rill::Error("segment_app::segment: the image is " + std::to_string(grey.width) + "x" + std::to_string(grey.height) + " with " +
                          std::to_string(grey.channels) + " channels; pass a grey image of at least one pixel");
    const std::int64_t h = grey.height, w = grey.width;
    std::vector<rill::int2> seeds = s.seeds;
    if (seeds.empty()) seeds.push_back(rill::int2{static_cast<int>(h / 2), static_cast<int>(w / 2)});
    auto image = rt.stream<float>({h, w}, grey.pixels);
    auto diffused = rt.stream<float>({h, w});
    auto mask = rt.stream<std::uint32_t>({h, w});
    Result r;
    // Everything is checked before the diffusion runs.
    rill::segment::seed_mask(seeds, mask);
    if (s.range_given && !(s.low <= s.high))
        throw rill::Error("rill-segment: --low " + std::to_string(s.low) + " is above --high " + std::to_string(s.high) + "; give low <= high");
    if (!(s.tolerance >= 0.0f))
        throw rill::Error("rill-segment: --tolerance " + std::to_string(s.tolerance) + " is negative; give 0 or more");
    if (s.max_passes < 0)
        throw rill::Error("rill-segment: --max-passes " + std::to_string(s.max_passes) + " is negative; give 0 (until convergence) or more");

    auto t0 = Clock::now();
    const int total = s.diffusion.iterations, chunk = 25;
    rill::segment::Diffusion d = s.diffusion;
    d.iterations = std::min(total, chunk);  // diffuse() checks the parameters before it writes
    rill::segment::diffuse(image, diffused, d);
    for (int done = d.iterations; done < total; done += d.iterations) {
        rt.finish();
        if (progress) progress(done, total);
        d.iterations = std::min(chunk, total - done);
        rill::segment::diffuse(diffused, diffused, d);
    }
    rt.finish();
    r.diffusion_ms = ms_since(t0);
    r.diffused = Image{1, grey.width, grey.height, diffused.download()};

    r.low = s.low, r.high = s.high;
    if (!s.range_given) {
        const float at = r.diffused.pixels[static_cast<std::size_t>(seeds[0].x * w + seeds[0].y)];
        r.low = at - s.tolerance, r.high = at + s.tolerance;
    }
    t0 = Clock::now();
    r.growth = rill::segment::grow(diffused, mask, {.low = r.low, .high = r.high, .max_passes = s.max_passes});
    rt.finish();
    r.growth_ms = ms_since(t0);
    r.mask = mask.download();
    return r;
}

Image overlay(const Image& grey, const std::vector<std::uint32_t>& mask) {
    const int w = grey.width, h = grey.height;
    const std::size_t plane = static_cast<std::size_t>(w) * h;
    Image rgb{3, w, h, std::vector<float>(3 * plane)};
    auto in = [&](int y, int x) { return y >= 0 && y < h && x >= 0 && x < w && mask[static_cast<std::size_t>(y) * w + x] != 0; };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            const float g = std::clamp(grey.pixels[i], 0.0f, 1.0f);
            float c[3] = {g, g, g};
            if (in(y, x)) {
                const bool border = !in(y - 1, x) || !in(y + 1, x) || !in(y, x - 1) || !in(y, x + 1);
                const float tint[3] = {1.0f, 0.35f, 0.1f};
                for (int k = 0; k < 3; ++k) c[k] = border ? tint[k] : 0.55f * g + 0.45f * tint[k];
            }
            for (int k = 0; k < 3; ++k) rgb.pixels[k * plane + i] = c[k];
        }
    return rgb;
}

}  // namespace segment_app
