#include "collide_app.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <rill/algorithms/bvh.h>

#include "raytrace_app.h"
#include "stopwatch.h"

namespace collide_app {

using namespace rill;

namespace {

using app_time::Clock;
using app_time::ms_since;

struct Sphere {
    float3 centre;
    float radius;
};
Sphere bounding(const app_meshes::Mesh& m) {
    float3 lo, hi;
    app_meshes::bounds(m, lo, hi);
    if (lo.x > hi.x) return {{0, 0, 0}, 0};
    const float dx = hi.x - lo.x, dy = hi.y - lo.y, dz = hi.z - lo.z;
    return {{(lo.x + hi.x) / 2, (lo.y + hi.y) / 2, (lo.z + hi.z) / 2}, 0.5f * std::sqrt(dx * dx + dy * dy + dz * dz)};
}

struct Uploaded {
    Stream<float4> vertices;
    Stream<int4> faces;
};
Uploaded upload(Runtime& rt, const app_meshes::Mesh& m) {
    return {rt.stream<float4>({std::int64_t(m.vertices.size())}, m.vertices),
            rt.stream<int4>({std::int64_t(m.faces.size())}, m.faces)};
}

}  // namespace

std::vector<Pose> random_poses(const app_meshes::Mesh& a, const app_meshes::Mesh& b, std::int64_t count, std::uint32_t seed,
                               float spread) {
    const Sphere sa = bounding(a), sb = bounding(b);
    const float half = spread * (sa.radius + sb.radius);
    std::mt19937 rng(seed);
    std::normal_distribution<double> g;
    std::uniform_real_distribution<float> offset(-half, half);
    std::vector<Pose> poses;
    poses.reserve(std::size_t(std::max<std::int64_t>(count, 0)));
    for (std::int64_t i = 0; i < count; ++i) {
        double w = g(rng), x = g(rng), y = g(rng), z = g(rng);
        const double n = std::sqrt(w * w + x * x + y * y + z * z);
        w /= n, x /= n, y /= n, z /= n;
        const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                             2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                             2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
        // b's centre lands at a's centre plus the offset.
        const float to[3] = {sa.centre.x + offset(rng), sa.centre.y + offset(rng), sa.centre.z + offset(rng)};
        const float cb[3] = {sb.centre.x, sb.centre.y, sb.centre.z};
        Pose p{};
        for (int row = 0; row < 3; ++row) {
            double t = to[row];
            for (int col = 0; col < 3; ++col) {
                p[4 * row + col] = float(r[3 * row + col]);
                t -= r[3 * row + col] * cb[col];
            }
            p[4 * row + 3] = float(t);
        }
        poses.push_back(p);
    }
    return poses;
}

Stream<float4> upload_poses(Runtime& rt, const std::vector<Pose>& poses) {
    std::vector<float4> rows;
    rows.reserve(3 * poses.size());
    for (const Pose& p : poses)
        for (int i = 0; i < 3; ++i) rows.push_back({p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]});
    return rt.stream<float4>({std::int64_t(poses.size()), 3}, rows);
}

Run run(Runtime& rt, const app_meshes::Mesh& a, const app_meshes::Mesh& b, const std::vector<Pose>& poses,
        const collision::QueryOptions& options) {
    Run r;
    const Uploaded ua = upload(rt, a), ub = upload(rt, b);
    const Stream<float4> p = upload_poses(rt, poses);
    rt.finish();
    auto t0 = Clock::now();
    const collision::ObbTree ta = collision::ObbTree::build(ua.vertices, ua.faces);
    const collision::ObbTree tb = collision::ObbTree::build(ub.vertices, ub.faces);
    rt.finish();
    r.build_ms = ms_since(t0);
    r.triangles_a = ta.triangle_count(), r.triangles_b = tb.triangle_count();
    r.skipped = ta.skipped() + tb.skipped();
    t0 = Clock::now();
    const collision::Collisions c = collision::collide(ta, tb, p, options);
    r.counts = c.counts.download();
    r.pairs = c.pairs.download();
    r.query_ms = ms_since(t0);
    r.candidates_per_level = c.candidates_per_level;
    return r;
}

