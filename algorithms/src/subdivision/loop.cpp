// Uniform Loop subdivision (rill/algorithms/subdivision.h): every step a DSL
// kernel. The input level's connectivity is sorted out of its faces
// (connectivity.cpp: the host reads its checks and edge count once); each
// later level derives its own from its parent's, and each level's vertex and
// edge points and child faces are kernels here.
#include <rill/algorithms/detail/dense_streams.h>
#include <rill/algorithms/detail/rows.h>
#include <rill/algorithms/subdivision.h>

#include "level.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace rill::subdivision {

namespace detail {

namespace {

std::atomic<std::int64_t>& joined_setting() {
    // RILL_SUBDIVISION_JOINED_KERNELS: 0 never, 1 always, unset by size.
    static std::atomic<std::int64_t> largest{[] {
        const char* knob = std::getenv("RILL_SUBDIVISION_JOINED_KERNELS");
        if (!knob || !*knob) return kJoinedLargestLevel;
        if (std::string(knob) == "0") return std::int64_t{-1};
        if (std::string(knob) == "1") return std::numeric_limits<std::int64_t>::max();
        throw Error(std::string("RILL_SUBDIVISION_JOINED_KERNELS is '") + knob + "'; give 0 (never joined), 1 (always), or unset it (by size)");
    }()};
    return largest;
}

}  // namespace

std::int64_t joined_largest_level() { return joined_setting().load(); }
void set_joined_largest_level(std::int64_t faces) { joined_setting().store(faces); }

/// Whether the level of `faces` faces runs its kernels apart (joined_largest_level).
bool separate_kernels(std::int64_t faces) { return faces > joined_largest_level(); }

/// The edge point of edge e at out[vertices + e]: 3/8 of the ends and 1/8 of
/// the two opposite vertices, the midpoint on a boundary or sharp edge
/// (sharp[e] != 0).
void edge_point(const Array<std::int32_t>& halves, const Array<int4>& faces, const Array<float4>& vertices, const Array<std::uint32_t>& sharp,
                const Array<float4>& out, const Int& e) {
    Int2 pair = halves.load_vector<2>(e);
    Int h0 = pair.x(), h1 = pair.y();
    Int4 f0 = faces.load(face_of(h0));
    Int k0 = side_of(h0);
    Int u = corner(f0, k0), v = corner(f0, next_side(k0)), c = corner(f0, previous_side(k0));
    Float3 pu = vertices.load(u).xyz(), pv = vertices.load(v).xyz();
    Bool boundary = h1 < 0 || sharp.load(e) != 0u;  // sharp: a 1-element 0 when there are no creases
    Int d = corner(faces.load(face_of(max(h1, Int(0)))), previous_side(side_of(max(h1, Int(0)))));
    Float3 smooth = (pu + pv) * 0.375f + (vertices.load(c).xyz() + vertices.load(d).xyz()) * 0.125f;
    out.store(vertices.size() + e, Float4(select(boundary, (pu + pv) * 0.5f, smooth), 0.0f));
}

/// Edge points at out[vertices + e] for the `edges` edges (edge_point), a
/// dispatch of their own (separate_kernels(); else vertex_points makes them).
void edge_points(const Stream<std::int32_t>& halves, const Stream<int4>& faces, const Stream<float4>& vertices, const Stream<std::uint32_t>& sharp,
                 std::int64_t edges, const Stream<float4>& out) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "loop_edge_points(halves, faces, vertices, sharp, out, edges)",
        [](Array<std::int32_t> halves, Array<int4> faces, Array<float4> vertices, Array<std::uint32_t> sharp, Array<float4> out, Int edges) {
            Int e = global_id();
            If(e < edges, [&] { edge_point(halves, faces, vertices, sharp, out, e); });
        });
    kernel(Groups{groups_for(edges)}, halves, faces, vertices, sharp, out, static_cast<std::int32_t>(edges));
}

/// The half-edge opposite h on its edge e, or -1 on a boundary.
Int twin_across(const Array<std::int32_t>& halves, const Int& e, const Expr<std::int32_t>& h) {
    Int2 ab = halves.load_vector<2>(e);
    return select(ab.x() == h, ab.y(), ab.x());
}

/// The half-edge opposite h on its edge, or -1 on a boundary.
Int twin(const Array<std::int32_t>& edge_of, const Array<std::int32_t>& halves, const Expr<std::int32_t>& h) {
    return twin_across(halves, edge_of.load(h), h);
}

/// The half-edge before h in its face (the one into h's start) and the one
/// after it (out of h's end): the steps of a walk around a vertex. A select
/// on h's side where (side + 2) % 3 and (side + 1) % 3 took a second division.
Int previous_half(const Int& h) { return select(side_of(h) == 0, h + 2, h - 1); }
Int next_half(const Int& h) { return select(side_of(h) == 2, h - 2, h + 1); }

/// Vertex points at out[v]: Loop's weights inside, 3/4 and 1/8 + 1/8 on a
/// boundary, the neighbours found by walking the vertex's fan across twin
/// half-edges. A vertex whose faces are not one fan (the walk does not reach
/// them all: two cones meeting at a point, say), or that is on more than two
/// boundary edges, stays where it is, as OpenSubdiv keeps such non-manifold
/// vertices. For v >= limits.born also v's limit position into
/// limits.limit[v] (w = limits.level), by the limit masks of OpenSubdiv's
/// Loop scheme (Sdc::Scheme<SCHEME_LOOP>): 1/2 and 1/12 at valence 6, 1 - n e
/// and e = 1 / (n + 3 / (8 beta)) at valence n; 2/3 and 1/6 + 1/6 on a
/// boundary or crease; a corner stays. Unless separate_kernels(), in the same
/// dispatch, past the vertices, the level's edge points (edge_point).
struct Fans {
    const Stream<std::uint32_t>& count;
    const Stream<std::int32_t>& outgoing;
    const Stream<std::int32_t>& edge_of;
    const Stream<std::int32_t>& halves;
};

