// Small meshes for the subdivision tests: closed ones of valence 3 to 12,
// a disc with a boundary, a torus of valence 6, a cube; creased ones.
#pragma once

#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>
#include <utility>

#include "subdivision_reference.h"
#include "surfaces.h"

namespace rill::test::subdivision_shapes {

using subdivision_reference::Mesh;

inline Mesh tetrahedron() {
    return {{{1, 1, 1, 0}, {1, -1, -1, 0}, {-1, 1, -1, 0}, {-1, -1, 1, 0}}, {{0, 1, 2, 0}, {0, 3, 1, 0}, {0, 2, 3, 0}, {1, 3, 2, 0}}};
}

/// A closed double cone over an n-gon: both apexes of valence n.
inline Mesh bipyramid(int n) {
    Mesh m;
    for (int i = 0; i < n; ++i) {
        const double a = 2 * std::numbers::pi * i / n;
        m.vertices.push_back({float(std::cos(a)), float(std::sin(a)), 0.1f * float(i % 3), 0});
    }
    m.vertices.push_back({0, 0, 1.5f, 0});
    m.vertices.push_back({0, 0, -1.2f, 0});
    for (int i = 0; i < n; ++i) {
        m.faces.push_back({i, (i + 1) % n, n, 0});
        m.faces.push_back({(i + 1) % n, i, n + 1, 0});
    }
    return m;
}

/// An open fan of n triangles around a centre (a disc with a boundary), and a
/// strip of triangles hanging off it (boundary vertices of valence 2 and 3).
inline Mesh disc(int n) {
    Mesh m;
    m.vertices.push_back({0, 0, 0.3f, 0});
    for (int i = 0; i < n; ++i) {
        const double a = 2 * std::numbers::pi * i / n;
        m.vertices.push_back({float(std::cos(a)), float(std::sin(a)), 0.05f * float(i % 2), 0});
    }
    for (int i = 0; i < n; ++i) m.faces.push_back({0, 1 + i, 1 + (i + 1) % n, 0});
    const auto base = static_cast<std::int32_t>(m.vertices.size());
    m.vertices.push_back({2.0f, 0.3f, 0, 0});
    m.vertices.push_back({2.2f, -0.5f, 0.2f, 0});
    m.faces.push_back({1, base, 2, 0});
    m.faces.push_back({1, base + 1, base, 0});
    return m;
}

/// A torus of nu x nv quads, two triangles each (every vertex of valence 6).
inline Mesh torus(int nu, int nv) {
    const Surface s = torus_surface(nu, nv, 1.0, 0.4);
    Mesh m;
    for (const auto& p : s.points) m.vertices.push_back({p[0], p[1], p[2], 0});
    for (const auto& f : s.faces) m.faces.push_back({f[0], f[1], f[2], 0});
    return m;
}

/// The cube of 8 corners (vertex i at the bits of i: x, y, z), two
/// triangles a side, wound counter-clockwise seen from outside.
inline Mesh cube() {
    Mesh m;
    for (int i = 0; i < 8; ++i) m.vertices.push_back({float(i & 1), float((i >> 1) & 1), float((i >> 2) & 1), 0});
    const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (const auto& q : quads) {
        m.faces.push_back({q[0], q[1], q[2], 0});
        m.faces.push_back({q[0], q[2], q[3], 0});
    }
    return m;
}

/// The cube's 12 edges sharp, its diagonals not: every corner on three creases.
inline Mesh sharp_cube() {
    Mesh m = cube();
    std::set<std::pair<int, int>> seen;
    for (const auto& f : m.faces)
        for (auto [a, b] : {std::pair{f[0], f[1]}, std::pair{f[1], f[2]}, std::pair{f[2], f[0]}}) {
            const auto& p = m.vertices[std::size_t(a)];
            const auto& q = m.vertices[std::size_t(b)];
            const int same = (p[0] == q[0]) + (p[1] == q[1]) + (p[2] == q[2]);
            if (same == 2 && seen.insert({std::min(a, b), std::max(a, b)}).second) m.creases.push_back({a, b});
        }
    return m;
}

/// A ring of torus(12, 7) sharp (every vertex on it on two creases: the
/// crease rule), its pairs given in both directions.
inline Mesh torus_with_sharp_ring() {
    Mesh m = torus(12, 7);
    for (int i = 0; i < 12; ++i)
        m.creases.push_back(i % 2 ? std::array<std::int32_t, 2>{i * 7, ((i + 1) % 12) * 7}
                                  : std::array<std::int32_t, 2>{((i + 1) % 12) * 7, i * 7});
    return m;
}

/// A dart: one crease from an apex of valence 5 to the rim.
inline Mesh dart() {
    Mesh m = bipyramid(5);
    m.creases.push_back({5, 0});
    return m;
}

/// A crease from the centre of disc(7) to its boundary: a corner where it meets it.
inline Mesh disc_with_cut() {
    Mesh m = disc(7);
    m.creases.push_back({0, 3});
    return m;
}

}  // namespace rill::test::subdivision_shapes
