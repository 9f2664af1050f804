// The path tracer of raytrace_app.h: every stage a DSL kernel over a stream
// of rays, every ray traced by rill::bvh.
#include "raytrace_app.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "stopwatch.h"

namespace raytrace_app {

using namespace rill;

namespace {

constexpr float kAlbedo = 0.72f;
const float3 kSky{0.30f, 0.40f, 0.62f};
const float3 kLightColour{1.0f, 0.9f, 0.75f};

/// A well-mixed 32-bit hash (Wellons' lowbias32), for per-pixel random numbers.
Expr<std::uint32_t> mix(const Expr<std::uint32_t>& v) {
    UInt x = v;
    x = x ^ (x >> 16u);
    x = x * 0x7feb352du;
    x = x ^ (x >> 15u);
    x = x * 0x846ca68bu;
    x = x ^ (x >> 16u);
    return x;
}

/// Uniform in [0, 1) from a hash of the pixel, the sample and a stream id.
Expr<float> uniform(const Expr<std::int32_t>& pixel, const Expr<float>& sample, std::uint32_t stream) {
    Expr<std::uint32_t> h = mix(cast<std::uint32_t>(pixel) * 0x9e3779b9u + cast<std::uint32_t>(sample) * 0x85ebca6bu + stream);
    return cast<float>(h >> 8u) * (1.0f / 16777216.0f);
}

/// Where the light is: a square above the scene, facing down.
struct Light {
    float3 corner, edge_u, edge_v;
    float3 emission;
};
Light light_for(const app_meshes::Mesh& mesh) {
    float3 lo, hi;
    app_meshes::bounds(mesh, lo, hi);
    if (lo.x > hi.x) lo = {-1, -1, -1}, hi = {1, 1, 1};
    const float3 c{(lo.x + hi.x) / 2, (lo.y + hi.y) / 2, (lo.z + hi.z) / 2};
    const float extent = std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z, 1e-6f});
    const float size = 0.3f * extent, height = hi.y + 0.6f * extent;
    const float d = height - c.y, area = size * size;
    const float power = 1.6f * std::numbers::pi_v<float> * d * d / area;  // about 1.6 of white at the centre below, before shadows
    // Placed towards the camera's side so that shadows fall behind the objects.
    return Light{{c.x - size / 2 + 0.15f * extent, height, c.z - size / 2 + 0.25f * extent}, {size, 0, 0}, {0, 0, size},
                 {kLightColour.x * power, kLightColour.y * power, kLightColour.z * power}};
}

/// How far secondary rays start off the surface: a little above rounding at the scene's scale.
float offset_for(const app_meshes::Mesh& mesh) {
    float3 lo, hi;
    app_meshes::bounds(mesh, lo, hi);
    return lo.x > hi.x ? 1e-4f : 2e-5f * std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z, 1e-3f});
}

/// How a mesh's surface looks: per-vertex normals (style.x = 1: smooth
/// shading) and per-face albedos (style.y = 1), each a one-element stream
/// when the mesh has none.
struct Look {
    Stream<float4> normals, colours;
    float4 style;
};

Look look_of(Runtime& rt, const app_meshes::Mesh& mesh) {
    const bool smooth = !mesh.normals.empty() && mesh.normals.size() == mesh.vertices.size();
    const bool coloured = !mesh.colours.empty() && mesh.colours.size() == mesh.faces.size();
    return Look{smooth ? rt.stream<float4>({std::int64_t(mesh.normals.size())}, mesh.normals) : rt.stream<float4>({1}),
                coloured ? rt.stream<float4>({std::int64_t(mesh.colours.size())}, mesh.colours) : rt.stream<float4>({1}),
                float4{smooth ? 1.0f : 0.0f, coloured ? 1.0f : 0.0f, 0, 0}};
}

