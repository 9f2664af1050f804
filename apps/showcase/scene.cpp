#include "scene.h"

#include <rill/algorithms/bvh.h>

#include <cmath>
#include <limits>

#define TINYOBJLOADER_USE_MAPBOX_EARCUT_DISABLED
#include <tiny_obj_loader.h>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

RILL_STRUCT(rill::showcase::Triangle, v0, v1, v2);

struct ShowcaseRay {
    rill::float3 o, d;
    float tmax;
};
RILL_STRUCT(ShowcaseRay, o, d, tmax);

namespace rill::showcase {

namespace {
constexpr float kPi = 3.14159265358979f;
float3 sub(float3 a, float3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }

// Camera: on the +z axis, slightly above, looking at the origin.
constexpr float kEye[3] = {0.0f, 0.9f, 3.2f};
constexpr float kFov = 0.8f;
}  // namespace

void camera_ray(int x, int y, int width, int height, float3& origin, float3& dir) {
    const float aspect = static_cast<float>(width) / static_cast<float>(height);
    const float px = (2.0f * (static_cast<float>(x) + 0.5f) / static_cast<float>(width) - 1.0f) * aspect * kFov;
    const float py = (1.0f - 2.0f * (static_cast<float>(y) + 0.5f) / static_cast<float>(height)) * kFov;
    origin = float3{kEye[0], kEye[1], kEye[2]};
    // Forward is toward the origin; a simple look-at with world up +y.
    float3 f = {-kEye[0], -kEye[1], -kEye[2]};
    float lf = std::sqrt(f.x * f.x + f.y * f.y + f.z * f.z);
    f = {f.x / lf, f.y / lf, f.z / lf};
    float3 r = {-f.z, 0.0f, f.x};  // f x up
    float lr = std::sqrt(r.x * r.x + r.z * r.z);
    r = {r.x / lr, 0.0f, r.z / lr};
    float3 u = {r.y * f.z - r.z * f.y, r.z * f.x - r.x * f.z, r.x * f.y - r.y * f.x};
    dir = float3{f.x + px * r.x + py * u.x, f.y + px * r.y + py * u.y, f.z + px * r.z + py * u.z};
}

std::vector<Triangle> make_torus(int rings, int sides, float R, float r) {
    std::vector<Triangle> tris;
    auto point = [&](int i, int j) {
        const float a = 2.0f * kPi * static_cast<float>(i % rings) / static_cast<float>(rings);
        const float b = 2.0f * kPi * static_cast<float>(j % sides) / static_cast<float>(sides);
        // Tilted toward the camera so that the hole shows.
        float3 p{(R + r * std::cos(b)) * std::cos(a), r * std::sin(b), (R + r * std::cos(b)) * std::sin(a)};
        const float c = std::cos(0.6f), s = std::sin(0.6f);
        return float3{p.x, c * p.y - s * p.z, s * p.y + c * p.z};
    };
    for (int i = 0; i < rings; ++i)
        for (int j = 0; j < sides; ++j) {
            float3 a = point(i, j), b = point(i + 1, j), c = point(i + 1, j + 1), d = point(i, j + 1);
            tris.push_back({a, b, c});
            tris.push_back({a, c, d});
        }
    return tris;
}

std::vector<Triangle> load_obj(const std::string& path) {
    tinyobj::ObjReader reader;
    tinyobj::ObjReaderConfig config;
    config.triangulate = true;
    if (!reader.ParseFromFile(path, config))
        throw Error("showcase: cannot read the OBJ file '" + path + "': " + reader.Error() +
                    "; pass a readable Wavefront OBJ or no path for the built-in torus");
    const auto& v = reader.GetAttrib().vertices;
    std::vector<Triangle> tris;
    float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
    for (std::size_t i = 0; i + 2 < v.size(); i += 3)
        for (int k = 0; k < 3; ++k) {
            lo[k] = std::min(lo[k], v[i + k]);
            hi[k] = std::max(hi[k], v[i + k]);
        }
    const float center[3] = {(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2};
    const float extent = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-6f});
    auto vertex = [&](int idx) {
        const float s = 2.0f / extent;
        return float3{(v[3 * idx] - center[0]) * s, (v[3 * idx + 1] - center[1]) * s, (v[3 * idx + 2] - center[2]) * s};
    };
    for (const auto& shape : reader.GetShapes()) {
        const auto& ids = shape.mesh.indices;
        for (std::size_t i = 0; i + 2 < ids.size(); i += 3)
            tris.push_back({vertex(ids[i].vertex_index), vertex(ids[i + 1].vertex_index), vertex(ids[i + 2].vertex_index)});
    }
    if (tris.empty()) throw Error("showcase: the OBJ file '" + path + "' has no triangles");
    return tris;
}

