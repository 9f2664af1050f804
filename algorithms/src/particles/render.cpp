// Rendering particles from the device on every backend, with no pixel
// touched by the host. Opaque: each live particle is splatted as a lit
// sphere into an image stream in two passes, the nearest depth per pixel
// first (an atomic minimum of the depth's bits: positive floats order as
// their bits), then the colour of the particle that owns that depth.
// Translucent (UberFlow's E3): the particles sorted front to back by their
// distance along the view; each writes its fragments (pixel, particle) in
// that order; a stable sort by pixel keeps that order within each pixel;
// every pixel then blends its fragments front to back ("under").
#include <rill/algorithms/radix_sort.h>
#include <rill/algorithms/scan.h>

#include <cmath>

#include "kernels.h"

namespace rill::particles::detail {

namespace {

constexpr int kWorkgroup = 256;
std::int64_t groups_for(std::int64_t n) { return (n + kWorkgroup - 1) / kWorkgroup; }
/// Nearer particles are drawn at most this many pixels wide (radius), so
/// that one particle in front of the lens cannot stall the pass.
constexpr float kMaxPixels = 48;

/// The camera as the kernels take it: (eye, focal length in pixels),
/// (right, width), (up, height), (forward, radius).
struct View {
    float4 eye, right, up, forward;
};

/// The view as the kernels take it (View's four float4s).
struct ViewArgs {
    Float4 eye, right, up, forward;
};

/// Calls f(pixel, dx, dy, bulge, z) for every pixel of particle p's disc
/// (dx, dy its place in the disc, from -1 to 1; bulge the sphere's height
/// there; z the centre's distance along the view) where p is live at `time`
/// and in front of the eye.
/// Particle p's disc on the picture: its centre's distance along the view
/// z, the disc's centre (sx, sy) in pixels and its radius pr in pixels
/// (from half a pixel to kMaxPixels).
struct Disc {
    Float z, sx, sy, pr;
};
Disc disc_of(const Var<Particle>& p, const ViewArgs& v) {
    Float3 q = p.position - v.eye.xyz();
    Float z = dot(q, v.forward.xyz());
    Float focal = v.eye.w();
    return {z, v.right.w() * 0.5f + focal * dot(q, v.right.xyz()) / z, v.up.w() * 0.5f - focal * dot(q, v.up.xyz()) / z,
            min(max(focal * v.forward.w() / z, 0.5f), kMaxPixels)};
}

template <class F>
void for_each_pixel(const Var<Particle>& p, const ViewArgs& v, const Float& time, F f) {
    const Disc d = disc_of(p, v);
    If(p.birth <= time && time < p.birth + p.life && d.z > v.forward.w() * 1.01f, [&] {
        Float width = v.right.w(), height = v.up.w();
        Int x0 = cast<std::int32_t>(max(floor(d.sx - d.pr), 0.0f)), x1 = cast<std::int32_t>(min(floor(d.sx + d.pr), width - 1.0f));
        Int y0 = cast<std::int32_t>(max(floor(d.sy - d.pr), 0.0f)), y1 = cast<std::int32_t>(min(floor(d.sy + d.pr), height - 1.0f));
        Int w = cast<std::int32_t>(width);
        For(y0, y1 + 1, [&](Int y) {
            For(x0, x1 + 1, [&](Int x) {
                Float dx = (cast<float>(x) + 0.5f - d.sx) / d.pr, dy = (cast<float>(y) + 0.5f - d.sy) / d.pr;
                Float d2 = dx * dx + dy * dy;
                If(d2 <= 1.0f, [&] { f(y * w + x, dx, dy, sqrt(1.0f - d2), d.z); });
            });
        });
    });
}

/// A sphere's colour lit from the upper left at its point (dx, dy, bulge).
Expr<float3> shade(const Var<Particle>& p, const Float& dx, const Float& dy, const Float& bulge) {
    Float3 n = Float3(dx, -dy, -bulge);
    Float light = max(dot(n, Float3(-0.45f, 0.6f, -0.66f)), 0.0f);
    return p.colour.xyz() * (0.18f + 0.82f * light);
}

void splat(const Stream<Particle>& items, const Stream<std::uint32_t>& depth, const Stream<float4>& image, const View& v, float time,
           int pass) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "particles_splat(items, depth, image, eye, right, up, forward, time, pass)",
        [](Array<Particle> items, Array<std::uint32_t> depth, Array<float4> image, Float4 eye, Float4 right, Float4 up, Float4 forward,
           Float time, Int pass) {
            Int t = global_id();
            If(t < items.size(), [&] {
                Var<Particle> p = items.load(t);
                Float r = forward.w();
                for_each_pixel(p, {eye, right, up, forward}, time, [&](const Int& pixel, const Float& dx, const Float& dy, const Float& bulge,
                                                                        const Float& z) {
                    UInt bits = float_bits_to_uint(z - r * bulge);
                    If(pass == 0, [&] { depth.atomic_min(pixel, bits); }).Else([&] {
                        If(depth.load(pixel) == bits, [&] { image.store(pixel, Float4(shade(p, dx, dy, bulge), 1.0f)); });
                    });
                });
            });
        });
    kernel(Groups{groups_for(items.size())}, items, depth, image, v.eye, v.right, v.up, v.forward, time, pass);
}

