// Loop subdivision of triangle meshes (Loop 1987) on the device, every level's
// connectivity computed from the level before; the mesh as loaded is the only
// host input.
//
//   #include <rill/algorithms/subdivision.h>
//   rill::subdivision::Mesh fine = rill::subdivision::loop(vertices, faces, 3);  // Stream<float4>, Stream<int4>
//
// One level: the faces' 3F half-edges are sorted by their edges' vertex pairs
// (rill's radix sort of 64-bit keys), so that an edge's half-edges are
// neighbours: one is a boundary edge, two an interior edge, three or more a
// non-manifold edge (an error). A scan numbers the edges. Each edge gets an
// edge point (3/8 of its ends and 1/8 of the two opposite vertices; the
// midpoint on a boundary); each vertex a vertex point from its neighbours,
// found by a second sort of the edges by vertex (Loop's weights: beta = (5/8
// - (3/8 + cos(2 pi / n) / 4)^2) / n for valence n, any valence; on a
// boundary 3/4 of the vertex and 1/8 of each boundary neighbour, the rules
// OpenSubdiv applies with VTX_BOUNDARY_EDGE_ONLY; a vertex whose faces are not
// one fan, two cones meeting at a point, stays where it is, as in
// OpenSubdiv). Each face becomes
// four. Vertices come out as the vertex points (in input order) then the
// edge points (in the order of their vertex pairs); face f's children are
// 4f .. 4f + 3 (corner of its first, second, third vertex, then the middle).
//
// Normals: limit_normals(vertices, faces) gives each vertex the normal of
// the Loop limit surface there, from the tangent masks OpenSubdiv's Loop
// scheme uses (Far::PrimvarRefiner::Limit): cos / sin weights around an
// interior vertex, the boundary curve's tangent and the masks across it
// on a boundary; a vertex whose faces are not one fan (no single limit
// normal) gets the normalized sum of its faces' area normals.
//
// Creases: LoopOptions::creases marks edges infinitely sharp (OpenSubdiv's
// rules for them); the refined mesh carries its sharp edges on.
//
// Not yet: adaptive subdivision, semi-sharp creases. Performance:
// docs/PERFORMANCE.md#loop-subdivision.
//
// Errors, before any work: a face index outside the vertices, a face that
// names a vertex twice, a vertex no face uses, an edge of three or more
// faces (each naming the first). An empty mesh stays empty.
#pragma once

#include <optional>

#include <rill/rill.h>

namespace rill::subdivision {

struct Mesh {
    Stream<float4> vertices;  ///< x, y, z, 0
    Stream<int4> faces;       ///< three vertex indices, 0
    /// The sharp edges (pairs of vertex indices): LoopOptions::creases, each
    /// split in two per level; pass them on to refine further.
    Stream<int2> creases;
};

struct LoopOptions {
    /// Edges that stay infinitely sharp (OpenSubdiv's sharpness
    /// SHARPNESS_INFINITE), as pairs of vertex indices in either order: an
    /// edge point at its midpoint; a vertex on two sharp edges (boundaries
    /// count) moves by the crease rule (3/4, 1/8, 1/8), one on three or
    /// more stays (a corner), one on a single crease (a dart) moves by the
    /// smooth rule. A pair that is no edge of the mesh is an error.
    std::optional<Stream<int2>> creases = std::nullopt;
};

/// The mesh after `levels` (0 to 12) levels of uniform Loop subdivision.
/// vertices: x, y, z (w ignored); faces: x, y, z vertex indices (w ignored);
/// dense streams of one Runtime.
Mesh loop(const Stream<float4>& vertices, const Stream<int4>& faces, int levels = 1, const LoopOptions& options = {});

/// Unit normals of the Loop limit surface at the mesh's vertices (x, y, z,
/// 0), facing the side from which the faces wind counter-clockwise. The
/// mesh's checks and errors are loop()'s.
Stream<float4> limit_normals(const Stream<float4>& vertices, const Stream<int4>& faces);

}  // namespace rill::subdivision