/// The surface's normal at the hit (barycentric u, v; the vertex normals'
/// blend where the look is smooth), turned against the ray.
Expr<float3> facing_normal(const Gather<int4, 1>& faces, const Gather<float4, 1>& vertices, const Gather<float4, 1>& normals,
                           const Float4& style, const Expr<std::int32_t>& face, const Expr<float4>& hit, const Expr<float3>& direction) {
    Int4 f = faces[face];
    Float3 a = vertices[f.x()].xyz(), b = vertices[f.y()].xyz(), c = vertices[f.z()].xyz();
    Float3 n = normalize(cross(b - a, c - a));
    Var<float3> shading = n;
    If(style.x() > 0.0f, [&] {
        Float3 blend = normals[f.x()].xyz() * (1.0f - hit.y() - hit.z()) + normals[f.y()].xyz() * hit.y() + normals[f.z()].xyz() * hit.z();
        shading = select(dot(blend, blend) > 0.0f, normalize(blend) * sign(dot(blend, n)), n);
    });
    return select(dot(n, direction) > 0.0f, -shading, Expr<float3>(shading));
}

/// The face's albedo.
Expr<float3> albedo_of(const Gather<float4, 1>& colours, const Float4& style, const Expr<std::int32_t>& face) {
    return select(style.y() > 0.0f, colours[select(style.y() > 0.0f, face, Int(0))].xyz(), Float3(kAlbedo));
}

/// A shadow ray from x towards a random point of the light, and the light
/// that arrives at x along it (if nothing is in the way) times albedo / pi.
struct ShadowRay {
    Expr<float4> origin, direction, light;
};
ShadowRay towards_light(const Expr<float3>& x, const Expr<float3>& n, const Expr<float>& eps, const Expr<float>& r1,
                        const Expr<float>& r2, const Float4& corner, const Float4& edge_u, const Float4& edge_v,
                        const Float4& emission, const Expr<float3>& albedo) {
    Float3 y = corner.xyz() + r1 * edge_u.xyz() + r2 * edge_v.xyz();
    Float3 to = y - x;
    Float dist2 = dot(to, to);
    Float3 wi = to * inversesqrt(dist2);
    Float3 light_n = normalize(cross(edge_u.xyz(), edge_v.xyz()));
    Float area = length(cross(edge_u.xyz(), edge_v.xyz()));
    Float g = max(dot(n, wi), 0.0f) * abs(dot(light_n, wi)) * area / dist2;
    Float3 l = emission.xyz() * albedo * (g / std::numbers::pi_v<float>);
    return ShadowRay{Float4(x + n * eps, 0.0f), Float4(to, 0.999f), Float4(l, 0.0f)};
}

/// A cosine-distributed direction about n (Duff et al. 2017's basis).
Expr<float3> cosine_direction(const Expr<float3>& n, const Expr<float>& r1, const Expr<float>& r2) {
    Float sign = select(n.z() >= 0.0f, 1.0f, -1.0f);
    Float a = -1.0f / (sign + n.z());
    Float b = n.x() * n.y() * a;
    Float3 t1(1.0f + sign * n.x() * n.x() * a, sign * b, -sign * n.x());
    Float3 t2(b, sign + n.y() * n.y() * a, -n.y());
    Float phi = 2.0f * std::numbers::pi_v<float> * r1;
    Float s = sqrt(r2);
    return t1 * (cos(phi) * s) + t2 * (sin(phi) * s) + n * sqrt(max(1.0f - r2, 0.0f));
}

const float4 kNoRay{0, 0, 0, 1};     // origin: t_min = 1
const float4 kNoRayDir{0, 0, 1, 0};  // direction: t_max = 0, so [t_min, t_max] is empty

