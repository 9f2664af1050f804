// rill-collide's library part: random pose batches, one timed collision
// query of two meshes through rill::collision, and a picture of one pose
// with its intersecting faces marked (traced through rill::bvh). Tests and
// the benchmark reuse it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <rill/algorithms/collision.h>

#include "images.h"
#include "meshes.h"

namespace collide_app {

/// The rows of [R | t], taking b's coordinates into a's (collision.h).
using Pose = std::array<float, 12>;

/// `count` poses of b about a: rotations uniformly at random, b's centre
/// uniformly in a cube about a's centre whose half side is `spread` times
/// the sum of the meshes' radii (half their bounds' diagonals). A spread of
/// about 0.5 makes half of the bunny's poses against itself collide.
std::vector<Pose> random_poses(const app_meshes::Mesh& a, const app_meshes::Mesh& b, std::int64_t count, std::uint32_t seed,
                               float spread);

/// The poses as the query takes them: 3 float4 per pose.
rill::Stream<rill::float4> upload_poses(rill::Runtime& rt, const std::vector<Pose>& poses);

struct Run {
    std::vector<std::int32_t> counts;  ///< per pose: pairs, -1 for a pose that is not rigid
    std::vector<rill::int4> pairs;     ///< (pose, face of a, face of b, 0)
    std::vector<std::int64_t> candidates_per_level;
    std::int64_t triangles_a = 0, triangles_b = 0, skipped = 0;
    double build_ms = 0;  ///< both trees, waited for
    double query_ms = 0;  ///< the query until its pairs and counts are on the host
};

/// Builds both trees and runs one query of every pose.
Run run(rill::Runtime& rt, const app_meshes::Mesh& a, const app_meshes::Mesh& b, const std::vector<Pose>& poses,
        const rill::collision::QueryOptions& options = {});

/// a, and b under `pose`, seen from the front and above; a's faces grey, b's
/// blue, the faces of `pairs` (face of a, face of b in y and z) red and orange.
app_images::Image render(rill::Runtime& rt, const app_meshes::Mesh& a, const app_meshes::Mesh& b, const Pose& pose,
                         const std::vector<rill::int4>& pairs, int width, int height);

}  // namespace collide_app
