// Collision detection between triangle meshes with OBB trees (Gottschalk, Lin
// and Manocha's RAPID, 1996), traversed breadth first on the device as in
// Horn's stream-reduction chapter (GPU Gems 2, section 36.2), for a batch of
// poses at once.
//
//   #include <rill/algorithms/collision.h>
//   auto a = rill::collision::ObbTree::build(vertices_a, faces_a);   // Stream<float4>, Stream<int4>
//   auto b = rill::collision::ObbTree::build(vertices_b, faces_b);
//   rill::collision::Collisions c = rill::collision::collide(a, b, poses);  // poses: 3 float4 per pose
//   c.pairs   // (pose, face of a, face of b, 0) per intersecting pair
//   c.counts  // per pose: its pairs; 0 = no collision; -1 = not a rigid pose
//
// The tree: the shape of rill's BVH (bvh.h; the LBVH by default), with an
// oriented box per node. A node's axes are the eigenvectors of the
// covariance of its triangles (area-weighted over their surfaces, as in
// RAPID), combined bottom up from per-triangle moments and diagonalized by
// Jacobi rotations. Its extents are the exact extremes of its triangles'
// vertices along those axes for subtrees of up to 10 levels (each triangle
// widens those ancestors by atomic minimum and maximum); a node higher up
// is fitted to the boxes of its 10-level subtrees, slightly larger than
// exact and far cheaper (a root would otherwise take an atomic from every
// triangle). A leaf's box lies in its triangle's plane, along its first
// edge. Every box is widened by 1e-6 of its coordinates' size, so that
// rounding never lets a triangle stick out.
//
// The query: a stream of candidate pairs (pose, node of a, node of b) starts
// with the two roots per pose. Each level is a compaction, as in Horn's
// section 36.1: a test kernel gives each candidate a mask of what it emits
// (the pairs of its children whose boxes overlap by RAPID's 15 separating
// axes, both trees descending at once and a leaf staying while the other
// side descends; or, for two leaves whose triangles intersect, itself as a
// found pair, which stays to the end), rill's scan of the masks' sizes
// places them, a write kernel moves them. The count stays on the device:
// the kernels run over a bound the host knows (each candidate emits at most
// 4) and read the count there, so the host reads a count back only where
// the bound passes 2^14 candidates, and once at the end: once per level for
// a large batch, never more than max(height(a), height(b)) + 2 times.
// Queries of up to 16 poses run each level as one workgroup (test, a scan in
// shared memory, write) and read back once, at the end, unless a level
// outgrows 2^14 candidates, from where they go on as above. A query with a
// limit of up to 32 pairs per pose walks depth first instead, one invocation
// per pose with a stack of node pairs, stopping at its limit
// (QueryOptions::Traversal): it tests fewer pairs, and was faster on every
// device measured.
//
// Triangles intersect when no one of the 17 separating axes of two triangles
// (the two normals, the 9 cross products of their edges, and the 6 edge
// normals in each plane that decide coplanar pairs) separates them by more
// than 1e-5 of the size of their coordinates. So intersecting and touching
// triangles (a shared vertex or edge, one lying on the other) are always
// found, and pairs closer than about 1e-5 of their coordinates' size may be
// found too. A mesh entirely inside the other, no surfaces crossing, is not a
// collision (as in RAPID and FCL): the query tests surfaces, not volumes.
//
// Faces with a non-finite coordinate or zero area are left out of the tree
// (skipped()), faces with an index outside the vertices are an error, as in
// bvh.h. A pose is 3 float4 (the rows of [R | t]) that take b's coordinates
// into a's: x_a = R x_b + t. A pose whose R is not a rotation (R R^T
// farther than 1e-3 from the identity in an entry, or a non-finite entry)
// tests nothing and gets count -1. Performance and Horn's per-level counts:
// docs/PERFORMANCE.md#collision-detection.
#pragma once

#include <cstdint>
#include <vector>

#include <rill/algorithms/bvh.h>
#include <rill/rill.h>

namespace rill::collision {

/// Triangles closer than this fraction of their coordinates' size may be
/// reported as intersecting (see the file comment).
inline constexpr float kTolerance = 1e-5f;

class ObbTree {
public:
    /// Builds the tree of the faces (x, y, z: vertex indices; w ignored) over
    /// vertices (x, y, z; w ignored); both dense streams of one Runtime. The
    /// tree's shape is rill's BVH of that quality (bvh.h).
    static ObbTree build(const Stream<float4>& vertices, const Stream<int4>& faces,
                         bvh::BuildQuality quality = bvh::BuildQuality::Fast);

    std::int64_t face_count() const { return bvh_.face_count(); }
    std::int64_t triangle_count() const { return bvh_.triangle_count(); }
    std::int64_t skipped() const { return bvh_.skipped(); }  ///< non-finite or zero-area faces left out
    int height() const { return height_; }                   ///< levels of nodes, root to deepest leaf

    /// Per internal node (bvh().nodes() numbering), then per leaf (leaf
    /// order): 4 float4, the axes a0, a1, a2 with the half extents in w, then
    /// the centre (w = 0). A point x is inside when |a_i . (x - centre)| <= e_i.
    const Stream<float4>& boxes() const { return boxes_; }
    /// The tree's shape and its triangles in leaf order.
    const bvh::Bvh& bvh() const { return bvh_; }

private:
    bvh::Bvh bvh_;
    Stream<float4> boxes_;
    int height_ = 0;
};

struct QueryOptions {
    /// At most this many pairs per pose (the first ones found); a pose stops
    /// once it has them, so that 1 answers "does it collide?" quickest. 0:
    /// every pair.
    std::int64_t max_pairs_per_pose = 0;
    /// How the trees are walked. breadth_first: Horn's levels above, which
    /// give a device many invocations at once; a pose stops descending after
    /// the level where it reached its limit. depth_first: one invocation per
    /// pose walks both trees with a stack and stops at its limit (FCL's
    /// order), so it tests fewer pairs, one pose after another; it needs a
    /// limit, trees of at most 40 levels and poses x limit under 2^28 (16
    /// bytes each, within one device buffer), and goes breadth first
    /// otherwise. automatic: depth first where it can and the limit is at
    /// most 32 (faster there on every device measured, GPUs included:
    /// docs/PERFORMANCE.md#collision-detection), breadth first elsewhere (a
    /// large limit would walk one pose's many pairs one after another). The
    /// pairs found may differ between the two where a pose has more than its
    /// limit.
    enum class Traversal { automatic, breadth_first, depth_first };
    Traversal traversal = Traversal::automatic;
};

struct Collisions {
    /// (pose, face of a, face of b, 0) for each pair of intersecting faces
    /// (input face indices), poses in increasing order.
    Stream<int4> pairs;
    /// Per pose: the number of its pairs in `pairs`; -1 where the pose is not
    /// a rigid transform (see the file comment).
    Stream<std::int32_t> counts;
    /// The candidate pairs at each level (the first: one per pose; then the
    /// pairs whose boxes overlap, found pairs included), Horn's measure of
    /// the traversal's work; empty after a depth-first walk.
    std::vector<std::int64_t> candidates_per_level;
};

/// The faces of `a` and `b` that intersect under each pose (b posed in a's
/// frame). `poses`: a dense Stream<float4> of 3 rows per pose (any shape
/// whose size is a multiple of 3), on the trees' Runtime.
Collisions collide(const ObbTree& a, const ObbTree& b, const Stream<float4>& poses, const QueryOptions& options = {});

}  // namespace rill::collision
