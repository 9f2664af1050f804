// rill-collide on every backend: the test meshes (../shared/data/meshes)
// under random poses against the float64 brute force and FCL; the picture
// marks the intersecting faces; a batch of no poses.
#include <filesystem>

#include "test_meshes.h"
#include "../backend_fixture.h"
#include "../collision_reference.h"
#include "collide_app.h"
#include "fcl_meshes.h"

namespace rill::test {
namespace {

namespace ref = collision_reference;

class CollideApp : public BackendTest {};

ref::Mesh rows(const app_meshes::Mesh& m) {
    ref::Mesh r;
    for (const float4& v : m.vertices) r.vertices.push_back({v.x, v.y, v.z, v.w});
    for (const int4& f : m.faces) r.faces.push_back({f.x, f.y, f.z, f.w});
    return r;
}

app_meshes::Mesh test_mesh(const char* name) {
    const std::filesystem::path path = test_meshes::dir() / name;
    if (!std::filesystem::exists(path)) return {};
    return app_meshes::read_obj("test", path.string());
}

TEST_P(CollideApp, TestMeshesMatchBruteForce) {
    const app_meshes::Mesh spot = test_mesh("spot.obj"), cow = test_mesh("cow.obj");
    if (spot.faces.empty() || cow.faces.empty()) GTEST_SKIP() << "the test meshes are not at " << test_meshes::dir();
    const std::vector<collide_app::Pose> poses = collide_app::random_poses(spot, cow, 4, 7, 0.4f);
    const collide_app::Run r = collide_app::run(rt(), spot, cow, poses);
    ASSERT_EQ(r.counts.size(), poses.size());
    std::vector<ref::Pairs> got(poses.size());
    for (const int4& p : r.pairs) got.at(p.x).insert({p.y, p.z});
    int colliding = 0;
    for (std::size_t i = 0; i < poses.size(); ++i) {
        const ref::Expected want = ref::brute_force(rows(spot), rows(cow), poses[i], 1e-4);
        EXPECT_EQ(r.counts[i], std::int32_t(got[i].size()));
        for (const auto& pair : want.must) EXPECT_TRUE(got[i].count(pair)) << "pose " << i << ": missed " << pair.first << ", " << pair.second;
        for (const auto& pair : got[i]) EXPECT_TRUE(want.may.count(pair)) << "pose " << i << ": " << pair.first << ", " << pair.second;
        colliding += !want.must.empty();
    }
    EXPECT_GE(colliding, 1);
    EXPECT_LE(colliding, 3);
}

TEST_P(CollideApp, BunnyPosesAgreeWithFcl) {
    const app_meshes::Mesh bunny = test_mesh("stanford-bunny.obj");
    if (bunny.faces.empty()) GTEST_SKIP() << "the test meshes are not at " << test_meshes::dir();
    const std::vector<collide_app::Pose> poses = collide_app::random_poses(bunny, bunny, 24, 3, 0.5f);
    const collide_app::Run r = collide_app::run(rt(), bunny, bunny, poses, {.max_pairs_per_pose = 1});
    const ref::Mesh m = rows(bunny);
    const peers::FclMesh fcl(m.vertices, m.faces);
    int colliding = 0;
    for (std::size_t i = 0; i < poses.size(); ++i) {
        const bool want = peers::fcl_collides(fcl, fcl, poses[i]);
        EXPECT_EQ(r.counts[i], want ? 1 : 0) << "pose " << i;
        colliding += want;
    }
    EXPECT_GE(colliding, 4);
    EXPECT_LE(colliding, 20);
}

TEST_P(CollideApp, PictureMarksTheIntersectingFaces) {
    const app_meshes::Mesh a = app_meshes::torus(48, 16, 1.0f, 0.3f), b = app_meshes::torus(32, 12, 0.8f, 0.25f);
    const collide_app::Pose pose{1, 0, 0, 0.3f, 0, 0, -1, 0, 0, 1, 0, 0};  // b upright, its tube through a's tube
    const collide_app::Run r = collide_app::run(rt(), a, b, {pose});
    ASSERT_GT(r.counts.at(0), 0);
    const app_images::Image image = collide_app::render(rt(), a, b, pose, r.pairs, 160, 90);
    ASSERT_EQ(image.pixels.size(), 3u * 160 * 90);
    int red = 0;
    const std::size_t n = 160 * 90;
    for (std::size_t i = 0; i < n; ++i) red += image.pixels[i] > 2 * image.pixels[n + i] && image.pixels[i] > 0.3f;
    EXPECT_GT(red, 4) << "the intersecting faces are red or orange";
    const collide_app::Run none = collide_app::run(rt(), a, b, {pose}, {.max_pairs_per_pose = 0});
    EXPECT_EQ(none.pairs.size(), r.pairs.size());
    const collide_app::Run empty = collide_app::run(rt(), a, b, {});
    EXPECT_TRUE(empty.counts.empty());
    EXPECT_TRUE(empty.pairs.empty());
}

RILL_INSTANTIATE_FOR_BACKENDS(CollideApp);

}  // namespace
}  // namespace rill::test