/// After the primary hits: the sky where they missed, a shadow ray and a bounce where they hit.
/// albedo: the hit surface's, for the bounce's light.
void shade_primary(const Stream<float4>& hits, const Stream<float4>& o, const Stream<float4>& d, const Stream<int4>& faces,
                   const Stream<float4>& vertices, const Look& look, const Light& light, float eps, int sample,
                   const Stream<float4>& radiance, const Stream<float4>& shadow_o, const Stream<float4>& shadow_d,
                   const Stream<float4>& direct, const Stream<float4>& bounce_o, const Stream<float4>& bounce_d,
                   const Stream<float4>& albedo) {
    static const auto k = kernel(
        "raytrace_shade_primary(hit, o, d, faces, vertices, normals, colours, style, corner, edge_u, edge_v, emission, sky, "
        "radiance, shadow_o, shadow_d, direct, bounce_o, bounce_d, albedo)",
        [](In<float4> hit, In<float4> o, In<float4> d, Gather<int4, 1> faces, Gather<float4, 1> vertices, Gather<float4, 1> normals,
           Gather<float4, 1> colours, Float4 style, Float4 corner, Float4 edge_u, Float4 edge_v, Float4 emission, Float4 sky,
           Out<float4> radiance, Out<float4> shadow_o, Out<float4> shadow_d, Out<float4> direct, Out<float4> bounce_o,
           Out<float4> bounce_d, Out<float4> albedo) {
            Int pixel = indexof<1>(hit);
            Int face = float_bits_to_int(hit.w());
            Float sample = sky.w(), eps = emission.w();
            If(face < 0, [&] {
                radiance = Float4(sky.xyz(), 0.0f);
                shadow_o = Float4(kNoRay.x, kNoRay.y, kNoRay.z, kNoRay.w);
                shadow_d = Float4(kNoRayDir.x, kNoRayDir.y, kNoRayDir.z, kNoRayDir.w);
                direct = Float4(0.0f);
                bounce_o = Float4(kNoRay.x, kNoRay.y, kNoRay.z, kNoRay.w);
                bounce_d = Float4(kNoRayDir.x, kNoRayDir.y, kNoRayDir.z, kNoRayDir.w);
                albedo = Float4(0.0f);
            }).Else([&] {
                Float3 x = o.xyz() + d.xyz() * hit.x();
                Float3 n = facing_normal(faces, vertices, normals, style, face, hit, d.xyz());
                Float3 rho = albedo_of(colours, style, face);
                ShadowRay s = towards_light(x, n, eps, uniform(pixel, sample, 1), uniform(pixel, sample, 2), corner, edge_u,
                                            edge_v, emission, rho);
                albedo = Float4(rho, 0.0f);
                radiance = Float4(0.0f);
                shadow_o = s.origin;
                shadow_d = s.direction;
                direct = s.light;
                bounce_o = Float4(x + n * eps, 0.0f);
                bounce_d = Float4(cosine_direction(n, uniform(pixel, sample, 3), uniform(pixel, sample, 4)), 1e30f);
            });
        });
    k(hits, o, d, faces, vertices, look.normals, look.colours, look.style, float4{light.corner.x, light.corner.y, light.corner.z, 0},
      float4{light.edge_u.x, light.edge_u.y, light.edge_u.z, 0}, float4{light.edge_v.x, light.edge_v.y, light.edge_v.z, 0},
      float4{light.emission.x, light.emission.y, light.emission.z, eps}, float4{kSky.x, kSky.y, kSky.z, float(sample)}, radiance,
      shadow_o, shadow_d, direct, bounce_o, bounce_d, albedo);
}

