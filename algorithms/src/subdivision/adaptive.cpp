// Adaptive Loop subdivision (rill/algorithms/subdivision.h, adaptive()):
// each level is a subset of the uniform refinement's faces; w of each face
// holds its state (kActive: still being refined or finished here;
// kRefined: split this level). The active faces A and their margin M obey:
// every face sharing a vertex with a face sharing a vertex with an active
// face is in the level (two rings), and every vertex of a face sharing a
// vertex with an active face has its uniform position. Then a face F that
// asks for a split and whose two rings are active refines, with its ring R;
// the next level is the children of the faces sharing a vertex with R (the
// children of a face's ring hold two rings of its children, so both
// properties carry on).
#include <rill/algorithms/scan.h>
#include <rill/algorithms/subdivision.h>

#include "level.h"

#include <string>
#include <utility>
#include <vector>

namespace rill::subdivision {

using namespace detail;

namespace {

constexpr std::int32_t kActive = 1, kRefined = 2;

Bool has(const Int4& f, std::int32_t flag) { return (f.w() & flag) != 0; }

/// Any of face f's corners marked.
Bool marked(const Array<std::uint32_t>& mark, const Int4& f) {
    return (mark.load(f.x()) | mark.load(f.y()) | mark.load(f.z())) != 0u;
}

void mark_corners(const Array<std::uint32_t>& mark, const Int4& f) {
    mark.store(f.x(), 1u);
    mark.store(f.y(), 1u);
    mark.store(f.z(), 1u);
}

/// out[f] = faces[f] made active.
void activate(const Stream<int4>& faces, const Stream<int4>& out) {
    static const auto kernel = group_kernel<kWorkgroup>("adaptive_activate(faces, out)", [](Array<int4> faces, Array<int4> out) {
        Int f = global_id();
        If(f < faces.size(), [&] { out.store(f, Int4(faces.load(f).xyz(), kActive)); });
    });
    kernel(Groups{groups_for(faces.size())}, faces, out);
}

/// to[i] = from[i] for i below from's size.
void copy_front(const Stream<float4>& from, const Stream<float4>& to) {
    static const auto kernel = group_kernel<kWorkgroup>("adaptive_copy_front(from, to)", [](Array<float4> from, Array<float4> to) {
        Int i = global_id();
        If(i < from.size(), [&] { to.store(i, from.load(i)); });
    });
    if (from.size() > 0) kernel(Groups{groups_for(from.size())}, from, to);
}

/// Marks the corners of faces that are not active or, with `deep`, of faces
/// that are not active with no corner in `inner` (not one ring inside the
/// active faces).
void mark_outside(const Stream<int4>& faces, const Stream<std::uint32_t>& inner, const Stream<std::uint32_t>& mark, bool deep) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "adaptive_mark_outside(faces, inner, mark, deep)",
        [](Array<int4> faces, Array<std::uint32_t> inner, Array<std::uint32_t> mark, Int deep) {
            Int f = global_id();
            If(f < faces.size(), [&] {
                Int4 t = faces.load(f);
                Bool inside = has(t, kActive) && (deep == 0 || !marked(inner, t));
                If(!inside, [&] { mark_corners(mark, t); });
            });
        });
    kernel(Groups{groups_for(faces.size())}, faces, inner, mark, deep ? 1 : 0);
}

/// Active faces with an edge to split: two rings inside A (no corner in
/// `shallow`) mark their corners in `grow`; the others count in held[0].
void asking(const Stream<int4>& faces, const Stream<std::int32_t>& edge_of, const Stream<std::uint32_t>& split,
            const Stream<std::uint32_t>& shallow, const Stream<std::uint32_t>& grow, const Stream<std::uint32_t>& held) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "adaptive_asking(faces, edge_of, split, shallow, grow, held)",
        [](Array<int4> faces, Array<std::int32_t> edge_of, Array<std::uint32_t> split, Array<std::uint32_t> shallow,
           Array<std::uint32_t> grow, Array<std::uint32_t> held) {
            Int f = global_id();
            If(f < faces.size(), [&] {
                Int4 t = faces.load(f);
                UInt asks = split.load(edge_of.load(3 * f)) | split.load(edge_of.load(3 * f + 1)) | split.load(edge_of.load(3 * f + 2));
                If(has(t, kActive) && asks != 0u, [&] {
                    If(marked(shallow, t), [&] { held.atomic_add(0, 1u); }).Else([&] { mark_corners(grow, t); });
                });
            });
        });
    kernel(Groups{groups_for(faces.size())}, faces, edge_of, split, shallow, grow, held);
}

