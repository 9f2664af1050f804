// The BVH against Embree (closest hit on the same rays: hit or miss, face, t),
// any hit against closest hit, the tree's invariants on the host after build
// and refit, watertightness on closed meshes, edge meshes and errors.
#include <rill/algorithms/bvh.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <set>

#include "backend_fixture.h"
#include "surfaces.h"
#include "embree_scene.h"

namespace rill::test {
namespace {

class Bvh : public BackendTest {};

using bvh::kNoChild;
constexpr float kInf = std::numeric_limits<float>::infinity();

struct Mesh {
    std::vector<float4> vertices;
    std::vector<int4> faces;
};

/// A closed cube surface (surfaces.h) turned off the axes so that its
/// edges lie at odd angles.
Mesh cube(int k, float half, float3 centre) {
    const Surface c = cube_surface(k);
    const float cz = std::cos(0.37f), sz = std::sin(0.37f), cx = std::cos(0.21f), sx = std::sin(0.21f);
    Mesh m;
    for (const auto& p : c.points) {
        const float x = p[0] * half, y = p[1] * half, z = p[2] * half;
        const float x1 = cz * x - sz * y, y1 = sz * x + cz * y;  // about z, then about x
        m.vertices.push_back({centre.x + x1, centre.y + cx * y1 - sx * z, centre.z + sx * y1 + cx * z, 0});
    }
    for (const auto& f : c.faces) m.faces.push_back({f[0], f[1], f[2], 0});
    return m;
}

/// n random triangles of up to `size` in the cube [-1, 1]^3.
Mesh soup(std::int64_t n, float size) {
    Mesh m;
    std::uniform_real_distribution<float> pos(-1.0f, 1.0f), off(-size, size);
    for (std::int64_t i = 0; i < n; ++i) {
        const float3 c{pos(rng()), pos(rng()), pos(rng())};
        for (int k = 0; k < 3; ++k) m.vertices.push_back({c.x + off(rng()), c.y + off(rng()), c.z + off(rng()), 0});
        const auto b = static_cast<std::int32_t>(3 * i);
        m.faces.push_back({b, b + 1, b + 2, 0});
    }
    return m;
}

struct Rays {
    std::vector<float4> origins, directions;
};

/// Random rays from the cube [-span, span]^3 in random directions, t in [0, inf).
Rays random_rays(std::int64_t n, float span) {
    Rays r;
    std::uniform_real_distribution<float> pos(-span, span);
    std::normal_distribution<float> dir(0.0f, 1.0f);
    for (std::int64_t i = 0; i < n; ++i) {
        r.origins.push_back({pos(rng()), pos(rng()), pos(rng()), 0.0f});
        r.directions.push_back({dir(rng()), dir(rng()), dir(rng()), kInf});
    }
    return r;
}


/// Closest hits of rill and Embree on the same rays. A ray agrees when both
/// miss, or both hit at t within 1e-4 relative (the same face, or another at
/// that point: a shared edge or a duplicate face). Rays that disagree must be
/// grazing (the hit that one of them found lies within 1e-3 of its face's
/// edge in barycentric terms) and at most 1 in 10^4 (plus one).
struct Comparison {
    std::int64_t rays = 0, hits = 0, same_face = 0, disagree = 0, not_grazing = 0;
    std::int64_t rill_hits = 0;  // rays that rill found a face for
};
Comparison compare(const std::vector<float4>& got, const Rays& rays, const peers::EmbreeScene& embree) {
    Comparison c;
    c.rays = static_cast<std::int64_t>(got.size());
    auto grazing = [](float u, float v) { return std::min({u, v, 1.0f - u - v}) < 1e-3f; };
    for (std::size_t i = 0; i < got.size(); ++i) {
        const auto want = embree.closest({rays.origins[i].x, rays.origins[i].y, rays.origins[i].z, rays.origins[i].w},
                                         {rays.directions[i].x, rays.directions[i].y, rays.directions[i].z, rays.directions[i].w});
        const std::int32_t face = std::bit_cast<std::int32_t>(got[i].w);
        c.rill_hits += face >= 0;
        if (face < 0 && want.face < 0) continue;
        if (face >= 0 && want.face >= 0 && std::abs(got[i].x - want.t) <= 1e-4f * std::max(1.0f, std::abs(want.t))) {
            ++c.hits;
            c.same_face += face == want.face;
            continue;
        }
        ++c.disagree;
        const bool rill_grazes = face >= 0 && grazing(got[i].y, got[i].z);
        const bool embree_grazes = want.face >= 0 && grazing(want.u, want.v);
        if (!rill_grazes && !embree_grazes) {
            if (++c.not_grazing <= 5)
                ADD_FAILURE() << "ray " << i << ": rill face " << face << " t " << got[i].x << " (u " << got[i].y << " v "
                              << got[i].z << "), Embree face " << want.face << " t " << want.t << " (u " << want.u << " v "
                              << want.v << ")";
        }
    }
    EXPECT_EQ(c.not_grazing, 0);
    EXPECT_LE(c.disagree, 1 + c.rays / 10000) << "rays whose closest hit differs from Embree's";
    return c;
}

/// Every face kept appears in exactly one leaf; every internal node but the
/// root is the child of exactly one node; each box holds its children's
/// boxes or its triangle. Returns the tree's depth.
int check_invariants(const bvh::Bvh& tree, const Mesh& m) {
    const std::int64_t kept = tree.triangle_count();
    const std::vector<float4> nodes = tree.nodes().download();
    const std::int64_t count = std::max<std::int64_t>(kept - 1, 1);
    EXPECT_EQ(static_cast<std::int64_t>(nodes.size()), 4 * count);
    std::vector<int> node_seen(static_cast<std::size_t>(count), 0), leaf_seen(static_cast<std::size_t>(kept), 0);
    const std::vector<float4> tris = kept ? tree.triangles().download() : std::vector<float4>{};
    std::set<std::int32_t> faces;
    auto inside = [](const float4& lo, const float4& hi, const float4& p) {
        return p.x >= lo.x && p.y >= lo.y && p.z >= lo.z && p.x <= hi.x && p.y <= hi.y && p.z <= hi.z;
    };
    int depth = 0;
    std::vector<std::pair<std::int32_t, int>> todo{{0, 1}};
    while (!todo.empty()) {
        const auto [n, d] = todo.back();
        todo.pop_back();
        depth = std::max(depth, d);
        for (int side = 0; side < 2; ++side) {
            const float4 lo = nodes[4 * n + 2 * side], hi = nodes[4 * n + 2 * side + 1];
            const std::int32_t c = std::bit_cast<std::int32_t>(lo.w);
            if (c == kNoChild) continue;
            if (c >= 0) {
                EXPECT_LT(c, count);
                if (c >= count || node_seen[c]++) return depth;
                for (int cs = 0; cs < 2; ++cs) {
                    const float4 clo = nodes[4 * c + 2 * cs], chi = nodes[4 * c + 2 * cs + 1];
                    if (std::bit_cast<std::int32_t>(clo.w) == kNoChild) continue;
                    EXPECT_TRUE(inside(lo, hi, clo) && inside(lo, hi, chi)) << "node " << c << "'s box in node " << n;
                }
                todo.push_back({c, d + 1});
            } else {
                const std::int32_t leaf = ~c;
                EXPECT_LT(leaf, kept);
                if (leaf >= kept || leaf_seen[leaf]++) return depth;
                const std::int32_t face = std::bit_cast<std::int32_t>(tris[3 * leaf].w);
                faces.insert(face);
                const int4 f = m.faces[static_cast<std::size_t>(face)];
                for (std::int32_t v : {f.x, f.y, f.z})
                    EXPECT_TRUE(inside(lo, hi, m.vertices[static_cast<std::size_t>(v)])) << "face " << face << " in leaf " << leaf;
            }
        }
    }
    EXPECT_EQ(std::count(leaf_seen.begin(), leaf_seen.end(), 1), kept) << "leaves reached from the root";
    EXPECT_EQ(static_cast<std::int64_t>(faces.size()), kept) << "distinct faces in the leaves";
    if (kept > 1) {
        EXPECT_EQ(std::count(node_seen.begin(), node_seen.end(), 1), count - 1) << "internal nodes below the root";
    }
    return depth;
}

struct Traced {
    std::vector<float4> hits;
    std::vector<std::uint32_t> occluded;
};
Traced trace(Runtime& rt, const bvh::Bvh& tree, const Rays& r) {
    const auto n = static_cast<std::int64_t>(r.origins.size());
    auto o = rt.stream<float4>({n}, r.origins), d = rt.stream<float4>({n}, r.directions);
    auto hits = rt.stream<float4>({n});
    auto occluded = rt.stream<std::uint32_t>({n});
    bvh::closest_hit(tree, o, d, hits);
    bvh::any_hit(tree, o, d, occluded);
    return Traced{hits.download(), occluded.download()};
}

/// Builds the tree of `m`, checks it, and compares its hits with Embree's.
Comparison check_mesh(Runtime& rt, const Mesh& m, const Rays& rays, std::int64_t skipped = 0,
                      bvh::BuildQuality quality = bvh::BuildQuality::High) {
    auto v = rt.stream<float4>({static_cast<std::int64_t>(m.vertices.size())}, m.vertices);
    auto f = rt.stream<int4>({static_cast<std::int64_t>(m.faces.size())}, m.faces);
    const bvh::Bvh tree = bvh::Bvh::build(v, f, quality);
    EXPECT_LE(tree.height(), bvh::kMaxHeight);
    EXPECT_EQ(tree.face_count(), static_cast<std::int64_t>(m.faces.size()));
    EXPECT_EQ(tree.skipped(), skipped);
    const int depth = check_invariants(tree, m);
    EXPECT_LE(depth, 64);
    const Traced t = trace(rt, tree, rays);
    for (std::size_t i = 0; i < t.hits.size(); ++i)
        if ((std::bit_cast<std::int32_t>(t.hits[i].w) >= 0) != (t.occluded[i] == 1u)) {
            ADD_FAILURE() << "ray " << i << ": any hit says " << t.occluded[i] << ", closest hit face "
                          << std::bit_cast<std::int32_t>(t.hits[i].w);
            break;
        }
    const peers::EmbreeScene embree(peers::rows<float>(m.vertices), peers::rows<std::int32_t>(m.faces), 2);
    return compare(t.hits, rays, embree);
}

TEST_P(Bvh, RandomTrianglesOfEdgeCountsAgreeWithEmbree) {
    const Rays rays = random_rays(3000, 1.5f);
    for (bvh::BuildQuality quality : {bvh::BuildQuality::Fast, bvh::BuildQuality::High})
        for (std::int64_t n : {0, 1, 2, 3, 7, 64, 255, 256, 257, 1000, 4099}) {
            SCOPED_TRACE("triangles " + std::to_string(n) + (quality == bvh::BuildQuality::Fast ? ", LBVH" : ", PLOC"));
            const Comparison c = check_mesh(rt(), soup(n, 0.3f), rays, 0, quality);
            if (n >= 1000) {
                EXPECT_GT(c.hits, 1000) << "a test whose rays mostly miss proves little";
            }
        }
}

TEST_P(Bvh, ClosedMeshesAreWatertight) {
    // Rays from inside a closed mesh, among them rays through its vertices
    // and the midpoints of its edges, where a ray passes between two faces
    // unless their shared edge is tested the same way in both: every ray hits.
    const Mesh m = cube(17, 1.0f, {0.01f, -0.02f, 0.015f});
    const Comparison random = check_mesh(rt(), m, random_rays(2000, 0.5f));
    EXPECT_EQ(random.rill_hits, random.rays) << "random rays from inside the closed mesh that found no face";
    Rays edges;  // not compared with Embree: even in its robust mode it misses several of them
    const float4 from{0.003f, 0.001f, -0.002f, 0.0f};
    for (std::size_t i = 0; i < m.faces.size(); i += 3) {
        const int4 f = m.faces[i];
        const float4 a = m.vertices[f.x], b = m.vertices[f.y];
        for (const float4& p : {a, float4{(a.x + b.x) / 2, (a.y + b.y) / 2, (a.z + b.z) / 2, 0}}) {
            edges.origins.push_back(from);
            edges.directions.push_back({p.x - from.x, p.y - from.y, p.z - from.z, kInf});
        }
    }
    auto v = rt().stream<float4>({static_cast<std::int64_t>(m.vertices.size())}, m.vertices);
    auto f = rt().stream<int4>({static_cast<std::int64_t>(m.faces.size())}, m.faces);
    for (bvh::BuildQuality quality : {bvh::BuildQuality::Fast, bvh::BuildQuality::High}) {
        const Traced t = trace(rt(), bvh::Bvh::build(v, f, quality), edges);
        for (std::size_t i = 0; i < t.hits.size(); ++i) {
            ASSERT_GE(std::bit_cast<std::int32_t>(t.hits[i].w), 0) << "ray " << i << " through a vertex or an edge found no face";
            ASSERT_EQ(t.occluded[i], 1u) << "ray " << i;
        }
    }
}

TEST_P(Bvh, DuplicatesDegeneratesAndOutliers) {
    const Rays rays = random_rays(2000, 1.5f);
    {
        SCOPED_TRACE("one triangle 500 times: equal Morton codes, equal boxes");
        Mesh m = soup(1, 0.5f);
        for (int i = 0; i < 499; ++i) m.faces.push_back(m.faces[0]);
        check_mesh(rt(), m, rays, 0, bvh::BuildQuality::Fast);
        check_mesh(rt(), m, rays, 0, bvh::BuildQuality::High);
    }
    {
        // PLOC merges one pair per pass here (each new cluster's nearest is
        // the next larger triangle), a chain 79 deep: taller than the
        // traversal's stack, so the build falls back to an LBVH (check_mesh
        // checks the height).
        SCOPED_TRACE("80 nested triangles, each 1.1 times the one before");
        Mesh m;
        float scale = 0.01f;
        for (int i = 0; i < 80; ++i, scale *= 1.1f) {
            m.vertices.insert(m.vertices.end(), {{-scale, -scale, 0.1f, 0}, {scale, -scale, 0.1f, 0}, {0, scale, 0.1f, 0}});
            m.faces.push_back({3 * i, 3 * i + 1, 3 * i + 2, 0});
        }
        check_mesh(rt(), m, rays, 0, bvh::BuildQuality::High);
        auto v = rt().stream<float4>({240}, m.vertices);
        auto f = rt().stream<int4>({80}, m.faces);
        EXPECT_EQ(bvh::Bvh::build(v, f, bvh::BuildQuality::High).sah_cost(),
                  bvh::Bvh::build(v, f, bvh::BuildQuality::Fast).sah_cost())
            << "the High build is not the LBVH it falls back to";
    }
    {
        SCOPED_TRACE("every triangle in one point: all skipped, every ray misses");
        Mesh m;
        for (int i = 0; i < 300; ++i) {
            m.vertices.push_back({0.25f, 0.25f, 0.25f, 0});
            m.faces.push_back({i, i, i, 0});
        }
        const Comparison c = check_mesh(rt(), m, rays, 300);
        EXPECT_EQ(c.hits, 0);
    }
    {
        SCOPED_TRACE("NaN and infinite coordinates and collinear faces among good ones");
        Mesh m = soup(600, 0.2f);
        m.vertices[5].y = std::numeric_limits<float>::quiet_NaN();   // face 1
        m.vertices[30].z = kInf;                                      // face 10
        m.vertices[60] = {0.25f, 0.5f, 0.125f, 0};  // face 20: three points on a line, exactly
        m.vertices[61] = {0.5f, 0.5f, 0.125f, 0};
        m.vertices[62] = {0.75f, 0.5f, 0.125f, 0};
        Mesh reference = m;  // Embree gets the good faces only (it may not skip the same ones)
        reference.faces.erase(reference.faces.begin() + 20);
        reference.faces.erase(reference.faces.begin() + 10);
        reference.faces.erase(reference.faces.begin() + 1);
        auto v = rt().stream<float4>({static_cast<std::int64_t>(m.vertices.size())}, m.vertices);
        auto f = rt().stream<int4>({static_cast<std::int64_t>(m.faces.size())}, m.faces);
        const bvh::Bvh tree = bvh::Bvh::build(v, f);
        EXPECT_EQ(tree.skipped(), 3);
        std::vector<float4> hits = trace(rt(), tree, rays).hits;
        for (float4& h : hits) {  // face ids of the reference's numbering
            std::int32_t id = std::bit_cast<std::int32_t>(h.w);
            if (id >= 0) h.w = std::bit_cast<float>(id - (id > 1) - (id > 10) - (id > 20));
        }
        compare(hits, rays, peers::EmbreeScene(peers::rows<float>(reference.vertices), peers::rows<std::int32_t>(reference.faces), 2));
    }
    {
        SCOPED_TRACE("coordinates near the float range: kept (finite), and both builds valid");
        Mesh m = soup(500, 0.3f);
        for (float4& p : m.vertices) p = {p.x * 2.4e38f, p.y * 2.4e38f, p.z * 1e30f, 0};
        auto v = rt().stream<float4>({1500}, m.vertices);
        auto f = rt().stream<int4>({500}, m.faces);
        for (bvh::BuildQuality quality : {bvh::BuildQuality::Fast, bvh::BuildQuality::High}) {
            const bvh::Bvh tree = bvh::Bvh::build(v, f, quality);
            EXPECT_EQ(tree.skipped(), 0);
            EXPECT_LE(check_invariants(tree, m), bvh::kMaxHeight);
        }
    }
    {
        SCOPED_TRACE("a far outlier squeezes every other centroid into few Morton cells");
        Mesh m = soup(2000, 0.05f);
        m.vertices[0] = {1e6f, 1e6f, 1e6f, 0};
        m.vertices[1] = {1e6f + 1, 1e6f, 1e6f, 0};
        m.vertices[2] = {1e6f, 1e6f + 1, 1e6f, 0};
        check_mesh(rt(), m, rays, 0, bvh::BuildQuality::Fast);
        check_mesh(rt(), m, rays, 0, bvh::BuildQuality::High);
    }
}

TEST_P(Bvh, RefitFollowsMovedVertices) {
    Mesh m = soup(3000, 0.1f);
    auto v = rt().stream<float4>({static_cast<std::int64_t>(m.vertices.size())}, m.vertices);
    auto f = rt().stream<int4>({static_cast<std::int64_t>(m.faces.size())}, m.faces);
    bvh::Bvh tree = bvh::Bvh::build(v, f);
    const Rays rays = random_rays(3000, 1.5f);
    for (int step = 0; step < 2; ++step) {
        SCOPED_TRACE("refit " + std::to_string(step + 1));
        std::uniform_real_distribution<float> wobble(-0.2f, 0.2f);
        for (float4& p : m.vertices) p = {p.x * 0.8f + wobble(rng()), p.y + wobble(rng()), p.z * 1.1f, 0};
        v.upload(m.vertices);
        tree.refit(v);
        check_invariants(tree, m);
        const peers::EmbreeScene embree(peers::rows<float>(m.vertices), peers::rows<std::int32_t>(m.faces), 2);
        compare(trace(rt(), tree, rays).hits, rays, embree);
    }
    EXPECT_EQ(error_message([&] { tree.refit(rt().stream<float4>({5})); }),
              "rill::bvh::Bvh::refit: 5 vertices but the tree was built over 9000; refit moves the same vertices (build a "
              "new tree for another mesh)");
}

TEST_P(Bvh, RaySegmentsAndEmptyStreams) {
    // t_min and t_max cut the ray: a face behind t_max or before t_min is not hit.
    Mesh m;
    for (float z : {1.0f, 2.0f, 3.0f}) {
        const auto b = static_cast<std::int32_t>(m.vertices.size());
        m.vertices.insert(m.vertices.end(), {{-1, -1, z, 0}, {1, -1, z, 0}, {0, 1, z, 0}});
        m.faces.push_back({b, b + 1, b + 2, 0});
    }
    auto v = rt().stream<float4>({9}, m.vertices);
    auto f = rt().stream<int4>({3}, m.faces);
    const bvh::Bvh tree = bvh::Bvh::build(v, f);
    const std::vector<float4> origins{{0, 0, 0, 0}, {0, 0, 0, 1.5f}, {0, 0, 0, 0}, {0, 0, 0, 3.5f}, {0, 0, 4, 0}};
    const std::vector<float4> directions{{0, 0, 1, kInf}, {0, 0, 1, kInf}, {0, 0, 1, 0.5f}, {0, 0, 1, kInf}, {0, 0, -2, kInf}};
    const Traced t = trace(rt(), tree, Rays{origins, directions});
    const std::vector<std::pair<float, std::int32_t>> want{{1.0f, 0}, {2.0f, 1}, {0.5f, -1}, {kInf, -1}, {0.5f, 2}};
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(t.hits[i].x, want[i].first) << "ray " << i;
        EXPECT_EQ(std::bit_cast<std::int32_t>(t.hits[i].w), want[i].second) << "ray " << i;
        EXPECT_EQ(t.occluded[i], want[i].second >= 0 ? 1u : 0u) << "ray " << i;
    }
    auto none = rt().stream<float4>({0});
    auto no_hits = rt().stream<float4>({0});
    bvh::closest_hit(tree, none, none, no_hits);  // no rays: nothing to do
}

TEST_P(Bvh, ClearErrors) {
    auto v = rt().stream<float4>({4}, std::vector<float4>{{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}});
    auto bad = rt().stream<int4>({3}, std::vector<int4>{{0, 1, 2, 0}, {0, 1, 4, 0}, {-1, 2, 3, 0}});
    EXPECT_EQ(error_message([&] { bvh::Bvh::build(v, bad); }),
              "rill::bvh::Bvh::build: face 1 has vertex indices 0, 1, 4 but there are 4 vertices (2 faces are like it); "
              "give indices in 0 .. 3");
    auto f = rt().stream<int4>({2}, std::vector<int4>{{0, 1, 2, 0}, {0, 1, 3, 0}});
    const bvh::Bvh tree = bvh::Bvh::build(v, f);
    auto o = rt().stream<float4>({3}), d = rt().stream<float4>({2}), hits = rt().stream<float4>({3});
    EXPECT_EQ(error_message([&] { bvh::closest_hit(tree, o, d, hits); }),
              "rill::bvh::closest_hit: origins has 3 rays, directions 2 and hits 3; give one direction and one result per origin");
    auto wide = rt().stream<float4>({6});
    EXPECT_NE(error_message([&] { bvh::closest_hit(tree, o, wide.stride({2}), hits); }).find("directions is a view"),
              std::string::npos);
}

RILL_INSTANTIATE_FOR_BACKENDS(Bvh);

}  // namespace
}  // namespace rill::test
