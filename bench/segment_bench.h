// What Segment's benchmarks share (rill-bench-segment, rill-bench-segment-itk): their
// options and their test image.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace rill::bench {

struct SegmentOptions {
    int log2 = 11, iterations = 200, threads = 0;  ///< threads 0: all cores
    std::string json;
};

/// Reads [--size-log2 K] [--iterations N] [--threads N] [output.json] over
/// `options`' defaults; false (after printing the usage of `program`) when
/// an argument is unknown or out of range.
inline bool parse_segment_options(int argc, char** argv, const char* program, SegmentOptions& options) {
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        if (arg == "--size-log2" && a + 1 < argc) {
            options.log2 = std::atoi(argv[++a]);
        } else if (arg == "--iterations" && a + 1 < argc) {
            options.iterations = std::atoi(argv[++a]);
        } else if (arg == "--threads" && a + 1 < argc) {
            options.threads = std::atoi(argv[++a]);
        } else if (arg.rfind("--", 0) != 0 && options.json.empty()) {
            options.json = arg;
        } else {
            std::fprintf(stderr, "usage: %s [--size-log2 K (4..13)] [--iterations N] [--threads N] [output.json]\n", program);
            return false;
        }
    }
    if (options.log2 < 4 || options.log2 > 13 || options.iterations < 1 || options.threads < 0) {
        std::fprintf(stderr, "%s: --size-log2 takes 4..13, --iterations at least 1 and --threads at least 0\n", program);
        return false;
    }
    return true;
}

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
