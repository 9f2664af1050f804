// A mesh's half-edge connectivity sorted out of its faces (connect: the
// input's checks, its half-edges' keys sorted by rill's radix sort, the edges
// found in them by a scan, the faces about each vertex), the creases among its
// edges (sharp_edges), and the half-edge conventions every level shares
// (corner, face_of, ...; level.h). Later levels derive theirs from their
// parent's instead (loop.cpp).
#include <rill/algorithms/detail/dense_streams.h>
#include <rill/algorithms/radix_sort.h>
#include <rill/algorithms/scan.h>
#include <rill/algorithms/subdivision.h>

#include "level.h"

#include <bit>
#include <string>
#include <vector>

namespace rill::subdivision::detail {


// stats: [0] faces with an index outside the vertices, [1] the first;
// [2] faces naming a vertex twice, [3] the first; [4] vertices no face uses,
// [5] the first; [6] edges of three or more faces, [7] where the first is
// among the sorted half-edges; [8] the number of edges.
constexpr std::uint32_t kNone = 0xffffffffu;

void check_faces(const Stream<int4>& faces, std::int64_t vertices, const Stream<std::uint32_t>& stats) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "loop_check_faces(faces, stats, vertices)", [](Array<int4> faces, Array<std::uint32_t> stats, Int vertices) {
            Int i = global_id();
            If(i < faces.size(), [&] {
                Int4 f = faces.load(i);
                If(any(f.xyz() < Int3(0)) || any(f.xyz() >= Int3(vertices)), [&] {
                    stats.atomic_add(0, 1u);
                    stats.atomic_min(1, cast<std::uint32_t>(i));
                }).Else([&] {
                    If(f.x() == f.y() || f.y() == f.z() || f.z() == f.x(), [&] {
                        stats.atomic_add(2, 1u);
                        stats.atomic_min(3, cast<std::uint32_t>(i));
                    });
                });
            });
        });
    kernel(Groups{groups_for(faces.size())}, faces, stats, static_cast<std::int32_t>(vertices));
}

/// The vertices in no face (their fans' count 0, around()) into stats[4], [5].
void unused_vertices(const Stream<std::uint32_t>& count, const Stream<std::uint32_t>& stats) {
    static const auto unused = group_kernel<kWorkgroup>("loop_unused(count, stats)", [](Array<std::uint32_t> count, Array<std::uint32_t> stats) {
        Int v = global_id();
        If(v < count.size() && count.load(v) == 0u, [&] {
            stats.atomic_add(4, 1u);
            stats.atomic_min(5, cast<std::uint32_t>(v));
        });
    });
    unused(Groups{groups_for(count.size())}, count, stats);
}

/// The bits of a vertex index below `vertices` (1 to 31).
int key_shift(std::int64_t vertices) { return std::max(1, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(vertices)))); }

/// The key of the edge of vertices lo < hi: the number lo 2^shift + hi, ordered
/// by lo, then hi, in 2 shift bits (the sort's passes: 3 for spot's 2,930
/// vertices, where lo and hi as whole words took 6). Narrow: one word, where
/// 2 shift <= 32 (meshes of fewer than 2^16 vertices), so that the sort moves
/// no second word and needs no permutation after it; else {low word, high word}.
Expr<std::uint32_t> edge_key(const Expr<std::uint32_t>& lo, const Expr<std::uint32_t>& hi, const Int& shift, std::uint32_t) {
    return hi | (lo << cast<std::uint32_t>(shift));
}
UInt2 edge_key(const Expr<std::uint32_t>& lo, const Expr<std::uint32_t>& hi, const Int& shift, uint2) {
    UInt s = cast<std::uint32_t>(shift);
    return UInt2(hi | (lo << s), lo >> (32u - s));
}
bool narrow_keys(std::int64_t vertices) { return 2 * key_shift(vertices) <= 32; }

/// Whether two keys are the same edge's, and whether k comes before `want`
/// (as 64-bit numbers, the high words first).
Bool same_key(const Expr<std::uint32_t>& a, const Expr<std::uint32_t>& b) { return a == b; }
Bool same_key(const UInt2& a, const UInt2& b) { return all(a == b); }
Bool key_below(const Expr<std::uint32_t>& k, const Expr<std::uint32_t>& want) { return k < want; }
Bool key_below(const UInt2& k, const UInt2& want) { return k.y() < want.y() || (k.y() == want.y() && k.x() < want.x()); }

/// The vertices (lo, hi) of a key that edge_key made.
std::pair<std::uint64_t, std::uint64_t> edge_of_key(std::uint64_t value, int shift) {
    return {value >> shift, value & ((std::uint64_t{1} << shift) - 1)};
}

