// rill-fft: filters an image in the frequency domain with rill's FFT.
//
//   rill-fft [image.png] [--low-pass CUTOFF | --high-pass CUTOFF | --deconvolve SIGMA]
//            [--noise K] [--size WxH] [--out-dir DIR]
//
// Without an image it draws a procedural one (rings, bars, checkers, noise).
// Writes DIR/fft_input.png, DIR/fft_filtered.png and DIR/fft_spectrum.png
// (log magnitude, zero frequency in the middle) and prints the backend, the
// transform sizes and the times. RILL_BACKEND picks the backend.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "arguments.h"
#include "filter.h"

namespace {

const char kUsage[] =
    "usage: rill-fft [image.png] [options]\n"
    "Filters an image in the frequency domain with rill's FFT (2D real-to-complex per channel,\n"
    "a response H(u, v), the inverse) and writes fft_input.png, fft_filtered.png and\n"
    "fft_spectrum.png (log magnitude, zero frequency in the middle).\n"
    "  image.png            an 8/16-bit grey or RGB PNG; none: a procedural test image\n"
    "  --low-pass CUTOFF    Gaussian low-pass, CUTOFF in cycles per pixel (default 0.05)\n"
    "  --high-pass CUTOFF   1 - that Gaussian\n"
    "  --deconvolve SIGMA   Wiener deconvolution of a Gaussian blur of SIGMA pixels\n"
    "  --noise K            the Wiener filter's noise-to-signal ratio (default 0.001)\n"
    "  --size WxH           the procedural image's size (default 1024x768)\n"
    "  --out-dir DIR        where the PNGs go (default .)\n"
    "RILL_BACKEND=cpu|vulkan|opengl picks the backend (default: the best one here).\n";

const app_args::Usage kArgs{"rill-fft", kUsage};

}  // namespace

int main(int argc, char** argv) {
    fft_app::FilterOptions options;
    std::string input, dir = ".";
    int w = 1024, h = 768;
    app_args::Walker args(kArgs, argc, argv);
    while (args.next()) {
        if (args.is("--low-pass")) options.filter = fft_app::Filter::LowPass, options.cutoff = args.number();
        else if (args.is("--high-pass")) options.filter = fft_app::Filter::HighPass, options.cutoff = args.number();
        else if (args.is("--deconvolve")) options.filter = fft_app::Filter::Deconvolve, options.sigma = args.number();
        else if (args.is("--noise")) options.noise = args.number();
        else if (args.is("--size")) args.size(w, h);
        else if (args.is("--out-dir")) dir = args.value();
        else if (args.positional() && input.empty()) input = args.arg();
        else args.unknown();
    }
    try {
        rill::Runtime rt;
        const fft_app::Image image = input.empty() ? fft_app::procedural_image(w, h) : app_images::read_png("rill-fft", input);
        std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
        std::printf("image %dx%d, %d channel%s: 2D real-to-complex transforms of %dx%d (%d x %dx%d complex outputs)\n",
                    image.width, image.height, image.channels, image.channels > 1 ? "s" : "", image.height, image.width,
                    image.channels, image.height, image.width / 2 + 1);
        const fft_app::Filtered r = fft_app::filter_image(rt, image, options);
        std::printf("forward %.2f ms, response %.2f ms, inverse %.2f ms (host wall times, first calls include compiling)\n",
                    r.forward_ms, r.filter_ms, r.inverse_ms);
        app_images::write_png("rill-fft", dir + "/fft_input.png", image);
        app_images::write_png("rill-fft", dir + "/fft_filtered.png", r.image);
        app_images::write_png("rill-fft", dir + "/fft_spectrum.png", fft_app::Image{1, image.width, image.height, r.spectrum});
        std::printf("wrote %s/fft_input.png, fft_filtered.png, fft_spectrum.png\n", dir.c_str());
    } catch (const rill::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
