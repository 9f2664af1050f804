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
    const std::uint64_t opened = Runtime::backends_opened();
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
    // A backend of its own in each build had cost a build of 10^6 triangles 13-117 ms of host time (H100).
    EXPECT_EQ(Runtime::backends_opened(), opened) << "a build, refit or trace opened a backend instead of the inputs' runtime";
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

/// n random boxes in [-1, 1]^3 with sides up to `size` (some of them points,
/// some flat), and `bad` more that must be left out: a NaN corner, lo > hi,
/// an infinite corner.
struct BoxSet {
    std::vector<float4> lo, hi;
};
BoxSet random_boxes(std::int64_t n, float size, int bad = 0) {
    BoxSet b;
    std::uniform_real_distribution<float> pos(-1.0f, 1.0f), side(0.0f, size);
    for (std::int64_t i = 0; i < n; ++i) {
        const float x = pos(rng()), y = pos(rng()), z = pos(rng());
        const int kind = static_cast<int>(i % 7);
        const float sx = kind == 0 ? 0.0f : side(rng()), sy = kind == 0 ? 0.0f : side(rng()), sz = kind <= 1 ? 0.0f : side(rng());
        b.lo.push_back({x, y, z, 0});
        b.hi.push_back({x + sx, y + sy, z + sz, 0});
    }
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::uniform_int_distribution<std::size_t> at(0, b.lo.size());
    for (int k = 0; k < bad; ++k) {
        const std::size_t i = at(rng());
        const float4 lo = k % 3 == 0 ? float4{nan, 0, 0, 0} : k % 3 == 1 ? float4{0.5f, 0, 0, 0} : float4{-kInf, 0, 0, 0};
        b.lo.insert(b.lo.begin() + static_cast<std::ptrdiff_t>(i), lo);
        b.hi.insert(b.hi.begin() + static_cast<std::ptrdiff_t>(i), float4{0.4f, 0.1f, 0.1f, 0});
    }
    return b;
}

bool meet(const float4& alo, const float4& ahi, const float4& blo, const float4& bhi) {
    return alo.x <= bhi.x && alo.y <= bhi.y && alo.z <= bhi.z && blo.x <= ahi.x && blo.y <= ahi.y && blo.z <= ahi.z;
}
/// A box or query with lo > hi on an axis (or a NaN) is empty.
bool nonempty(const float4& lo, const float4& hi) { return lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z; }
/// A box goes into a tree where it is not empty and its corners are finite.
bool usable(const float4& lo, const float4& hi) {
    for (float c : {lo.x, lo.y, lo.z, hi.x, hi.y, hi.z})
        if (!std::isfinite(c)) return false;
    return nonempty(lo, hi);
}

/// The pairs a brute force finds: every query that is not empty against
/// every usable box.
std::vector<int2> brute_overlaps(const BoxSet& queries, const BoxSet& boxes) {
    std::vector<int2> pairs;
    for (std::size_t q = 0; q < queries.lo.size(); ++q)
        for (std::size_t b = 0; b < boxes.lo.size(); ++b)
            if (nonempty(queries.lo[q], queries.hi[q]) && usable(boxes.lo[b], boxes.hi[b]) &&
                meet(queries.lo[q], queries.hi[q], boxes.lo[b], boxes.hi[b]))
                pairs.push_back({static_cast<std::int32_t>(q), static_cast<std::int32_t>(b)});
    return pairs;
}

/// rill's pairs, checked to come query by query, then sorted to compare.
std::vector<int2> sorted_pairs(std::vector<int2> got) {
    for (std::size_t i = 1; i < got.size(); ++i)
        if (got[i].x < got[i - 1].x) {
            ADD_FAILURE() << "pair " << i << " of query " << got[i].x << " after one of query " << got[i - 1].x;
            break;
        }
    std::sort(got.begin(), got.end(), [](const int2& a, const int2& b) { return a.x != b.x ? a.x < b.x : a.y < b.y; });
    return got;
}

void expect_same_pairs(const std::vector<int2>& got, const std::vector<int2>& want) {
    if (got.size() != want.size()) {
        for (const int2& w : want)
            if (std::none_of(got.begin(), got.end(), [&](const int2& g) { return g.x == w.x && g.y == w.y; }))
                ADD_FAILURE() << "missing (" << w.x << ", " << w.y << ")";
    }
    ASSERT_EQ(got.size(), want.size()) << "pairs found";
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i].x != want[i].x || got[i].y != want[i].y) {
            ADD_FAILURE() << "pair " << i << ": (" << got[i].x << ", " << got[i].y << "), the brute force's (" << want[i].x
                          << ", " << want[i].y << ")";
            return;
        }
}

