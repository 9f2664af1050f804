// The surface of a cube as tests build it: 6 k^2 quads of two triangles each,
// every edge shared by two faces, the points in [-1, 1]^3 (callers place them).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <vector>

namespace rill::test {

struct CubeSurface {
    std::vector<std::array<float, 3>> points;
    std::vector<std::array<std::int32_t, 3>> faces;
};

inline CubeSurface cube_surface(int k) {
    CubeSurface m;
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

}  // namespace rill::test
