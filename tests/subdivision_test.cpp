// Uniform Loop subdivision against OpenSubdiv (peers/osd_loop.h): the same
// vertex positions within 1e-5 of the bounding box's diagonal and the same
// faces (matched by position), on closed and open meshes of any valence;
// closed meshes stay watertight; edge meshes and errors.
#include <rill/algorithms/subdivision.h>

#include "../algorithms/src/subdivision/level.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <set>

#include "backend_fixture.h"
#include "subdivision_reference.h"
#include "subdivision_shapes.h"

namespace rill::test {
namespace {

class Subdivision : public BackendTest {};

using subdivision_reference::Mesh;
using subdivision_reference::Result;
using subdivision_reference::expect_matches_opensubdiv;
using subdivision_reference::subdivide;
using namespace subdivision_shapes;

TEST_P(Subdivision, ClosedMeshesMatchOpenSubdiv) {
    for (int levels : {1, 2, 3}) {
        expect_matches_opensubdiv(rt(), tetrahedron(), levels, true);
        expect_matches_opensubdiv(rt(), bipyramid(12), levels, true);  // two vertices of valence 12
        expect_matches_opensubdiv(rt(), bipyramid(3), levels, true);
    }
    expect_matches_opensubdiv(rt(), torus(12, 7), 2, true);
    // Two tetrahedra meeting at one vertex: every edge in two faces, but that vertex's
    // faces are two fans; OpenSubdiv, and rill, keep it where it is.
    Mesh touching = tetrahedron();
    for (const auto& v : {std::array<float, 4>{2, 1, 3, 0}, {3, 2, 1, 0}, {1, 3, 2, 0}}) touching.vertices.push_back(v);
    for (const auto& f : tetrahedron().faces)
        touching.faces.push_back({f[0] == 0 ? 0 : f[0] + 3, f[1] == 0 ? 0 : f[1] + 3, f[2] == 0 ? 0 : f[2] + 3, 0});
    for (int levels : {1, 2}) expect_matches_opensubdiv(rt(), touching, levels, true);
    expect_matches_opensubdiv(rt(), tetrahedron(), 5, true);
}

TEST_P(Subdivision, BoundariesMatchOpenSubdiv) {
    for (int levels : {1, 2, 3}) expect_matches_opensubdiv(rt(), disc(7), levels, false);
    expect_matches_opensubdiv(rt(), Mesh{{{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0.5f, 0}}, {{0, 1, 2, 0}}}, 3, false);
}

TEST_P(Subdivision, CreasesMatchOpenSubdiv) {
    const Mesh cube = sharp_cube();
    ASSERT_EQ(cube.creases.size(), 12u);
    for (int levels : {1, 2, 3}) expect_matches_opensubdiv(rt(), cube, levels, true);
    for (int levels : {1, 2}) expect_matches_opensubdiv(rt(), torus_with_sharp_ring(), levels, true);
    for (int levels : {1, 2}) expect_matches_opensubdiv(rt(), dart(), levels, true);
    for (int levels : {1, 2}) expect_matches_opensubdiv(rt(), disc_with_cut(), levels, false);
}

TEST_P(Subdivision, MeshesOfManyVerticesMatchOpenSubdiv) {
    // From 2^16 vertices on, an edge's key takes two words (fewer sort one): the
    // edges, the creases found among them and the non-manifold error from them, on
    // 16,400 separate quads of two triangles (a shared diagonal, four boundary edges).
    Mesh m;
    const int quads = 16400;
    for (int q = 0; q < quads; ++q) {
        const float x = static_cast<float>(q % 128) * 2.0f, y = static_cast<float>(q / 128) * 2.0f, z = static_cast<float>(q % 7) * 0.1f;
        for (const auto& c : {std::array<float, 2>{0, 0}, {1, 0}, {1, 1}, {0, 1}}) m.vertices.push_back({x + c[0], y + c[1], z * c[0], 0});
        m.faces.push_back({4 * q, 4 * q + 1, 4 * q + 2, 0});
        m.faces.push_back({4 * q, 4 * q + 2, 4 * q + 3, 0});
        if (q % 5 == 0) m.creases.push_back({4 * q + 2, 4 * q});  // the diagonal
    }
    ASSERT_GT(m.vertices.size(), 65536u);
    expect_matches_opensubdiv(rt(), m, 1, false);
    m.creases.clear();
    m.vertices.push_back({0, 0, 5, 0});
    m.faces.push_back({40000, 40002, static_cast<std::int32_t>(m.vertices.size() - 1), 0});  // a diagonal in three faces
    EXPECT_EQ(error_message([&] { subdivide(rt(), m, 1); }),
              "rill::subdivision::loop: the edge of vertices 40000 and 40002 belongs to three or more faces (1 such edges); Loop "
              "subdivision needs a manifold mesh (split the mesh at those edges)");
}

TEST_P(Subdivision, JoinedAndSeparateKernelsAgree) {
    // Small levels run their points (and derived connectivity) joined in one
    // dispatch, large ones apart (detail::joined_largest_level): both ways give
    // the same bits, on a closed mesh, one with creases and one with a boundary.
    const std::int64_t before = subdivision::detail::joined_largest_level();
    struct Restore {
        std::int64_t to;
        ~Restore() { subdivision::detail::set_joined_largest_level(to); }
    } restore{before};
    for (const auto& [m, closed] : {std::pair{torus(12, 7), true}, std::pair{sharp_cube(), true}, std::pair{disc(7), false}}) {
        subdivision::detail::set_joined_largest_level(-1);
        const Result apart = subdivide(rt(), m, 3);
        subdivision::detail::set_joined_largest_level(std::numeric_limits<std::int64_t>::max());
        const Result joined = subdivide(rt(), m, 3);
        ASSERT_EQ(apart.vertices.size(), joined.vertices.size());
        ASSERT_EQ(apart.faces.size(), joined.faces.size());
        for (std::size_t i = 0; i < apart.vertices.size(); ++i) {
            const float4 a = apart.vertices[i], b = joined.vertices[i];
            ASSERT_TRUE(a.x == b.x && a.y == b.y && a.z == b.z) << "vertex " << i;
        }
        for (std::size_t i = 0; i < apart.faces.size(); ++i) {
            const int4 a = apart.faces[i], b = joined.faces[i];
            ASSERT_TRUE(a.x == b.x && a.y == b.y && a.z == b.z) << "face " << i;
        }
        // And each as OpenSubdiv has it.
        subdivision::detail::set_joined_largest_level(-1);
        expect_matches_opensubdiv(rt(), m, 2, closed);
    }
}

TEST_P(Subdivision, LevelZeroAndEmptyMeshes) {
    const Mesh t = tetrahedron();
    const Result same = subdivide(rt(), t, 0);
    EXPECT_EQ(same.faces.size(), 4u);
    EXPECT_EQ(same.vertices[3].z, 1.0f);
    const Result none = subdivide(rt(), Mesh{}, 3);
    EXPECT_TRUE(none.vertices.empty());
    EXPECT_TRUE(none.faces.empty());
}

TEST_P(Subdivision, BadMeshesAreErrors) {
    auto message = [&](const Mesh& m, int levels = 1) { return error_message([&] { subdivide(rt(), m, levels); }); };
    Mesh m = tetrahedron();
    m.faces[2] = {0, 2, 9, 0};
    EXPECT_EQ(message(m), "rill::subdivision::loop: face 2 (0, 2, 9) has a vertex index outside 0 .. 3 (1 faces are like it); "
                          "give indices of the vertex stream");
    m = tetrahedron();
    m.faces[1] = {0, 3, 3, 0};
    EXPECT_EQ(message(m), "rill::subdivision::loop: face 1 (0, 3, 3) names a vertex twice (1 faces are like it); remove "
                          "degenerate faces first");
    m = tetrahedron();
    m.vertices.push_back({5, 5, 5, 0});
    EXPECT_EQ(message(m), "rill::subdivision::loop: vertex 4 is in no face (1 vertices are like it); remove unused vertices first");
    m = tetrahedron();
    m.vertices.push_back({0, 0, -3, 0});
    m.faces.push_back({0, 1, 4, 0});  // edge 0-1 now in three faces
    EXPECT_EQ(message(m), "rill::subdivision::loop: the edge of vertices 0 and 1 belongs to three or more faces (1 such edges); "
                          "Loop subdivision needs a manifold mesh (split the mesh at those edges)");
    EXPECT_EQ(message(tetrahedron(), 13), "rill::subdivision::loop: levels is 13; give 0 to 12");
    m = tetrahedron();
    m.creases = {{0, 1}, {2, 2}, {1, 9}};
    EXPECT_EQ(message(m), "rill::subdivision::loop: crease 1 (2, 2) is no edge of the mesh (2 creases are like it); give pairs of "
                          "vertices that a face joins");
    EXPECT_EQ(message(Mesh{{{0, 0, 0, 0}}, {}}),
              "rill::subdivision::loop: 1 vertices but no faces; give faces (or no vertices for an empty mesh)");
}

RILL_INSTANTIATE_FOR_BACKENDS(Subdivision);

}  // namespace
}  // namespace rill::test
