// Adaptive Loop subdivision against OpenSubdiv's limit surface
// (peers/osd_loop.h): a criterion that splits every edge gives the uniform
// refinement on the limit surface; a criterion that splits edges near a point
// gives triangles of several levels, each vertex at OpenSubdiv's limit
// position of its level, each whole triangle a face of its level, no crack
// (every edge of the output in two triangles, by position), the criterion
// met by every finished triangle; edge meshes and errors.
#include <rill/algorithms/subdivision.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "backend_fixture.h"
#include "subdivision_reference.h"
#include "subdivision_shapes.h"

namespace rill::test {
namespace {

class AdaptiveSubdivision : public BackendTest {};

using subdivision_reference::Mesh;
using namespace subdivision_shapes;

const subdivision::EdgeCriterion& every_edge() {
    static const subdivision::EdgeCriterion c("adaptive_test_every_edge",
                                              [](const Expr<float3>& a, const Expr<float3>& b, const Expr<float4>&) {
                                                  return dot(a - b, a - b) >= 0.0f;
                                              });
    return c;
}

/// Splits an edge longer than params.w times its midpoint's distance to
/// params.xyz: finer near the point, as a camera's screen-space size.
const subdivision::EdgeCriterion& near_point() {
    static const subdivision::EdgeCriterion c("adaptive_test_near_point",
                                              [](const Expr<float3>& a, const Expr<float3>& b, const Expr<float4>& p) {
                                                  return length(a - b) > p.w() * length((a + b) * 0.5f - p.xyz());
                                              });
    return c;
}

double near_point_excess(const float4& a, const float4& b, const float4& p) {
    const double m[3] = {(double(a.x) + b.x) / 2 - p.x, (double(a.y) + b.y) / 2 - p.y, (double(a.z) + b.z) / 2 - p.z};
    return std::hypot(double(a.x) - b.x, double(a.y) - b.y, double(a.z) - b.z) / (p.w * std::hypot(m[0], m[1], m[2]));
}

struct Got {
    subdivision::AdaptiveMesh mesh;
    std::vector<float4> vertices, normals;
    std::vector<int4> faces;
};

Got run(Runtime& rt, const Mesh& m, const subdivision::EdgeCriterion& c, int max_level, float4 params) {
    std::vector<float4> v;
    for (const auto& x : m.vertices) v.push_back({x[0], x[1], x[2], 0});
    std::vector<int4> f;
    for (const auto& x : m.faces) f.push_back({x[0], x[1], x[2], 7});  // w ignored
    Got g{subdivision::adaptive(rt.stream<float4>({std::int64_t(v.size())}, v), rt.stream<int4>({std::int64_t(f.size())}, f), c,
                                max_level, params, subdivision_reference::options_of(rt, m)),
          {}, {}, {}};
    g.vertices = g.mesh.vertices.download();
    g.normals = g.mesh.normals.download();
    g.faces = g.mesh.faces.download();
    return g;
}

/// OpenSubdiv's limit surface at each level 0 .. levels, and the
/// points of each level in a grid of cells of 4 tol.
struct Reference {
    std::vector<peers::OsdLimit> level;
    double tol = 0;
    std::vector<std::map<std::array<std::int64_t, 3>, std::vector<std::int32_t>>> grid;
    std::vector<std::set<std::array<std::int32_t, 3>>> faces;  // each level's faces, sorted indices

