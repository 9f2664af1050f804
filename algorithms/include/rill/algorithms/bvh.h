// A bounding volume hierarchy over triangles, built on the device from rill's
// radix sort, and closest-hit and any-hit traversal of ray streams.
//
//   #include <rill/algorithms/bvh.h>
//   rill::bvh::Bvh tree = rill::bvh::Bvh::build(vertices, faces);  // Stream<float4>, Stream<int4>
//   rill::bvh::closest_hit(tree, origins, directions, hits);        // hits: Stream<float4>
//   rill::bvh::any_hit(tree, origins, directions, occluded);        // occluded: Stream<uint32_t>
//   ... move the vertices ...
//   tree.refit(vertices);
//
// Both builds start alike: faces classified, the centroid bounds by two
// reductions, a 30-bit Morton code per triangle in cubic cells, rill's radix
// sort of the codes with the face ids. BuildQuality::Fast is then Karras's
// LBVH (2012): one invocation per internal node finds its range and split
// from the sorted codes (ties of equal codes broken by position, so that any
// input gives a binary tree of at most 64 levels). BuildQuality::High (the
// default) is PLOC (Meister and Bittner 2018) over the same order: passes
// merge the clusters that are each other's nearest (smallest box around
// both) within 16 places, in blocks of 512 clusters in shared memory until
// 32 are left in each, the survivors compacted and the blocks run again,
// until one is left (3 rounds for 10^6 triangles). Then the boxes, bottom up: each leaf walks towards the
// root and the second invocation to reach a node (an atomic counter)
// combines its two children. Refit repeats that last step on moved
// vertices. Every step is a DSL kernel; the host reads the faces' counts
// (bad and kept) in one read per build and a PLOC tree's height, and nothing
// per round of PLOC's blocks, per refit or per trace.
//
// Each internal node holds its two children's boxes (64 bytes: lo0, hi0, lo1,
// hi1 as float4, the child ids in lo0.w and lo1.w as int bits: >= 0 an internal
// node, < 0 the leaf ~id, whose triangle is triangles()[3 ~id ..]; hi0.w and
// hi1.w the height of the child's subtree, 0 for a leaf). Leaves hold
// one triangle, stored in leaf order (v0, v1, v2 as float4; v0.w holds the
// input face index as int bits).
//
// Rays are two float4 streams: origins (xyz, w = t_min) and directions (xyz,
// w = t_max; not necessarily normalized, t is in units of the direction).
// Closest hit writes (t, u, v, face) per ray, u and v the barycentric weights
// of the face's second and third vertex (Embree's convention) and face the
// input face index as int bits (float_bits_to_int), -1 and t = t_max for a
// miss. Any hit writes 1 where something lies in [t_min, t_max], else 0.
// Traversal is one invocation per ray with a stack of 64 in a rill::Local
// array (a PLOC tree taller than kMaxHeight is built again as an LBVH),
// nearer child first; the ray-triangle test is Woop, Benthin and Wald's watertight one (JCGT 2013): rill computes
// float arithmetic without contraction into fma (docs/SEMANTICS.md), so the
// two faces of a shared edge evaluate its edge function to the same value of
// opposite sign, and no ray passes between them.
//
// Faces whose vertex indices are outside the vertex stream are an error (the
// first is named). Faces with a non-finite coordinate or zero area cannot be
// hit and are left out of the tree (skipped() counts them). An empty mesh
// gives a tree every ray misses. Performance: docs/PERFORMANCE.md#ray-tracing.
//
// A tree of axis-aligned boxes (a broad phase, or any primitive a user
// bounds: particles, instances, other trees' leaves) is built the same way,
// from the boxes' centres and the boxes themselves:
//
//   rill::bvh::Bvh boxes = rill::bvh::Bvh::build_boxes(lo, hi);  // Stream<float4> each, one box per element
//   rill::Stream<rill::int2> pairs = rill::bvh::overlaps(boxes, query_lo, query_hi);  // (query, box) per overlap
//   boxes.refit_boxes(lo, hi);                                    // moved boxes, same tree shape
//
// A box with a non-finite coordinate or lo > hi on an axis is left out
// (skipped()); a point (lo == hi) is a box. overlaps() works on both kinds
// of tree (a triangle tree's leaves are its triangles' bounding boxes), with
// closed boxes: boxes that touch overlap. A tree of boxes has no triangles
// for closest_hit and any_hit to test (an error says so).
#pragma once

#include <cstdint>

#include <rill/rill.h>

