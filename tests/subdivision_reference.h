// The subdivision tests' comparison with OpenSubdiv (peers/osd_loop.h): each
// vertex rill makes at one of OpenSubdiv's (one to one) within 1e-5 of the
// bounding box's diagonal, the same faces by position, and on closed meshes
// every edge in two faces of opposite directions; and the limit normals of
// rill::subdivision::limit_normals against OpenSubdiv's Far::PrimvarRefiner::Limit.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include <rill/algorithms/subdivision.h>

#include "osd_loop.h"

namespace rill::test::subdivision_reference {

struct Mesh {
    std::vector<std::array<float, 4>> vertices;
    std::vector<std::array<std::int32_t, 4>> faces;
    std::vector<std::array<std::int32_t, 2>> creases = {};  ///< infinitely sharp edges
};

struct Result {
    std::vector<float4> vertices;
    std::vector<int4> faces;
    std::vector<int2> creases;  ///< the level's sharp edges
};

/// LoopOptions with m's creases.
inline subdivision::LoopOptions options_of(Runtime& rt, const Mesh& m) {
    subdivision::LoopOptions options;
    if (m.creases.empty()) return options;
    std::vector<int2> c;
    for (const auto& x : m.creases) c.push_back({x[0], x[1]});
    options.creases = rt.stream<int2>({std::int64_t(c.size())}, c);
    return options;
}

/// A limit normal `n` where OpenSubdiv's is limit.normals[j]: the same
/// within 1e-3, or, on a crease or corner (one normal per side there, and
/// OpenSubdiv picks its side by its own ordering of the edges), a unit
/// vector not turned away from OpenSubdiv's side (the sides of a cube's edge
/// are at 90 degrees) and, on a crease, perpendicular to the crease.
inline bool normal_agrees(const float4& n, const peers::OsdLimit& limit, std::size_t j) {
    const auto& w = limit.normals[j];
    if (!limit.on_crease[j]) return std::hypot(n.x - w[0], n.y - w[1], n.z - w[2]) < 1e-3;
    const auto& t = limit.along_crease[j];
    return std::abs(std::hypot(n.x, n.y, n.z) - 1) < 1e-4 && n.x * w[0] + n.y * w[1] + n.z * w[2] > -1e-3 &&
           std::abs(n.x * t[0] + n.y * t[1] + n.z * t[2]) < 1e-3;
}

inline Result subdivide(Runtime& rt, const Mesh& m, int levels) {
    std::vector<float4> v;
    for (const auto& x : m.vertices) v.push_back({x[0], x[1], x[2], x[3]});
    std::vector<int4> f;
    for (const auto& x : m.faces) f.push_back({x[0], x[1], x[2], x[3]});
    const subdivision::LoopOptions options = options_of(rt, m);
    const subdivision::Mesh out = subdivision::loop(rt.stream<float4>({std::int64_t(v.size())}, v),
                                                    rt.stream<int4>({std::int64_t(f.size())}, f), levels, options);
    if (!m.creases.empty()) {
        EXPECT_EQ(out.creases.size(), std::int64_t(m.creases.size()) << levels) << "each crease splits in two per level";
    }
    return {out.vertices.download(), out.faces.download(), out.creases.download()};
}

/// rill's level against OpenSubdiv's: each rill vertex at an OpenSubdiv vertex
/// (one to one) within 1e-5 of the diagonal, and the same faces by position.
inline void expect_matches_opensubdiv(Runtime& rt, const Mesh& m, int levels, bool closed) {
    SCOPED_TRACE("level " + std::to_string(levels));
    const Result got = subdivide(rt, m, levels);
    const peers::OsdMesh want = peers::osd_loop(m.vertices, m.faces, levels, m.creases);
    ASSERT_EQ(got.vertices.size(), want.vertices.size());
    ASSERT_EQ(got.faces.size(), m.faces.size() << (2 * levels));
    ASSERT_EQ(got.faces.size(), want.faces.size());
    double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
    for (const auto& p : want.vertices)
        for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], p[k]), hi[k] = std::max(hi[k], p[k]);
    const double diagonal = std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]), tol = 1e-5 * diagonal;
    // OpenSubdiv's vertices in a grid of cells of 4 tol: a match is in one of 27 cells.
    auto cell = [&](double x, double y, double z) {
        return std::array<std::int64_t, 3>{std::int64_t(std::floor(x / (4 * tol))), std::int64_t(std::floor(y / (4 * tol))),
                                           std::int64_t(std::floor(z / (4 * tol)))};
    };
    std::map<std::array<std::int64_t, 3>, std::vector<std::int32_t>> grid;
    for (std::size_t i = 0; i < want.vertices.size(); ++i)
        grid[cell(want.vertices[i][0], want.vertices[i][1], want.vertices[i][2])].push_back(std::int32_t(i));
    // visit(j, distance) for OpenSubdiv's vertices in the 27 cells about (x, y, z).
    auto near = [&](double x, double y, double z, auto&& visit) {
        const auto c = cell(x, y, z);
        for (int dx = -1; dx <= 1; ++dx)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dz = -1; dz <= 1; ++dz) {
                    auto it = grid.find({c[0] + dx, c[1] + dy, c[2] + dz});
                    if (it == grid.end()) continue;
                    for (std::int32_t j : it->second) {
                        const auto& q = want.vertices[std::size_t(j)];
                        visit(j, std::hypot(x - q[0], y - q[1], z - q[2]));
                    }
                }
    };
    std::vector<std::int32_t> match(got.vertices.size(), -1);
    std::vector<char> taken(want.vertices.size(), 0);
    int missed = 0;
    for (std::size_t i = 0; i < got.vertices.size(); ++i) {
        const float4 p = got.vertices[i];
        double best = tol;
        near(p.x, p.y, p.z, [&](std::int32_t j, double d) {
            if (d <= best && !taken[std::size_t(j)]) best = d, match[i] = j;
        });
        if (match[i] < 0) {
            if (++missed <= 5) ADD_FAILURE() << "vertex " << i << " (" << p.x << ", " << p.y << ", " << p.z << ") is no OpenSubdiv vertex";
        } else {
            taken[std::size_t(match[i])] = 1;
        }
    }
    ASSERT_EQ(missed, 0);
    // Faces by position: vertices at one place (a mesh's seams) count as one.
    std::vector<std::int32_t> place(want.vertices.size());
    for (std::size_t j = 0; j < want.vertices.size(); ++j) {
        const auto& q = want.vertices[j];
        place[j] = std::int32_t(j);
        near(q[0], q[1], q[2], [&](std::int32_t k, double d) {
            if (k < place[j] && d <= 1e-9 * diagonal) place[j] = k;
        });
    }
    auto sorted = [&](std::array<std::int32_t, 3> t) {
        for (auto& x : t) x = place[std::size_t(x)];
        std::sort(t.begin(), t.end());
        return t;
    };
    std::multiset<std::array<std::int32_t, 3>> want_faces, got_faces;
    for (const auto& f : want.faces) want_faces.insert(sorted(f));
    for (const int4& f : got.faces) got_faces.insert(sorted({match[std::size_t(f.x)], match[std::size_t(f.y)], match[std::size_t(f.z)]}));
    EXPECT_TRUE(got_faces == want_faces) << "the faces differ from OpenSubdiv's";
    // Limit normals, vertex by vertex, where OpenSubdiv has one (manifold
    // vertices), with the level's creases.
    if (levels >= 1) {
        std::vector<float4> v(got.vertices);
        subdivision::LoopOptions options;
        if (!got.creases.empty()) options.creases = rt.stream<int2>({std::int64_t(got.creases.size())}, got.creases);
        const std::vector<float4> normals =
            subdivision::limit_normals(rt.stream<float4>({std::int64_t(v.size())}, v),
                                       rt.stream<int4>({std::int64_t(got.faces.size())}, got.faces), options)
                .download();
        const peers::OsdLimit limit = peers::osd_loop_limit(m.vertices, m.faces, levels, m.creases);
        // Vertices at one place (a mesh's seams) may be matched to each other's
        // OpenSubdiv vertex: any of them with the same normal will do. Where
        // OpenSubdiv's tangents vanish (a degenerate spot) it has no normal.
        int wrong = 0;
        for (std::size_t i = 0; i < got.vertices.size(); ++i) {
            const std::size_t j = std::size_t(match[i]);
            const auto& w = limit.normals[j];
            if (!limit.manifold[j] || (w[0] == 0 && w[1] == 0 && w[2] == 0)) continue;
            const float4 n = normals[i];
            bool agrees = normal_agrees(n, limit, j);
            near(got.vertices[i].x, got.vertices[i].y, got.vertices[i].z, [&](std::int32_t k, double distance) {
                if (distance <= tol) agrees = agrees || normal_agrees(n, limit, std::size_t(k));
            });
            if (!agrees && ++wrong <= 5)
                ADD_FAILURE() << "vertex " << i << ": normal (" << n.x << ", " << n.y << ", " << n.z << "), OpenSubdiv's (" << w[0] << ", "
                              << w[1] << ", " << w[2] << ")";
        }
        EXPECT_EQ(wrong, 0) << "limit normals differing from OpenSubdiv's";
    }
    if (closed) {
        // Watertight: every edge in exactly two faces, once in each direction.
        std::map<std::pair<std::int32_t, std::int32_t>, int> directed;
        for (const int4& f : got.faces)
            for (auto [a, b] : {std::pair{f.x, f.y}, std::pair{f.y, f.z}, std::pair{f.z, f.x}}) ++directed[{a, b}];
        for (const auto& [edge, n] : directed) {
            EXPECT_EQ(n, 1) << "edge " << edge.first << " -> " << edge.second;
            EXPECT_EQ(directed.count({edge.second, edge.first}), 1u) << "edge " << edge.first << " -> " << edge.second << " is open";
        }
    }
}

}  // namespace rill::test::subdivision_reference
