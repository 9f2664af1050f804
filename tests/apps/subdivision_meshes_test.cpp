// rill::subdivision::loop on the test meshes (../shared/data/meshes) against
// OpenSubdiv: closed (spot, fandisk, cow) and open (teapot) at levels 1 and 2.
#include <filesystem>

#include "test_meshes.h"
#include "../backend_fixture.h"
#include "../subdivision_reference.h"
#include "meshes.h"

namespace rill::test {
namespace {

class SubdivisionMeshes : public BackendTest {};

TEST_P(SubdivisionMeshes, TestMeshesMatchOpenSubdiv) {
    const std::filesystem::path dir = test_meshes::dir();
    if (!std::filesystem::exists(dir / "spot.obj")) GTEST_SKIP() << "the test meshes are not at " << dir;
    for (auto [name, closed] : {std::pair{"spot.obj", true}, std::pair{"fandisk.obj", true}, std::pair{"cow.obj", true},
                                std::pair{"teapot.obj", false}}) {
        SCOPED_TRACE(name);
        const app_meshes::Mesh m = app_meshes::read_obj("test", (dir / name).string());
        subdivision_reference::Mesh mesh;
        for (const float4& v : m.vertices) mesh.vertices.push_back({v.x, v.y, v.z, 0});
        for (const int4& f : m.faces) mesh.faces.push_back({f.x, f.y, f.z, 0});
        for (int levels : {1, 2}) subdivision_reference::expect_matches_opensubdiv(rt(), mesh, levels, closed);
    }
}

RILL_INSTANTIATE_FOR_BACKENDS(SubdivisionMeshes);

}  // namespace
}  // namespace rill::test
