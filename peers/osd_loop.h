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
/// non-manifold (no single limit normal); `on_crease` is 1 where a crease
/// makes the vertex a crease or corner vertex (its normal is one side's);
/// `dart` is 1 at a vertex on one crease (OpenSubdiv gives it the smooth
/// limit mask, which at a dart is not level-invariant: the vertex's limit
/// point moves from level to level); `along_crease`, at a vertex of the
/// crease rule (two sharp edges), the unit tangent along the crease (tan1),
/// to which either side's normal is perpendicular, else 0; the level's faces.
struct OsdLimit {
    std::vector<std::array<double, 3>> positions;
    std::vector<std::array<double, 3>> normals, along_crease;
    std::vector<char> manifold, on_crease, dart;
    std::vector<std::array<std::int32_t, 3>> faces;
};
OsdLimit osd_loop_limit(const std::vector<std::array<float, 4>>& vertices, const std::vector<std::array<std::int32_t, 4>>& faces,
                        int levels, const std::vector<std::array<std::int32_t, 2>>& creases = {});

}  // namespace rill::peers