/// One primary ray per pixel (rows x columns), from the same camera as camera_ray().
Stream<ShowcaseRay> camera_rays(Runtime& rt, int width, int height) {
    // Ray generation: one ray per pixel, from the same camera as camera_ray().
    static const auto generate = kernel(
        "generate_rays(eye, basis_x, basis_y, forward, size, rays)",
        [](Float3 eye, Float3 bx, Float3 by, Float3 fwd, Float2 size, Out<ShowcaseRay> ray) {
            auto p = indexof<2>(ray);  // (row, column)
            Float aspect = size.x() / size.y();
            Float px = (2.0f * (cast<float>(p.y()) + 0.5f) / size.x() - 1.0f) * aspect * kFov;
            Float py = (1.0f - 2.0f * (cast<float>(p.x()) + 0.5f) / size.y()) * kFov;
            ray.o = eye;
            ray.d = fwd + px * bx + py * by;
            ray.tmax = 1e30f;
        });
    float3 eye, dir00;
    camera_ray(0, 0, 1, 1, eye, dir00);
    // The same basis camera_ray builds, passed as constants.
    float3 f = {-kEye[0], -kEye[1], -kEye[2]};
    float lf = std::sqrt(f.x * f.x + f.y * f.y + f.z * f.z);
    f = {f.x / lf, f.y / lf, f.z / lf};
    float3 r = {-f.z, 0.0f, f.x};
    float lr = std::sqrt(r.x * r.x + r.z * r.z);
    r = {r.x / lr, 0.0f, r.z / lr};
    float3 u = {r.y * f.z - r.z * f.y, r.z * f.x - r.x * f.z, r.x * f.y - r.y * f.x};

    auto rays = rt.stream<ShowcaseRay>({height, width});
    generate(eye, r, u, f, float2{static_cast<float>(width), static_cast<float>(height)}, rays);
    return rays;
}

Image trace_primary_rays(Runtime& rt, const std::vector<Triangle>& mesh, int width, int height) {
    // krnIntersectTriangle (Brook paper, section 3.2), over all triangles.
    static const auto intersect = kernel(
        "intersect_triangles(rays, tris, count, hit)",
        [](In<ShowcaseRay> ray, Gather<Triangle> tris, Int count, Out<float4> hit) {
            Float best = ray.tmax;
            Float bu = 0.0f, bv = 0.0f, id = -1.0f;
            For(0, count, [&](Int i) {
                Var<Triangle> tri = tris[i];
                Float3 edge1 = tri.v1 - tri.v0;
                Float3 edge2 = tri.v2 - tri.v0;
                Float3 pvec = cross(ray.d, edge2);
                Float det = dot(edge1, pvec);
                Float inv_det = 1.0f / det;
                Float3 tvec = ray.o - tri.v0;
                Float u = dot(tvec, pvec) * inv_det;
                Float3 qvec = cross(tvec, edge1);
                Float v = dot(ray.d, qvec) * inv_det;
                Float t = dot(edge2, qvec) * inv_det;
                If(abs(det) > 1e-12f && u >= 0.0f && v >= 0.0f && u + v <= 1.0f && t > 1e-4f && t < best, [&] {
                    best = t;
                    bu = u;
                    bv = v;
                    id = cast<float>(i);
                });
            });
            hit = Float4(best, bu, bv, id);
        });
    auto tris = rt.stream<Triangle>({static_cast<std::int64_t>(mesh.size())}, mesh);
    Stream<ShowcaseRay> rays = camera_rays(rt, width, height);
    auto hits = rt.stream<float4>({height, width});
    intersect(rays, tris, static_cast<std::int32_t>(mesh.size()), hits);
    Image img;
    img.width = width;
    img.height = height;
    img.hits = hits.download();
    return img;
}