void vertex_points(const Stream<float4>& vertices, const Stream<int4>& faces, const Stream<std::uint32_t>& sharp, const Fans& fans,
                   const Stream<float4>& out, const Limits& limits, const Connectivity& c) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "loop_vertex_points(vertices, faces, sharp, count, outgoing, edge_of, halves, parent_faces, parent_edge_of, parent_halves, out, "
        "limit, born, level, odd_from, edges)",
        [](Array<float4> vertices, Array<int4> faces, Array<std::uint32_t> sharp, Array<std::uint32_t> count, Array<std::int32_t> outgoing,
           Array<std::int32_t> edge_of, Array<std::int32_t> halves, Array<int4> parent_faces, Array<std::int32_t> parent_edge_of,
           Array<std::int32_t> parent_halves, Array<float4> out, Array<float4> limit, Int born, Int level, Int odd_from, Int edges) {
            Int v = global_id();
            // Past the vertices, the `edges` edge points (one dispatch for both).
            If(v >= vertices.size(), [&] {
                Int e = v - vertices.size();
                If(e < edges, [&] { edge_point(halves, faces, vertices, sharp, out, e); });
            });
            If(v < vertices.size(), [&] {
                Var<float3> sum = Float3(0.0f), boundary_sum = Float3(0.0f);
                Var<std::int32_t> boundary = 0, neighbours = 0, total = 0;
                Var<bool> one_fan = true;
                auto position = [&](const Int& u) { return vertices.load(u).xyz(); };
                If(v < odd_from, [&] {
                    // Each face about v once, by its half-edge h out of v: its target is a
                    // neighbour, and so, on a boundary, is the far end of the fan's last edge.
                    // `sharp_edge` says whether h's edge is a boundary or a crease.
                    auto visit_edge = [&](const Int& h, const Bool& sharp_edge) {
                        Int4 f = faces.load(face_of(h));
                        Float3 q = position(corner(f, next_side(side_of(h))));
                        sum = sum + q;
                        neighbours = neighbours + 1;
                        If(sharp_edge, [&] {
                            boundary_sum = boundary_sum + q;
                            boundary = boundary + 1;
                        });
                    };
                    auto visit = [&](const Int& h) { visit_edge(h, twin(edge_of, halves, h) < 0 || sharp.load(edge_of.load(h)) != 0u); };
                    // Around the vertex one way (h -> the twin of the half-edge before h in its
                    // face), and from the start the other way where a boundary stopped it.
                    total = cast<std::int32_t>(count.load(v));
                    Int start = outgoing.load(v);
                    Var<std::int32_t> visited = 1;
                    Var<std::int32_t> h = start;
                    Var<bool> open = false;
                    visit(start);
                    While([&] { return visited <= total; }, [&] {
                        // t crosses edge e from the half-edge into v: its own twin is that
                        // half-edge, so only a crease makes e sharp, and e is known (the
                        // general visit would load e and both its half-edges again).
                        Int into = previous_half(h);
                        Int e = edge_of.load(into);
                        Int t = twin_across(halves, e, into);
                        If(t < 0, [&] {
                            open = true;
                            // The boundary edge into v: its other end is a neighbour too.
                            Float3 q = position(corner(faces.load(face_of(h)), previous_side(side_of(h))));
                            sum = sum + q;
                            neighbours = neighbours + 1;
                            boundary_sum = boundary_sum + q;
                            boundary = boundary + 1;
                            Break();
                        });
                        If(t == start, [&] { Break(); });
                        h = t;
                        visited = visited + 1;
                        visit_edge(t, sharp.load(e) != 0u);
                    });
                    If(open, [&] {
                        h = start;
                        While([&] { return visited <= total; }, [&] {
                            Int q = twin(edge_of, halves, h);
                            If(q < 0, [&] { Break(); });
                            h = next_half(q);
                            visited = visited + 1;
                            visit(h);
                        });
                    });
                    one_fan = visited == total;
                }).Else([&] {
                    // The edge point of the level before's edge e, between a and b: its
                    // neighbours are a, b and the edge points of the other two edges of e's
                    // one or two faces (no walk: the parent's connectivity says where), and
                    // its edges to a and b are sharp where e was a boundary or a crease.
                    Int e = v - odd_from;
                    Int2 pair = parent_halves.load_vector<2>(e);
                    Int h1 = pair.x(), h2 = pair.y();
                    Int4 f1 = parent_faces.load(face_of(h1));
                    Int k1 = side_of(h1);
                    Float3 a = position(corner(f1, k1)), b = position(corner(f1, next_side(k1)));
                    sum = a + b + position(odd_from + parent_edge_of.load(h1 - k1 + next_side(k1))) +
                          position(odd_from + parent_edge_of.load(h1 - k1 + previous_side(k1)));
                    neighbours = 4;
                    total = 1;
                    If(h2 >= 0, [&] {
                        Int k2 = side_of(h2);
                        sum = sum + position(odd_from + parent_edge_of.load(h2 - k2 + next_side(k2))) +
                              position(odd_from + parent_edge_of.load(h2 - k2 + previous_side(k2)));
                        neighbours = 6;
                        total = 2;
                    });
                    // Child edge 2 e runs along e (derive_children): sharp where e was.
                    If(h2 < 0 || sharp.load(2 * e) != 0u, [&] {
                        boundary_sum = a + b;
                        boundary = 2;
                    });
                });
                Float3 p = position(v);
                Float n = cast<float>(max(Int(neighbours), Int(1)));
                Float w = 0.375f + 0.25f * cos(6.28318530717958647692f / n);
                Float beta = (0.625f - w * w) / n;
                Float3 smooth = p * (1.0f - n * beta) + sum * beta;
                Float3 crease = p * 0.75f + boundary_sum * 0.125f;
                // Sharp edges (boundaries and creases) about the vertex: none or one (a
                // dart), the smooth rule; two, the crease rule; more, a corner that stays.
                Float3 moved = select(boundary <= 1, smooth, select(boundary == 2, crease, p));
                out.store(v, Float4(select(one_fan, moved, p), 0.0f));
                If(v >= born, [&] {
                    Float e = select(n == 6.0f, 1.0f / 12.0f, 1.0f / (n + 0.375f / beta));
                    Float3 smooth_limit = p * (1.0f - n * e) + sum * e;
                    Float3 crease_limit = p * (2.0f / 3.0f) + boundary_sum * (1.0f / 6.0f);
                    Float3 at = select(boundary <= 1, smooth_limit, select(boundary == 2, crease_limit, p));
                    limit.store(v, Float4(select(one_fan && total > 0, at, p), cast<float>(level)));
                });
            });
        });
    // Placeholders the kernel never reads (no limits: it writes none; no parent: every
    // vertex walks) are scratch, which costs no fill.
    const Stream<float4> limit = limits.limit ? *limits.limit : Runtime::of(vertices).scratch<float4>({1});
    const std::int64_t born = limits.limit ? limits.born : vertices.size();
    // Levels derived from the one before know their parent: its edge points skip the walk.
    const bool parent = c.odd_from > 0;
    const Stream<int4> parent_faces = parent ? c.parent_faces : Runtime::of(vertices).scratch<int4>({1});
    const Stream<std::int32_t> parent_edge_of = parent ? c.parent_edge_of : Runtime::of(vertices).scratch<std::int32_t>({1});
    const bool apart = separate_kernels(faces.size());
    const std::int64_t edges = apart ? 0 : c.edges;
    if (apart) edge_points(c.halves, faces, vertices, sharp, c.edges, out);
    kernel(Groups{groups_for(vertices.size() + edges)}, vertices, faces, sharp, fans.count, fans.outgoing, fans.edge_of, fans.halves, parent_faces,
           parent_edge_of, parent ? c.parent_halves : parent_edge_of, out, limit, static_cast<std::int32_t>(born), limits.level,
           static_cast<std::int32_t>(parent ? c.odd_from : vertices.size()), static_cast<std::int32_t>(edges));
}

