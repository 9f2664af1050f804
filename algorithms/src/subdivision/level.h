// One level of Loop subdivision, shared by uniform (loop.cpp) and adaptive
// (adaptive.cpp) refinement: a mesh's half-edge connectivity, the next
// level's vertex and edge points, the limit positions and normals of the
// level's vertices, the four children of each face.
#pragma once

#include <array>
#include <cstdint>

#include <rill/algorithms/subdivision.h>

namespace rill::subdivision::detail {

constexpr int kWorkgroup = 256;
inline std::int64_t groups_for(std::int64_t n) { return (n + kWorkgroup - 1) / kWorkgroup; }

/// The faces of the largest level whose edge points and vertex points run as
/// one dispatch over both ranges, and (a derived level) its faces and its
/// edges and fans likewise: a dispatch and a barrier fewer each, the same
/// results. A joined kernel takes the registers of its heavier part, which
/// costs the lighter part occupancy where a level is large: on an H200,
/// joined everywhere, spot to level 5 (levels of up to 1.5M faces) took 0.97
/// of the time through Vulkan and 0.94-0.97 through OpenGL, the bunny's
/// level 3 (from 1.1M faces) 0.93, its level 4 (from 4.4M) the same, its
/// level 5 (from 17.8M) 1.06 (docs/PERFORMANCE.md#loop-subdivision).
/// RILL_SUBDIVISION_JOINED_KERNELS=0 (never) or 1 (always) are A/B knobs
/// (docs/TUNING.md); set_joined_largest_level for the tests (-1: never).
constexpr std::int64_t kJoinedLargestLevel = std::int64_t{1} << 21;
std::int64_t joined_largest_level();
void set_joined_largest_level(std::int64_t faces);

/// The checks every call makes of its mesh: dense streams of one Runtime;
/// faces when there are vertices (false: an empty mesh, nothing to do).
bool check_mesh(const char* who, const Stream<float4>& vertices, const Stream<int4>& faces);

/// Corner k (0, 1, 2) of face f.
Int corner(const Int4& f, const Expr<std::int32_t>& k);
/// The face of half-edge h >= 0 and h's side in it (0, 1, 2).
Int face_of(const Int& h);
Int side_of(const Int& h);
/// (side + 1) % 3 and (side + 2) % 3 for a side 0, 1, 2: the corners at the
/// end of the half-edge of that side and before its start.
Int next_side(const Int& side);
Int previous_side(const Int& side);
/// The half-edge opposite h on its edge, or -1 on a boundary.
Int twin(const Array<std::int32_t>& edge_of, const Array<std::int32_t>& halves, const Expr<std::int32_t>& h);

/// A mesh's half-edge connectivity: half-edge h = 3 f + k runs from corner k
/// of face f to corner k + 1; edge_of[h] = its edge; halves[2 e],
/// halves[2 e + 1] = edge e's half-edges (the second -1 on a boundary),
/// `edges` of them.
struct Connectivity {
    Stream<std::int32_t> edge_of, halves;
    std::int64_t edges = 0;
    /// The half-edges' edge keys, sorted (edge_key; none at a derived level):
    /// narrow (one word) for meshes of fewer than 2^16 vertices, else wide.
    bool narrow = false;
    Stream<std::uint32_t> narrow_keys;
    Stream<uint2> keys;
    Stream<std::uint32_t> index;  // the edge of sorted half-edge i: index[i] - 1
    /// The faces about each vertex and its largest outgoing half-edge: at the
    /// input level counted by atomics (around), at a derived level written by
    /// derive_children from the parent's.
    Stream<std::uint32_t> count;
    Stream<std::int32_t> outgoing;
    /// Where derive_children made it: the level before's faces and
    /// connectivity, and its vertex count, from which on the vertices are its
    /// edge points (vertex odd_from + e on its edge e).
    Stream<int4> parent_faces;
    Stream<std::int32_t> parent_edge_of, parent_halves;
    std::int64_t odd_from = 0;
};

/// The connectivity of (vertices, faces) with its fans; `check`: the faces' checks first.
/// Errors name `who`.
Connectivity connect(const char* who, const Stream<float4>& vertices, const Stream<int4>& faces, bool check);

/// Where refine_points writes limit positions: limit[v] for v >= born
/// (x, y, z, w = level); none when `limit` is null.
struct Limits {
    const Stream<float4>* limit = nullptr;
    std::int64_t born = 0;
    int level = 0;
};

/// A level's connectivity, the faces about each vertex (count[v], one
/// outgoing half-edge outgoing[v]), and the next level's vertices (vertex
/// points in the order of the vertices, then edge e's point at
/// vertices + e) and creases (halves of the creases found; (0, 0) for a
/// crease that is no edge, an error when `check`); next.faces is left empty.
struct Points {
    Connectivity c;
    Stream<std::uint32_t> sharp;  // sharp[e] != 0: edge e is a crease (one 0 when there are none)
    Stream<std::uint32_t> count;
    Stream<std::int32_t> outgoing;
    Mesh next;
};

/// sharp[e] != 0 for each edge e of c that is one of `creases` (one zero word
/// when there are none); next[2 i], next[2 i + 1] = the halves crease i
/// becomes at the next level. `check`: a crease that is no edge is an error
/// naming `who` (connectivity.cpp).
Stream<std::uint32_t> sharp_edges(const char* who, const Stream<int2>& creases, const Connectivity& c, std::int64_t vertices, bool check,
                                   const Stream<int2>& next);

/// LoopOptions::creases checked and as one dimension; none: an empty stream.
Stream<int2> creases_of(const char* who, const LoopOptions& options, const Stream<float4>& vertices);

/// `known`: the level's connectivity when it is already known (derived from
/// the level before), else it is sorted out of the faces.
Points refine_points(const char* who, const Stream<float4>& vertices, const Stream<int4>& faces, const Stream<int2>& creases, bool check,
                     const Limits& limits, const Connectivity* known = nullptr);

/// Face f's four children at out[at .. at + 3] with w = `w`: the corners at its
/// first, second and third vertex, then the middle; their new vertices are
/// the edge points, vertices + the edge of half-edge 3 f + k. The order
/// derive_children (loop.cpp) relies on.
void store_children(const Array<int4>& out, const Expr<std::int32_t>& at, const Array<int4>& faces, const Array<std::int32_t>& edge_of,
                    const Expr<std::int32_t>& f, const Expr<std::int32_t>& vertices, const Expr<std::int32_t>& w);
/// The same from face f's corners `t` and the edges of its half-edges, loaded already.
void store_children(const Array<int4>& out, const Expr<std::int32_t>& at, const Expr<int4>& t, const std::array<Int, 3>& edges,
                    const Expr<std::int32_t>& vertices, const Expr<std::int32_t>& w);

/// Face f's four children at out[4 f .. 4 f + 3] (w = 0).
void child_faces(const Stream<int4>& faces, const Stream<std::int32_t>& edge_of, std::int64_t vertices, const Stream<int4>& out);

/// normals[v] for v >= born: the limit surface's unit normal (limit_normals()),
/// creases from at.sharp.
void vertex_normals(const Stream<float4>& vertices, const Stream<int4>& faces, const Points& at, const Stream<float4>& normals,
                    std::int64_t born);

}  // namespace rill::subdivision::detail
