#include "particles_app.h"

#include <rill/algorithms/radix_sort.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace particles_app {

namespace {

using rill::float3;
using rill::float4;
using rill::particles::Particle;
namespace P = rill::particles;

constexpr double kPi = 3.14159265358979323846;

/// The radius at which n particles fill `share` of a box of `volume`.
float radius_for(std::int64_t n, double volume, double share) {
    return static_cast<float>(std::cbrt(3 * share * volume / (4 * kPi * static_cast<double>(n))));
}

/// Steps per 1/60 s that keep dt below 0.25 / sqrt(stiffness).
int substeps_for(float stiffness) { return std::max(1, static_cast<int>(std::ceil((1.0 / 60) / (0.25 / std::sqrt(stiffness))))); }

/// Rolling hills over the box's x and z, between about y0 - 0.15 and y0 + 0.15.
rill::Stream<float> hills(rill::Runtime& rt, int size, float y0) {
    std::vector<float> h(static_cast<std::size_t>(size) * size);
    for (int r = 0; r < size; ++r)
        for (int c = 0; c < size; ++c) {
            const double x = 2.0 * c / (size - 1) - 1, z = 2.0 * r / (size - 1) - 1;
            h[static_cast<std::size_t>(r) * size + c] =
                static_cast<float>(y0 + 0.1 * std::sin(3.1 * x) * std::cos(2.3 * z) + 0.05 * std::cos(5.0 * x * z) + 0.12 * (x * x + z * z));
        }
    return rt.stream<float>({size, size}, h);
}

/// A hemispherical bowl (the lower half of a shell of radius R about c, t
/// thick) as signed distances on an n^3 grid over the box [-1, 1]^3.
rill::Stream<float> bowl(rill::Runtime& rt, int n, float3 c, float radius, float thickness) {
    std::vector<float> d(static_cast<std::size_t>(n) * n * n);
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                const double x = 2.0 * i / (n - 1) - 1 - c.x, y = 2.0 * j / (n - 1) - 1 - c.y, z = 2.0 * k / (n - 1) - 1 - c.z;
                const double shell = std::fabs(std::sqrt(x * x + y * y + z * z) - radius) - thickness / 2;
                // Above the rim the distance is to the rim's circle edge.
                const double rim = std::hypot(std::hypot(x, z) - radius, y) - thickness / 2;
                d[(static_cast<std::size_t>(k) * n + j) * n + i] = static_cast<float>(y < 0 ? shell : rim);
            }
    return rt.stream<float>({n, n, n}, d);
}

/// n particles on a jittered lattice filling [lo, hi] from its low corner.
std::vector<Particle> block(std::int64_t n, float3 lo, float3 hi, float radius, std::uint32_t seed) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> u(-1, 1);
    const float step = 2.02f * radius;
    const int nx = std::max(1, static_cast<int>((hi.x - lo.x) / step)), nz = std::max(1, static_cast<int>((hi.z - lo.z) / step));
    std::vector<Particle> ps(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t x = i % nx, z = (i / nx) % nz, y = i / (std::int64_t{nx} * nz);
        Particle& p = ps[static_cast<std::size_t>(i)];
        p.position = {lo.x + radius + step * float(x) + 0.02f * radius * u(g), lo.y + radius + step * float(y),
                      lo.z + radius + step * float(z) + 0.02f * radius * u(g)};
        p.life = 1e30f;
        const float t = std::clamp((p.position.y - lo.y) / (hi.y - lo.y), 0.0f, 1.0f);
        p.colour = {0.1f + 0.2f * t, 0.35f + 0.4f * t, 0.9f, 1};
    }
    return ps;
}

/// UberFlow's scenes: n particles spread over a disc above the ground,
/// thrown up and out, each living 4 s (then reborn by the emitter).
std::vector<Particle> spray(std::int64_t n, std::uint32_t seed, float opacity) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> u(0, 1);
    std::vector<Particle> ps(static_cast<std::size_t>(n));
    for (Particle& p : ps) {
        const float a = 6.2831853f * u(g), r = 0.3f * std::sqrt(u(g));
        p.position = {r * std::cos(a), -0.2f + 0.6f * u(g), r * std::sin(a)};
        p.velocity = {2 * r * std::cos(a), 1.5f + 2 * u(g), 2 * r * std::sin(a)};
        p.life = 4 * u(g);
        p.colour = {0.95f, 0.45f + 0.4f * u(g), 0.15f, opacity};
    }
    return ps;
}

}  // namespace