    Reference(const Mesh& m, int levels) : level(std::size_t(levels) + 1), grid(std::size_t(levels) + 1), faces(std::size_t(levels) + 1) {
        double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
        for (const auto& p : m.vertices)
            for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], double(p[k])), hi[k] = std::max(hi[k], double(p[k]));
        tol = 1e-5 * std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
        for (int l = 0; l <= levels; ++l) {
            level[std::size_t(l)] = peers::osd_loop_limit(m.vertices, m.faces, l, m.creases);
            const auto& pos = level[std::size_t(l)].positions;
            for (std::size_t i = 0; i < pos.size(); ++i) grid[std::size_t(l)][cell(pos[i][0], pos[i][1], pos[i][2])].push_back(std::int32_t(i));
            for (auto t : level[std::size_t(l)].faces) {
                std::sort(t.begin(), t.end());
                faces[std::size_t(l)].insert(t);
            }
        }
    }
    std::array<std::int64_t, 3> cell(double x, double y, double z) const {
        return {std::int64_t(std::floor(x / (4 * tol))), std::int64_t(std::floor(y / (4 * tol))), std::int64_t(std::floor(z / (4 * tol)))};
    }
    /// The vertex of level l nearest p within tol, or -1.
    std::int32_t find(int l, const float4& p) const {
        const auto c = cell(p.x, p.y, p.z);
        std::int32_t best = -1;
        double best_d = tol;
        for (int dx = -1; dx <= 1; ++dx)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dz = -1; dz <= 1; ++dz) {
                    auto it = grid[std::size_t(l)].find({c[0] + dx, c[1] + dy, c[2] + dz});
                    if (it == grid[std::size_t(l)].end()) continue;
                    for (std::int32_t j : it->second) {
                        const auto& q = level[std::size_t(l)].positions[std::size_t(j)];
                        const double d = std::hypot(p.x - q[0], p.y - q[1], p.z - q[2]);
                        if (d <= best_d) best_d = d, best = j;
                    }
                }
        return best;
    }
};

int level_of(const float4& v) { return int(v.w); }

/// v's vertex at the level it first appears at (found: checked before).
std::int32_t at_birth(const Reference& ref, const float4& v) { return std::max(ref.find(level_of(v), v), 0); }

/// Every vertex at OpenSubdiv's limit position on the level it first appears
/// at, with its normal; every triangle of vertices of its own level a face of
/// that level (but for triangles at a dart born earlier, which OpenSubdiv's
/// limit places elsewhere at each level); every triangle made of its level's vertices and the next
/// level's (stitched) only; faces_per_level adds up.
void expect_on_the_limit_surface(const Got& g, const Reference& ref) {
    const int top = int(ref.level.size()) - 1;
    int wrong = 0, wrong_normals = 0;
    std::vector<std::int32_t> at(g.vertices.size(), -1);
    for (std::size_t i = 0; i < g.vertices.size(); ++i) {
        const float4 p = g.vertices[i];
        const int l = std::clamp(level_of(p), 0, top);
        ASSERT_TRUE(level_of(p) >= 0 && level_of(p) <= top) << "vertex " << i << " of level " << p.w;
        at[i] = ref.find(l, p);
        if (at[i] < 0) {
            if (++wrong <= 5) ADD_FAILURE() << "vertex " << i << " (" << p.x << ", " << p.y << ", " << p.z << ") of level " << p.w
                                            << " is on no OpenSubdiv limit point of its level";
            continue;
        }
        const auto& lim = ref.level[std::size_t(l)];
        const auto& w = lim.normals[std::size_t(at[i])];
        if (!lim.manifold[std::size_t(at[i])] || (w[0] == 0 && w[1] == 0 && w[2] == 0)) continue;
        const float4 n = g.normals[i];
        if (!subdivision_reference::normal_agrees(n, lim, std::size_t(at[i])) && ++wrong_normals <= 5)
            ADD_FAILURE() << "vertex " << i << ": normal (" << n.x << ", " << n.y << ", " << n.z << "), OpenSubdiv's (" << w[0] << ", " << w[1]
                          << ", " << w[2] << ")";
    }
    ASSERT_EQ(wrong, 0);
    EXPECT_EQ(wrong_normals, 0);
    std::vector<std::int64_t> per_level(g.mesh.faces_per_level.size(), 0);
    int not_faces = 0;
    std::size_t darts = 0;
    for (const int4& f : g.faces) {
        const int l = f.w;
        ASSERT_TRUE(l >= 0 && std::size_t(l) < per_level.size()) << "a triangle of level " << l;
        ++per_level[std::size_t(l)];
        int newest = 0;
        for (int c : {f.x, f.y, f.z}) newest = std::max(newest, level_of(g.vertices[std::size_t(c)]));
        ASSERT_LE(newest, l + 1) << "a triangle of level " << l << " has a vertex of level " << newest;
        if (newest > l) continue;  // stitched (its vertices are checked above)
        std::array<std::int32_t, 3> t{};
        bool moving = false;  // a dart of an earlier level: OpenSubdiv places it elsewhere at this level
        for (int k = 0; k < 3; ++k) {
            const float4 p = g.vertices[std::size_t(k == 0 ? f.x : k == 1 ? f.y : f.z)];
            t[std::size_t(k)] = ref.find(l, p);
            const int born = level_of(p);
            moving = moving || (t[std::size_t(k)] < 0 && born < l && ref.level[std::size_t(born)].dart[std::size_t(at_birth(ref, p))]);
        }
        if (moving) {
            ++darts;
            continue;
        }
        std::sort(t.begin(), t.end());
        if (!ref.faces[std::size_t(l)].count(t) && ++not_faces <= 5) ADD_FAILURE() << "a triangle of level " << l << " is no face of that level";
    }
    EXPECT_LE(darts, g.faces.size() / 10) << "triangles at darts not compared";
    EXPECT_EQ(not_faces, 0);
    EXPECT_EQ(per_level, g.mesh.faces_per_level);
}

