// rill-segment: Brook's Segment app. Perona-Malik diffusion of a grey image,
// then region growing from seeds on the diffused image (rill/algorithms/segment.h).
//
//   rill-segment [image.png] [--seed ROW,COL]... [--low L --high H | --tolerance T]
//                [--iterations N] [--time-step DT] [--contrast K] [--conductance exp|rational]
//                [--max-passes P] [--size WxH] [--out-dir DIR]
//
// Writes DIR/segment_input.png, DIR/segment_diffused.png and DIR/segment_mask.png
// (the region tinted over the input) and prints the backend, iterations and times.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "arguments.h"
#include "segment_app.h"

namespace {

const char kUsage[] =
    "usage: rill-segment [image.png] [options]\n"
    "Brook's Segment: Perona-Malik nonlinear diffusion of a grey image, then seeded region\n"
    "growing on the diffused image. Writes segment_input.png, segment_diffused.png and\n"
    "segment_mask.png (the region tinted over the input).\n"
    "  image.png                 an 8/16-bit grey or RGB PNG (RGB is taken as its luminance);\n"
    "                            none: a procedural test image with noise\n"
    "  --seed ROW,COL            a seed pixel (repeat for more); default: the image's centre\n"
    "  --low L --high H          grow into pixels whose diffused value is in [L, H]\n"
    "  --tolerance T             else: within T of the first seed's diffused value (default 0.1)\n"
    "  --iterations N            diffusion iterations (default 200)\n"
    "  --time-step DT            in (0, 0.25] (default 0.2)\n"
    "  --contrast K              the conductance's K, in grey levels 0..1 (default 0.1)\n"
    "  --conductance exp|rational  exp(-(d/K)^2) or 1/(1+(d/K)^2) (default exp)\n"
    "  --max-passes P            stop growing after P passes (default 0: until it converges)\n"
    "  --size WxH                the procedural image's size (default 1024x768)\n"
    "  --out-dir DIR             where the PNGs go (default .)\n"
    "RILL_BACKEND=cpu|vulkan|opengl picks the backend (default: the best one here).\n";

const app_args::Usage kArgs{"rill-segment", kUsage};

}  // namespace

int main(int argc, char** argv) {
    segment_app::Settings s;
    s.diffusion.iterations = 200;
    s.diffusion.contrast = 0.1f;
    std::string input, dir = ".";
    int w = 1024, h = 768;
    bool low = false, high = false;
    app_args::Walker args(kArgs, argc, argv);
    while (args.next()) {
        if (args.is("--seed")) {
            int row = 0, col = 0;
            char rest = 0;
            const std::string text = args.value();
            if (std::sscanf(text.c_str(), "%d,%d%c", &row, &col, &rest) != 2) args.error("--seed takes ROW,COL, not '" + text + "'");
            s.seeds.push_back(rill::int2{row, col});
        } else if (args.is("--low")) {
            s.low = args.number(), low = true;
        } else if (args.is("--high")) {
            s.high = args.number(), high = true;
        } else if (args.is("--tolerance")) {
            s.tolerance = args.number();
        } else if (args.is("--iterations")) {
            s.diffusion.iterations = args.integer();
        } else if (args.is("--time-step")) {
            s.diffusion.time_step = args.number();
        } else if (args.is("--contrast")) {
            s.diffusion.contrast = args.number();
        } else if (args.is("--conductance")) {
            const std::string c = args.value();
            if (c != "exp" && c != "rational") args.error("--conductance takes exp or rational, not '" + c + "'");
            s.diffusion.conductance = c == "exp" ? rill::segment::Conductance::Exponential : rill::segment::Conductance::Rational;
        } else if (args.is("--max-passes")) {
            s.max_passes = args.integer();
        } else if (args.is("--size")) {
            args.size(w, h);
        } else if (args.is("--out-dir")) {
            dir = args.value();
        } else if (args.positional() && input.empty()) {
            input = args.arg();
        } else {
            args.unknown();
        }
    }
    if (low != high) app_args::usage_error(kArgs, "give --low and --high together (or --tolerance)");
    s.range_given = low;
    try {
        const segment_app::Image image = input.empty() ? segment_app::procedural_image(w, h) : app_images::read_png("rill-segment", input);
        const segment_app::Image grey = segment_app::grey(image);
        rill::Runtime rt;
        std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
        std::printf("image %dx%d: %d diffusion iterations (dt %g, K %g, %s conductance)\n", grey.width, grey.height, s.diffusion.iterations,
                    s.diffusion.time_step, s.diffusion.contrast,
                    s.diffusion.conductance == rill::segment::Conductance::Exponential ? "exponential" : "rational");
        const bool tty = isatty(fileno(stderr));
        const segment_app::Result r = segment_app::segment(rt, grey, s, [&](int done, int total) {
            if (tty) std::fprintf(stderr, "\rdiffusion %d / %d", done, total);
        });
        if (tty && s.diffusion.iterations > 25) std::fprintf(stderr, "\r%40s\r", "");
        const double pixels = double(grey.width) * grey.height;
        if (s.diffusion.iterations == 0)
            std::printf("diffusion: 0 iterations (the growth reads the input image)\n");
        else
            std::printf("diffusion %.1f ms (%.3f ms per iteration, %.0f MFLOPS at Brook's 32 flops per pixel and iteration; host wall time, first call includes compiling)\n",
                        r.diffusion_ms, r.diffusion_ms / s.diffusion.iterations,
                        32.0 * pixels * s.diffusion.iterations / (r.diffusion_ms * 1e3));
        std::int64_t region = 0;
        for (std::uint32_t m : r.mask) region += m;
        std::printf("growth into [%g, %g]: %d passes over %lld active tiles of 32x32, %s, %.1f ms; region %lld pixels (%.2f%%)\n", r.low,
                    r.high, r.growth.passes, static_cast<long long>(r.growth.tiles_processed),
                    r.growth.converged ? "converged" : "stopped by --max-passes", r.growth_ms, static_cast<long long>(region),
                    100.0 * region / pixels);
        app_images::write_png("rill-segment", dir + "/segment_input.png", grey);
        app_images::write_png("rill-segment", dir + "/segment_diffused.png", r.diffused);
        app_images::write_png("rill-segment", dir + "/segment_mask.png", segment_app::overlay(grey, r.mask));
        std::printf("wrote %s/segment_input.png, segment_diffused.png, segment_mask.png\n", dir.c_str());
    } catch (const rill::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