const std::vector<std::string>& scene_names() {
    static const std::vector<std::string> names{"fountain", "bowl", "dam", "e1", "e2", "e3", "e4"};
    return names;
}

Scene make_scene(rill::Runtime& rt, const std::string& name, std::int64_t n) {
    if (n < 1) throw rill::Error("rill-particles: " + std::to_string(n) + " particles; give at least 1");
    const P::Box cube{{-1, -1, -1}, {1, 1, 1}};
    const P::Camera side{.eye = {0.2f, 0.9f, 3.6f}, .target = {0, -0.25f, 0}, .up = {0, 1, 0}, .fov_y_degrees = 40};
    if (name == "fountain") {
        P::Options o{.box = cube, .radius = radius_for(n, 8, 0.02), .stiffness = 4e4f, .damping = 30, .restitution = 0.3f};
        P::Engine e(rt, n, o);
        e.set_height_field(hills(rt, 128, -0.75f));
        // Emitted particles must leave the emitter's cube faster than they
        // fill it (rate * (2 r)^3 < its face * speed), or they start overlapping.
        e.add_emitter({.position = {0, -0.5f, 0}, .position_jitter = 0.15f, .velocity = {0, 3.5f, 0}, .velocity_jitter = 0.5f,
                       .rate = static_cast<float>(n) / 3, .life = 3, .colour = {0.25f, 0.55f, 1.0f, 1}});
        return {std::move(e), side, {}, substeps_for(o.stiffness), "a fountain over rolling hills (a height field)"};
    }
    if (name == "bowl") {
        P::Options o{.box = cube, .radius = radius_for(n, 8, 0.03), .stiffness = 6e4f, .damping = 40, .restitution = 0.2f};
        P::Engine e(rt, n, o);
        e.set_distance_field(bowl(rt, 64, {0, 0.1f, 0}, 0.8f, 0.06f));
        e.add_emitter({.position = {0.15f, 0.75f, 0}, .position_jitter = 0.2f, .velocity = {0, -2, 0}, .velocity_jitter = 0.1f,
                       .rate = static_cast<float>(n) / 3, .life = 1e30f, .colour = {0.95f, 0.6f, 0.2f, 1}});
        return {std::move(e), side, {}, substeps_for(o.stiffness), "particles poured into a bowl (a signed distance field)"};
    }
    if (name == "dam") {
        P::Options o{.box = cube, .radius = radius_for(n, 1.6, 0.5), .stiffness = 1e5f, .damping = 40, .restitution = 0.1f};
        P::Engine e(rt.stream<Particle>({n}, block(n, {-1, -1, -1}, {-0.2f, 1, 1}, o.radius, 7)), o);
        return {std::move(e), side, {}, substeps_for(o.stiffness), "a dam break: a block of particles let go in a box"};
    }
    if (name.size() == 2 && name[0] == 'e' && name[1] >= '1' && name[1] <= '4') {
        // UberFlow (section 5): collisionless motion (E1), collisions with a
        // height field (E2), collisionless with front-to-back sorting and
        // rendering (E3), full inter-particle collisions (E4).
        const int effect = name[1] - '0';
        P::Options o{.box = cube, .radius = radius_for(n, 8, 0.02), .restitution = 0.4f, .walls = true};
        o.response = effect == 4 ? P::Response::SpringDamper : P::Response::None;
        o.stiffness = 4e4f;
        // E3's particles are drawn semi-transparent: a third opaque each.
        const float opacity = effect == 3 ? 0.35f : 1.0f;
        P::Engine e(rt.stream<Particle>({n}, spray(n, 11, opacity)), o);
        if (effect == 2) e.set_height_field(hills(rt, 128, -0.75f));
        e.add_emitter({.position = {0, -0.2f, 0}, .position_jitter = 0.1f, .velocity = {0, 3, 0}, .velocity_jitter = 1.2f,
                       .rate = static_cast<float>(n) / 4, .life = 4, .colour = {0.95f, 0.6f, 0.15f, opacity}});
        static const char* what[] = {"", "UberFlow E1: collisionless motion", "UberFlow E2: collisions with a height field",
                                     "UberFlow E3: collisionless, drawn semi-transparent front to back",
                                     "UberFlow E4: full inter-particle collisions"};
        return {std::move(e), side, {.translucent = effect == 3}, effect == 4 ? substeps_for(o.stiffness) : 1, what[effect]};
    }
    std::string known;
    for (const std::string& s : scene_names()) known += (known.empty() ? "" : ", ") + s;
    throw rill::Error("rill-particles: no scene '" + name + "'; give one of " + known);
}