void store_children(const Array<int4>& out, const Expr<std::int32_t>& at, const Array<int4>& faces, const Array<std::int32_t>& edge_of,
                    const Expr<std::int32_t>& f, const Expr<std::int32_t>& vertices, const Expr<std::int32_t>& w) {
    store_children(out, at, faces.load(f), {edge_of.load(3 * f), edge_of.load(3 * f + 1), edge_of.load(3 * f + 2)}, vertices, w);
}

/// Child j of face (a, b, c), whose edges' points are ab, bc and ca: its
/// corners as indices into {a, b, c, ab, bc, ca}.
constexpr int kChildCorners[4][3] = {{0, 3, 5}, {3, 1, 4}, {5, 4, 2}, {3, 4, 5}};

/// {a, b, c, ab, bc, ca} of face t with edges `edges`.
std::array<Int, 6> child_points(const Expr<int4>& t, const std::array<Int, 3>& edges, const Expr<std::int32_t>& vertices) {
    return {t.x(), t.y(), t.z(), vertices + edges[0], vertices + edges[1], vertices + edges[2]};
}

void store_children(const Array<int4>& out, const Expr<std::int32_t>& at, const Expr<int4>& t, const std::array<Int, 3>& edges,
                    const Expr<std::int32_t>& vertices, const Expr<std::int32_t>& w) {
    const std::array<Int, 6> p = child_points(t, edges, vertices);
    for (int j = 0; j < 4; ++j) out.store(at + j, Int4(p[kChildCorners[j][0]], p[kChildCorners[j][1]], p[kChildCorners[j][2]], w));
}

/// RILL_SUBDIVISION_SCATTERED_STORES=1 (a tuning knob): the last level's
/// faces an invocation a parent, and the derived half-edges' edges stored one
/// by one, as before both were laid out for whole sectors (below).
bool scattered_stores() {
    static const bool on = env_flag("RILL_SUBDIVISION_SCATTERED_STORES");
    return on;
}

