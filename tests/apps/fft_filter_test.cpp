// rill-fft's filters against a float64 host computation (FFTW in double and
// the responses written out here), on every backend, on a small procedural
// image of odd and even sizes; and its errors.
#include <fftw3.h>

#include <cmath>
#include <complex>
#include <numbers>

#include "../backend_fixture.h"
#include "filter.h"

namespace rill::test {
namespace {

class FftApp : public BackendTest {};

/// The filtered channels in double: per channel, the DFT, times H(fx, fy), the inverse DFT / (w h).
std::vector<double> reference(const fft_app::Image& img, const fft_app::FilterOptions& o) {
    const int W = img.width, H = img.height;
    std::vector<double> out(img.pixels.size());
    std::vector<std::complex<double>> a(static_cast<std::size_t>(W) * H), b(a.size());
    for (int c = 0; c < img.channels; ++c) {
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = img.pixels[c * a.size() + i];
        fftw_plan f = fftw_plan_dft_2d(H, W, reinterpret_cast<fftw_complex*>(a.data()), reinterpret_cast<fftw_complex*>(b.data()),
                                       FFTW_FORWARD, FFTW_ESTIMATE);
        fftw_execute(f);
        fftw_destroy_plan(f);
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                // Signed frequencies, cycles per pixel; the response is even, so x and W - x agree.
                const double fy = (2 * y <= H ? y : y - H) / double(H), fx = (2 * x <= W ? x : x - W) / double(W);
                const double f2 = fx * fx + fy * fy;
                double h = std::exp(-f2 / (2.0 * o.cutoff * o.cutoff));
                if (o.filter == fft_app::Filter::HighPass) h = 1.0 - h;
                if (o.filter == fft_app::Filter::Deconvolve) {
                    const double blur = std::exp(-2.0 * std::numbers::pi * std::numbers::pi * o.sigma * o.sigma * f2);
                    h = blur / (blur * blur + o.noise);
                }
                b[static_cast<std::size_t>(y) * W + x] *= h;
            }
        fftw_plan inv = fftw_plan_dft_2d(H, W, reinterpret_cast<fftw_complex*>(b.data()), reinterpret_cast<fftw_complex*>(a.data()),
                                         FFTW_BACKWARD, FFTW_ESTIMATE);
        fftw_execute(inv);
        fftw_destroy_plan(inv);
        for (std::size_t i = 0; i < a.size(); ++i) out[c * a.size() + i] = a[i].real() / (double(W) * H);
    }
    return out;
}

TEST_P(FftApp, FiltersMatchFloat64Reference) {
    for (auto [w, h] : {std::pair{48, 40}, std::pair{37, 29}, std::pair{1, 9}})
        for (fft_app::Filter filter : {fft_app::Filter::LowPass, fft_app::Filter::HighPass, fft_app::Filter::Deconvolve}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " filter " + std::to_string(int(filter)));
            const fft_app::Image img = fft_app::procedural_image(w, h);
            fft_app::FilterOptions o;
            o.filter = filter;
            o.cutoff = 0.08f;
            o.sigma = 1.5f;
            o.noise = 0.01f;
            const auto got = fft_app::filter_image(rt(), img, o);
            const auto want = reference(img, o);
            ASSERT_EQ(got.image.pixels.size(), want.size());
            // Deconvolution amplifies by up to 1 / (2 sqrt(K)) = 5: its bound scales with it.
            const double tol = filter == fft_app::Filter::Deconvolve ? 3e-5 : 1e-5;
            for (std::size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got.image.pixels[i], want[i], tol) << "pixel " << i;
            EXPECT_EQ(got.spectrum.size(), static_cast<std::size_t>(w) * h);
        }
}

TEST_P(FftApp, BadInputIsAnError) {
    fft_app::Image empty{3, 0, 5, {}};
    EXPECT_EQ(error_message([&] { fft_app::filter_image(rt(), empty, {}); }),
              "fft_app::filter_image: the image is 0x5 with 3 channels; pass an image of at least one pixel");
    fft_app::FilterOptions o;
    o.cutoff = 0;
    EXPECT_NE(error_message([&] { fft_app::filter_image(rt(), fft_app::procedural_image(4, 4), o); }).find("cutoff"),
              std::string::npos);
    EXPECT_NE(error_message([] { app_images::read_png("rill-fft", "/nonexistent/image.png"); }).find("cannot read '/nonexistent/image.png'"),
              std::string::npos);
}

RILL_INSTANTIATE_FOR_BACKENDS(FftApp);

}  // namespace
}  // namespace rill::test