/// Half-edge h = 3 f + k runs from corner k of face f to corner k + 1;
/// its key is its edge's (edge_key).
template <class K>
void edge_keys(const Stream<int4>& faces, const Stream<K>& keys, const Stream<std::int32_t>& ids, int shift) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "loop_edge_keys(faces, keys, ids, shift)", [](Array<int4> faces, Array<K> keys, Array<std::int32_t> ids, Int shift) {
            Int h = global_id();
            If(h < keys.size(), [&] {
                Int4 f = faces.load(face_of(h));
                Int k = side_of(h);
                Int u = corner(f, k), v = corner(f, next_side(k));
                keys.store(h, edge_key(cast<std::uint32_t>(min(u, v)), cast<std::uint32_t>(max(u, v)), shift, K{}));
                ids.store(h, h);
            });
        });
    kernel(Groups{groups_for(keys.size())}, faces, keys, ids, shift);
}

/// heads[i] = 1 where the sorted half-edge i starts an edge; the
/// non-manifold count; then, one invocation, the edge count into stats[8].
template <class K>
void edge_heads(const Stream<K>& keys, const Stream<std::uint32_t>& heads, const Stream<std::uint32_t>& stats) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "loop_edge_heads(keys, heads, stats)", [](Array<K> keys, Array<std::uint32_t> heads, Array<std::uint32_t> stats) {
            Int i = global_id();
            If(i < keys.size(), [&] {
                Expr<K> k = keys.load(i);
                heads.store(i, select(i == 0 || !same_key(keys.load(i - 1), k), 1u, 0u));
                If(i >= 2 && same_key(keys.load(i - 2), k), [&] {
                    stats.atomic_add(6, 1u);
                    stats.atomic_min(7, cast<std::uint32_t>(i));
                });
            });
        });
    kernel(Groups{groups_for(keys.size())}, keys, heads, stats);
}

/// edge_of[h] = h's edge; halves[2 e], halves[2 e + 1] = edge e's
/// half-edges (the second -1 on a boundary).
template <class K>
void edges(const Stream<K>& keys, const Stream<std::int32_t>& ids, const Stream<std::uint32_t>& heads,
           const Stream<std::uint32_t>& index, const Stream<std::int32_t>& edge_of, const Stream<std::int32_t>& halves,
           const Stream<std::uint32_t>& stats) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "loop_edges(keys, ids, heads, index, edge_of, halves, stats)",
        [](Array<K> keys, Array<std::int32_t> ids, Array<std::uint32_t> heads, Array<std::uint32_t> index,
           Array<std::int32_t> edge_of, Array<std::int32_t> halves, Array<std::uint32_t> stats) {
            Int i = global_id();
            Int n = keys.size();
            If(i < n, [&] {
                Int e = cast<std::int32_t>(index.load(i)) - 1;
                Int h = ids.load(i);
                edge_of.store(h, e);
                If(heads.load(i) != 0u, [&] {
                    Bool twin = i + 1 < n && same_key(keys.load(i + 1), keys.load(i));
                    halves.store(2 * e, h);
                    halves.store(2 * e + 1, select(twin, ids.load(i + 1), Int(-1)));
                });
                If(i == n - 1, [&] { stats.store(8, index.load(i)); });
            });
        });
    kernel(Groups{groups_for(keys.size())}, keys, ids, heads, index, edge_of, halves, stats);
}

Int corner(const Int4& f, const Expr<std::int32_t>& k) { return select(k == 0, f.x(), select(k == 1, f.y(), f.z())); }

Int face_of(const Int& h) { return nonnegative_quotient(h, 3u); }
Int side_of(const Int& h) { return h - 3 * face_of(h); }
Int next_side(const Int& side) { return select(side == 2, Int(0), side + 1); }
Int previous_side(const Int& side) { return select(side == 0, Int(2), side - 1); }

/// faces[v] = the faces around vertex v, outgoing[v] = one half-edge from it.
void around(const Stream<int4>& faces, const Stream<std::uint32_t>& count, const Stream<std::int32_t>& outgoing) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "loop_around(faces, count, outgoing)", [](Array<int4> faces, Array<std::uint32_t> count, Array<std::int32_t> outgoing) {
            Int h = global_id();
            If(h < 3 * faces.size(), [&] {
                Int v = corner(faces.load(face_of(h)), side_of(h));
                count.atomic_add(v, 1u);
                outgoing.atomic_max(v, h);
            });
        });
    kernel(Groups{groups_for(3 * faces.size())}, faces, count, outgoing);
}