/// Face f's four children at 4 f .. 4 f + 3: an invocation a child, so that
/// a warp's stores are 512 consecutive bytes (an invocation a parent stored
/// its four children 64 bytes apart from its neighbours', each store a half
/// of a 32-byte sector); the four invocations of a parent load its face and
/// edges from the same sectors.
void child_faces(const Stream<int4>& faces, const Stream<std::int32_t>& edge_of, std::int64_t vertices, const Stream<int4>& out) {
    // Without rill's bounds checks: f < faces.size(), edge_of holds 3 edges a face and
    // out 4 faces a face (the callers make them so); 1.25x through Vulkan (#loop-subdivision).
    static const auto by_parent = group_kernel<kWorkgroup>(
        "loop_faces(faces, edge_of, out, vertices)", GroupOptions{.unchecked_arrays = true},
        [](Array<int4> faces, Array<std::int32_t> edge_of, Array<int4> out, Int vertices) {
            Int f = global_id();
            If(f < faces.size(), [&] { store_children(out, 4 * f, faces, edge_of, f, vertices, Int(0)); });
        });
    static const auto by_child = group_kernel<kWorkgroup>(
        "loop_child_faces(faces, edge_of, out, vertices)", GroupOptions{.unchecked_arrays = true},
        [](Array<int4> faces, Array<std::int32_t> edge_of, Array<int4> out, Int vertices) {
            Int i = global_id();
            If(i < 4 * faces.size(), [&] {
                Int f = nonnegative_quotient(i, 4u), j = i - 4 * f;
                const std::array<Int, 6> p =
                    child_points(faces.load(f), {edge_of.load(3 * f), edge_of.load(3 * f + 1), edge_of.load(3 * f + 2)}, vertices);
                // Corner m of child j, as store_children makes it.
                auto corner_of = [&](int m) {
                    return select(j == 0, p[kChildCorners[0][m]],
                                  select(j == 1, p[kChildCorners[1][m]], select(j == 2, p[kChildCorners[2][m]], p[kChildCorners[3][m]])));
                };
                out.store(i, Int4(corner_of(0), corner_of(1), corner_of(2), Int(0)));
            });
        });
    // Where invocations run one after another (the CPU backend), a warp's stores
    // are no concern and the parent's loads made once pay: an invocation a parent.
    const auto v = static_cast<std::int32_t>(vertices);
    if (scattered_stores() || rill::detail::rows_pay(Runtime::of(faces).info()))
        by_parent(Groups{groups_for(faces.size())}, faces, edge_of, out, v);
    else
        by_child(Groups{groups_for(4 * faces.size())}, faces, edge_of, out, v);
}

/// derive_children's part by parent edge and by vertex, where each element's
/// writes are its own consecutive bytes (by face they would be 4-byte stores
/// far apart): parent edge e's child edges 2 e and 2 e + 1 get their half-edges,
/// halves[4 e .. 4 e + 3], and its edge point (child vertex vertices + e) its
/// fan; each parent vertex v keeps its faces, its largest outgoing half-edge
/// h's first child 4 h (12 face_of(h) + 4 side_of(h)) the largest out of it.
/// Half-edge 3 f + k with edge e and slot r has children 12 f + 4 k (from its
/// start, in child edge 2 e + r) and 12 f + 3 ((k + 1) % 3) + k (to its end, in
/// 2 e + 1 - r), each in slot r. The edge point has 6 faces (3 on a boundary),
/// its largest outgoing half-edge in the middle child (4 f + 3) of the face of
/// the edge's larger half-edge.
void derive_edge_or_vertex(const Array<std::int32_t>& halves, const Array<std::uint32_t>& count, const Array<std::int32_t>& outgoing,
                           const Array<std::int32_t>& child_halves, const Array<std::uint32_t>& child_count,
                           const Array<std::int32_t>& child_outgoing, const Int& vertices, const Int& i) {
    If(i < vertices, [&] {
        child_count.store(i, count.load(i));
        child_outgoing.store(i, 4 * outgoing.load(i));
    }).Else([&] {
        If(i < child_count.size(), [&] {
            Int e = i - vertices;
            Int2 pair = halves.load_vector<2>(e);
            Int a = pair.x(), b = pair.y();
            auto first = [](const Int& h) { return 4 * h; };
            auto second = [](const Int& h) {
                Int k = side_of(h);
                return 12 * face_of(h) + 3 * next_side(k) + k;
            };
            Bool boundary = b < 0;
            // Slot 0 from a (child edges 2 e, 2 e + 1), slot 1 from b (2 e + 1, 2 e).
            child_halves.store_vector<4>(e, Int4(first(a), select(boundary, Int(-1), second(b)), second(a),
                                                 select(boundary, Int(-1), first(b))));
            Int h = max(a, b);
            child_count.store(i, select(boundary, 3u, 6u));
            child_outgoing.store(i, 12 * face_of(h) + 9 + side_of(h));
        });
    });
}

void derive_edges(const Stream<std::int32_t>& halves, const Stream<std::uint32_t>& count, const Stream<std::int32_t>& outgoing,
                  std::int64_t vertices, std::int64_t edges, const Connectivity& c) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "loop_derive_edges(halves, count, outgoing, child_halves, child_count, child_outgoing, vertices)",
        GroupOptions{.unchecked_arrays = true},  // indices below vertices + edges, the sizes of the streams they index
        [](Array<std::int32_t> halves, Array<std::uint32_t> count, Array<std::int32_t> outgoing, Array<std::int32_t> child_halves,
           Array<std::uint32_t> child_count, Array<std::int32_t> child_outgoing, Int vertices) {
            derive_edge_or_vertex(halves, count, outgoing, child_halves, child_count, child_outgoing, vertices, global_id());
        });
    kernel(Groups{groups_for(vertices + edges)}, halves, count, outgoing, c.halves, c.count, c.outgoing, static_cast<std::int32_t>(vertices));
}

