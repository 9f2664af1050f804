// Frequency-domain image filters on rill's FFT (the library part of
// rill-fft, reused by its test): each channel's 2D real-to-complex
// transform, multiplied by a real response H(u, v), transformed back.
#pragma once

#include <string>
#include <vector>

#include <rill/rill.h>

#include "images.h"

namespace fft_app {

enum class Filter { LowPass, HighPass, Deconvolve };

struct FilterOptions {
    Filter filter = Filter::LowPass;
    /// LowPass and HighPass: the Gaussian's standard deviation in cycles per
    /// pixel (0.5 is the Nyquist frequency); H = exp(-f^2 / (2 cutoff^2)), or 1 - that.
    float cutoff = 0.05f;
    /// Deconvolve: the Gaussian blur to undo, its standard deviation in
    /// pixels, and the Wiener filter's noise-to-signal ratio K:
    /// H = B / (B^2 + K), B = exp(-2 pi^2 sigma^2 f^2).
    float sigma = 2.0f;
    float noise = 1e-3f;
};

using app_images::Image;

struct Filtered {
    Image image;                  // the filtered channels
    std::vector<float> spectrum;  // log(1 + |F|) of the channels' mean, height x width, zero frequency in the middle
    double forward_ms = 0, filter_ms = 0, inverse_ms = 0;  // host wall times of the three steps (synchronized)
};

/// Filters every channel of `in` on rt's backend. Throws rill::Error for an
/// empty image or an option out of range.
Filtered filter_image(rill::Runtime& rt, const Image& in, const FilterOptions& options);

/// A procedural test image: rings, bars and a checkerboard with noise (3 channels).
Image procedural_image(int width, int height);

}  // namespace fft_app