/// Every edge in exactly two triangles, in opposite directions, by position.
void expect_crack_free(const Got& g) {
    std::map<std::array<std::uint32_t, 3>, std::int32_t> place;
    std::vector<std::int32_t> id(g.vertices.size());
    for (std::size_t i = 0; i < g.vertices.size(); ++i) {
        std::array<std::uint32_t, 3> bits{};
        std::memcpy(bits.data(), &g.vertices[i], 12);
        id[i] = place.emplace(bits, std::int32_t(place.size())).first->second;
    }
    EXPECT_EQ(place.size(), g.vertices.size()) << "two vertices at one place";
    std::map<std::pair<std::int32_t, std::int32_t>, int> directed;
    for (const int4& f : g.faces) {
        const std::int32_t c[3] = {id[std::size_t(f.x)], id[std::size_t(f.y)], id[std::size_t(f.z)]};
        for (int k = 0; k < 3; ++k) ++directed[{c[k], c[(k + 1) % 3]}];
    }
    int open = 0;
    for (const auto& [e, n] : directed) {
        const auto back = directed.find({e.second, e.first});
        if ((n != 1 || back == directed.end() || back->second != 1) && ++open <= 5)
            ADD_FAILURE() << "edge " << e.first << " -> " << e.second << " is in " << n << " triangles, its reverse in "
                          << (back == directed.end() ? 0 : back->second);
    }
    EXPECT_EQ(open, 0) << "cracks or folds";
}

/// The near-point criterion holds on every finished triangle's edges below
/// the finest level (edges to a stitched-in vertex are halves of such edges).
void expect_near_point_met(const Got& g, int levels, const float4& eye) {
    int asking = 0;
    for (const int4& f : g.faces) {
        if (f.w >= levels) continue;
        const int corners[3] = {f.x, f.y, f.z};
        for (int k = 0; k < 3; ++k) {
            const float4 a = g.vertices[std::size_t(corners[k])], b = g.vertices[std::size_t(corners[(k + 1) % 3])];
            if (level_of(a) > f.w || level_of(b) > f.w) continue;
            if (near_point_excess(a, b, eye) > 1 + 1e-5 && ++asking <= 5)
                ADD_FAILURE() << "a triangle finished at level " << f.w << " has an edge the criterion splits";
        }
    }
    EXPECT_EQ(asking, 0);
}