/// Face f's children (into child_faces, as child_faces() writes them) and
/// their half-edges' edges, and its inner edges' half-edges (derive_children).
void derive_face(const Array<int4>& faces, const Array<std::int32_t>& edge_of, const Array<std::int32_t>& halves, const Array<int4>& child_faces,
                 const Array<std::int32_t>& child_edge_of, const Array<std::int32_t>& child_halves, const Int& vertices, const Int& edges,
                 const Int& f, bool vectors) {
    // The face and its edges, loaded once for its children and their connectivity.
    Int4 t = faces.load(f);
    const std::array<Int, 3> face_edges = {edge_of.load(3 * f), edge_of.load(3 * f + 1), edge_of.load(3 * f + 2)};
    store_children(child_faces, 4 * f, t, face_edges, vertices, Int(0));
    // The edges of the children's 12 half-edges, 3 j + m for half-edge m of child j.
    std::array<std::optional<Int>, 12> child_edges;
    for (int k = 0; k < 3; ++k) {
        // Half-edge k of face f runs from corner k to corner k + 1; its children
        // run from corner k to the edge point (in child face k) and from there on
        // (in child face k + 1), each as half-edge k of its face.
        Int h = 3 * f + k;
        const Int& e = face_edges[k];
        // (Their halves and the fans go out by edge and by vertex: derive_edge_or_vertex.)
        Int r = select(halves.load_vector<2>(e).x() == h, Int(0), Int(1));
        const int first_at = 3 * k + k, second_at = 3 * ((k + 1) % 3) + k;
        child_edges[first_at] = 2 * e + r;
        child_edges[second_at] = 2 * e + 1 - r;
    }
    // The inner edges: (ab, ca), (bc, ab), (ca, bc), each between a corner child and the
    // middle one; edge 2 E + 3 f + i's half-edges at 2 (2 E + 3 f + i) and the next.
    const int corner_k[3] = {1, 2, 0}, middle_k[3] = {2, 0, 1};
    for (int i = 0; i < 3; ++i) {
        Int e = 2 * edges + 3 * f + i;
        const int a_at = 3 * i + corner_k[i], b_at = 9 + middle_k[i];
        child_edges[a_at] = e;
        child_edges[b_at] = e;
        Int a = 12 * f + a_at, b = 12 * f + b_at;
        if (vectors) {
            child_halves.store_vector<2>(e, Int2(a, b));
        } else {
            child_halves.store(2 * e, a);
            child_halves.store(2 * e + 1, b);
        }
    }
    if (vectors) {
        for (int m = 0; m < 3; ++m)
            child_edge_of.store_vector<4>(3 * f + m, Int4(*child_edges[4 * m], *child_edges[4 * m + 1],
                                                          *child_edges[4 * m + 2], *child_edges[4 * m + 3]));
    } else {
        for (int m = 0; m < 12; ++m) child_edge_of.store(12 * f + m, *child_edges[m]);
    }
}

/// The connectivity of the children of every face (child_faces' order: face
/// 4 f + j) from the parent level's, without sorting: parent edge e becomes
/// child edges 2 e (from the start of its first half-edge to its edge point)
/// and 2 e + 1, and face f's three inner edges are 2 E + 3 f + i. A child
/// half-edge keeps its parent half-edge's slot in its edge's halves, so the
/// first slot is always a half-edge, the second -1 on a boundary. In the
/// same pass: the child faces (into `children`, as child_faces writes them);
/// then (in the same dispatch, past the faces, unless separate_kernels()) by
/// parent vertex and edge (derive_edge_or_vertex), the outer edges' halves
/// and each child vertex's fan, the faces about it and its largest outgoing
/// half-edge, from the parent's (`count`, `outgoing`), as around() would
/// count them, so that the next level needs no atomics for them.
Connectivity derive_children(const Stream<int4>& faces, const Connectivity& parent, const Stream<std::uint32_t>& count,
                             const Stream<std::int32_t>& outgoing, std::int64_t vertices, const Stream<int4>& children) {
    // Without rill's bounds checks: every index is one of the parent level's (its
    // corners, edges and half-edges, validated at the input level and derived since)
    // or one of the child level's, whose streams are sized below to hold them.
    // `vectors`: a face's 12 child half-edges' edges (48 consecutive bytes) go out
    // as three 16-byte stores and its inner edges' 6 half-edges as three 8-byte
    // ones, where one store each wrote 4 bytes of sectors 48 and 24 bytes apart
    // across a warp (RILL_SUBDIVISION_SCATTERED_STORES=1).
    auto trace = [](bool vectors) {
        return group_kernel<kWorkgroup>(
            "loop_derive_children(faces, edge_of, halves, child_faces, child_edge_of, child_halves, vertices, edges)",
            GroupOptions{.unchecked_arrays = true},
            [vectors](Array<int4> faces, Array<std::int32_t> edge_of, Array<std::int32_t> halves, Array<int4> child_faces,
                      Array<std::int32_t> child_edge_of, Array<std::int32_t> child_halves, Int vertices, Int edges) {
                Int f = global_id();
                If(f < faces.size(), [&] { derive_face(faces, edge_of, halves, child_faces, child_edge_of, child_halves, vertices, edges, f, vectors); });
            });
    };
    // One dispatch for the faces and, past them, the parent's vertices and edges (derive_edge_or_vertex).
    auto trace_both = [](bool vectors) {
        return group_kernel<kWorkgroup>(
            "loop_derive(faces, edge_of, halves, child_faces, child_edge_of, child_halves, count, outgoing, child_count, child_outgoing, "
            "vertices, edges)",
            GroupOptions{.unchecked_arrays = true},
            [vectors](Array<int4> faces, Array<std::int32_t> edge_of, Array<std::int32_t> halves, Array<int4> child_faces,
                      Array<std::int32_t> child_edge_of, Array<std::int32_t> child_halves, Array<std::uint32_t> count,
                      Array<std::int32_t> outgoing, Array<std::uint32_t> child_count, Array<std::int32_t> child_outgoing, Int vertices,
                      Int edges) {
                Int i = global_id();
                If(i < faces.size(), [&] {
                    derive_face(faces, edge_of, halves, child_faces, child_edge_of, child_halves, vertices, edges, i, vectors);
                }).Else([&] {
                    derive_edge_or_vertex(halves, count, outgoing, child_halves, child_count, child_outgoing, vertices, i - faces.size());
                });
            });
    };
    static const auto kernel = trace(!scattered_stores());
    static const auto both = trace_both(!scattered_stores());
    Runtime rt = Runtime::of(parent.edge_of);
    const std::int64_t parent_faces = faces.size();
    Connectivity c;
    c.edges = 2 * parent.edges + 3 * parent_faces;
    c.edge_of = rt.scratch<std::int32_t>({12 * parent_faces});
    c.halves = rt.scratch<std::int32_t>({2 * c.edges});
    c.index = rt.scratch<std::uint32_t>({0});
    c.parent_faces = faces;
    c.parent_edge_of = parent.edge_of;
    c.parent_halves = parent.halves;
    c.odd_from = vertices;
    // derive_edges writes every element of the fans.
    c.count = rt.scratch<std::uint32_t>({vertices + parent.edges});
    c.outgoing = rt.scratch<std::int32_t>({vertices + parent.edges});
    const auto v = static_cast<std::int32_t>(vertices), e = static_cast<std::int32_t>(parent.edges);
    if (separate_kernels(parent_faces)) {
        kernel(Groups{groups_for(parent_faces)}, faces, parent.edge_of, parent.halves, children, c.edge_of, c.halves, v, e);
        derive_edges(parent.halves, count, outgoing, vertices, parent.edges, c);
    } else {
        both(Groups{groups_for(parent_faces + vertices + parent.edges)}, faces, parent.edge_of, parent.halves, children, c.edge_of, c.halves,
             count, outgoing, c.count, c.outgoing, v, e);
    }
    return c;
}