namespace {

/// connect's sort of the half-edges by their edges' keys (K: narrow or wide,
/// edge_key), and the edges found in them; c.edges comes with stats' read.
template <class K>
void sort_edges(const Stream<int4>& faces, std::int64_t vertices, Connectivity& c, const Stream<std::uint32_t>& stats) {
    Runtime rt = Runtime::of(faces);
    const std::int64_t nh = 3 * faces.size();
    const int shift = key_shift(vertices);
    Stream<K> keys = rt.scratch<K>({nh});
    Stream<std::int32_t> ids = rt.scratch<std::int32_t>({nh});
    edge_keys(faces, keys, ids, shift);
    // Narrow keys in whole bytes of an even count, so that the last pass leaves
    // them in `keys` (an odd count copies keys and ids back: two dispatches
    // for one pass more, on GPUs as long for spot's 17,568 half-edges).
    radix_sort(keys, ids, {.bits = std::is_same_v<K, std::uint32_t> ? (2 * shift <= 16 ? 16 : 32) : 2 * shift});
    Stream<std::uint32_t> heads = rt.scratch<std::uint32_t>({nh});
    c.index = rt.scratch<std::uint32_t>({nh});
    edge_heads(keys, heads, stats);
    inclusive_scan(heads, c.index);
    c.edge_of = rt.scratch<std::int32_t>({nh});
    c.halves = rt.scratch<std::int32_t>({2 * nh});
    edges(keys, ids, heads, c.index, c.edge_of, c.halves, stats);
    if constexpr (std::is_same_v<K, std::uint32_t>) c.narrow_keys = keys, c.narrow = true;
    else c.keys = keys;
}

}  // namespace

/// The connectivity of (vertices, faces), with the faces about each vertex
/// (c.count, c.outgoing); `check`: the faces' checks first. Errors name `who`.
Connectivity connect(const char* who, const Stream<float4>& vertices, const Stream<int4>& faces, bool check) {
    Runtime rt = Runtime::of(vertices);
    const std::int64_t nv = vertices.size();
    Stream<std::uint32_t> stats =
        rt.stream<std::uint32_t>({9}, std::vector<std::uint32_t>{0, kNone, 0, kNone, 0, kNone, 0, kNone, 0});
    auto face_text = [&](std::uint32_t f) {
        const int4 t = faces.domain({f}, {f + 1}).download()[0];
        return "face " + std::to_string(f) + " (" + std::to_string(t.x) + ", " + std::to_string(t.y) + ", " + std::to_string(t.z) + ")";
    };
    // The faces' checks and the edges' come back in one read: the fans, the
    // sort and the edges run on faces that fail a check too (every index their
    // kernels make is checked), and the faces' errors go first. A vertex that
    // no face uses has no fan.
    Connectivity c;
    c.count = rt.stream<std::uint32_t>({nv});
    c.outgoing = rt.stream<std::int32_t>({nv});
    if (check) check_faces(faces, nv, stats);
    around(faces, c.count, c.outgoing);
    if (check) unused_vertices(c.count, stats);
    if (narrow_keys(nv)) sort_edges<std::uint32_t>(faces, nv, c, stats);
    else sort_edges<uint2>(faces, nv, c, stats);
    const std::vector<std::uint32_t> s = stats.download();
    if (check) {
        if (s[0] > 0)
            throw Error(std::string(who) + ": " + face_text(s[1]) + " has a vertex index outside 0 .. " + std::to_string(nv - 1) + " (" +
                        std::to_string(s[0]) + " faces are like it); give indices of the vertex stream");
        if (s[2] > 0)
            throw Error(std::string(who) + ": " + face_text(s[3]) + " names a vertex twice (" + std::to_string(s[2]) +
                        " faces are like it); remove degenerate faces first");
        if (s[4] > 0)
            throw Error(std::string(who) + ": vertex " + std::to_string(s[5]) + " is in no face (" + std::to_string(s[4]) +
                        " vertices are like it); remove unused vertices first");
    }
    if (s[6] > 0) {
        const std::uint64_t key = c.narrow ? c.narrow_keys.domain({s[7]}, {s[7] + 1}).download()[0] : [&] {
            const uint2 k = c.keys.domain({s[7]}, {s[7] + 1}).download()[0];
            return (std::uint64_t{k.y} << 32) | k.x;
        }();
        const auto [lo, hi] = edge_of_key(key, key_shift(nv));
        throw Error(std::string(who) + ": the edge of vertices " + std::to_string(lo) + " and " + std::to_string(hi) +
                    " belongs to three or more faces (" + std::to_string(s[6]) +
                    " such edges); Loop subdivision needs a manifold mesh (split the mesh at those edges)");
    }
    c.edges = s[8];
    return c;
}