/// Translucent drawing's fragments: pass 0 counts[r] = the pixels of the
/// r-th nearest particle (order[r]); pass 1 writes them from ends[r] -
/// counts[r] on: pixels[f] = the pixel, owners[f] = the particle.
void fragments(const Stream<Particle>& items, const Stream<std::int32_t>& order, const Stream<std::uint32_t>& counts,
               const Stream<std::uint32_t>& ends, const Stream<std::uint32_t>& pixels, const Stream<std::int32_t>& owners, const View& v,
               float time, int pass) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "particles_fragments(items, order, counts, ends, pixels, owners, eye, right, up, forward, time, pass)",
        [](Array<Particle> items, Array<std::int32_t> order, Array<std::uint32_t> counts, Array<std::uint32_t> ends,
           Array<std::uint32_t> pixels, Array<std::int32_t> owners, Float4 eye, Float4 right, Float4 up, Float4 forward, Float time,
           Int pass) {
            Int r = global_id();
            If(r < items.size(), [&] {
                Int id = order.load(r);
                Var<Particle> p = items.load(id);
                Var<std::uint32_t> at = 0u;
                If(pass != 0, [&] { at = ends.load(r) - counts.load(r); });
                for_each_pixel(p, {eye, right, up, forward}, time, [&](const Int& pixel, const Float&, const Float&, const Float&,
                                                                        const Float&) {
                    If(pass != 0, [&] {
                        pixels.store(at, cast<std::uint32_t>(pixel));
                        owners.store(at, id);
                    });
                    at = at + 1u;
                });
                If(pass == 0, [&] { counts.store(r, at); });
            });
        });
    kernel(Groups{groups_for(items.size())}, items, order, counts, ends, pixels, owners, v.eye, v.right, v.up, v.forward, time, pass);
}

/// runs[2 k], runs[2 k + 1] = the start and end of pixel k's fragments in
/// the fragments sorted by pixel (the table is cleared per frame).
void pixel_runs(const Stream<std::uint32_t>& pixels, const Stream<std::int32_t>& runs) {
    static const auto kernel = group_kernel<kWorkgroup>("particles_pixel_runs(pixels, runs)",
                                                        [](Array<std::uint32_t> pixels, Array<std::int32_t> runs) {
        Int i = global_id();
        Int n = pixels.size();
        If(i < n, [&] {
            Int k = cast<std::int32_t>(pixels.load(i));
            If(i == 0 || pixels.load(i - 1) != cast<std::uint32_t>(k), [&] { runs.store(2 * k, i); });
            If(i == n - 1 || pixels.load(i + 1) != cast<std::uint32_t>(k), [&] { runs.store(2 * k + 1, i + 1); });
        });
    });
    kernel(Groups{groups_for(pixels.size())}, pixels, runs);
}

