// Triangle meshes in FCL (the Flexible Collision Library, OBBRSS trees), for
// the collision tests' second opinion and the benchmarks' CPU peer. Poses
// are given as rill lays them out: 12 floats, the rows of [R | t], taking b's
// coordinates into a's.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace rill::peers {

using PoseRows = std::array<float, 12>;

class FclMesh {
public:
    /// vertices: x, y, z, (ignored); faces: three indices, (ignored).
    FclMesh(const std::vector<std::array<float, 4>>& vertices, const std::vector<std::array<std::int32_t, 4>>& faces);
    ~FclMesh();
    FclMesh(const FclMesh&) = delete;
    FclMesh& operator=(const FclMesh&) = delete;

    struct Model;
    const Model& model() const { return *model_; }

private:
    std::unique_ptr<Model> model_;
};

/// Whether a and b (posed) touch anywhere: FCL's collide with one contact.
bool fcl_collides(const FclMesh& a, const FclMesh& b, const PoseRows& pose);

/// Every intersecting pair of faces (face of a, face of b), as FCL finds them.
std::vector<std::pair<std::int32_t, std::int32_t>> fcl_pairs(const FclMesh& a, const FclMesh& b, const PoseRows& pose);

/// fcl_collides for each pose, on `threads` threads (TBB; 1: this thread).
std::vector<std::uint8_t> fcl_collides_all(const FclMesh& a, const FclMesh& b, const std::vector<PoseRows>& poses, int threads);

}  // namespace rill::peers