/// Active faces with a corner in `grow` are refined: kRefined set, their
/// corners marked in `keep`.
void refine(const Stream<int4>& faces, const Stream<std::uint32_t>& grow, const Stream<std::uint32_t>& keep) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "adaptive_refine(faces, grow, keep)", [](Array<int4> faces, Array<std::uint32_t> grow, Array<std::uint32_t> keep) {
            Int f = global_id();
            If(f < faces.size(), [&] {
                Int4 t = faces.load(f);
                If(has(t, kActive) && marked(grow, t), [&] {
                    faces.store(f, Int4(t.xyz(), t.w() | kRefined));
                    mark_corners(keep, t);
                });
            });
        });
    kernel(Groups{groups_for(faces.size())}, faces, grow, keep);
}

/// kept[f] = 1 where a corner of f is in `keep`: the faces whose children
/// make the next level.
void kept_faces(const Stream<int4>& faces, const Stream<std::uint32_t>& keep, const Stream<std::uint32_t>& kept) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "adaptive_kept(faces, keep, kept)", [](Array<int4> faces, Array<std::uint32_t> keep, Array<std::uint32_t> kept) {
            Int f = global_id();
            If(f < faces.size(), [&] { kept.store(f, select(marked(keep, faces.load(f)), 1u, 0u)); });
        });
    kernel(Groups{groups_for(faces.size())}, faces, keep, kept);
}

/// The kept faces' children, packed by `index` (the inclusive scan of
/// kept), active where the parent was refined.
void kept_children(const Stream<int4>& faces, const Stream<std::int32_t>& edge_of, const Stream<std::uint32_t>& kept,
                   const Stream<std::uint32_t>& index, std::int64_t vertices, const Stream<int4>& out) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "adaptive_children(faces, edge_of, kept, index, out, vertices)",
        [](Array<int4> faces, Array<std::int32_t> edge_of, Array<std::uint32_t> kept, Array<std::uint32_t> index, Array<int4> out,
           Int vertices) {
            Int f = global_id();
            If(f < faces.size() && kept.load(f) != 0u, [&] {
                Int state = select(has(faces.load(f), kRefined), Int(kActive), Int(0));
                store_children(out, 4 * (cast<std::int32_t>(index.load(f)) - 1), faces, edge_of, f, vertices, state);
            });
        });
    kernel(Groups{groups_for(faces.size())}, faces, edge_of, kept, index, out, static_cast<std::int32_t>(vertices));
}

/// Edge k (0, 1, 2) of face f is split: the face across it was refined.
Bool split_edge(const Array<int4>& faces, const Array<std::int32_t>& edge_of, const Array<std::int32_t>& halves, const Int& f, int k) {
    Int t = twin(edge_of, halves, 3 * f + k);
    return t >= 0 && has(faces.load(face_of(max(t, Int(0)))), kRefined);
}

/// pieces[f]: the triangles face f is finished as (active, not refined: 1
/// plus one per split edge), else 0.
void count_pieces(const Stream<int4>& faces, const Stream<std::int32_t>& edge_of, const Stream<std::int32_t>& halves,
                  const Stream<std::uint32_t>& pieces) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "adaptive_count_pieces(faces, edge_of, halves, pieces)",
        [](Array<int4> faces, Array<std::int32_t> edge_of, Array<std::int32_t> halves, Array<std::uint32_t> pieces) {
            Int f = global_id();
            If(f < faces.size(), [&] {
                Int4 t = faces.load(f);
                Bool finished = has(t, kActive) && !has(t, kRefined);
                UInt n = 1u + select(split_edge(faces, edge_of, halves, f, 0), 1u, 0u) + select(split_edge(faces, edge_of, halves, f, 1), 1u, 0u) +
                         select(split_edge(faces, edge_of, halves, f, 2), 1u, 0u);
                pieces.store(f, select(finished, n, 0u));
            });
        });
    kernel(Groups{groups_for(faces.size())}, faces, edge_of, halves, pieces);
}