/// Each pixel blends its fragments front to back over the background:
/// colour += T alpha shade, T *= 1 - alpha, then colour + T background.
void blend(const Stream<Particle>& items, const Stream<std::int32_t>& owners, const Stream<std::int32_t>& runs, const Stream<float4>& image,
           const View& v, float4 background) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "particles_blend(items, owners, runs, image, eye, right, up, forward, background)",
        [](Array<Particle> items, Array<std::int32_t> owners, Array<std::int32_t> runs, Array<float4> image, Float4 eye, Float4 right,
           Float4 up, Float4 forward, Float4 background) {
            Int pixel = global_id();
            If(pixel < image.size(), [&] {
                Int w = cast<std::int32_t>(right.w());
                Float px = cast<float>(pixel % w) + 0.5f, py = cast<float>(pixel / w) + 0.5f;
                Int2 run = runs.load_vector<2>(pixel);
                Var<float3> colour = Float3(0.0f);
                Var<float> through = 1.0f;
                For(run.x(), run.y(), [&](Int f) {
                    Var<Particle> p = items.load(owners.load(f));
                    // The pixel's place in the disc, as for_each_pixel found it.
                    const Disc d = disc_of(p, {eye, right, up, forward});
                    Float dx = (px - d.sx) / d.pr, dy = (py - d.sy) / d.pr;
                    Float alpha = clamp(p.colour.w(), 0.0f, 1.0f);
                    colour = colour + shade(p, dx, dy, sqrt(max(1.0f - (dx * dx + dy * dy), 0.0f))) * (through * alpha);
                    through = through * (1.0f - alpha);
                });
                image.store(pixel, Float4(colour + background.xyz() * through, 1.0f - through + background.w() * through));
            });
        });
    kernel(Groups{groups_for(image.size())}, items, owners, runs, image, v.eye, v.right, v.up, v.forward, background);
}

/// keys[i] = particle i's distance along the view, ids[i] = i.
void view_depths(const Stream<Particle>& items, const View& v, const Stream<float>& keys, const Stream<std::int32_t>& ids) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "particles_view_depths(items, keys, ids, eye, forward)",
        [](Array<Particle> items, Array<float> keys, Array<std::int32_t> ids, Float4 eye, Float4 forward) {
            Int i = global_id();
            If(i < items.size(), [&] {
                keys.store(i, dot(items.load(i).position - eye.xyz(), forward.xyz()));
                ids.store(i, i);
            });
        });
    kernel(Groups{groups_for(items.size())}, items, keys, ids, float4{v.eye.x, v.eye.y, v.eye.z, 0.0f},
           float4{v.forward.x, v.forward.y, v.forward.z, 0.0f});
}

}  // namespace