/// mark_creases for a level whose connectivity was derived (no sorted keys):
/// each crease (a, b) found by walking a's fan. Every crease is a child of
/// one of the level before, so each is found.
void mark_creases_by_fans(const Stream<int2>& creases, const Stream<int4>& faces, const Connectivity& c, const Stream<std::uint32_t>& count,
                          const Stream<std::int32_t>& outgoing, std::int64_t vertices, const Stream<std::uint32_t>& sharp,
                          const Stream<int2>& next) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "loop_mark_creases_by_fans(creases, faces, count, outgoing, edge_of, halves, sharp, next, vertices)",
        [](Array<int2> creases, Array<int4> faces, Array<std::uint32_t> count, Array<std::int32_t> outgoing, Array<std::int32_t> edge_of,
           Array<std::int32_t> halves, Array<std::uint32_t> sharp, Array<int2> next, Int vertices) {
            Int i = global_id();
            If(i < creases.size(), [&] {
                Int2 ab = creases.load(i);
                Int a = ab.x(), b = ab.y();
                Var<std::int32_t> found = -1;
                // a's faces one way round from outgoing[a], then the other way from there.
                Int total = cast<std::int32_t>(count.load(a));
                Int start = outgoing.load(a);
                Var<std::int32_t> h = start, steps = 0;
                auto target = [&](const Int& x) { return corner(faces.load(face_of(x)), next_side(side_of(x))); };
                auto source = [&](const Int& x) { return corner(faces.load(face_of(x)), side_of(x)); };
                While([&] { return steps < total && found < 0; }, [&] {
                    If(target(h) == b, [&] { found = h; });
                    Int before = previous_half(h);
                    If(source(before) == b, [&] { found = before; });
                    Int t = twin(edge_of, halves, before);
                    If(t < 0 || t == start, [&] { Break(); });
                    h = t;
                    steps = steps + 1;
                });
                h = start;
                steps = 0;
                While([&] { return steps < total && found < 0; }, [&] {
                    Int q = twin(edge_of, halves, h);
                    If(q < 0, [&] { Break(); });
                    h = next_half(q);
                    If(target(h) == b, [&] { found = h; });
                    steps = steps + 1;
                });
                If(found >= 0, [&] {
                    Int e = edge_of.load(found);
                    sharp.store(e, 1u);
                    next.store(2 * i, Int2(a, vertices + e));
                    next.store(2 * i + 1, Int2(vertices + e, b));
                });
            });
        });
    kernel(Groups{groups_for(creases.size())}, creases, faces, count, outgoing, c.edge_of, c.halves, sharp, next,
           static_cast<std::int32_t>(vertices));
}

Points refine_points(const char* who, const Stream<float4>& vertices, const Stream<int4>& faces, const Stream<int2>& creases, bool check,
                     const Limits& limits, const Connectivity* known) {
    Runtime rt = Runtime::of(vertices);
    const std::int64_t nv = vertices.size(), nf = faces.size();
    Points out;
    out.c = known ? *known : connect(who, vertices, faces, check);
    const Connectivity& c = out.c;
    const std::int64_t ne = c.edges;
    if (nv + ne >= (std::int64_t{1} << 31) || 4 * nf >= (std::int64_t{1} << 31))
        throw Error(std::string(who) + ": the next level would have " + std::to_string(nv + ne) + " vertices and " +
                    std::to_string(4 * nf) + " faces; ask for fewer levels (at most 2^31 - 1 of each)");
    // The faces come later (one_level); the creases' halves are all written (mark_creases*).
    out.next = Mesh{rt.scratch<float4>({nv + ne}), rt.scratch<int4>({0}), rt.scratch<int2>({2 * creases.size()})};
    // connect() counts the fans; a derived level's come from its parent's.
    out.count = c.count;
    out.outgoing = c.outgoing;
    if (known && creases.size() > 0) {
        out.sharp = rt.stream<std::uint32_t>({ne});
        mark_creases_by_fans(creases, faces, c, out.count, out.outgoing, nv, out.sharp, out.next.creases);
    } else {
        out.sharp = sharp_edges(who, creases, c, nv, check, out.next.creases);
    }
    const Stream<std::uint32_t>& sharp = out.sharp;
    vertex_points(vertices, faces, sharp, Fans{out.count, out.outgoing, c.edge_of, c.halves}, out.next.vertices, limits, c);
    return out;
}