/// The finished faces' triangles at out[index[f] - pieces[f] ..] (w =
/// level): a face cut at the new vertex (vertices + e) of each split edge e.
void write_pieces(const Stream<int4>& faces, const Stream<std::int32_t>& edge_of, const Stream<std::int32_t>& halves,
                  const Stream<std::uint32_t>& pieces, const Stream<std::uint32_t>& index, std::int64_t vertices, int level,
                  const Stream<int4>& out) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "adaptive_write_pieces(faces, edge_of, halves, pieces, index, out, vertices, level)",
        [](Array<int4> faces, Array<std::int32_t> edge_of, Array<std::int32_t> halves, Array<std::uint32_t> pieces,
           Array<std::uint32_t> index, Array<int4> out, Int vertices, Int level) {
            Int f = global_id();
            If(f < faces.size() && pieces.load(f) != 0u, [&] {
                Int4 t = faces.load(f);
                Int n = cast<std::int32_t>(pieces.load(f)) - 1;
                Int at = cast<std::int32_t>(index.load(f)) - (n + 1);
                Bool s0 = split_edge(faces, edge_of, halves, f, 0), s1 = split_edge(faces, edge_of, halves, f, 1);
                // Turned so that one split edge is edge 0, two are edges 0 and 1.
                Int one = select(s0, Int(0), select(s1, Int(1), Int(2)));
                Int unsplit = select(!s0, Int(0), select(!s1, Int(1), Int(2)));
                Int r = select(n == 1, one, select(n == 2, next_side(unsplit), Int(0)));
                Int p0 = corner(t, r), p1 = corner(t, next_side(r)), p2 = corner(t, previous_side(r));
                Int m0 = vertices + edge_of.load(3 * f + r), m1 = vertices + edge_of.load(3 * f + next_side(r));
                Int m2 = vertices + edge_of.load(3 * f + previous_side(r));
                auto put = [&](int i, const Int& a, const Int& b, const Int& c) { out.store(at + i, Int4(a, b, c, level)); };
                If(n == 0, [&] { put(0, p0, p1, p2); });
                If(n == 1, [&] {
                    put(0, p2, p0, m0);
                    put(1, p2, m0, p1);
                });
                If(n == 2, [&] {
                    put(0, m0, p1, m1);
                    put(1, p0, m0, m1);
                    put(2, p0, m1, p2);
                });
                If(n == 3, [&] {
                    put(0, p0, m0, m2);
                    put(1, m0, p1, m1);
                    put(2, m2, m1, p2);
                    put(3, m0, m1, m2);
                });
            });
        });
    kernel(Groups{groups_for(faces.size())}, faces, edge_of, halves, pieces, index, out, static_cast<std::int32_t>(vertices), level);
}

/// out[offset + i] = part[i].
void place(const Stream<int4>& part, std::int64_t offset, const Stream<int4>& out) {
    static const auto kernel = group_kernel<kWorkgroup>("adaptive_place(part, out, offset)", [](Array<int4> part, Array<int4> out, Int offset) {
        Int i = global_id();
        If(i < part.size(), [&] { out.store(offset + i, part.load(i)); });
    });
    kernel(Groups{groups_for(part.size())}, part, out, static_cast<std::int32_t>(offset));
}

void mark_used(const Stream<int4>& faces, const Stream<std::uint32_t>& used) {
    static const auto kernel = group_kernel<kWorkgroup>("adaptive_mark_used(faces, used)", [](Array<int4> faces, Array<std::uint32_t> used) {
        Int f = global_id();
        If(f < faces.size(), [&] { mark_corners(used, faces.load(f)); });
    });
    kernel(Groups{groups_for(faces.size())}, faces, used);
}

