// Depth-of-field blur by summed-area tables (GPU Gems 3 ch. 39.3.2): every
// pixel is averaged over a box whose size grows with its distance from the
// focal plane, at the same cost for every box size.
//
//   rill-dof-blur [--size WxH] [--focus 0..1] [--out-dir DIR]
//
// Draws a synthetic scene (a checkered floor receding to the horizon and
// discs at several depths; no input files), then writes DIR/dof_input.png,
// DIR/dof_depth.png and DIR/dof_blurred.png (focus on the middle distance by
// default). RILL_BACKEND picks the backend.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <rill/algorithms/summed_area.h>
#include <rill/rill.h>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace {

struct Scene {
    std::vector<rill::uint4> color;  // RGBA, 0..255 per channel
    std::vector<float> depth;        // 0 near .. 1 far
};

/// A floor of checkers below the horizon, sky above, and discs standing at depths 0.1 .. 0.9.
Scene draw(int w, int h) {
    Scene s{std::vector<rill::uint4>(static_cast<std::size_t>(w) * h), std::vector<float>(static_cast<std::size_t>(w) * h)};
    const float horizon = 0.35f * h;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            if (y < horizon) {
                s.color[i] = {90u, 140u, static_cast<std::uint32_t>(200 + 55 * y / horizon), 255u};
                s.depth[i] = 1.0f;
            } else {
                const float d = (horizon + 1.0f) / (y + 1.0f);  // perspective: 1 at the horizon, small near
                const float u = (x - 0.5f * w) / (y - horizon + 1.0f) * 8.0f, v = 40.0f / (y - horizon + 1.0f);
                const bool dark = (static_cast<int>(std::floor(u)) + static_cast<int>(std::floor(v * 4.0f))) & 1;
                s.color[i] = dark ? rill::uint4{40u, 40u, 50u, 255u} : rill::uint4{230u, 220u, 200u, 255u};
                s.depth[i] = d;
            }
        }
    for (int k = 0; k < 5; ++k) {
        const float depth = 0.1f + 0.2f * k;
        const float cx = w * (0.15f + 0.175f * k), cy = horizon + (h - horizon) * (1.0f - depth) * 0.8f;
        const float radius = 0.12f * h * (1.1f - depth);
        const rill::uint4 tint[5] = {{220u, 60u, 50u, 255u}, {240u, 170u, 40u, 255u}, {60u, 180u, 80u, 255u},
                                     {50u, 110u, 220u, 255u}, {160u, 70u, 200u, 255u}};
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const float dx = x - cx, dy = y - cy;
                const std::size_t i = static_cast<std::size_t>(y) * w + x;
                if (dx * dx + dy * dy < radius * radius && depth < s.depth[i]) {
                    const bool ring = static_cast<int>(std::sqrt(dx * dx + dy * dy) / radius * 6.0f) % 2 == 0;
                    s.color[i] = ring ? tint[k] : rill::uint4{250u, 250u, 250u, 255u};
                    s.depth[i] = depth;
                }
            }
    }
    return s;
}

void write_png(const std::string& path, int w, int h, const std::vector<unsigned char>& rgb) {
    if (!stbi_write_png(path.c_str(), w, h, 3, rgb.data(), w * 3)) {
        std::fprintf(stderr, "rill-dof-blur: cannot write '%s'; check that the directory exists and is writable\n", path.c_str());
        std::exit(1);
    }
    std::printf("wrote %s\n", path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    int w = 1024, h = 640;
    float focus = 0.5f;
    std::string dir = ".";
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        if (arg == "--size" && a + 1 < argc && std::sscanf(argv[a + 1], "%dx%d", &w, &h) == 2 && w > 0 && h > 0) {
            ++a;
        } else if (arg == "--focus" && a + 1 < argc) {
            focus = std::strtof(argv[++a], nullptr);
        } else if (arg == "--out-dir" && a + 1 < argc) {
            dir = argv[++a];
        } else {
            std::fprintf(stderr, "usage: %s [--size WxH] [--focus 0..1] [--out-dir DIR]\n", argv[0]);
            return 2;
        }
    }
    rill::Runtime rt;
    std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
    const Scene scene = draw(w, h);
    const std::int64_t H = h, W = w;
    auto image = rt.stream<rill::uint4>({H, W}, scene.color);
    auto depth = rt.stream<float>({H, W}, scene.depth);
    // The circle of confusion: the box half-width grows with the distance from the focal plane.
    auto radius = rt.stream<std::int32_t>({H, W});
    const float max_radius = 0.02f * static_cast<float>(w);
    auto confusion = rill::kernel("circle_of_confusion(depth, focus, max_radius, radius)",
                                  [](rill::In<float> depth, rill::Float focus, rill::Float max_radius, rill::Out<std::int32_t> radius) {
                                      radius = rill::cast<std::int32_t>(rill::abs(depth - focus) * 2.0f * max_radius + 0.5f);
                                  });
    confusion(depth, focus, max_radius, radius);
    auto sat = rt.stream<rill::uint4>({H, W});
    auto blurred = rt.stream<rill::float4>({H, W});
    rill::summed_area_table(image, sat);
    rill::box_filter(sat, radius, blurred);

    const std::vector<rill::float4> out = blurred.download();
    std::vector<unsigned char> rgb_in(3 * out.size()), rgb_out(3 * out.size()), rgb_depth(3 * out.size());
    for (std::size_t i = 0; i < out.size(); ++i)
        for (int c = 0; c < 3; ++c) {
            rgb_in[3 * i + c] = static_cast<unsigned char>(scene.color[i][c]);
            rgb_out[3 * i + c] = static_cast<unsigned char>(std::lround(std::fmin(std::fmax(out[i][c], 0.0f), 255.0f)));
            rgb_depth[3 * i + c] = static_cast<unsigned char>(std::lround(255.0f * scene.depth[i]));
        }
    write_png(dir + "/dof_input.png", w, h, rgb_in);
    write_png(dir + "/dof_depth.png", w, h, rgb_depth);
    write_png(dir + "/dof_blurred.png", w, h, rgb_out);
    return 0;
}