/// Every usable box in exactly one leaf, inside its leaf's box; every node's
/// box holds its children's.
void check_box_tree(const bvh::Bvh& tree, const BoxSet& b) {
    const std::int64_t kept = tree.triangle_count();
    const std::vector<float4> nodes = tree.nodes().download();
    const std::vector<std::int32_t> ids = kept ? tree.leaf_faces().download() : std::vector<std::int32_t>{};
    std::vector<int> seen(b.lo.size(), 0);
    auto holds = [](const float4& lo, const float4& hi, const float4& ilo, const float4& ihi) {
        return lo.x <= ilo.x && lo.y <= ilo.y && lo.z <= ilo.z && hi.x >= ihi.x && hi.y >= ihi.y && hi.z >= ihi.z;
    };
    std::vector<std::int32_t> todo{0};
    std::int64_t visited = 0;
    while (!todo.empty() && visited++ <= 2 * kept + 2) {
        const std::int32_t n = todo.back();
        todo.pop_back();
        for (int side = 0; side < 2; ++side) {
            const float4 lo = nodes[4 * n + 2 * side], hi = nodes[4 * n + 2 * side + 1];
            const std::int32_t c = std::bit_cast<std::int32_t>(lo.w);
            if (c == kNoChild) continue;
            if (c >= 0) {
                for (int cs = 0; cs < 2; ++cs) {
                    if (std::bit_cast<std::int32_t>(nodes[4 * c + 2 * cs].w) == kNoChild) continue;
                    EXPECT_TRUE(holds(lo, hi, nodes[4 * c + 2 * cs], nodes[4 * c + 2 * cs + 1])) << "node " << c;
                }
                todo.push_back(c);
            } else {
                const std::int32_t box = ids.at(static_cast<std::size_t>(~c));
                ++seen.at(static_cast<std::size_t>(box));
                EXPECT_TRUE(holds(lo, hi, b.lo[box], b.hi[box])) << "box " << box;
            }
        }
    }
    std::int64_t usable_boxes = 0;
    for (std::size_t i = 0; i < b.lo.size(); ++i) {
        const bool use = usable(b.lo[i], b.hi[i]);
        usable_boxes += use;
        EXPECT_EQ(seen[i], use ? 1 : 0) << "leaves of box " << i;
    }
    EXPECT_EQ(kept, usable_boxes);
}

std::vector<int2> find_overlaps(Runtime& rt, const bvh::Bvh& tree, const BoxSet& q) {
    const auto n = static_cast<std::int64_t>(q.lo.size());
    return bvh::overlaps(tree, rt.stream<float4>({n}, q.lo), rt.stream<float4>({n}, q.hi)).download();
}

TEST_P(Bvh, BoxTreesFindEveryOverlap) {
    rt();
    const std::uint64_t opened = Runtime::backends_opened();
    for (const std::int64_t n : {0, 1, 2, 3, 5, 100, 1001})
        for (const auto quality : {bvh::BuildQuality::High, bvh::BuildQuality::Fast}) {
            SCOPED_TRACE(std::to_string(n) + " boxes, " + (quality == bvh::BuildQuality::High ? "PLOC" : "LBVH"));
            const BoxSet b = random_boxes(n, n > 50 ? 0.2f : 1.0f, n > 2 ? 3 : 0);
            const auto m = static_cast<std::int64_t>(b.lo.size());
            const bvh::Bvh tree =
                bvh::Bvh::build_boxes(rt().stream<float4>({m}, b.lo), rt().stream<float4>({m}, b.hi), quality);
            EXPECT_TRUE(tree.of_boxes());
            EXPECT_EQ(tree.face_count(), m);
            EXPECT_LE(tree.height(), bvh::kMaxHeight);
            check_box_tree(tree, b);
            EXPECT_EQ(tree.skipped(), n > 2 ? 3 : 0);
            BoxSet queries = random_boxes(n > 50 ? 300 : 7, 0.3f, 2);  // an empty and a NaN query among them
            queries.lo.push_back({-2, -2, -2, 0});                       // one around everything
            queries.hi.push_back({2, 2, 2, 0});
            expect_same_pairs(sorted_pairs(find_overlaps(rt(), tree, queries)), brute_overlaps(queries, b));
            EXPECT_TRUE(find_overlaps(rt(), tree, BoxSet{}).empty());
            // The fit's counters live in the runtime's zeroed words, which every
            // kernel must leave zero (single passes take their tickets there).
            ASSERT_TRUE(zeroed_words_are_zero(rt()));
        }
    EXPECT_EQ(Runtime::backends_opened(), opened) << "a box tree's build or query opened a backend instead of the inputs' runtime";
}