/// After the bounce hits: the sky (times the first surface's albedo) where
/// they missed, a second shadow ray where they hit (its surface grey).
void shade_bounce(const Stream<float4>& hits, const Stream<float4>& o, const Stream<float4>& d, const Stream<int4>& faces,
                  const Stream<float4>& vertices, const Look& look, const Stream<float4>& albedo, const Light& light, float eps,
                  int sample, const Stream<float4>& radiance, const Stream<float4>& shadow_o, const Stream<float4>& shadow_d,
                  const Stream<float4>& direct) {
    static const auto k = kernel(
        "raytrace_shade_bounce(hit, o, d, faces, vertices, normals, albedo, style, corner, edge_u, edge_v, emission, sky, "
        "radiance, shadow_o, shadow_d, direct)",
        [](In<float4> hit, In<float4> o, In<float4> d, Gather<int4, 1> faces, Gather<float4, 1> vertices, Gather<float4, 1> normals,
           In<float4> albedo, Float4 style, Float4 corner, Float4 edge_u, Float4 edge_v, Float4 emission, Float4 sky,
           Out<float4> radiance, Out<float4> shadow_o, Out<float4> shadow_d, Out<float4> direct) {
            Int pixel = indexof<1>(hit);
            Int face = float_bits_to_int(hit.w());
            Float sample = sky.w(), eps = emission.w();
            Bool bounced = d.w() > 0.0f;  // a bounce was shot (the primary ray hit)
            shadow_o = Float4(kNoRay.x, kNoRay.y, kNoRay.z, kNoRay.w);
            shadow_d = Float4(kNoRayDir.x, kNoRayDir.y, kNoRayDir.z, kNoRayDir.w);
            direct = Float4(0.0f);
            radiance = Float4(0.0f);
            If(bounced && face < 0, [&] { radiance = Float4(sky.xyz() * albedo.xyz(), 0.0f); });
            If(bounced && face >= 0, [&] {
                Float3 x = o.xyz() + d.xyz() * hit.x();
                Float3 n = facing_normal(faces, vertices, normals, style, face, hit, d.xyz());
                ShadowRay s = towards_light(x, n, eps, uniform(pixel, sample, 5), uniform(pixel, sample, 6), corner, edge_u,
                                            edge_v, emission, Float3(kAlbedo));
                shadow_o = s.origin;
                shadow_d = s.direction;
                direct = Float4(s.light.xyz() * albedo.xyz(), 0.0f);
            });
        });
    k(hits, o, d, faces, vertices, look.normals, albedo, look.style, float4{light.corner.x, light.corner.y, light.corner.z, 0},
      float4{light.edge_u.x, light.edge_u.y, light.edge_u.z, 0}, float4{light.edge_v.x, light.edge_v.y, light.edge_v.z, 0},
      float4{light.emission.x, light.emission.y, light.emission.z, eps}, float4{kSky.x, kSky.y, kSky.z, float(sample)}, radiance,
      shadow_o, shadow_d, direct);
}

/// sum += radiance + the direct light of every shadow ray that got through.
void accumulate(const Stream<float4>& sum, const Stream<float4>& r1, const Stream<float4>& d1,
                const Stream<std::uint32_t>& occluded1, const Stream<float4>& r2, const Stream<float4>& d2,
                const Stream<std::uint32_t>& occluded2) {
    static const auto k = kernel("raytrace_accumulate(sum, r1, d1, occluded1, r2, d2, occluded2, out)",
                                 [](In<float4> sum, In<float4> r1, In<float4> d1, In<std::uint32_t> occluded1, In<float4> r2,
                                    In<float4> d2, In<std::uint32_t> occluded2, Out<float4> out) {
        Float4 s = sum + r1 + r2;
        s = s + select(occluded1 == 0u, Float4(d1), Float4(0.0f));
        s = s + select(occluded2 == 0u, Float4(d2), Float4(0.0f));
        out = s;
    });
    k(sum, r1, d1, occluded1, r2, d2, occluded2, sum);
}

using app_time::Clock;
using app_time::ms_since;

}  // namespace

float3 sky() { return kSky; }

Camera frame(const app_meshes::Mesh& mesh, float distance_scale) {
    float3 lo, hi;
    app_meshes::bounds(mesh, lo, hi);
    if (lo.x > hi.x) return Camera{};
    const float3 c{(lo.x + hi.x) / 2, (lo.y + hi.y) / 2, (lo.z + hi.z) / 2};
    const float r = 0.5f * std::sqrt((hi.x - lo.x) * (hi.x - lo.x) + (hi.y - lo.y) * (hi.y - lo.y) + (hi.z - lo.z) * (hi.z - lo.z));
    const float dist = std::max(r, 1e-6f) / std::tan(0.5f * 45.0f * std::numbers::pi_v<float> / 180.0f) * 1.1f * distance_scale;
    return Camera{{c.x, c.y + 0.5f * dist, c.z + 0.85f * dist}, c, 45.0f};
}