Image trace_primary_rays_bvh(Runtime& rt, const std::vector<Triangle>& mesh, int width, int height) {
    static const auto split = kernel("showcase_ray_streams(ray, o, d)", [](In<ShowcaseRay> ray, Out<float4> o, Out<float4> d) {
        o = Float4(ray.o, 1e-4f);  // t > 1e-4, as the brute-force kernel
        d = Float4(ray.d, ray.tmax);
    });
    // As the brute-force kernel's hits: the triangle index as a float, -1 and t_max on a miss.
    static const auto to_image = kernel("showcase_hits(hit, out)", [](In<float4> hit, Out<float4> out) {
        Int face = float_bits_to_int(hit.w());
        out = Float4(hit.x(), hit.y(), hit.z(), cast<float>(face));
    });
    std::vector<float4> vertices;
    std::vector<int4> faces;
    for (const Triangle& t : mesh) {
        const auto b = static_cast<std::int32_t>(vertices.size());
        for (const float3& v : {t.v0, t.v1, t.v2}) vertices.push_back({v.x, v.y, v.z, 0.0f});
        faces.push_back({b, b + 1, b + 2, 0});
    }
    const bvh::Bvh tree = bvh::Bvh::build(rt.stream<float4>({static_cast<std::int64_t>(vertices.size())}, vertices),
                                          rt.stream<int4>({static_cast<std::int64_t>(faces.size())}, faces));
    const std::int64_t n = std::int64_t{width} * height;
    auto o = rt.stream<float4>({height, width}), d = rt.stream<float4>({height, width});
    split(camera_rays(rt, width, height), o, d);
    auto hits = rt.stream<float4>({n});
    bvh::closest_hit(tree, o.reshape({n}), d.reshape({n}), hits);
    auto out = rt.stream<float4>({n});
    to_image(hits, out);
    Image img;
    img.width = width;
    img.height = height;
    img.hits = out.download();
    return img;
}

float4 reference_hit(const float3& o, const float3& d, const std::vector<Triangle>& mesh) {
    double best = 1e30, bu = 0, bv = 0, id = -1;
    for (std::size_t i = 0; i < mesh.size(); ++i) {
        const Triangle& t = mesh[i];
        const double e1[3] = {double(t.v1.x) - t.v0.x, double(t.v1.y) - t.v0.y, double(t.v1.z) - t.v0.z};
        const double e2[3] = {double(t.v2.x) - t.v0.x, double(t.v2.y) - t.v0.y, double(t.v2.z) - t.v0.z};
        const double p[3] = {d.y * e2[2] - d.z * e2[1], d.z * e2[0] - d.x * e2[2], d.x * e2[1] - d.y * e2[0]};
        const double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
        if (std::fabs(det) <= 1e-12) continue;
        const double tv[3] = {double(o.x) - t.v0.x, double(o.y) - t.v0.y, double(o.z) - t.v0.z};
        const double u = (tv[0] * p[0] + tv[1] * p[1] + tv[2] * p[2]) / det;
        const double q[3] = {tv[1] * e1[2] - tv[2] * e1[1], tv[2] * e1[0] - tv[0] * e1[2], tv[0] * e1[1] - tv[1] * e1[0]};
        const double v = (d.x * q[0] + d.y * q[1] + d.z * q[2]) / det;
        const double tt = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
        if (u >= 0 && v >= 0 && u + v <= 1 && tt > 1e-4 && tt < best) {
            best = tt;
            bu = u;
            bv = v;
            id = static_cast<double>(i);
        }
    }
    return float4{float(best), float(bu), float(bv), float(id)};
}

std::vector<unsigned char> shade(const Image& image, const std::vector<Triangle>& mesh) {
    std::vector<unsigned char> rgb(static_cast<std::size_t>(image.width) * image.height * 3);
    const float light[3] = {0.4f, 0.8f, 0.6f};
    for (std::size_t i = 0; i < image.hits.size(); ++i) {
        const float4& h = image.hits[i];
        float c[3] = {0.08f, 0.09f, 0.12f};  // background
        if (h.w >= 0) {
            const Triangle& t = mesh[static_cast<std::size_t>(h.w)];
            float3 e1 = sub(t.v1, t.v0), e2 = sub(t.v2, t.v0);
            float n[3] = {e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z, e1.x * e2.y - e1.y * e2.x};
            float ln = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) + 1e-20f;
            float lambert = std::fabs(n[0] * light[0] + n[1] * light[1] + n[2] * light[2]) / ln;
            c[0] = 0.15f + 0.80f * lambert;
            c[1] = 0.12f + 0.55f * lambert * (0.5f + 0.5f * h.y);
            c[2] = 0.10f + 0.35f * lambert * (0.5f + 0.5f * h.z);
        }
        for (int k = 0; k < 3; ++k) rgb[i * 3 + k] = static_cast<unsigned char>(std::clamp(c[k], 0.0f, 1.0f) * 255.0f);
    }
    return rgb;
}

void write_png(const std::string& path, int width, int height, const std::vector<unsigned char>& rgb) {
    if (!stbi_write_png(path.c_str(), width, height, 3, rgb.data(), width * 3))
        throw Error("showcase: cannot write the PNG '" + path + "'; check that its directory exists and is writable");
}

}  // namespace rill::showcase
