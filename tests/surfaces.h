// Closed surfaces as tests build them, as points and faces that each test
// turns into its own mesh type: a cube's and a torus's.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <map>
#include <vector>

namespace rill::test {

struct Surface {
    std::vector<std::array<float, 3>> points;
    std::vector<std::array<std::int32_t, 3>> faces;
};

/// A cube's surface: 6 k^2 quads of two triangles each, every edge shared by
/// two faces, the points in [-1, 1]^3 (callers place them).
inline Surface cube_surface(int k) {
    Surface m;
    std::map<std::array<int, 3>, std::int32_t> index;
    auto vertex = [&](std::array<int, 3> g) {
        auto [it, fresh] = index.try_emplace(g, static_cast<std::int32_t>(m.points.size()));
        if (fresh) m.points.push_back({2.0f * g[0] / k - 1, 2.0f * g[1] / k - 1, 2.0f * g[2] / k - 1});
        return it->second;
    };
    for (int axis = 0; axis < 3; ++axis)
        for (int side : {0, k})
            for (int u = 0; u < k; ++u)
                for (int v = 0; v < k; ++v) {
                    auto at = [&](int du, int dv) {
                        std::array<int, 3> g{};
                        g[axis] = side, g[(axis + 1) % 3] = u + du, g[(axis + 2) % 3] = v + dv;
                        return vertex(g);
                    };
                    const std::int32_t a = at(0, 0), b = at(1, 0), c = at(1, 1), d = at(0, 1);
                    m.faces.push_back({a, b, c});
                    m.faces.push_back({a, c, d});
                }
    return m;
}

/// A torus about the z axis: nu x nv quads of two triangles each (every vertex
/// of valence 6).
inline Surface torus_surface(int nu, int nv, double major, double minor) {
    Surface m;
    for (int i = 0; i < nu; ++i)
        for (int j = 0; j < nv; ++j) {
            const double u = 2 * std::numbers::pi * i / nu, v = 2 * std::numbers::pi * j / nv;
            m.points.push_back({float((major + minor * std::cos(v)) * std::cos(u)), float((major + minor * std::cos(v)) * std::sin(u)),
                                float(minor * std::sin(v))});
        }
    auto at = [&](int i, int j) { return std::int32_t((i % nu) * nv + (j % nv)); };
    for (int i = 0; i < nu; ++i)
        for (int j = 0; j < nv; ++j) {
            m.faces.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
            m.faces.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
        }
    return m;
}

}  // namespace rill::test