void camera_rays(const Settings& s, int sample, const Stream<float4>& origins, const Stream<float4>& directions) {
    static const auto k = kernel(
        "raytrace_camera(eye, right, up, forward, view, o, d)",
        [](Float4 eye, Float4 right, Float4 up, Float4 forward, Float4 view, Out<float4> o, Out<float4> d) {
            Int pixel = indexof<1>(o);
            Int width = cast<std::int32_t>(view.x());
            Float x = cast<float>(pixel % width) + select(view.w() > 0.0f, uniform(pixel, view.w(), 7), Expr<float>(0.5f));
            Float y = cast<float>(pixel / width) + select(view.w() > 0.0f, uniform(pixel, view.w(), 8), Expr<float>(0.5f));
            Float px = (2.0f * x / view.x() - 1.0f) * view.z() * (view.x() / view.y());
            Float py = (1.0f - 2.0f * y / view.y()) * view.z();
            o = Float4(eye.xyz(), 0.0f);
            d = Float4(forward.xyz() + px * right.xyz() + py * up.xyz(), 1e30f);
        });
    const Camera& c = s.camera;
    float3 f{c.target.x - c.eye.x, c.target.y - c.eye.y, c.target.z - c.eye.z};
    auto normalized = [](float3 v) {
        const float l = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
        return l > 0 ? float3{v.x / l, v.y / l, v.z / l} : float3{0, 0, -1};
    };
    auto cross3 = [](float3 a, float3 b) { return float3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; };
    f = normalized(f);
    float3 r = cross3(f, {0, 1, 0});
    if (r.x == 0 && r.y == 0 && r.z == 0) r = {1, 0, 0};  // looking straight up or down
    r = normalized(r);
    const float3 u = cross3(r, f);
    const float t = std::tan(0.5f * c.fov_degrees * std::numbers::pi_v<float> / 180.0f);
    k(float4{c.eye.x, c.eye.y, c.eye.z, 0}, float4{r.x, r.y, r.z, 0}, float4{u.x, u.y, u.z, 0}, float4{f.x, f.y, f.z, 0},
      float4{float(s.width), float(s.height), t, float(sample)}, origins, directions);
}

SampleRays sample_rays(Runtime& rt, const bvh::Bvh& tree, const app_meshes::Mesh& mesh, const Stream<int4>& faces,
                       const Stream<float4>& vertices, const Settings& s, int sample) {
    const std::int64_t n = std::int64_t{s.width} * s.height;
    auto fresh = [&] { return rt.scratch<float4>({n}); };
    SampleRays r{fresh(), fresh(), fresh(), fresh(), fresh(), fresh()};
    auto hits = fresh(), radiance = fresh(), direct = fresh();
    camera_rays(s, sample, r.primary_o, r.primary_d);
    bvh::closest_hit(tree, r.primary_o, r.primary_d, hits);
    shade_primary(hits, r.primary_o, r.primary_d, faces, vertices, look_of(rt, mesh), light_for(mesh), offset_for(mesh), sample, radiance,
                  r.shadow_o, r.shadow_d, direct, r.bounce_o, r.bounce_d, fresh());
    return r;
}