ScreenPoints screen_points(rill::Runtime& rt, Scene& scene, int width, int height) {
    using namespace rill;
    static const auto project = kernel(
        "particles_screen_points(items, eye, right, up, forward, time, ndc, colour, depth, id)",
        [](In<Particle> p, Float4 eye, Float4 right, Float4 up, Float4 forward, Float time, Out<float2> ndc, Out<float4> colour,
           Out<float> depth, Out<std::int32_t> id) {
            Float3 q = p.position - eye.xyz();
            Float z = dot(q, forward.xyz());
            Bool shown = p.birth <= time && time < p.birth + p.life && z > 1e-6f;
            // eye.w: the focal length over half the height; right.w: the aspect (height / width).
            Float2 at = Float2(eye.w() * right.w() * dot(q, right.xyz()) / z, eye.w() * dot(q, up.xyz()) / z);
            ndc = select(shown, at, Float2(4.0f, 4.0f));
            colour = p.colour;
            depth = select(shown, z, std::numeric_limits<float>::infinity());
            id = indexof(p);
        });
    static const auto reorder = group_kernel<256>(
        "particles_screen_points_order(order, ndc, colours, sorted_ndc, sorted_colours)",
        [](Array<std::int32_t> order, Array<float2> ndc, Array<float4> colours, Array<float2> sorted_ndc, Array<float4> sorted_colours) {
            Int i = global_id();
            If(i < order.size(), [&] {
                Int from = order.load(i);
                sorted_ndc.store(i, ndc.load(from));
                sorted_colours.store(i, colours.load(from));
            });
        });
    const particles::Camera& c = scene.camera;
    const auto [f, r, u] = particles::frame_of(c);
    const float focal = static_cast<float>(1 / std::tan(c.fov_y_degrees * kPi / 360));
    const Stream<Particle>& items = scene.engine.particles();
    const std::int64_t n = items.size();
    ScreenPoints out{rt.stream<float2>({n}), rt.stream<float4>({n}), rt.stream<float>({n})};
    Stream<std::int32_t> order = rt.stream<std::int32_t>({n});
    project(items, float4{c.eye.x, c.eye.y, c.eye.z, focal}, float4{r.x, r.y, r.z, static_cast<float>(height) / width},
            float4{u.x, u.y, u.z, 0}, float4{f.x, f.y, f.z, 0}, static_cast<float>(scene.engine.time()), out.ndc, out.colours,
            out.depths, order);
    if (scene.render.translucent) {
        radix_sort(out.depths, order);
        ScreenPoints sorted{rt.stream<float2>({n}), rt.stream<float4>({n}), out.depths};
        reorder(Groups{(n + 255) / 256}, order, out.ndc, out.colours, sorted.ndc, sorted.colours);
        return sorted;
    }
    return out;
}

app_images::Image to_image(const rill::Stream<rill::float4>& frame) {
    const int h = static_cast<int>(frame.shape()[0]), w = static_cast<int>(frame.shape()[1]);
    const std::vector<float4> px = frame.download();
    app_images::Image img{3, w, h, std::vector<float>(3 * px.size())};
    const std::size_t plane = px.size();
    for (std::size_t i = 0; i < plane; ++i) {
        // Linear to display (gamma 2.2).
        img.pixels[i] = std::pow(std::max(px[i].x, 0.0f), 1 / 2.2f);
        img.pixels[plane + i] = std::pow(std::max(px[i].y, 0.0f), 1 / 2.2f);
        img.pixels[2 * plane + i] = std::pow(std::max(px[i].z, 0.0f), 1 / 2.2f);
    }
    return img;
}

}  // namespace particles_app