TEST_P(AdaptiveSubdivision, SplittingEveryEdgeIsTheUniformRefinementOnTheLimitSurface) {
    for (const auto& [mesh, levels] : {std::pair{tetrahedron(), 3}, std::pair{bipyramid(7), 2}, std::pair{disc(7), 2}, std::pair{torus(12, 7), 1}}) {
        const Reference ref(mesh, levels);
        const Got g = run(rt(), mesh, every_edge(), levels, {});
        ASSERT_EQ(g.faces.size(), mesh.faces.size() << (2 * levels));
        ASSERT_EQ(g.vertices.size(), ref.level[std::size_t(levels)].positions.size());
        EXPECT_EQ(g.mesh.held_back, 0);
        for (const int4& f : g.faces) ASSERT_EQ(f.w, levels);
        expect_on_the_limit_surface(g, ref);
    }
    expect_crack_free(run(rt(), bipyramid(12), every_edge(), 2, {}));
}

TEST_P(AdaptiveSubdivision, RefinesNearAPointWithoutCracks) {
    struct Case {
        Mesh mesh;
        int levels;
        float4 eye;
    };
    for (const Case& c : {Case{torus(12, 7), 4, {1.5f, 0.2f, 0.3f, 0.12f}}, Case{bipyramid(12), 4, {0.9f, 0.1f, 1.0f, 0.15f}},
                          Case{tetrahedron(), 4, {0.24f, 0.22f, 0.22f, 0.5f}}}) {
        const Reference ref(c.mesh, c.levels);
        const Got g = run(rt(), c.mesh, near_point(), c.levels, c.eye);
        SCOPED_TRACE("faces per level " + ::testing::PrintToString(g.mesh.faces_per_level));
        EXPECT_EQ(g.mesh.held_back, 0);
        ASSERT_EQ(g.mesh.faces_per_level.size(), std::size_t(c.levels) + 1) << "the finest level is reached";
        int levels_used = 0;
        for (std::int64_t n : g.mesh.faces_per_level) levels_used += n > 0;
        EXPECT_GE(levels_used, 3) << "triangles finish at several levels";
        EXPECT_LT(g.faces.size(), c.mesh.faces.size() << (2 * c.levels));
        expect_on_the_limit_surface(g, ref);
        expect_crack_free(g);
        expect_near_point_met(g, c.levels, c.eye);
    }
}

TEST_P(AdaptiveSubdivision, CreasesStaySharpOnTheLimitSurface) {
    // Splitting every edge: the uniform refinement of the creased mesh, on its limit surface.
    for (const auto& [mesh, levels] : {std::pair{sharp_cube(), 2}, std::pair{torus_with_sharp_ring(), 2}, std::pair{dart(), 2},
                                       std::pair{disc_with_cut(), 2}}) {
        SCOPED_TRACE(::testing::Message() << mesh.faces.size() << " faces, " << mesh.creases.size() << " creases");
        const Reference ref(mesh, levels);
        const Got g = run(rt(), mesh, every_edge(), levels, {});
        ASSERT_EQ(g.faces.size(), mesh.faces.size() << (2 * levels));
        expect_on_the_limit_surface(g, ref);
    }
    // Near a point on a crease: triangles of several levels along and across it.
    struct Case {
        Mesh mesh;
        int levels;
        float4 eye;
    };
    for (const Case& c : {Case{torus_with_sharp_ring(), 4, {1.45f, 0.0f, 0.0f, 0.2f}}, Case{sharp_cube(), 4, {1.05f, 0.5f, 1.05f, 0.3f}}}) {
        const Reference ref(c.mesh, c.levels);
        const Got g = run(rt(), c.mesh, near_point(), c.levels, c.eye);
        SCOPED_TRACE("faces per level " + ::testing::PrintToString(g.mesh.faces_per_level));
        EXPECT_EQ(g.mesh.held_back, 0);
        int levels_used = 0;
        for (std::int64_t n : g.mesh.faces_per_level) levels_used += n > 0;
        EXPECT_GE(levels_used, 3) << "triangles finish at several levels";
        expect_on_the_limit_surface(g, ref);
        expect_crack_free(g);
        expect_near_point_met(g, c.levels, c.eye);
    }
}

