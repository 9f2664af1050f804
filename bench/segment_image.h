// The benchmarks' test image for Segment (rill-bench-segment, rill-bench-segment-itk).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace rill::bench {

/// A disc, a bar and a ring on a ramp, with noise: the app's kind of image.
inline std::vector<float> segment_test_image(std::int64_t n) {
    std::vector<float> f(static_cast<std::size_t>(n * n));
    std::mt19937 gen(5);
    std::normal_distribution<float> noise(0.0f, 0.05f);
    for (std::int64_t y = 0; y < n; ++y)
        for (std::int64_t x = 0; x < n; ++x) {
            const float u = (x + 0.5f) / n, v = (y + 0.5f) / n;
            float value = 0.15f + 0.05f * u;
            if (u > 0.6f && u < 0.9f && v > 0.55f && v < 0.7f) value = 0.5f;
            if (std::hypot(u - 0.35f, v - 0.45f) < 0.22f) value = 0.85f;
            f[static_cast<std::size_t>(y * n + x)] = value + noise(gen);
        }
    return f;
}

}  // namespace rill::bench