app_images::Image render(Runtime& rt, const app_meshes::Mesh& a, const app_meshes::Mesh& b, const Pose& pose,
                         const std::vector<int4>& pairs, int width, int height) {
    // One mesh of both: a's faces, then b's moved by the pose; per face its
    // normal and colour (0 a, 1 b, 2 a's colliding, 3 b's colliding).
    app_meshes::Mesh both = a;
    const auto na = std::int32_t(a.vertices.size());
    for (const float4& v : b.vertices)
        both.vertices.push_back({pose[0] * v.x + pose[1] * v.y + pose[2] * v.z + pose[3],
                                 pose[4] * v.x + pose[5] * v.y + pose[6] * v.z + pose[7],
                                 pose[8] * v.x + pose[9] * v.y + pose[10] * v.z + pose[11], 0});
    for (const int4& f : b.faces) both.faces.push_back({f.x + na, f.y + na, f.z + na, 0});
    std::vector<float> colour(both.faces.size(), 0.0f);
    std::fill(colour.begin() + std::ptrdiff_t(a.faces.size()), colour.end(), 1.0f);
    for (const int4& p : pairs) {
        if (p.y >= 0 && std::size_t(p.y) < a.faces.size()) colour[std::size_t(p.y)] = 2.0f;
        if (p.z >= 0 && std::size_t(p.z) < b.faces.size()) colour[a.faces.size() + std::size_t(p.z)] = 3.0f;
    }
    std::vector<float4> info;
    for (std::size_t f = 0; f < both.faces.size(); ++f) {
        const int4& i = both.faces[f];
        auto at = [&](std::int32_t k) { return both.vertices[std::size_t(k)]; };
        const float4 p = at(i.x), q = at(i.y), s = at(i.z);
        const float ux = q.x - p.x, uy = q.y - p.y, uz = q.z - p.z, vx = s.x - p.x, vy = s.y - p.y, vz = s.z - p.z;
        float nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
        const float l = std::sqrt(nx * nx + ny * ny + nz * nz);
        if (l > 0) nx /= l, ny /= l, nz /= l;
        info.push_back({nx, ny, nz, colour[f]});
    }
    const Uploaded u = upload(rt, both);
    const bvh::Bvh tree = bvh::Bvh::build(u.vertices, u.faces);
    raytrace_app::Settings s;
    s.width = width, s.height = height, s.camera = raytrace_app::frame(both, 0.8f);
    const std::int64_t n = std::int64_t(width) * height;
    Stream<float4> o = rt.scratch<float4>({n}), d = rt.scratch<float4>({n}), hits = rt.scratch<float4>({n});
    raytrace_app::camera_rays(s, 0, o, d);
    bvh::closest_hit(tree, o, d, hits);
    // b's faces that touch nothing are see-through (60%), so that the
    // intersecting faces inside them show: a second ray from behind each.
    static const auto behind = group_kernel<256>(
        "collide_behind(hits, origins, directions, faces, origins2, directions2)",
        [](Array<float4> hits, Array<float4> origins, Array<float4> directions, Array<float4> faces, Array<float4> o2,
           Array<float4> d2) {
            Int i = global_id();
            If(i < hits.size(), [&] {
                Float4 h = hits.load(i);
                Int face = float_bits_to_int(h.w());
                Bool glass = face >= 0 && faces.load(max(face, Int(0))).w() == 1.0f;
                o2.store(i, Float4(origins.load(i).xyz(), h.x() * 1.0001f));
                d2.store(i, Float4(directions.load(i).xyz(), select(glass, Float(1e30f), Float(-1.0f))));
            });
        });
    static const auto shade = group_kernel<256>(
        "collide_shade(hits, hits2, directions, faces, rgb)",
        [](Array<float4> hits, Array<float4> hits2, Array<float4> directions, Array<float4> faces, Array<float4> rgb) {
            auto colour = [&](const Float4& hit, const Float3& dir) {
                Int face = float_bits_to_int(hit.w());
                Float4 f = faces.load(max(face, Int(0)));
                Float light = 0.25f + 0.75f * abs(dot(f.xyz(), dir));
                Float kind = f.w();
                Float3 base = select(kind < 0.5f, Float3(0.75f, 0.75f, 0.72f),
                                     select(kind < 1.5f, Float3(0.35f, 0.55f, 0.9f),
                                            select(kind < 2.5f, Float3(0.95f, 0.15f, 0.1f), Float3(1.0f, 0.6f, 0.1f))));
                return Float3(select(face >= 0, base * light, Float3(0.12f, 0.13f, 0.16f)));
            };
            Int i = global_id();
            If(i < hits.size(), [&] {
                Float3 dir = normalize(directions.load(i).xyz());
                Float4 h = hits.load(i);
                Int face = float_bits_to_int(h.w());
                Bool glass = face >= 0 && faces.load(max(face, Int(0))).w() == 1.0f;
                Float3 front = colour(h, dir);
                rgb.store(i, Float4(select(glass, mix(colour(hits2.load(i), dir), front, Float3(0.4f)), front), 1.0f));
            });
        });
    Stream<float4> rgb = rt.scratch<float4>({n});
    Stream<float4> faces = rt.stream<float4>({std::int64_t(info.size())}, info);
    Stream<float4> o2 = rt.scratch<float4>({n}), d2 = rt.scratch<float4>({n}), hits2 = rt.scratch<float4>({n});
    if (n > 0) {
        behind(Groups{(n + 255) / 256}, hits, o, d, faces, o2, d2);
        // b's see-through faces become points, which the tree leaves out (same face ids).
        app_meshes::Mesh solid = both;
        for (std::size_t f = a.faces.size(); f < solid.faces.size(); ++f)
            if (colour[f] == 1.0f) solid.faces[f] = {0, 0, 0, 0};
        const Uploaded us = upload(rt, solid);
        bvh::closest_hit(bvh::Bvh::build(us.vertices, us.faces), o2, d2, hits2);
        shade(Groups{(n + 255) / 256}, hits, hits2, d, faces, rgb);
    }
    const std::vector<float4> pixels = rgb.download();
    app_images::Image image{3, width, height, std::vector<float>(std::size_t(3 * n))};
    for (std::int64_t i = 0; i < n; ++i) {
        image.pixels[std::size_t(i)] = pixels[std::size_t(i)].x;
        image.pixels[std::size_t(n + i)] = pixels[std::size_t(i)].y;
        image.pixels[std::size_t(2 * n + i)] = pixels[std::size_t(i)].z;
    }
    return image;
}

}  // namespace collide_app