/// Splits edges whose midpoint is within params.w of params.xyz: the
/// children's midpoints reach into the ball where their parents' did not,
/// also where the neighbourhood was not refined (held back there).
const subdivision::EdgeCriterion& in_ball() {
    static const subdivision::EdgeCriterion c("adaptive_test_in_ball",
                                              [](const Expr<float3>& a, const Expr<float3>& b, const Expr<float4>& p) {
                                                  return length((a + b) * 0.5f - p.xyz()) < p.w();
                                              });
    return c;
}

TEST_P(AdaptiveSubdivision, AskingAgainstTheRestrictionIsHeldBackWithoutCracks) {
    const Mesh mesh = torus(12, 7);
    const Reference ref(mesh, 3);
    const Got g = run(rt(), mesh, in_ball(), 3, {1.35f, 0.1f, 0.1f, 0.3f});
    SCOPED_TRACE("faces per level " + ::testing::PrintToString(g.mesh.faces_per_level));
    EXPECT_GT(g.mesh.held_back, 0);
    expect_on_the_limit_surface(g, ref);
    expect_crack_free(g);
}

TEST_P(AdaptiveSubdivision, LevelZeroEmptyMeshesAndErrors) {
    const Got zero = run(rt(), tetrahedron(), near_point(), 0, {0, 0, 0, 0.01f});
    ASSERT_EQ(zero.faces.size(), 4u);
    EXPECT_EQ(zero.mesh.faces_per_level, std::vector<std::int64_t>{4});
    const Reference ref(tetrahedron(), 1);
    expect_on_the_limit_surface(zero, ref);
    // Nothing asks for a split: the input's faces, on the limit surface.
    const Got none = run(rt(), tetrahedron(), near_point(), 3, {0, 0, 0, 100.0f});
    EXPECT_EQ(none.mesh.faces_per_level, std::vector<std::int64_t>{4});

    const auto empty = subdivision::adaptive(rt().stream<float4>({0}), rt().stream<int4>({0}), every_edge(), 3);
    EXPECT_EQ(empty.faces.size(), 0);
    EXPECT_EQ(empty.vertices.size(), 0);
    const Mesh t = tetrahedron();
    std::vector<float4> v;
    for (const auto& x : t.vertices) v.push_back({x[0], x[1], x[2], 0});
    const Stream<float4> vs = rt().stream<float4>({4}, v);
    auto message = [&](auto&& call) {
        try {
            call();
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const Stream<int4> fs = rt().stream<int4>({4}, std::vector<int4>{{0, 1, 2, 0}, {0, 3, 1, 0}, {0, 2, 3, 0}, {1, 3, 2, 0}});
    EXPECT_NE(message([&] { subdivision::adaptive(vs, fs, every_edge(), 13); }).find("max_level is 13; give 0 to 12"), std::string::npos);
    EXPECT_NE(message([&] { subdivision::adaptive(vs, rt().stream<int4>({0}), every_edge(), 1); }).find("vertices but no faces"),
              std::string::npos);
    const Stream<int4> bad = rt().stream<int4>({2}, std::vector<int4>{{0, 1, 2, 0}, {0, 1, 9, 0}});
    EXPECT_NE(message([&] { subdivision::adaptive(vs, bad, every_edge(), 1); }).find("face 1 (0, 1, 9) has a vertex index outside"),
              std::string::npos);
    EXPECT_NE(message([] { subdivision::EdgeCriterion("empty", nullptr); }).find("the body is empty"), std::string::npos);
}

RILL_INSTANTIATE_FOR_BACKENDS(AdaptiveSubdivision);

}  // namespace
}  // namespace rill::test
