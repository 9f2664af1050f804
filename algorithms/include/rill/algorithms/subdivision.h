// Loop subdivision of triangle meshes (Loop 1987) on the device, every level's
// connectivity computed from the level before; the mesh as loaded is the only
// host input.
//
//   #include <rill/algorithms/subdivision.h>
//   rill::subdivision::Mesh fine = rill::subdivision::loop(vertices, faces, 3);  // Stream<float4>, Stream<int4>
//
// The first level: the faces' 3F half-edges are sorted by their edges'
// vertex pairs (rill's radix sort of 64-bit keys), so that an edge's
// half-edges are neighbours: one is a boundary edge, two an interior edge,
// three or more a non-manifold edge (an error). A scan numbers the edges.
// Every later level of one loop() call knows its connectivity from the level
// before without sorting: edge e's two halves are edges 2e and 2e + 1, a
// face's three inner edges follow. Each edge gets an edge point (3/8 of its
// ends and 1/8 of the two opposite vertices; the midpoint on a boundary);
// each vertex a vertex point from its neighbours, found by walking its fan
// of faces across twin half-edges (Loop's weights: beta = (5/8 - (3/8 +
// cos(2 pi / n) / 4)^2) / n for valence n, any valence; on a boundary 3/4 of
// the vertex and 1/8 of each boundary neighbour, the rules OpenSubdiv
// applies with VTX_BOUNDARY_EDGE_ONLY; a vertex whose faces are not one fan,
// two cones meeting at a point, stays where it is, as in OpenSubdiv). Each
// face becomes four. Vertices come out as the vertex points (in input
// order) then the edge points (in edge order: by vertex pairs for the first
// level, by their parents after); face f's children are 4f .. 4f + 3
// (corner of its first, second, third vertex, then the middle).
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
// Adaptive: adaptive(vertices, faces, criterion, max_level) refines only
// where an EdgeCriterion, a DSL function of an edge's two ends, asks for a
// split, and returns the finished triangles of every level as one crack-free
// mesh on the Loop limit surface:
//
//   rill::subdivision::EdgeCriterion coarse("coarse", [](const rill::Expr<rill::float3>& a, const rill::Expr<rill::float3>& b,
//                                                        const rill::Expr<rill::float4>& eye) {
//       return rill::length(a - b) > 0.02f * rill::length((a + b) * 0.5f - eye.xyz());   // longer than 2% of its distance
//   });
//   rill::subdivision::AdaptiveMesh m = rill::subdivision::adaptive(vertices, faces, coarse, 8, {ex, ey, ez, 0});
//
// How: each level holds the faces still being refined (the active faces)
// and a margin of faces about them, enough that every position the active
// faces need equals the uniform refinement's (Loop's rules read a vertex's
// whole ring). The criterion runs on each active face's edges; a face with
// an edge to split is refined together with every face sharing a vertex
// with it (so that neighbours differ by at most one level, a restricted
// criterion); the margin of the next level is the children of the faces
// sharing a vertex with those (the only host work is reading each level's
// counts). Faces not refined are finished at their level; where a refined
// neighbour split their edge they are cut at that edge's new vertex into 2, 3
// or 4 triangles (edge-based stitching), so that no T-junction is left.
// Every vertex is placed on the limit surface (OpenSubdiv's limit masks)
// once, at the level it first appears: Loop's scheme moves a vertex at every
// level, so only limit positions can be shared by faces that stop at
// different levels, and they are shared bit for bit.
//
// The criterion sees limit positions. A criterion that asks to split an edge
// only where the parent face had an edge it split (edge lengths, screen
// sizes and distances all do) is met by every finished triangle below
// max_level; a face that asks for a split where its neighbourhood was not
// refined one level up is held back (AdaptiveMesh::held_back counts them).
//
// Not yet: semi-sharp creases. Performance:
// docs/PERFORMANCE.md#loop-subdivision.
//
// Errors, before any work: a face index outside the vertices, a face that
// names a vertex twice, a vertex no face uses, an edge of three or more
// faces (each naming the first). An empty mesh stays empty.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

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
/// 0), facing the side from which the faces wind counter-clockwise. On a
/// crease or a corner (two or more sharp edges, a boundary counting as two)
/// the limit surface has one normal per side: this is the side counter-
/// clockwise from one of its sharp edges. The mesh's checks and errors are
/// loop()'s.
Stream<float4> limit_normals(const Stream<float4>& vertices, const Stream<int4>& faces, const LoopOptions& options = {});

/// adaptive()'s edge test: true splits the edge from a to b (limit positions,
/// in either order); params is adaptive()'s float4 (a camera, a threshold).
/// Traced and compiled once, when constructed: make it once and reuse it.
class EdgeCriterion {
public:
    using Body = std::function<Expr<bool>(const Expr<float3>& a, const Expr<float3>& b, const Expr<float4>& params)>;
    EdgeCriterion(std::string name, Body body);
    const std::string& name() const { return name_; }

    /// The traced test over a level's edges (adaptive() runs it).
    using Kernel = rill::Kernel<Array<std::int32_t>, Array<int4>, Array<float4>, Array<std::uint32_t>, Float4>;
    const Kernel& kernel() const { return kernel_; }

private:
    std::string name_;
    Kernel kernel_;
};

struct AdaptiveMesh {
    Stream<float4> vertices;  ///< on the limit surface: x, y, z, w = the level the vertex first appears at
    Stream<float4> normals;   ///< the limit surface's unit normals (x, y, z, 0)
    Stream<int4> faces;       ///< three vertex indices, w = the level the triangle is finished at
    /// Triangles finished at each level 0 .. (the last level reached).
    std::vector<std::int64_t> faces_per_level;
    /// Faces whose edge asked for a split that the restriction kept back.
    std::int64_t held_back = 0;
};

/// Adaptive Loop subdivision to at most `max_level` (0 to 12): faces whose
/// edges `split` asks to split are refined, the rest finished; the result is
/// crack-free on a closed mesh (every edge in two triangles). The mesh's
/// checks and errors are loop()'s; vertices no triangle uses are dropped.
/// options.creases stay sharp as in loop() (positions and normals on the
/// limit surface of the creased mesh).
AdaptiveMesh adaptive(const Stream<float4>& vertices, const Stream<int4>& faces, const EdgeCriterion& split, int max_level,
                      float4 params = {}, const LoopOptions& options = {});

}  // namespace rill::subdivision