/// acc[4 v ..] += the area normals (cross products of two edges) of v's faces.
void area_normals(const Stream<float4>& vertices, const Stream<int4>& faces, const Stream<float>& acc) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "loop_area_normals(vertices, faces, acc)", [](Array<float4> vertices, Array<int4> faces, Array<float> acc) {
            Int f = global_id();
            If(f < faces.size(), [&] {
                Int4 t = faces.load(f);
                Float3 a = vertices.load(t.x()).xyz(), b = vertices.load(t.y()).xyz(), c = vertices.load(t.z()).xyz();
                Float3 n = cross(b - a, c - a);
                for (int k = 0; k < 3; ++k) {
                    Int v = k == 0 ? Int(t.x()) : k == 1 ? Int(t.y()) : Int(t.z());
                    acc.atomic_add(4 * v, n.x());
                    acc.atomic_add(4 * v + 1, n.y());
                    acc.atomic_add(4 * v + 2, n.z());
                }
            });
        });
    kernel(Groups{groups_for(faces.size())}, vertices, faces, acc);
}

/// normals[v]: the limit surface's normal at v from the tangent masks of
/// OpenSubdiv's Loop scheme (Sdc::Scheme<SCHEME_LOOP>, smooth and crease /
/// boundary), over v's neighbours in counter-clockwise order (the faces'
/// winding); where v's faces are not one fan, the sum of their area normals.
/// A vertex on two or more sharp edges (creases; a boundary counts as two)
/// takes the crease masks over the span of faces counter-clockwise from a
/// sharp edge to the next: the normal of that side (OpenSubdiv picks the side
/// by its own ordering of the edges); a dart (one crease) is smooth. Only for
/// v >= born.
void normals_at(const Stream<float4>& vertices, const Stream<int4>& faces, const Fans& fans, const Stream<std::uint32_t>& sharp,
                const Stream<float>& acc, const Stream<float4>& normals, std::int64_t born) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "loop_limit_normals(vertices, faces, count, outgoing, edge_of, halves, sharp, acc, normals, born)",
        [](Array<float4> vertices, Array<int4> faces, Array<std::uint32_t> count, Array<std::int32_t> outgoing, Array<std::int32_t> edge_of,
           Array<std::int32_t> halves, Array<std::uint32_t> sharp, Array<float> acc, Array<float4> normals, Int born) {
            Int v = global_id();
            If(v < vertices.size() && v >= born, [&] {
                Int total = cast<std::int32_t>(count.load(v));
                Int start = outgoing.load(v);
                // Clockwise to the leading boundary half-edge, or once around.
                Var<std::int32_t> first = start;
                Var<bool> open = false;
                Var<std::int32_t> steps = 0;
                While([&] { return steps < total; }, [&] {
                    Int q = twin(edge_of, halves, first);
                    If(q < 0, [&] {
                        open = true;
                        Break();
                    });
                    Int before = next_half(q);
                    If(before == start, [&] { Break(); });
                    first = before;
                    steps = steps + 1;
                });
                auto crease = [&](const Int& h) { return sharp.load(edge_of.load(h)) != 0u && twin(edge_of, halves, h) >= 0; };
                // Creases about v (with no creases in the mesh, sharp has one element: skipped).
                Var<std::int32_t> creases = 0, lead = first;
                If(sharp.size() > 1, [&] {
                    Var<std::int32_t> h = first, visited = 0;
                    While([&] { return visited < total; }, [&] {
                        If(crease(h), [&] {
                            If(creases == 0, [&] { lead = h; });
                            creases = creases + 1;
                        });
                        visited = visited + 1;
                        Int t = twin(edge_of, halves, previous_half(h));
                        If(t < 0 || t == first, [&] { Break(); });
                        h = t;
                    });
                });
                Bool span = creases >= 1 && creases + select(open, Int(2), Int(0)) >= 2;  // a crease or a corner
                Int from = select(span && !open, Int(lead), Int(first));
                // Faces from `from` counter-clockwise to the next sharp edge (or the boundary).
                auto stops = [&](const Int& in) { return twin(edge_of, halves, in) < 0 || (span && crease(in)); };
                Var<std::int32_t> faces_in_span = total;
                If(span, [&] {
                    Var<std::int32_t> h = from, n = 0;
                    While([&] { return n < total; }, [&] {
                        n = n + 1;
                        Int in = previous_half(h);
                        If(stops(in), [&] { Break(); });
                        Int t = twin(edge_of, halves, in);
                        If(t == from, [&] { Break(); });
                        h = t;
                    });
                    faces_in_span = n;
                });
                // Counter-clockwise from there: neighbour i is the target of the i-th
                // outgoing half-edge; an open span's last face adds one more.
                Float3 p = vertices.load(v).xyz();
                Float n = cast<float>(max(Int(faces_in_span), Int(1)));
                Float theta = 3.14159265358979323846f / n;  // boundary: pi / faces
                Var<float3> t1 = Float3(0.0f), t2 = Float3(0.0f), inner = Float3(0.0f);
                Var<float3> q0 = Float3(0.0f), qk = Float3(0.0f);
                Var<std::int32_t> h = from, visited = 0;
                While([&] { return visited < total; }, [&] {
                    Int4 f = faces.load(face_of(h));
                    Float3 q = vertices.load(corner(f, next_side(side_of(h)))).xyz();
                    Float i = cast<float>(visited);
                    t1 = t1 + q * cos(2.0f * theta * i);
                    t2 = t2 + q * sin(2.0f * theta * i);
                    If(visited == 0, [&] { q0 = q; });
                    If(visited > 0, [&] { inner = inner + q * sin(theta * i); });
                    visited = visited + 1;
                    Int in = previous_half(h);
                    If(stops(in), [&] {
                        qk = vertices.load(corner(f, previous_side(side_of(h)))).xyz();
                        Break();
                    });
                    Int t = twin(edge_of, halves, in);
                    If(t == from, [&] { Break(); });  // around: one fan of fewer faces than v has
                    h = t;
                });
                Bool one_fan = visited == total || span;
                If(open || span, [&] {
                    Int k = faces_in_span;  // faces; k - 1 interior edges
                    t1 = (q0 - qk) * 1.5f;
                    Float root3 = 1.73205080756887729352f;
                    t2 = select(k == 1, p * -6.0f + (q0 + qk) * 3.0f,
                                select(k == 2, (inner / sin(theta) - p) * 3.0f,
                                       select(k == 3, p * -root3 - (q0 + qk) * (0.5f * root3) + inner * (root3 / sin(theta)),
                                              (q0 + qk) * (-3.0f * sin(theta)) + inner * (-6.0f * (cos(theta) - 1.0f)))));
                });
                Float3 c = cross(t1, t2);
                Float c2 = dot(c, c);
                Float3 sum = Float3(acc.load(4 * v), acc.load(4 * v + 1), acc.load(4 * v + 2));
                Float3 fallback = sum * inversesqrt(max(dot(sum, sum), 1e-37f));
                normals.store(v, Float4(select(one_fan && c2 > 0.0f, c * inversesqrt(max(c2, 1e-37f)), fallback), 0.0f));
            });
        });
    kernel(Groups{groups_for(vertices.size())}, vertices, faces, fans.count, fans.outgoing, fans.edge_of, fans.halves, sharp, acc, normals,
           static_cast<std::int32_t>(born));
}

