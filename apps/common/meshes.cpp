// OBJ reading (tinyobjloader) and procedural meshes.
#include "meshes.h"

#include <tiny_obj_loader.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

namespace app_meshes {

Mesh read_obj(const std::string& program, const std::string& path) {
    tinyobj::ObjReader reader;
    tinyobj::ObjReaderConfig config;
    config.triangulate = true;
    config.vertex_color = false;
    if (!reader.ParseFromFile(path, config)) {
        std::string why = reader.Error();
        while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
        throw rill::Error(program + ": cannot read the OBJ file '" + path + "' (" + why +
                          "); give a readable Wavefront OBJ file, or none for the built-in scene");
    }
    Mesh m;
    const auto& v = reader.GetAttrib().vertices;
    for (std::size_t i = 0; i + 2 < v.size(); i += 3) m.vertices.push_back({v[i], v[i + 1], v[i + 2], 0.0f});
    for (const auto& shape : reader.GetShapes()) {
        const auto& ids = shape.mesh.indices;
        for (std::size_t i = 0; i + 2 < ids.size(); i += 3)
            m.faces.push_back({ids[i].vertex_index, ids[i + 1].vertex_index, ids[i + 2].vertex_index, 0});
    }
    // A file of no faces is the wrong file (or not an OBJ: tinyobj reads any text), not an empty scene.
    if (m.faces.empty())
        throw rill::Error(program + ": the OBJ file '" + path + "' has no faces (" + std::to_string(m.vertices.size()) +
                          " vertices, no 'f' lines); give a Wavefront OBJ of polygons, or none for the built-in scene");
    return m;
}

Mesh sphere(int rings, int segments, float r, rill::float3 c) {
    Mesh m;
    m.vertices.push_back({c.x, c.y + r, c.z, 0});
    for (int i = 1; i < rings; ++i) {
        const double phi = std::numbers::pi * i / rings;
        for (int j = 0; j < segments; ++j) {
            const double theta = 2 * std::numbers::pi * j / segments;
            m.vertices.push_back({c.x + float(r * std::sin(phi) * std::cos(theta)), c.y + float(r * std::cos(phi)),
                                  c.z + float(r * std::sin(phi) * std::sin(theta)), 0});
        }
    }
    m.vertices.push_back({c.x, c.y - r, c.z, 0});
    const int south = static_cast<int>(m.vertices.size()) - 1;
    auto ring = [&](int i, int j) { return 1 + (i - 1) * segments + (j % segments); };
    for (int j = 0; j < segments; ++j) m.faces.push_back({0, ring(1, j + 1), ring(1, j), 0});
    for (int i = 1; i + 1 < rings; ++i)
        for (int j = 0; j < segments; ++j) {
            m.faces.push_back({ring(i, j), ring(i, j + 1), ring(i + 1, j), 0});
            m.faces.push_back({ring(i, j + 1), ring(i + 1, j + 1), ring(i + 1, j), 0});
        }
    for (int j = 0; j < segments; ++j) m.faces.push_back({south, ring(rings - 1, j), ring(rings - 1, j + 1), 0});
    return m;
}

Mesh torus(int nu, int nv, float major, float minor) {
    Mesh m;
    for (int i = 0; i < nu; ++i)
        for (int j = 0; j < nv; ++j) {
            const double u = 2 * std::numbers::pi * i / nu, v = 2 * std::numbers::pi * j / nv;
            const double ring = major + minor * std::cos(v);
            m.vertices.push_back({float(ring * std::cos(u)), float(minor * std::sin(v)), float(ring * std::sin(u)), 0});
        }
    auto at = [&](int i, int j) { return (i % nu) * nv + (j % nv); };
    for (int i = 0; i < nu; ++i)
        for (int j = 0; j < nv; ++j) {
            m.faces.push_back({at(i, j), at(i, j + 1), at(i + 1, j + 1), 0});
            m.faces.push_back({at(i, j), at(i + 1, j + 1), at(i + 1, j), 0});
        }
    return m;
}

Mesh quad(rill::float3 a, rill::float3 b, rill::float3 c, rill::float3 d) {
    Mesh m;
    for (const rill::float3& p : {a, b, c, d}) m.vertices.push_back({p.x, p.y, p.z, 0});
    m.faces = {{0, 1, 2, 0}, {0, 2, 3, 0}};
    return m;
}

void append(Mesh& to, const Mesh& m, rill::float3 offset) {
    const auto base = static_cast<std::int32_t>(to.vertices.size());
    for (const rill::float4& v : m.vertices) to.vertices.push_back({v.x + offset.x, v.y + offset.y, v.z + offset.z, 0});
    for (const rill::int4& f : m.faces) to.faces.push_back({f.x + base, f.y + base, f.z + base, 0});
}

Mesh sphere_field(std::int64_t triangles) {
    // k x k spheres of 2 s (s - 1) triangles each: k grows with the count
    // (at most 64 x 64), then s, so that large scenes stay a field of spheres.
    const std::int64_t want = std::max<std::int64_t>(triangles, 200);
    int k = 3, s = 8;
    while (2LL * s * (s - 1) * k * k < want) {
        if (k < 64 && (s >= 24 || k * k < 16)) ++k;
        else ++s;
    }
    Mesh m = quad({-1.2f * k, 0, -1.2f * k}, {-1.2f * k, 0, 1.2f * k}, {1.2f * k, 0, 1.2f * k}, {1.2f * k, 0, -1.2f * k});
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j) {
            const float r = 0.45f + 0.3f * float((i * 7 + j * 13) % 5) / 4.0f;
            append(m, sphere(s, s, r, {0, 0, 0}), {2.0f * i - (k - 1), r, 2.0f * j - (k - 1)});
        }
    return m;
}

Mesh without_unused_vertices(const Mesh& m, std::size_t& dropped) {
    std::vector<std::int32_t> index(m.vertices.size(), -1);
    Mesh out;
    for (const rill::int4& f : m.faces)
        for (std::int32_t i : {f.x, f.y, f.z})
            if (i >= 0 && std::size_t(i) < m.vertices.size() && index[std::size_t(i)] < 0) {
                index[std::size_t(i)] = static_cast<std::int32_t>(out.vertices.size());
                out.vertices.push_back(m.vertices[std::size_t(i)]);
            }
    auto at = [&](std::int32_t i) { return i >= 0 && std::size_t(i) < m.vertices.size() ? index[std::size_t(i)] : i; };
    for (const rill::int4& f : m.faces) out.faces.push_back({at(f.x), at(f.y), at(f.z), 0});
    dropped = m.vertices.size() - out.vertices.size();
    return out;
}

void bounds(const Mesh& m, rill::float3& lo, rill::float3& hi) {
    lo = {1e30f, 1e30f, 1e30f};
    hi = {-1e30f, -1e30f, -1e30f};
    for (const rill::int4& f : m.faces)
        for (std::int32_t i : {f.x, f.y, f.z}) {
            if (i < 0 || i >= static_cast<std::int32_t>(m.vertices.size())) continue;
            const rill::float4& v = m.vertices[static_cast<std::size_t>(i)];
            if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z)) continue;
            lo = {std::min(lo.x, v.x), std::min(lo.y, v.y), std::min(lo.z, v.z)};
            hi = {std::max(hi.x, v.x), std::max(hi.y, v.y), std::max(hi.z, v.z)};
        }
}

}  // namespace app_meshes
