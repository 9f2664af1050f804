#include "fcl_meshes.h"

#include <fcl/fcl.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

namespace rill::peers {

struct FclMesh::Model {
    std::shared_ptr<fcl::BVHModel<fcl::OBBRSSd>> bvh;
};

FclMesh::FclMesh(const std::vector<std::array<float, 4>>& vertices, const std::vector<std::array<std::int32_t, 4>>& faces)
    : model_(std::make_unique<Model>()) {
    std::vector<fcl::Vector3d> points;
    points.reserve(vertices.size());
    for (const auto& v : vertices) points.emplace_back(v[0], v[1], v[2]);
    std::vector<fcl::Triangle> triangles;
    triangles.reserve(faces.size());
    for (const auto& f : faces) triangles.emplace_back(f[0], f[1], f[2]);
    model_->bvh = std::make_shared<fcl::BVHModel<fcl::OBBRSSd>>();
    model_->bvh->beginModel(static_cast<int>(triangles.size()), static_cast<int>(points.size()));
    model_->bvh->addSubModel(points, triangles);
    model_->bvh->endModel();
}

FclMesh::~FclMesh() = default;

namespace {

fcl::Transform3d transform(const PoseRows& p) {
    fcl::Transform3d t = fcl::Transform3d::Identity();
    fcl::Matrix3d r;
    r << p[0], p[1], p[2], p[4], p[5], p[6], p[8], p[9], p[10];
    t.linear() = r;
    t.translation() = fcl::Vector3d(p[3], p[7], p[11]);
    return t;
}

fcl::CollisionResultd run(const FclMesh& a, const FclMesh& b, const PoseRows& pose, std::size_t contacts) {
    fcl::CollisionObjectd oa(a.model().bvh, fcl::Transform3d::Identity());
    fcl::CollisionObjectd ob(b.model().bvh, transform(pose));
    fcl::CollisionRequestd request(contacts, contacts > 1);
    fcl::CollisionResultd result;
    fcl::collide(&oa, &ob, request, result);
    return result;
}

}  // namespace

bool fcl_collides(const FclMesh& a, const FclMesh& b, const PoseRows& pose) { return run(a, b, pose, 1).isCollision(); }

std::vector<std::pair<std::int32_t, std::int32_t>> fcl_pairs(const FclMesh& a, const FclMesh& b, const PoseRows& pose) {
    const fcl::CollisionResultd result = run(a, b, pose, std::size_t{1} << 30);
    std::vector<std::pair<std::int32_t, std::int32_t>> pairs;
    for (std::size_t i = 0; i < result.numContacts(); ++i) {
        const auto& c = result.getContact(i);
        pairs.emplace_back(c.b1, c.b2);
    }
    return pairs;
}

std::vector<std::uint8_t> fcl_collides_all(const FclMesh& a, const FclMesh& b, const std::vector<PoseRows>& poses, int threads) {
    std::vector<std::uint8_t> out(poses.size());
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, std::max(threads, 1));
    tbb::parallel_for(std::size_t{0}, poses.size(), [&](std::size_t i) { out[i] = fcl_collides(a, b, poses[i]) ? 1 : 0; });
    return out;
}

}  // namespace rill::peers
