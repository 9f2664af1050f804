// OpenSubdiv's uniform Loop refinement (Far::TopologyRefiner with
// Sdc::SCHEME_LOOP and VTX_BOUNDARY_EDGE_ONLY, positions by
// Far::PrimvarRefinerReal<double>), and its limit normals, for the
// subdivision tests' reference and the benchmarks' CPU peer.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace rill::peers {

struct OsdMesh {
    std::vector<std::array<double, 3>> vertices;
    std::vector<std::array<std::int32_t, 3>> faces;
};

/// vertices: x, y, z, (ignored); faces: three indices, (ignored); creases:
/// pairs of vertex indices, infinitely sharp (Sdc::Crease::SHARPNESS_INFINITE).
OsdMesh osd_loop(const std::vector<std::array<float, 4>>& vertices, const std::vector<std::array<std::int32_t, 4>>& faces,
                 int levels, const std::vector<std::array<std::int32_t, 2>>& creases = {});

/// OpenSubdiv's limit surface at the vertices of level `levels`,
/// by Far::PrimvarRefiner::Limit: positions, normals (tan1 x tan2,
/// normalized); `manifold` is 0 where OpenSubdiv marks the vertex
/// non-manifold (no single limit normal); the level's faces.
struct OsdLimit {
    std::vector<std::array<double, 3>> positions;
    std::vector<std::array<double, 3>> normals;
    std::vector<char> manifold;
    std::vector<std::array<std::int32_t, 3>> faces;
};
OsdLimit osd_loop_limit(const std::vector<std::array<float, 4>>& vertices,
                                const std::vector<std::array<std::int32_t, 4>>& faces, int levels);

}  // namespace rill::peers