/// The used vertices packed by `index` (the inclusive scan of used), the
/// faces renumbered in place.
void pack(const Stream<std::uint32_t>& used, const Stream<std::uint32_t>& index, const Stream<float4>& limit, const Stream<float4>& normals,
          const Stream<float4>& out_vertices, const Stream<float4>& out_normals, const Stream<int4>& faces) {
    static const auto vertices_kernel = group_kernel<kWorkgroup>(
        "adaptive_pack_vertices(used, index, limit, normals, out_vertices, out_normals)",
        [](Array<std::uint32_t> used, Array<std::uint32_t> index, Array<float4> limit, Array<float4> normals, Array<float4> out_vertices,
           Array<float4> out_normals) {
            Int v = global_id();
            If(v < used.size() && used.load(v) != 0u, [&] {
                Int at = cast<std::int32_t>(index.load(v)) - 1;
                out_vertices.store(at, limit.load(v));
                out_normals.store(at, normals.load(v));
            });
        });
    static const auto faces_kernel = group_kernel<kWorkgroup>(
        "adaptive_renumber(faces, index)", [](Array<int4> faces, Array<std::uint32_t> index) {
            Int f = global_id();
            If(f < faces.size(), [&] {
                Int4 t = faces.load(f);
                Int3 to = Int3(cast<std::int32_t>(index.load(t.x())), cast<std::int32_t>(index.load(t.y())),
                               cast<std::int32_t>(index.load(t.z()))) -
                          Int3(1);
                faces.store(f, Int4(to, t.w()));
            });
        });
    vertices_kernel(Groups{groups_for(used.size())}, used, index, limit, normals, out_vertices, out_normals);
    faces_kernel(Groups{groups_for(faces.size())}, faces, index);
}

std::uint32_t last_of(const Stream<std::uint32_t>& s) {
    return s.size() == 0 ? 0u : s.domain({s.size() - 1}, {s.size()}).download()[0];
}

/// The next level's creases without the (0, 0) pairs of creases that were
/// no edge of this level (outside the faces kept): a level's creases stay
/// those about its faces instead of doubling.
Stream<int2> found_creases(const Stream<int2>& next) {
    static const auto flag = group_kernel<kWorkgroup>("adaptive_crease_found(creases, found)", [](Array<int2> creases, Array<std::uint32_t> found) {
        Int i = global_id();
        If(i < creases.size(), [&] {
            Int2 c = creases.load(i);
            found.store(i, select(c.x() != c.y(), 1u, 0u));
        });
    });
    static const auto gather = group_kernel<kWorkgroup>(
        "adaptive_crease_pack(creases, found, index, out)",
        [](Array<int2> creases, Array<std::uint32_t> found, Array<std::uint32_t> index, Array<int2> out) {
            Int i = global_id();
            If(i < creases.size() && found.load(i) != 0u, [&] { out.store(cast<std::int32_t>(index.load(i)) - 1, creases.load(i)); });
        });
    Runtime rt = Runtime::of(next);
    if (next.size() == 0) return next;
    Stream<std::uint32_t> found = rt.scratch<std::uint32_t>({next.size()}), index = rt.scratch<std::uint32_t>({next.size()});
    flag(Groups{groups_for(next.size())}, next, found);
    inclusive_scan(found, index);
    Stream<int2> out = rt.scratch<int2>({std::int64_t(last_of(index))});
    if (out.size() > 0) gather(Groups{groups_for(next.size())}, next, found, index, out);
    return out;
}


}  // namespace

EdgeCriterion::EdgeCriterion(std::string name, Body body)
    : name_(std::move(name)),
      kernel_([&] {
          if (!body) throw Error("rill::subdivision::EdgeCriterion '" + name_ + "': the body is empty; give a function of an edge's two ends");
          return group_kernel<kWorkgroup>(
              name_ + "(halves, faces, limit, split, params)",
              [body = std::move(body)](Array<std::int32_t> halves, Array<int4> faces, Array<float4> limit, Array<std::uint32_t> split,
                                       Float4 params) {
                  Int e = global_id();
                  If(e < split.size(), [&] {
                      Int h0 = halves.load(2 * e), h1 = halves.load(2 * e + 1);
                      Int4 f0 = faces.load(face_of(h0));
                      Bool live = has(f0, kActive) || (h1 >= 0 && has(faces.load(face_of(max(h1, Int(0)))), kActive));
                      Var<std::uint32_t> asks = 0u;
                      If(live, [&] {
                          Int k = side_of(h0);
                          Float3 a = limit.load(corner(f0, k)).xyz(), b = limit.load(corner(f0, next_side(k))).xyz();
                          asks = select(body(a, b, params), 1u, 0u);
                      });
                      split.store(e, asks);
                  });
              });
      }()) {}