TEST_P(Bvh, BoxTreesOfEqualBoxesAndTouchingOnes) {
    // 600 boxes at one place (the Morton codes all equal), and a row of unit
    // boxes that touch their neighbours: a query meets what it touches.
    BoxSet b;
    for (int i = 0; i < 600; ++i) b.lo.push_back({0.5f, 0.5f, 0.5f, 0}), b.hi.push_back({0.75f, 0.75f, 0.75f, 0});
    for (int i = 0; i < 50; ++i)
        b.lo.push_back({static_cast<float>(i), 2, 0, 0}), b.hi.push_back({static_cast<float>(i + 1), 3, 1, 0});
    const auto m = static_cast<std::int64_t>(b.lo.size());
    const bvh::Bvh tree = bvh::Bvh::build_boxes(rt().stream<float4>({m}, b.lo), rt().stream<float4>({m}, b.hi));
    check_box_tree(tree, b);
    const BoxSet queries{{{0.75f, 0.75f, 0.75f, 0}, {10, 3, 1, 0}, {10.5f, 2.5f, 0.5f, 0}, {0.8f, 0.8f, 0.8f, 0}},
                         {{1, 1, 1, 0}, {10, 4, 2, 0}, {10.5f, 2.5f, 0.5f, 0}, {0.9f, 0.9f, 0.9f, 0}}};
    const std::vector<int2> got = sorted_pairs(find_overlaps(rt(), tree, queries));
    expect_same_pairs(got, brute_overlaps(queries, b));
    EXPECT_EQ(std::count_if(got.begin(), got.end(), [](const int2& p) { return p.x == 0; }), 600) << "a corner touching all";
    EXPECT_EQ(std::count_if(got.begin(), got.end(), [](const int2& p) { return p.x == 1; }), 2) << "the face of two boxes";
}

TEST_P(Bvh, BoxTreesRefitAndCountOnTheDevice) {
    BoxSet b = random_boxes(2000, 0.1f);
    const auto m = static_cast<std::int64_t>(b.lo.size());
    auto lo = rt().stream<float4>({m}, b.lo), hi = rt().stream<float4>({m}, b.hi);
    bvh::Bvh tree = bvh::Bvh::build_boxes(lo, hi);
    const BoxSet queries = random_boxes(500, 0.2f);
    const auto nq = static_cast<std::int64_t>(queries.lo.size());
    auto qlo = rt().stream<float4>({nq}, queries.lo), qhi = rt().stream<float4>({nq}, queries.hi);
    std::uniform_real_distribution<float> move(-0.3f, 0.3f);
    for (std::size_t i = 0; i < b.lo.size(); ++i) {
        const float4 d{move(rng()), move(rng()), move(rng()), 0};
        b.lo[i] = {b.lo[i].x + d.x, b.lo[i].y + d.y, b.lo[i].z + d.z, 0};
        b.hi[i] = {b.hi[i].x + d.x * 1.5f, b.hi[i].y + d.y * 1.5f, b.hi[i].z + d.z * 1.5f, 0};  // some become empty
    }
    lo.upload(b.lo);
    hi.upload(b.hi);
    tree.refit_boxes(lo, hi);
    const std::vector<int2> want = brute_overlaps(queries, b);
    ASSERT_GT(want.size(), 10u);
    expect_same_pairs(sorted_pairs(bvh::overlaps(tree, qlo, qhi).download()), want);
    // Into a stream too short for them: the count says how many there are, the stream holds the first ones.
    auto pairs = rt().stream<int2>({10});
    auto count = rt().stream<std::uint32_t>({1});
    bvh::overlaps(tree, qlo, qhi, pairs, count);
    EXPECT_EQ(count.download()[0], want.size());
    const std::vector<int2> first = pairs.download();
    const std::vector<int2> all = bvh::overlaps(tree, qlo, qhi).download();
    for (std::size_t i = 0; i < first.size(); ++i) EXPECT_TRUE(first[i].x == all[i].x && first[i].y == all[i].y) << i;
}