void draw(const Stream<Particle>& items, float radius, float time, const Camera& camera, const Stream<float4>& image,
          const RenderOptions& options) {
    static const auto clear = group_kernel<kWorkgroup>(
        "particles_clear(depth, image, background)", [](Array<std::uint32_t> depth, Array<float4> image, Float4 background) {
            Int i = global_id();
            If(i < image.size(), [&] {
                depth.store(i, 0x7f800000u);  // +infinity's bits: farther than any particle
                image.store(i, background);
            });
        });
    const std::int64_t height = image.shape()[0], width = image.shape()[1];
    if (height == 0 || width == 0) return;
    if (!(camera.fov_y_degrees > 0 && camera.fov_y_degrees < 180))
        throw Error("rill::particles::Engine::render: Camera::fov_y_degrees is " + std::to_string(camera.fov_y_degrees) +
                    "; give an angle between 0 and 180 degrees");
    const auto [forward, right, up] = frame_of(camera);
    const float focal = static_cast<float>(0.5 * static_cast<double>(height) / std::tan(camera.fov_y_degrees * 3.14159265358979 / 360));
    const View v{{camera.eye.x, camera.eye.y, camera.eye.z, focal},
                 {right.x, right.y, right.z, static_cast<float>(width)},
                 {up.x, up.y, up.z, static_cast<float>(height)},
                 {forward.x, forward.y, forward.z, radius}};
    Runtime rt = Runtime::of(items);
    const std::int64_t n = items.size(), size = height * width;
    Stream<float4> pixels = image.reshape({size});
    const float4& b = options.background;
    if (!options.translucent) {
        Stream<std::uint32_t> depth = rt.scratch<std::uint32_t>({size});
        clear(Groups{groups_for(size)}, depth, pixels, float4{b.x, b.y, b.z, b.w});
        splat(items, depth, pixels, v, time, 0);
        splat(items, depth, pixels, v, time, 1);
        return;
    }
    Stream<float> keys = rt.scratch<float>({n});
    Stream<std::int32_t> order = rt.scratch<std::int32_t>({n});
    view_depths(items, v, keys, order);
    radix_sort(keys, order);
    Stream<std::uint32_t> counts = rt.scratch<std::uint32_t>({n}), ends = rt.scratch<std::uint32_t>({n});
    Stream<std::uint32_t> none = rt.scratch<std::uint32_t>({1});
    Stream<std::int32_t> no_owners = rt.scratch<std::int32_t>({1});
    fragments(items, order, counts, ends, none, no_owners, v, time, 0);
    inclusive_scan(counts, ends);
    const std::uint64_t total = ends.domain({n - 1}, {n}).download()[0];
    const std::uint64_t limit = rt.info().limits.max_buffer_bytes;
    if (total >= (std::uint64_t{1} << 31) || (limit > 0 && 4 * total > limit))
        throw Error("rill::particles::Engine::render: translucent drawing makes " + std::to_string(total) +
                    " fragments (pixels of particles), more than one stream of this device holds; draw a smaller image, "
                    "fewer or smaller particles, or opaque (RenderOptions::translucent = false)");
    Stream<std::int32_t> runs = rt.stream<std::int32_t>({2 * size});  // zero: every pixel's run empty
    Stream<std::int32_t> owners = no_owners;
    if (total > 0) {
        const auto f = static_cast<std::int64_t>(total);
        Stream<std::uint32_t> fragment_pixels = rt.scratch<std::uint32_t>({f});
        owners = rt.scratch<std::int32_t>({f});
        fragments(items, order, counts, ends, fragment_pixels, owners, v, time, 1);
        // Stable: each pixel's fragments stay in the particles' front-to-back order.
        radix_sort(fragment_pixels, owners, {.bits = std::max(1, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(size - 1))))});
        pixel_runs(fragment_pixels, runs);
    }
    blend(items, owners, runs, pixels, v, b);
}

}  // namespace rill::particles::detail

namespace rill::particles {

CameraFrame frame_of(const Camera& c) {
    auto sub = [](const float3& a, const float3& b) { return float3{a.x - b.x, a.y - b.y, a.z - b.z}; };
    auto cross = [](const float3& a, const float3& b) { return float3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; };
    auto unit = [](const float3& a) {
        const float l = std::sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
        if (!(l > 0) || !std::isfinite(l))
            throw Error("rill::particles::frame_of: the camera's eye, target and up give no view direction; "
                        "give an eye apart from the target and an up not along the view");
        return float3{a.x / l, a.y / l, a.z / l};
    };
    const float3 forward = unit(sub(c.target, c.eye)), right = unit(cross(forward, c.up));
    return {forward, right, cross(right, forward)};
}

}  // namespace rill::particles