namespace rill::bvh {

/// One child ids' word that means "no child": the second child of a tree of
/// one triangle and both of an empty tree (their boxes are empty).
inline constexpr std::int32_t kNoChild = std::int32_t(0x80000000u);

/// How a tree is built: Fast, Karras's LBVH alone; High, PLOC (Meister and
/// Bittner 2018) over the same Morton order, whose nodes join the pairs of
/// clusters that are each other's nearest (smallest box around both) within
/// 16 places: a lower SAH cost (docs/PERFORMANCE.md#ray-tracing) for a few
/// rounds of passes more (their counts stay on the device).
enum class BuildQuality { Fast, High };

namespace detail {
struct TreeBuilder;
}

/// Traversal's stack holds 64 nodes: a High tree taller than this is built
/// again as an LBVH (at most 64 levels by construction).
inline constexpr int kMaxHeight = 64;

class Bvh {
public:
    /// Builds the tree of the faces (x, y, z: vertex indices; w ignored) over
    /// vertices (x, y, z; w ignored).
    static Bvh build(const Stream<float4>& vertices, const Stream<int4>& faces, BuildQuality quality = BuildQuality::High);

    /// Builds the tree of the boxes [lo[i], hi[i]] (x, y, z; w ignored): one
    /// leaf per box, leaf_faces() giving each leaf's box index.
    static Bvh build_boxes(const Stream<float4>& lo, const Stream<float4>& hi, BuildQuality quality = BuildQuality::High);

    /// Recomputes every box for moved vertices (the same faces, the same
    /// number of vertices); the tree's shape stays. Faces skipped at build
    /// stay out; a face that becomes degenerate stays in and is never hit.
    /// The coordinates must be finite (build again otherwise).
    void refit(const Stream<float4>& vertices);

    /// A tree of boxes after its boxes moved: the same number of boxes, the
    /// same shape. Boxes skipped at build stay out; a box that becomes empty
    /// (lo > hi) stays in and overlaps nothing. Coordinates must be finite.
    void refit_boxes(const Stream<float4>& lo, const Stream<float4>& hi);

    bool of_boxes() const { return boxes_; }                  ///< built by build_boxes
    std::int64_t face_count() const { return faces_; }       ///< faces (or boxes) given to build
    std::int64_t triangle_count() const { return kept_; }    ///< triangles (or boxes) in the tree
    std::int64_t skipped() const { return faces_ - kept_; }  ///< faces or boxes left out (non-finite, zero area, lo > hi)

    /// Levels of nodes on the longest path from the root to a leaf (reads the
    /// root's two counts back to the host).
    int height() const;

    /// (max(kept - 1, 1)) x 4 float4 (see the file comment); node 0 is the root.
    const Stream<float4>& nodes() const { return nodes_; }
    /// kept x 3 float4: the triangles in leaf order (a tree of boxes has none).
    const Stream<float4>& triangles() const { return triangles_; }

    /// The surface area heuristic's cost of the tree (1 per node visited, 1
    /// per triangle tested, each weighted by its box's area over the root's),
    /// computed on the host from the downloaded nodes: to compare trees.
    double sah_cost() const;

    // For the tree's own kernels.
    const Stream<std::int32_t>& leaf_faces() const { return leaf_faces_; }
    const Stream<std::int32_t>& parents() const { return parents_; }
    const Stream<int4>& faces() const { return faces_stream_; }

private:
    friend struct detail::TreeBuilder;
    std::int64_t faces_ = 0, kept_ = 0;
    bool boxes_ = false;
    Stream<float4> nodes_, triangles_;
    Stream<std::int32_t> leaf_faces_;  // face index of each leaf, in leaf order
    Stream<std::int32_t> parents_;     // per node, then per leaf: parent * 2 + side (-1 at the root)
    Stream<std::uint32_t> arrivals_;   // per internal node: children done (zero between fits)
    Stream<int4> faces_stream_;
    std::int64_t vertex_count_ = 0;
};

/// hits[i] = (t, u, v, face bits) of the closest triangle of ray i within
/// [t_min, t_max], or (t_max, 0, 0, -1).
void closest_hit(const Bvh& tree, const Stream<float4>& origins, const Stream<float4>& directions,
                 const Stream<float4>& hits);

/// occluded[i] = 1 where ray i hits any triangle within [t_min, t_max], else 0.
void any_hit(const Bvh& tree, const Stream<float4>& origins, const Stream<float4>& directions,
             const Stream<std::uint32_t>& occluded);

/// Every pair (query i, box or face j) whose closed boxes overlap, [lo[i],
/// hi[i]] against the tree's leaf j (a box of build_boxes, or the bounding
/// box of face j): the pairs of query 0 first, then of query 1, and so on;
/// within a query in the tree's order. A query with lo > hi on an axis or a
/// NaN coordinate overlaps nothing. Waits for the device once, to learn the
/// count.
Stream<int2> overlaps(const Bvh& tree, const Stream<float4>& lo, const Stream<float4>& hi);

/// The same into `pairs`, all on the device: count (a Stream<uint32_t> of
/// one element) gets the number of pairs; those past pairs' end are dropped
/// (run again with a larger stream when count says more).
void overlaps(const Bvh& tree, const Stream<float4>& lo, const Stream<float4>& hi, const Stream<int2>& pairs,
              const Stream<std::uint32_t>& count);

}  // namespace rill::bvh