/// sharp[e] = 1 for the edge e of each crease (a, b), found by a binary
/// search of the sorted half-edge keys; next[2 c], next[2 c + 1] = the two
/// halves the crease becomes at the next level, (a, m) and (m, b) with m the
/// edge point's index. stats[0] counts creases that are no edge, stats[1]
/// the first of them.
template <class K>
void mark_creases_in(const Stream<int2>& creases, const Stream<K>& keys, const Connectivity& c, std::int64_t vertices,
                     const Stream<std::uint32_t>& sharp, const Stream<int2>& next, const Stream<std::uint32_t>& stats) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "loop_mark_creases(creases, keys, index, sharp, next, stats, vertices, shift)",
        [](Array<int2> creases, Array<K> keys, Array<std::uint32_t> index, Array<std::uint32_t> sharp, Array<int2> next,
           Array<std::uint32_t> stats, Int vertices, Int shift) {
            Int i = global_id();
            If(i < creases.size(), [&] {
                Int2 ab = creases.load(i);
                Expr<K> want = edge_key(cast<std::uint32_t>(min(ab.x(), ab.y())), cast<std::uint32_t>(max(ab.x(), ab.y())), shift, K{});
                // The first sorted key not below `want`.
                Var<std::int32_t> first = 0, count = keys.size();
                While([&] { return count > 0; }, [&] {
                    Int half = count / 2;
                    If(key_below(keys.load(first + half), want), [&] {
                        first = first + half + 1;
                        count = count - half - 1;
                    }).Else([&] { count = half; });
                });
                Bool in_range = all(ab >= Int2(0)) && all(ab < Int2(vertices)) && ab.x() != ab.y();
                Bool found = in_range && first < keys.size() && same_key(keys.load(first), want);
                If(found, [&] {
                    Int e = cast<std::int32_t>(index.load(first)) - 1;
                    sharp.store(e, 1u);
                    next.store(2 * i, Int2(ab.x(), vertices + e));
                    next.store(2 * i + 1, Int2(vertices + e, ab.y()));
                }).Else([&] {
                    stats.atomic_add(0, 1u);
                    stats.atomic_min(1, cast<std::uint32_t>(i));
                });
            });
        });
    kernel(Groups{groups_for(creases.size())}, creases, keys, c.index, sharp, next, stats, static_cast<std::int32_t>(vertices),
           key_shift(vertices));
}

void mark_creases(const Stream<int2>& creases, const Connectivity& c, std::int64_t vertices, const Stream<std::uint32_t>& sharp,
                  const Stream<int2>& next, const Stream<std::uint32_t>& stats) {
    if (c.narrow) mark_creases_in(creases, c.narrow_keys, c, vertices, sharp, next, stats);
    else mark_creases_in(creases, c.keys, c, vertices, sharp, next, stats);
}

Stream<std::uint32_t> sharp_edges(const char* who, const Stream<int2>& creases, const Connectivity& c, std::int64_t vertices, bool check,
                                   const Stream<int2>& next) {
    Runtime rt = Runtime::of(creases);
    // No creases: one zero word that nothing writes (the runtime's, no fill).
    if (creases.size() == 0) return rt.zeroed_words(1);
    Stream<std::uint32_t> sharp = rt.stream<std::uint32_t>({c.edges});
    Stream<std::uint32_t> stats = rt.stream<std::uint32_t>({2}, std::vector<std::uint32_t>{0, kNone});
    mark_creases(creases, c, vertices, sharp, next, stats);
    if (check) {
        const std::vector<std::uint32_t> st = stats.download();
        if (st[0] > 0) {
            const int2 e = creases.domain({st[1]}, {st[1] + 1}).download()[0];
            throw Error(std::string(who) + ": crease " + std::to_string(st[1]) + " (" + std::to_string(e.x) + ", " + std::to_string(e.y) +
                        ") is no edge of the mesh (" + std::to_string(st[0]) + " creases are like it); give pairs of vertices that a face joins");
        }
    }
    return sharp;
}

Stream<int2> creases_of(const char* who, const LoopOptions& options, const Stream<float4>& vertices) {
    if (!options.creases || options.creases->size() == 0) return Runtime::of(vertices).scratch<int2>({0});
    rill::detail::require_dense(who, *options.creases, "LoopOptions::creases");
    rill::detail::require_runtime_of(who, *options.creases, "LoopOptions::creases", vertices, "the vertex stream");
    return options.creases->reshape({options.creases->size()});
}

}  // namespace rill::subdivision::detail