void vertex_normals(const Stream<float4>& vertices, const Stream<int4>& faces, const Points& at, const Stream<float4>& normals,
                    std::int64_t born) {
    Stream<float> acc = Runtime::of(vertices).stream<float>({4 * vertices.size()});
    area_normals(vertices, faces, acc);
    normals_at(vertices, faces, Fans{at.count, at.outgoing, at.c.edge_of, at.c.halves}, at.sharp, acc, normals, born);
}

bool check_mesh(const char* who, const Stream<float4>& vertices, const Stream<int4>& faces) {
    rill::detail::require_dense(who, vertices, "vertices");
    rill::detail::require_dense(who, faces, "faces");
    rill::detail::require_runtime_of(who, faces, "faces", vertices, "the vertex stream");
    if (faces.size() > 0) return true;
    if (vertices.size() > 0)
        throw Error(std::string(who) + ": " + std::to_string(vertices.size()) +
                    " vertices but no faces; give faces (or no vertices for an empty mesh)");
    return false;
}

}  // namespace detail

using namespace detail;

namespace {

/// One level; `check`: the input's checks first (errors name the call);
/// `known`: the level's connectivity, derived from the level before (else
/// sorted out). With `children`, the children's connectivity goes there.
Mesh one_level(const Stream<float4>& vertices, const Stream<int4>& faces, const Stream<int2>& creases, bool check, const Connectivity* known,
               Connectivity* children) {
    Points p = refine_points("rill::subdivision::loop", vertices, faces, creases, check, {}, known);
    p.next.faces = Runtime::of(vertices).scratch<int4>({4 * faces.size()});
    // The children's faces, and where another level follows, their connectivity
    // and fans in the same pass over the faces.
    if (children) *children = derive_children(faces, p.c, p.count, p.outgoing, vertices.size(), p.next.faces);
    else child_faces(faces, p.c.edge_of, vertices.size(), p.next.faces);
    return p.next;
}

}  // namespace

Mesh loop(const Stream<float4>& vertices, const Stream<int4>& faces, int levels, const LoopOptions& options) {
    const char* who = "rill::subdivision::loop";
    const bool work = check_mesh(who, vertices, faces);
    if (levels < 0 || levels > 12)
        throw Error(std::string(who) + ": levels is " + std::to_string(levels) + "; give 0 to 12");
    Mesh m{vertices.reshape({vertices.size()}), faces.reshape({faces.size()}), creases_of(who, options, vertices)};
    if (!work) return m;
    // The first level sorts the input's half-edges into edges; every later level's
    // connectivity follows from the one before.
    Connectivity known, children;
    for (int l = 0; l < levels; ++l) {
        m = one_level(m.vertices, m.faces, m.creases, l == 0, l == 0 ? nullptr : &known, l + 1 < levels ? &children : nullptr);
        known = children;
    }
    return m;
}

Stream<float4> limit_normals(const Stream<float4>& vertices, const Stream<int4>& faces, const LoopOptions& options) {
    const char* who = "rill::subdivision::limit_normals";
    const bool work = check_mesh(who, vertices, faces);
    Runtime rt = Runtime::of(vertices);
    const std::int64_t nv = vertices.size();
    Stream<float4> normals = rt.stream<float4>({nv});
    if (!work) return normals;
    const Stream<float4> v = vertices.reshape({nv});
    const Stream<int4> f = faces.reshape({faces.size()});
    Points at;
    at.c = connect(who, v, f, true);
    const Stream<int2> creases = creases_of(who, options, vertices);
    at.sharp = sharp_edges(who, creases, at.c, nv, true, rt.scratch<int2>({2 * creases.size()}));
    at.count = at.c.count;
    at.outgoing = at.c.outgoing;
    vertex_normals(v, f, at, normals, 0);
    return normals;
}

}  // namespace rill::subdivision
