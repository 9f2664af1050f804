#include "filter.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include <rill/algorithms/fft.h>

#include "stopwatch.h"

namespace fft_app {

namespace {

using app_time::Clock;
using app_time::ms_since;

/// Multiplies the half spectrum {channels, h, w / 2 + 1} by H at each frequency.
void apply_response(const rill::Stream<rill::float2>& spectrum, int width, int height, const FilterOptions& o) {
    static const auto kernel = rill::kernel(
        "fft_app_response(F, width, height, kind, cutoff, sigma, noise, G)",
        [](rill::In<rill::float2> F, rill::Int width, rill::Int height, rill::Int kind, rill::Float cutoff,
           rill::Float sigma, rill::Float noise, rill::Out<rill::float2> G) {
            // Frequencies in cycles per pixel: row r stands for r / h below h / 2, else (r - h) / h.
            rill::Int3 at = rill::indexof<3>(F);
            rill::Int row = at.y(), col = at.z();
            rill::Float fy = rill::cast<float>(rill::select(row * 2 <= height, row, row - height)) / rill::cast<float>(height);
            rill::Float fx = rill::cast<float>(col) / rill::cast<float>(width);
            rill::Float f2 = fx * fx + fy * fy;
            rill::Float h = rill::exp(-f2 / (2.0f * cutoff * cutoff));
            rill::If(kind == 1, [&] { h = 1.0f - h; }).Elif(kind == 2, [&] {
                rill::Float b = rill::exp(-2.0f * std::numbers::pi_v<float> * std::numbers::pi_v<float> * sigma * sigma * f2);
                h = b / (b * b + noise);
            });
            G = F * h;
        });
    kernel(spectrum, width, height, static_cast<int>(o.filter), o.cutoff, o.sigma, o.noise, spectrum);
}

}  // namespace

Filtered filter_image(rill::Runtime& rt, const Image& in, const FilterOptions& o) {
    if (in.width < 1 || in.height < 1 || in.channels < 1)
        throw rill::Error("fft_app::filter_image: the image is " + std::to_string(in.width) + "x" + std::to_string(in.height) +
                          " with " + std::to_string(in.channels) + " channels; pass an image of at least one pixel");
    if (!(o.cutoff > 0.0f && o.cutoff <= 1.0f))
        throw rill::Error("fft_app::filter_image: cutoff " + std::to_string(o.cutoff) +
                          " is out of range; pass a Gaussian width in cycles per pixel in (0, 1], e.g. 0.05");
    if (!(o.sigma > 0.0f && o.sigma < 1000.0f) || !(o.noise > 0.0f))
        throw rill::Error("fft_app::filter_image: sigma " + std::to_string(o.sigma) + " and noise " + std::to_string(o.noise) +
                          " must be positive (sigma below 1000 pixels); pass e.g. --deconvolve 2 --noise 0.001");
    const std::int64_t C = in.channels, H = in.height, W = in.width, half = W / 2 + 1;
    auto pixels = rt.stream<float>({C, H, W}, in.pixels);
    auto spectrum = rt.stream<rill::float2>({C, H, half});
    auto out = rt.stream<float>({C, H, W});
    const auto forward = rill::fft::Plan::r2c(rt, {C, H, W}, 2);
    const auto inverse = rill::fft::Plan::c2r(rt, {C, H, W}, 2, rill::fft::Scale::ByLength);

    Filtered r;
    auto t0 = Clock::now();
    forward(pixels, spectrum);
    rt.finish();
    r.forward_ms = ms_since(t0);
    const std::vector<rill::float2> F = spectrum.download();
    t0 = Clock::now();
    apply_response(spectrum, in.width, in.height, o);
    rt.finish();
    r.filter_ms = ms_since(t0);
    t0 = Clock::now();
    inverse(spectrum, out);
    rt.finish();
    r.inverse_ms = ms_since(t0);
    r.image = Image{in.channels, in.width, in.height, out.download()};

    // The log-magnitude of the unfiltered spectrum, the missing half from
    // conjugate symmetry, shifted so that frequency 0 is in the middle.
    r.spectrum.assign(static_cast<std::size_t>(H * W), 0.0f);
    float most = 0.0f;
    for (std::int64_t y = 0; y < H; ++y)
        for (std::int64_t x = 0; x < W; ++x) {
            const bool mirrored = x >= half;
            const std::int64_t fy = mirrored ? (H - y) % H : y, fx = mirrored ? W - x : x;
            double sum = 0;
            for (std::int64_t c = 0; c < C; ++c) {
                const rill::float2 v = F[static_cast<std::size_t>((c * H + fy) * half + fx)];
                sum += std::hypot(v.x, v.y);
            }
            const float m = static_cast<float>(std::log1p(sum / C));
            r.spectrum[static_cast<std::size_t>(((y + H / 2) % H) * W + (x + W / 2) % W)] = m;
            most = std::max(most, m);
        }
    if (most > 0)
        for (float& v : r.spectrum) v /= most;
    return r;
}

Image procedural_image(int width, int height) {
    Image img{3, width, height, std::vector<float>(static_cast<std::size_t>(3) * width * height)};
    std::mt19937 gen(7);
    std::normal_distribution<float> noise(0.0f, 0.05f);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const float u = (x + 0.5f) / width, v = (y + 0.5f) / height;
            const float r = std::hypot(u - 0.35f, v - 0.4f);
            const float rings = 0.5f + 0.5f * std::cos(2 * std::numbers::pi_v<float> * 18.0f * r * r * 4.0f);
            const float bars = (static_cast<int>(u * 24.0f) % 2) ? 0.85f : 0.15f;
            const float check = ((static_cast<int>(u * 8) + static_cast<int>(v * 8)) % 2) ? 0.9f : 0.2f;
            const float base[3] = {u < 0.6f ? rings : bars, v < 0.5f ? check : rings, 0.5f * (bars + check)};
            for (int c = 0; c < 3; ++c)
                img.pixels[(static_cast<std::size_t>(c) * height + y) * width + x] = base[c] + noise(gen);
        }
    return img;
}

}  // namespace fft_app
