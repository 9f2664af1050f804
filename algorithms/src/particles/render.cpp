// Rendering particles from the device on every backend: each live particle
// is splatted as a lit sphere into an image stream in two passes, the
// nearest depth per pixel first (an atomic minimum of the depth's bits:
// positive floats order as their bits), then the colour of the particle
// that owns that depth. No pixel is touched by the host.
#include <rill/algorithms/radix_sort.h>

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

void splat(const Stream<Particle>& items, const Stream<std::int32_t>& order, bool ordered, const Stream<std::uint32_t>& depth,
           const Stream<float4>& image, const View& v, float time, int pass) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "particles_splat(items, order, depth, image, eye, right, up, forward, time, flags)",
        [](Array<Particle> items, Array<std::int32_t> order, Array<std::uint32_t> depth, Array<float4> image, Float4 eye, Float4 right,
           Float4 up, Float4 forward, Float time, Int2 flags) {
            Int t = global_id();
            If(t < items.size(), [&] {
                Var<Particle> p = items.load(select(flags.x() != 0, order.load(t), t));
                Float r = forward.w();
                Float3 q = p.position - eye.xyz();
                Float z = dot(q, forward.xyz());
                If(p.birth <= time && time < p.birth + p.life && z > r * 1.01f, [&] {
                    Float focal = eye.w(), width = right.w(), height = up.w();
                    Float sx = width * 0.5f + focal * dot(q, right.xyz()) / z;
                    Float sy = height * 0.5f - focal * dot(q, up.xyz()) / z;
                    Float pr = min(max(focal * r / z, 0.5f), kMaxPixels);
                    Int x0 = cast<std::int32_t>(max(floor(sx - pr), 0.0f)), x1 = cast<std::int32_t>(min(floor(sx + pr), width - 1.0f));
                    Int y0 = cast<std::int32_t>(max(floor(sy - pr), 0.0f)), y1 = cast<std::int32_t>(min(floor(sy + pr), height - 1.0f));
                    Int w = cast<std::int32_t>(width);
                    For(y0, y1 + 1, [&](Int y) {
                        For(x0, x1 + 1, [&](Int x) {
                            Float dx = (cast<float>(x) + 0.5f - sx) / pr, dy = (cast<float>(y) + 0.5f - sy) / pr;
                            Float d2 = dx * dx + dy * dy;
                            If(d2 <= 1.0f, [&] {
                                Float bulge = sqrt(1.0f - d2);
                                UInt bits = float_bits_to_uint(z - r * bulge);
                                Int pixel = y * w + x;
                                If(flags.y() == 0, [&] { depth.atomic_min(pixel, bits); }).Else([&] {
                                    If(depth.load(pixel) == bits, [&] {
                                        Float3 n = Float3(dx, -dy, -bulge);
                                        Float light = max(dot(n, Float3(-0.45f, 0.6f, -0.66f)), 0.0f);
                                        image.store(pixel, Float4(p.colour.xyz() * (0.18f + 0.82f * light), 1.0f));
                                    });
                                });
                            });
                        });
                    });
                });
            });
        });
    kernel(Groups{groups_for(items.size())}, items, order, depth, image, float4{v.eye.x, v.eye.y, v.eye.z, v.eye.w},
           float4{v.right.x, v.right.y, v.right.z, v.right.w}, float4{v.up.x, v.up.y, v.up.z, v.up.w},
           float4{v.forward.x, v.forward.y, v.forward.z, v.forward.w}, time, int2{ordered ? 1 : 0, pass});
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
    const std::int64_t n = items.size();
    Stream<std::uint32_t> depth = rt.scratch<std::uint32_t>({height * width});
    Stream<float4> pixels = image.reshape({height * width});
    const float4& b = options.background;
    clear(Groups{groups_for(height * width)}, depth, pixels, float4{b.x, b.y, b.z, b.w});
    Stream<std::int32_t> order = rt.scratch<std::int32_t>({options.front_to_back ? n : 1});
    if (options.front_to_back) {
        Stream<float> keys = rt.scratch<float>({n});
        view_depths(items, v, keys, order);
        radix_sort(keys, order);
    }
    splat(items, order, options.front_to_back, depth, pixels, v, time, 0);
    splat(items, order, options.front_to_back, depth, pixels, v, time, 1);
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