TEST_P(Bvh, TriangleTreesOverlapTheirFacesBoxes) {
    Mesh m = soup(700, 0.2f);
    m.faces.push_back({0, 0, 1, 0});  // zero area: left out of the tree
    auto v = rt().stream<float4>({static_cast<std::int64_t>(m.vertices.size())}, m.vertices);
    auto f = rt().stream<int4>({static_cast<std::int64_t>(m.faces.size())}, m.faces);
    const bvh::Bvh tree = bvh::Bvh::build(v, f);
    BoxSet faces;
    for (const int4& t : m.faces) {
        const float4 a = m.vertices[t.x], b = m.vertices[t.y], c = m.vertices[t.z];
        faces.lo.push_back({std::min({a.x, b.x, c.x}), std::min({a.y, b.y, c.y}), std::min({a.z, b.z, c.z}), 0});
        faces.hi.push_back({std::max({a.x, b.x, c.x}), std::max({a.y, b.y, c.y}), std::max({a.z, b.z, c.z}), 0});
    }
    faces.lo.back() = {kInf, 0, 0, 0};  // the zero-area face is in no leaf: the brute force skips it
    const BoxSet queries = random_boxes(200, 0.3f);
    expect_same_pairs(sorted_pairs(find_overlaps(rt(), tree, queries)), brute_overlaps(queries, faces));
}

TEST_P(Bvh, BoxTreeErrors) {
    auto lo = rt().stream<float4>({3}), hi = rt().stream<float4>({2});
    EXPECT_EQ(error_message([&] { bvh::Bvh::build_boxes(lo, hi); }),
              "rill::bvh::Bvh::build_boxes: lo has 3 elements and hi 2; give one hi corner per lo corner");
    auto hi3 = rt().stream<float4>({3}, std::vector<float4>{{1, 1, 1, 0}, {1, 1, 1, 0}, {1, 1, 1, 0}});
    bvh::Bvh boxes = bvh::Bvh::build_boxes(lo, hi3);
    EXPECT_EQ(error_message([&] { boxes.refit_boxes(hi, hi); }),
              "rill::bvh::Bvh::refit_boxes: 2 boxes but the tree was built over 3; refit moves the same boxes (build a new "
              "tree for others)");
    EXPECT_EQ(error_message([&] { boxes.refit(lo); }),
              "rill::bvh::Bvh::refit: the tree was built from boxes; refit it with refit_boxes(lo, hi)");
    auto o = rt().stream<float4>({1}), d = rt().stream<float4>({1}), hits = rt().stream<float4>({1});
    EXPECT_EQ(error_message([&] { bvh::closest_hit(boxes, o, d, hits); }),
              "rill::bvh::closest_hit: the tree was built from boxes and has no triangles to hit; trace rays through a tree "
              "of triangles (Bvh::build), or find boxes with rill::bvh::overlaps");
    EXPECT_EQ(error_message([&] { bvh::overlaps(boxes, lo, hi); }),
              "rill::bvh::overlaps: lo has 3 query boxes and hi 2; give one hi corner per lo corner");
    auto pairs = rt().stream<int2>({4});
    auto two = rt().stream<std::uint32_t>({2});
    EXPECT_EQ(error_message([&] { bvh::overlaps(boxes, lo, hi3, pairs, two); }),
              "rill::bvh::overlaps: count has 2 elements; pass a Stream<uint32_t> of one element");
    auto v = rt().stream<float4>({3}, std::vector<float4>{{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}});
    bvh::Bvh triangles = bvh::Bvh::build(v, rt().stream<int4>({1}, std::vector<int4>{{0, 1, 2, 0}}));
    EXPECT_EQ(error_message([&] { triangles.refit_boxes(lo, hi3); }),
              "rill::bvh::Bvh::refit_boxes: the tree was built from triangles; refit it with refit(vertices)");
}

RILL_INSTANTIATE_FOR_BACKENDS(Bvh);

}  // namespace
}  // namespace rill::test