AdaptiveMesh adaptive(const Stream<float4>& vertices, const Stream<int4>& faces, const EdgeCriterion& split, int max_level, float4 params,
                      const LoopOptions& options) {
    const char* who = "rill::subdivision::adaptive";
    const bool work = check_mesh(who, vertices, faces);
    if (max_level < 0 || max_level > 12)
        throw Error(std::string(who) + ": max_level is " + std::to_string(max_level) + "; give 0 to 12");
    Runtime rt = Runtime::of(vertices);
    AdaptiveMesh result{rt.stream<float4>({0}), rt.stream<float4>({0}), rt.stream<int4>({0}), {}, 0};
    if (!work) return result;
    Stream<float4> v = vertices.reshape({vertices.size()});
    Stream<int4> m = rt.scratch<int4>({faces.size()});
    activate(faces.reshape({faces.size()}), m);
    Stream<int2> creases = creases_of(who, options, vertices);
    Stream<float4> limit = rt.stream<float4>({v.size()}), normals = rt.stream<float4>({v.size()});
    std::int64_t born = 0;
    std::vector<Stream<int4>> finished;
    std::int64_t total = 0;
    for (int level = 0;; ++level) {
        const std::int64_t nv = v.size(), nf = m.size();
        if (level > 0) {
            Stream<float4> grown_limit = rt.stream<float4>({nv}), grown_normals = rt.stream<float4>({nv});
            copy_front(limit, grown_limit);
            copy_front(normals, grown_normals);
            limit = grown_limit;
            normals = grown_normals;
        }
        const Points at = refine_points(who, v, m, creases, level == 0, Limits{&limit, born, level});
        vertex_normals(v, m, at, normals, born);
        std::int64_t kept = 0;
        Stream<std::uint32_t> kept_flags, kept_index;
        if (level < max_level) {
            Stream<std::uint32_t> asks = rt.scratch<std::uint32_t>({at.c.edges});
            split.kernel()(Groups{groups_for(at.c.edges)}, at.c.halves, m, limit, asks, params);
            Stream<std::uint32_t> outside = rt.stream<std::uint32_t>({nv}), shallow = rt.stream<std::uint32_t>({nv});
            mark_outside(m, shallow, outside, false);  // `shallow` unread here
            mark_outside(m, outside, shallow, true);
            Stream<std::uint32_t> grow = rt.stream<std::uint32_t>({nv}), keep = rt.stream<std::uint32_t>({nv});
            Stream<std::uint32_t> held = rt.stream<std::uint32_t>({1});
            asking(m, at.c.edge_of, asks, shallow, grow, held);
            refine(m, grow, keep);
            kept_flags = rt.scratch<std::uint32_t>({nf});
            kept_index = rt.scratch<std::uint32_t>({nf});
            kept_faces(m, keep, kept_flags);
            inclusive_scan(kept_flags, kept_index);
            kept = last_of(kept_index);
            result.held_back += last_of(held);
        }
        Stream<std::uint32_t> pieces = rt.scratch<std::uint32_t>({nf}), index = rt.scratch<std::uint32_t>({nf});
        count_pieces(m, at.c.edge_of, at.c.halves, pieces);
        inclusive_scan(pieces, index);
        const std::int64_t made = last_of(index);
        if (made > 0) {
            Stream<int4> part = rt.scratch<int4>({made});
            write_pieces(m, at.c.edge_of, at.c.halves, pieces, index, nv, level, part);
            finished.push_back(part);
        }
        result.faces_per_level.push_back(made);
        total += made;
        if (kept == 0) break;
        Stream<int4> next = rt.scratch<int4>({4 * kept});
        kept_children(m, at.c.edge_of, kept_flags, kept_index, nv, next);
        v = at.next.vertices;
        m = next;
        creases = found_creases(at.next.creases);
        born = nv;
    }
    if (total >= (std::int64_t{1} << 31))
        throw Error(std::string(who) + ": " + std::to_string(total) + " triangles; ask for a lower max_level or a coarser criterion");
    Stream<int4> out = rt.stream<int4>({total});
    std::int64_t offset = 0;
    for (const Stream<int4>& part : finished) {
        place(part, offset, out);
        offset += part.size();
    }
    Stream<std::uint32_t> used = rt.stream<std::uint32_t>({limit.size()}), index = rt.scratch<std::uint32_t>({limit.size()});
    mark_used(out, used);
    inclusive_scan(used, index);
    const std::int64_t nu = last_of(index);
    result.vertices = rt.stream<float4>({nu});
    result.normals = rt.stream<float4>({nu});
    pack(used, index, limit, normals, result.vertices, result.normals, out);
    result.faces = out;
    return result;
}

}  // namespace rill::subdivision