Result render(Runtime& rt, const app_meshes::Mesh& mesh, const Settings& s, const std::function<void(int, int)>& progress) {
    if (s.width < 1 || s.height < 1 || s.samples < 1)
        throw Error("rill-raytrace: a render of " + std::to_string(s.width) + "x" + std::to_string(s.height) + " pixels and " +
                    std::to_string(s.samples) + " samples; give at least 1x1 pixels and 1 sample");
    Result result;
    Stats& st = result.stats;
    auto vertices = rt.stream<float4>({static_cast<std::int64_t>(mesh.vertices.size())}, mesh.vertices);
    auto faces = rt.stream<int4>({static_cast<std::int64_t>(mesh.faces.size())}, mesh.faces);
    bvh::Bvh tree = bvh::Bvh::build(vertices, faces);  // compiles the build's kernels
    rt.finish();
    auto t0 = Clock::now();
    tree = bvh::Bvh::build(vertices, faces);
    rt.finish();
    st.build_ms = ms_since(t0);
    {  // compiles the traversal's kernels, so that the ray times are of tracing alone
        auto wo = rt.stream<float4>({1}), wd = rt.stream<float4>({1}), wh = rt.stream<float4>({1});
        auto wocc = rt.stream<std::uint32_t>({1});
        bvh::closest_hit(tree, wo, wd, wh);
        bvh::any_hit(tree, wo, wd, wocc);
        rt.finish();
    }
    st.triangles = tree.triangle_count();
    st.skipped = tree.skipped();

    // The shading gathers a hit's face; an empty mesh has none to gather
    // (and no hits), but a gather stream must have an element.
    if (mesh.faces.empty()) faces = rt.stream<int4>({1}), vertices = rt.stream<float4>({1});
    const Light light = light_for(mesh);
    const Look look = look_of(rt, mesh);
    const float eps = offset_for(mesh);
    const std::int64_t n = std::int64_t{s.width} * s.height;
    auto fresh = [&] { return rt.scratch<float4>({n}); };
    Stream<float4> o = fresh(), d = fresh(), hits = fresh(), radiance1 = fresh(), shadow_o = fresh(), shadow_d = fresh(),
                   direct1 = fresh(), bounce_o = fresh(), bounce_d = fresh(), radiance2 = fresh(), direct2 = fresh(), albedo = fresh();
    auto occluded1 = rt.scratch<std::uint32_t>({n}), occluded2 = rt.scratch<std::uint32_t>({n});
    auto sum = rt.stream<float4>({n});
    auto timed = [&](double& total, const std::function<void()>& f) {
        rt.finish();
        const auto t = Clock::now();
        f();
        rt.finish();
        total += ms_since(t);
    };
    for (int sample = 0; sample < s.samples; ++sample) {
        timed(st.shade_ms, [&] { camera_rays(s, sample + 1, o, d); });
        timed(st.primary_ms, [&] { bvh::closest_hit(tree, o, d, hits); });
        timed(st.shade_ms, [&] {
            shade_primary(hits, o, d, faces, vertices, look, light, eps, sample, radiance1, shadow_o, shadow_d, direct1, bounce_o, bounce_d,
                          albedo);
        });
        timed(st.shadow_ms, [&] { bvh::any_hit(tree, shadow_o, shadow_d, occluded1); });
        timed(st.bounce_ms, [&] { bvh::closest_hit(tree, bounce_o, bounce_d, hits); });
        timed(st.shade_ms, [&] {
            shade_bounce(hits, bounce_o, bounce_d, faces, vertices, look, albedo, light, eps, sample, radiance2, shadow_o, shadow_d,
                         direct2);
        });
        timed(st.shadow_ms, [&] { bvh::any_hit(tree, shadow_o, shadow_d, occluded2); });
        timed(st.shade_ms, [&] { accumulate(sum, radiance1, direct1, occluded1, radiance2, direct2, occluded2); });
        st.primary_rays += n;
        st.bounce_rays += n;
        st.shadow_rays += 2 * n;
        if (progress) progress(sample + 1, s.samples);
    }
    const std::vector<float4> total = sum.download();
    app_images::Image& img = result.image;
    img.channels = 3;
    img.width = s.width;
    img.height = s.height;
    img.pixels.resize(static_cast<std::size_t>(3 * n));
    for (std::int64_t i = 0; i < n; ++i) {
        const float rgb[3] = {total[i].x, total[i].y, total[i].z};
        for (int c = 0; c < 3; ++c) {
            const float mean = rgb[c] / float(s.samples);
            img.pixels[static_cast<std::size_t>(c * n + i)] = std::pow(std::clamp(mean, 0.0f, 1.0f), 1.0f / 2.2f);
        }
    }
    return result;
}

}  // namespace raytrace_app
