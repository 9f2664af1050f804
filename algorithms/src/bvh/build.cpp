// LBVH build and refit (rill/algorithms/bvh.h): Karras 2012, every step a
// DSL kernel on the device.
#include <rill/algorithms/bvh.h>
#include <rill/algorithms/compact.h>
#include <rill/algorithms/detail/dense_streams.h>
#include <rill/algorithms/detail/workgroup_scan.h>
#include <rill/algorithms/radix_sort.h>
#include <rill/dsl/builtin_reductions.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <string>
#include <vector>

namespace rill::bvh::detail {
/// A PLOC cluster: its box, the node or leaf it is in lo.w (int bits).
struct Cluster {
    float4 lo, hi;
};
}  // namespace rill::bvh::detail
RILL_STRUCT(rill::bvh::detail::Cluster, lo, hi);

namespace rill::bvh {

namespace {

using detail::Cluster;
constexpr int kWorkgroup = 256;
std::int64_t groups_for(std::int64_t n) { return (n + kWorkgroup - 1) / kWorkgroup; }

/// Where the parents array keeps leaf `pos`: after the internal nodes (at
/// least one, the root, even for a tree of one triangle).
std::int64_t leaf_base(std::int64_t kept) { return std::max<std::int64_t>(kept - 1, 1); }

void check_stream(const char* who, const StreamBase& s, const char* name, const StreamBase& vertices) {
    rill::detail::require_runtime_of(who, s, name, vertices, "the vertex stream");
    rill::detail::require_dense(who, s, name);
}

/// ids[i] = i for a face that can be hit, -1 for one with a non-finite
/// coordinate or zero area; stats[0] counts faces with an index outside the
/// vertices, stats[1] the first of them.
void classify(const Stream<int4>& faces, const Stream<float4>& vertices, const Stream<std::int32_t>& ids,
              const Stream<std::uint32_t>& stats) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "bvh_classify(faces, vertices, ids, stats)",
        [](Array<int4> faces, Array<float4> vertices, Array<std::int32_t> ids, Array<std::uint32_t> stats) {
            Int i = global_id();
            If(i < faces.size(), [&] {
                Int4 f = faces.load(i);
                Int nv = vertices.size();
                Bool bad = any(f.xyz() < Int3(0)) || any(f.xyz() >= Int3(nv));
                If(bad, [&] {
                    stats.atomic_add(0, 1u);
                    stats.atomic_min(1, cast<std::uint32_t>(i));
                    ids.store(i, -1);
                }).Else([&] {
                    Float3 a = vertices.load(f.x()).xyz(), b = vertices.load(f.y()).xyz(), c = vertices.load(f.z()).xyz();
                    auto finite3 = [](const Float3& p) { return !any(isnan(p)) && !any(isinf(p)); };
                    Bool finite = finite3(a) && finite3(b) && finite3(c);
                    // Faces with coordinates above 2^60 are scaled by 2^-80 (exact) for
                    // the area test, so that no difference or product overflows:
                    // NVIDIA's OpenGL compared the resulting NaNs with 0 as equal.
                    Float3 m = max(abs(a), max(abs(b), abs(c)));
                    Float s = select(max(m.x(), max(m.y(), m.z())) > 1.152921504606846976e18f, 8.271806125530277e-25f, 1.0f);
                    Bool area = any(cross(b * s - a * s, c * s - a * s) != Float3(0.0f));
                    ids.store(i, select(finite && area, i, Int(-1)));
                });
            });
        });
    kernel(Groups{groups_for(faces.size())}, faces, vertices, ids, stats);
}

const Filter<std::int32_t>& non_negative() {
    static const Filter<std::int32_t> keep("bvh_non_negative", [](Expr<std::int32_t> id) { return id >= 0; });
    return keep;
}

/// The centroid of each kept face.
void centroids(const Stream<std::int32_t>& ids, const Stream<int4>& faces, const Stream<float4>& vertices,
               const Stream<float4>& out) {
    static const auto k = kernel("bvh_centroids(id, faces, vertices, c)",
                                      [](In<std::int32_t> id, Gather<int4, 1> faces, Gather<float4, 1> vertices, Out<float4> c) {
        Int4 f = faces[id];
        // Each vertex divided first: a sum of coordinates near the float range would overflow.
        const float third = 1.0f / 3.0f;
        c = Float4(vertices[f.x()].xyz() * third + vertices[f.y()].xyz() * third + vertices[f.z()].xyz() * third, 0.0f);
    });
    k(ids, faces, vertices, out);
}

/// ids[i] = i for a box with finite coordinates and lo <= hi on every axis,
/// else -1.
void classify_boxes(const Stream<float4>& lo, const Stream<float4>& hi, const Stream<std::int32_t>& ids) {
    static const auto k = kernel("bvh_classify_boxes(lo, hi, id)", [](In<float4> lo, In<float4> hi, Out<std::int32_t> id) {
        Float3 l = lo.xyz(), h = hi.xyz();
        auto finite3 = [](const Float3& p) { return !any(isnan(p)) && !any(isinf(p)); };
        id = select(finite3(l) && finite3(h) && all(l <= h), indexof(id), Int(-1));
    });
    k(lo, hi, ids);
}

/// The centre of each kept box.
void box_centres(const Stream<std::int32_t>& ids, const Stream<float4>& lo, const Stream<float4>& hi, const Stream<float4>& out) {
    static const auto k = kernel("bvh_box_centres(id, lo, hi, c)",
                                 [](In<std::int32_t> id, Gather<float4, 1> lo, Gather<float4, 1> hi, Out<float4> c) {
        // Halves first: a sum near the float range would overflow.
        c = Float4(lo[id].xyz() * 0.5f + hi[id].xyz() * 0.5f, 0.0f);
    });
    k(ids, lo, hi, out);
}

/// The 30-bit Morton code of each centroid in the bounds [lo, hi].
void morton_codes(const Stream<float4>& c, const Stream<float4>& lo, const Stream<float4>& hi,
                  const Stream<std::uint32_t>& keys) {
    static const auto k = kernel("bvh_morton(c, lo, hi, key)",
                                      [](In<float4> c, Gather<float4, 1> lo, Gather<float4, 1> hi, Out<std::uint32_t> key) {
        // One scale for the three axes (the bounds' longest side): cells are
        // cubes, so that a flat scene's short axis does not take the top
        // bits of the order and cut every object in two.
        Float3 l = lo[0].xyz();
        Float3 e = hi[0].xyz() - l;
        Float extent = max(max(max(e.x(), e.y()), e.z()), 1e-30f);
        Float3 p = clamp((c.xyz() - l) * (1024.0f / extent), Float3(0.0f), Float3(1023.0f));
        auto spread = [](const Expr<std::uint32_t>& v) {  // 10 bits to every third of 30
            UInt x = v;
            x = (x | (x << 16u)) & 0x030000FFu;
            x = (x | (x << 8u)) & 0x0300F00Fu;
            x = (x | (x << 4u)) & 0x030C30C3u;
            x = (x | (x << 2u)) & 0x09249249u;
            return Expr<std::uint32_t>(x);
        };
        key = (spread(cast<std::uint32_t>(p.x())) << 2u) | (spread(cast<std::uint32_t>(p.y())) << 1u) |
              spread(cast<std::uint32_t>(p.z()));
    });
    k(c, lo, hi, keys);
}

/// Karras's hierarchy: internal node i finds the range of sorted keys it
/// covers and where it splits, and tells its two children their parent.
void hierarchy(const Stream<std::uint32_t>& keys, const Stream<std::int32_t>& parents, std::int64_t kept) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "bvh_hierarchy(keys, parents, m, leaf_base)",
        [](Array<std::uint32_t> keys, Array<std::int32_t> parents, Int m, Int leaf_base) {
            Int i = global_id();
            If(i == 0, [&] { parents.store(0, -1); });
            If(i < m - 1, [&] {
                UInt ki = keys.load(i);
                // The length of the common prefix of keys i and j (positions
                // break ties: 32 more bits), -1 for j outside the keys.
                auto delta = [&](const Expr<std::int32_t>& j) -> Expr<std::int32_t> {
                    UInt kj = keys.load(clamp(j, Int(0), m - 1));
                    UInt x = ki ^ kj;
                    Int ties = 32 + 31 - find_msb(cast<std::uint32_t>(i ^ j));
                    Int d = select(x == 0u, ties, 31 - find_msb(x));
                    return select(j >= 0 && j < m, d, Int(-1));
                };
                Int d = select(delta(i + 1) > delta(i - 1), Int(1), Int(-1));
                Int d_min = delta(i - d);
                Var<std::int32_t> l_max = 2;
                While([&] { return delta(i + l_max * d) > d_min; }, [&] { l_max = l_max * 2; });
                Var<std::int32_t> l = 0;
                Var<std::int32_t> t = l_max / 2;
                While([&] { return t >= 1; }, [&] {
                    If(delta(i + (l + t) * d) > d_min, [&] { l = l + t; });
                    t = t / 2;
                });
                Int j = i + l * d;
                Int d_node = delta(j);
                Var<std::int32_t> s = 0;
                Var<std::int32_t> step = l;
                While([&] { return step > 1; }, [&] {
                    step = (step + 1) / 2;
                    If(delta(i + (s + step) * d) > d_node, [&] { s = s + step; });
                });
                Int split = i + s * d + min(d, Int(0));
                Int left = select(min(i, j) == split, leaf_base + split, split);
                Int right = select(max(i, j) == split + 1, leaf_base + split + 1, split + 1);
                parents.store(left, i * 2);
                parents.store(right, i * 2 + 1);
            });
        });
    kernel(Groups{groups_for(kept)}, keys, parents, static_cast<std::int32_t>(kept),
           static_cast<std::int32_t>(leaf_base(kept)));
}

/// PLOC (Meister and Bittner 2018): from the leaves in Morton order as
/// clusters, every pass finds each cluster's nearest neighbour among the
/// kPlocRadius on either side (the smallest box around both), merges the
/// pairs that are each other's nearest into a new node, and compacts the
/// clusters, until one is left. Nodes are numbered from kept - 2 down, so
/// that the last merge is the root, node 0. Only the parents are written
/// here; fit() then computes the boxes as for an LBVH.
///
/// The passes run in blocks of kPlocBlock consecutive clusters, one
/// workgroup each with its clusters in shared memory, neighbours sought
/// within the block, until at most kPlocKeep are left in it; the survivors
/// are compacted and the blocks run again (1M triangles: 3 rounds, then one
/// block to the root), as H-PLOC (Benthin et al. 2024) keeps its passes in
/// the subtrees of an LBVH. Passes over all clusters, each a dispatch and
/// compaction of its own, took 30 of them for 1M triangles and 1.7x the time
/// (docs/PERFORMANCE.md#ray-tracing); the blocks' trees cost 1-2% in SAH.
constexpr int kPlocRadius = 16;
constexpr int kPlocGroup = 256;
constexpr int kPlocBlock = 2 * kPlocGroup;
constexpr int kPlocKeep = 32;

/// The nearest cluster to i among j = i +- 1 .. kPlocRadius in [0, n),
/// box_of(k) giving the box of cluster k (0 <= k < n) and of any place that
/// in_block(j) gives for a j outside [0, n) (its area is then ruled out), by an order on pairs
/// that both ends see alike, so that the smallest pair overall is always
/// mutual: the smaller box around both, then the nearer in the order, then
/// the pair that starts at an even place (a run of equal boxes pairs up in
/// one pass, not one pair a pass), then the lower place. -1 where no j exists.
template <class BoxOf, class InBlock>
Expr<std::int32_t> ploc_nearest_of(const Int& i, const Int& n, BoxOf box_of, InBlock in_block) {
    auto [l, h] = box_of(i);
    constexpr float kNone = 3.4e38f;  // the area of a pair outside the clusters: never the nearest
    auto area_with = [&](const Int& j) {
        auto [lo, hi] = box_of(in_block(j));
        // Sides capped at 1e18: areas of boxes near the float range stay finite (no inf, no 0 x inf).
        Float3 e = min(max(h, hi) - min(l, lo), Float3(1e18f));
        return select(j >= 0 && j < n, e.x() * e.y() + e.y() * e.z() + e.z() * e.x(), Float(kNone));
    };
    // Pairs starting at an odd place rank after even ones of the same area and distance.
    auto start_rank = [](const Expr<std::int32_t>& start) { return start + ((start & 1) << 30); };
    Var<float> best = 3.0e38f;
    Var<std::int32_t> best_j = -1;
    auto candidates_at = [&](const Int& d) {
        // The two candidates at distance d, then against the nearer ones
        // found so far: an equal area loses to those.
        Float left = area_with(i - d), right = area_with(i + d);
        Bool take_left = left < right || (left == right && start_rank(i - d) < start_rank(i));
        Float area = select(take_left, left, right);
        If(area < best, [&] {
            best = area;
            best_j = select(take_left, i - d, i + d);
        });
    };
    // RILL_BVH_PLOC_UNROLLED=1 (an A/B knob, docs/TUNING.md) unrolls the loop
    // when traced: on an H100 the blocks kernel 1.18x faster through Vulkan
    // and 1.18x slower through OpenGL; through lavapipe, llvmpipe and the CPU
    // backend 1.13-1.37x slower. The loop stays the default.
    static const bool unrolled = env_flag("RILL_BVH_PLOC_UNROLLED");
    if (unrolled)
        for (int d = 1; d <= kPlocRadius; ++d) candidates_at(Int(d));
    else
        For(1, kPlocRadius + 1, [&](Int d) { candidates_at(d); });
    return best_j;
}

/// Where the parents array keeps cluster id `id` (>= 0 a node, < 0 the leaf ~id).
Expr<std::int32_t> parent_slot(const Expr<std::int32_t>& id, const Int& leaf_base) {
    return select(id < 0, leaf_base + ~id, id);
}

/// Leaf `pos` as PLOC's cluster: its box, ~pos in lo.w.
void store_cluster(const Array<Cluster>& clusters, const Int& pos, const Float3& lo, const Float3& hi) {
    Var<Cluster> cl;
    cl.lo = Float4(lo, int_bits_to_float(~pos));
    cl.hi = Float4(hi, 0.0f);
    clusters.store(pos, cl);
}

/// Each leaf's triangle as a cluster.
void triangle_clusters(const Stream<std::int32_t>& leaf_faces, const Stream<int4>& faces, const Stream<float4>& vertices,
                       const Stream<Cluster>& clusters) {
    static const auto k = group_kernel<kWorkgroup>(
        "bvh_ploc_leaves(leaf_faces, faces, vertices, clusters)",
        [](Array<std::int32_t> leaf_faces, Array<int4> faces, Array<float4> vertices, Array<Cluster> clusters) {
            Int pos = global_id();
            If(pos < leaf_faces.size(), [&] {
                Int4 f = faces.load(leaf_faces.load(pos));
                Float3 a = vertices.load(f.x()).xyz(), b = vertices.load(f.y()).xyz(), c = vertices.load(f.z()).xyz();
                store_cluster(clusters, pos, min(a, min(b, c)), max(a, max(b, c)));
            });
        });
    k(Groups{groups_for(leaf_faces.size())}, leaf_faces, faces, vertices, clusters);
}

/// Each leaf's box as a cluster.
void box_clusters(const Stream<std::int32_t>& leaf_boxes, const Stream<float4>& lo, const Stream<float4>& hi,
                  const Stream<Cluster>& clusters) {
    static const auto k = group_kernel<kWorkgroup>(
        "bvh_ploc_box_leaves(leaf_boxes, lo, hi, clusters)",
        [](Array<std::int32_t> leaf_boxes, Array<float4> lo, Array<float4> hi, Array<Cluster> clusters) {
            Int pos = global_id();
            If(pos < leaf_boxes.size(), [&] {
                Int b = leaf_boxes.load(pos);
                store_cluster(clusters, pos, lo.load(b).xyz(), hi.load(b).xyz());
            });
        });
    k(Groups{groups_for(leaf_boxes.size())}, leaf_boxes, lo, hi, clusters);
}

/// out[k] = in[index[k]] for the first live[0] indices (at most `bound`): the
/// clusters left.
void gather_clusters(const Stream<Cluster>& in, const Stream<std::int32_t>& index, const Stream<Cluster>& out,
                     const Stream<std::uint32_t>& live, std::int64_t bound) {
    static const auto k = group_kernel<kWorkgroup>("bvh_ploc_gather(in, index, out, live)",
                                                   [](Array<Cluster> in, Array<std::int32_t> index, Array<Cluster> out, Array<std::uint32_t> live) {
        Int i = global_id();
        If(i < cast<std::int32_t>(live.load(0)), [&] { out.store(i, in.load(index.load(i))); });
    });
    k(Groups{groups_for(bound)}, in, index, out, live);
}

/// PLOC within blocks: workgroup g takes clusters [g kPlocBlock, (g + 1)
/// kPlocBlock) of the first live[0] (at most alive's size) into shared memory, each
/// invocation two neighbours, and runs the passes there, neighbours sought
/// within the block, until at most `keep` are left; node numbers come from
/// next_node, a block's in the order of its clusters. The survivors go to
/// out at their block's start, alive[i] = i for them and -1 for every other
/// place of alive. Should a pass merge nothing (the pair order rules it out),
/// the next pairs neighbours, so that every block ends with at most `keep`.
void ploc_blocks(const Stream<Cluster>& in, const Stream<Cluster>& out, const Stream<std::int32_t>& alive,
                 const Stream<std::int32_t>& next_node, const Stream<std::int32_t>& parents, const Stream<std::uint32_t>& live,
                 int keep, std::int64_t kept) {
    static const auto k = group_kernel<kPlocGroup>(
        "bvh_ploc_blocks(in, out, alive, next_node, parents, live, keep, leaf_base)",
        [](Array<Cluster> in, Array<Cluster> out, Array<std::int32_t> alive, Array<std::int32_t> next_node,
           Array<std::int32_t> parents, Array<std::uint32_t> live, Int keep, Int leaf_base) {
            Int clusters = min(cast<std::int32_t>(live.load(0)), alive.size());
            constexpr int kEach = kPlocBlock / kPlocGroup;
            constexpr std::int32_t kMerged = 1 << 16;  // kept clusters in the low half of a count, merges above
            // The block's arrays skip rill's checks: every index below is a
            // place in the block by construction, a candidate's by masking it
            // (those outside the clusters are read, then ruled out by their
            // area), where a clamp and the checks cost NVIDIA's OpenGL its
            // integer min and max workarounds in the search's inner loop.
            // RILL_BVH_PLOC_CHECKED=1 (an A/B knob, docs/TUNING.md) is the old way.
            static const bool checked = env_flag("RILL_BVH_PLOC_CHECKED");
            auto block_array = [&]<class T>(T) { return checked ? Shared<T>(kPlocBlock) : Shared<T>(kPlocBlock, dsl::Unchecked{}); };
            Shared<float4> lo = block_array(float4{}), hi = block_array(float4{});
            Shared<std::int32_t> nearest = block_array(std::int32_t{}), first_node(1);
            auto in_block = [&](const Int& j, const Int& n) { return checked ? clamp(j, Int(0), n - 1) : j & (kPlocBlock - 1); };
            Int first = group_id() * kPlocBlock;
            Var<std::int32_t> n = min(clusters - first, Int(kPlocBlock));
            For(0, kEach, [&](Int r) {
                Int i = local_id() * kEach + r;
                If(i < n, [&] {
                    Var<Cluster> c = in.load(first + i);
                    lo.store(i, c.lo);
                    hi.store(i, c.hi);
                });
            });
            barrier();
            Var<std::int32_t> stuck = 0;
            While([&] { return n > keep; }, [&] {
                For(0, kEach, [&](Int r) {
                    Int i = local_id() * kEach + r;
                    If(i < n, [&] {
                        auto box_of = [&](const Int& k) { return std::pair{lo.load(k).xyz(), hi.load(k).xyz()}; };
                        Int neighbour = select((i ^ 1) < n, i ^ 1, Int(-1));
                        nearest.store(i, select(stuck != 0, neighbour, ploc_nearest_of(i, n, box_of, [&](const Int& j) { return in_block(j, n); })));
                    });
                });
                barrier();
                std::array<Var<float4>, kEach> new_lo, new_hi;
                std::array<Var<std::int32_t>, kEach> counts, other;  // this cluster's kept/merged count; the merged one's id
                Var<std::int32_t> mine = 0;
                for (int r = 0; r < kEach; ++r) {
                    Int i = local_id() * kEach + r;
                    counts[r] = 0;
                    If(i < n, [&] {
                        Int j = nearest.load(i);
                        Bool mutual = j >= 0 && nearest.load(checked ? Expr<std::int32_t>(j) : j & (kPlocBlock - 1)) == i;
                        new_lo[r] = lo.load(i);
                        new_hi[r] = hi.load(i);
                        If(!mutual, [&] { counts[r] = 1; });
                        If(mutual && i < j, [&] {
                            Float4 o = lo.load(j);
                            other[r] = float_bits_to_int(o.w());
                            new_lo[r] = Float4(min(new_lo[r].xyz(), o.xyz()), new_lo[r].w());
                            new_hi[r] = Float4(max(new_hi[r].xyz(), hi.load(j).xyz()), 0.0f);
                            counts[r] = 1 + kMerged;
                        });
                    });
                    mine = mine + counts[r];
                }
                // The scan's barriers also end this pass's reads of the clusters.
                auto [before, total] = rill::detail::workgroup_exclusive<std::int32_t>(kPlocGroup, ScanOp::Add, mine, 0);
                Int merges = total >> 16;
                If(local_id() == 0 && merges > 0, [&] { first_node.store(0, next_node.atomic_add(0, -merges)); });
                barrier();
                Int node = first_node.load(0);
                Var<std::int32_t> at = before;
                for (int r = 0; r < kEach; ++r) {
                    If(counts[r] > kMerged, [&] {
                        Int id = node - (at >> 16);
                        parents.store(parent_slot(float_bits_to_int(new_lo[r].w()), leaf_base), id * 2);
                        parents.store(parent_slot(other[r], leaf_base), id * 2 + 1);
                        new_lo[r] = Float4(new_lo[r].xyz(), int_bits_to_float(id));
                    });
                    If(counts[r] != 0, [&] {
                        lo.store(at & (kMerged - 1), new_lo[r]);
                        hi.store(at & (kMerged - 1), new_hi[r]);
                    });
                    at = at + counts[r];
                }
                barrier();
                n = total & (kMerged - 1);
                stuck = select(merges == 0, Int(1), Int(0));
            });
            For(0, kEach, [&](Int r) {
                Int i = local_id() * kEach + r;
                If(first + i < alive.size(), [&] {
                    If(i < n, [&] {
                        Var<Cluster> c;
                        c.lo = lo.load(i);
                        c.hi = hi.load(i);
                        out.store(first + i, c);
                    });
                    alive.store(first + i, select(i < n, first + i, Int(-1)));
                });
            });
        });
    k(Groups{(alive.size() + kPlocBlock - 1) / kPlocBlock}, in, out, alive, next_node, parents, live, static_cast<std::int32_t>(keep),
      static_cast<std::int32_t>(leaf_base(kept)));
}

/// Builds the parents of a PLOC tree over the leaves (in Morton order). The
/// count of clusters left stays on the device (`live`): every block keeps at
/// most kPlocKeep of its kPlocBlock, so the host knows how many rounds there
/// are and a bound on each round's clusters, sizes its dispatches by those,
/// and reads nothing.
template <class LeafClusters>
void ploc(Runtime& rt, std::int64_t kept, const LeafClusters& leaf_clusters, const Stream<std::int32_t>& parents) {
    Stream<Cluster> a = rt.scratch<Cluster>({kept}), b = rt.scratch<Cluster>({kept});
    Stream<std::int32_t> alive = rt.scratch<std::int32_t>({kept}), left_index = rt.scratch<std::int32_t>({kept});
    Stream<std::int32_t> next_node = rt.stream<std::int32_t>({1}, std::vector<std::int32_t>{static_cast<std::int32_t>(kept - 2)});
    Stream<std::uint32_t> live = rt.stream<std::uint32_t>({1}, std::vector<std::uint32_t>{static_cast<std::uint32_t>(kept)});
    leaf_clusters(a);
    std::int64_t bound = kept;
    while (bound > kPlocBlock) {
        ploc_blocks(a, b, alive.domain({0}, {bound}), next_node, parents, live, kPlocKeep, kept);
        // The clusters left are compacted by their indices: the one-word
        // compaction is rill's fastest, and the gather moves each cluster once.
        non_negative()(alive.domain({0}, {bound}), left_index.domain({0}, {bound}), live);
        bound = (bound + kPlocBlock - 1) / kPlocBlock * kPlocKeep;
        gather_clusters(b, left_index, a, live, bound);
    }
    // The last block merges its clusters to one.
    ploc_blocks(a, b, alive.domain({0}, {bound}), next_node, parents, live, 1, kept);
}

/// The boxes, bottom up, from leaf `pos` whose box is [leaf_lo, leaf_hi]:
/// it walks to the root; at each node the first of the two children to
/// arrive stops (an atomic counter), the second combines both boxes and goes
/// on, and clears the counter for the next fit.
void fit_upwards(const Int& pos, const Float3& leaf_lo, const Float3& leaf_hi, const Array<std::int32_t>& parents,
                 const Array<std::uint32_t>& arrivals, const Array<float4>& nodes, const Int& leaf_base) {
    Var<float3> lo = leaf_lo, hi = leaf_hi;
    Var<float> height = 0.0f;  // of the subtree below `self`, in edges (a leaf: 0)
    Var<std::int32_t> self = ~pos;
    Var<std::int32_t> up = parents.load(leaf_base + pos);
    While([&] { return up >= 0; }, [&] {
        Int p = up / 2, side = up % 2;
        nodes.store(4 * p + 2 * side, Float4(lo, int_bits_to_float(self)));
        nodes.store(4 * p + 2 * side + 1, Float4(hi, height));
        memory_fence();
        If(arrivals.atomic_add(p, 1u) == 0u, [&] { Break(); });
        arrivals.atomic_store(p, 0u);
        memory_fence();
        Int other = 4 * p + 2 * (1 - side);
        lo = min(lo, nodes.load(other).xyz());
        Float4 other_hi = nodes.load(other + 1);
        hi = max(hi, other_hi.xyz());
        height = max(height, other_hi.w()) + 1.0f;
        self = p;
        up = parents.load(p);
    });
}

/// Each leaf writes its triangle, then fits the boxes above it.
void fit_triangles(const Bvh& tree, const Stream<float4>& vertices, const Stream<std::uint32_t>& arrivals,
                   const Stream<float4>& nodes, const Stream<float4>& triangles) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "bvh_fit(leaf_faces, faces, vertices, parents, arrivals, nodes, triangles, leaf_base)",
        [](Array<std::int32_t> leaf_faces, Array<int4> faces, Array<float4> vertices, Array<std::int32_t> parents,
           Array<std::uint32_t> arrivals, Array<float4> nodes, Array<float4> triangles, Int leaf_base) {
            Int pos = global_id();
            If(pos < leaf_faces.size(), [&] {
                Int face = leaf_faces.load(pos);
                Int4 f = faces.load(face);
                Float3 a = vertices.load(f.x()).xyz(), b = vertices.load(f.y()).xyz(), c = vertices.load(f.z()).xyz();
                triangles.store(3 * pos, Float4(a, int_bits_to_float(face)));
                triangles.store(3 * pos + 1, Float4(b, 0.0f));
                triangles.store(3 * pos + 2, Float4(c, 0.0f));
                fit_upwards(pos, min(a, min(b, c)), max(a, max(b, c)), parents, arrivals, nodes, leaf_base);
            });
        });
    kernel(Groups{groups_for(tree.triangle_count())}, tree.leaf_faces(), tree.faces(), vertices, tree.parents(), arrivals,
           nodes, triangles, static_cast<std::int32_t>(leaf_base(tree.triangle_count())));
}

/// Each leaf fits the boxes above its box.
void fit_boxes(const Bvh& tree, const Stream<float4>& lo, const Stream<float4>& hi, const Stream<std::uint32_t>& arrivals,
               const Stream<float4>& nodes) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "bvh_fit_boxes(leaf_boxes, lo, hi, parents, arrivals, nodes, leaf_base)",
        [](Array<std::int32_t> leaf_boxes, Array<float4> lo, Array<float4> hi, Array<std::int32_t> parents,
           Array<std::uint32_t> arrivals, Array<float4> nodes, Int leaf_base) {
            Int pos = global_id();
            If(pos < leaf_boxes.size(), [&] {
                Int b = leaf_boxes.load(pos);
                fit_upwards(pos, lo.load(b).xyz(), hi.load(b).xyz(), parents, arrivals, nodes, leaf_base);
            });
        });
    kernel(Groups{groups_for(tree.triangle_count())}, tree.leaf_faces(), lo, hi, tree.parents(), arrivals, nodes,
           static_cast<std::int32_t>(leaf_base(tree.triangle_count())));
}

std::string face_text(const Stream<int4>& faces, std::int64_t i) {
    const int4 f = faces.reshape({faces.size()}).domain({i}, {i + 1}).download()[0];
    return std::to_string(f.x) + ", " + std::to_string(f.y) + ", " + std::to_string(f.z);
}

}  // namespace

namespace detail {

/// The steps of a build that differ between triangles and boxes.
struct Primitives {
    /// The inputs' runtime. Given, never default-made: a default Runtime opens a
    /// backend of its own, and that (a Vulkan device, made and torn down in each
    /// build) had cost a 1.11M-triangle build 13-117 ms of host time on an H100
    /// for 0.5-1.5 ms of kernels (docs/PERFORMANCE.md#ray-tracing).
    Runtime rt;
    std::int64_t count = 0;  // faces or boxes given
    explicit Primitives(Runtime r) : rt(std::move(r)) {}
    virtual ~Primitives() = default;
    /// ids[i] = i where primitive i goes into the tree, -1 where it is left
    /// out; an input error goes to the host as stats[0] (how many) and
    /// stats[1] (the first), for check() to report.
    virtual void classify(const Stream<std::int32_t>& ids, const Stream<std::uint32_t>& stats) const = 0;
    virtual void check(const std::vector<std::uint32_t>& stats) const = 0;
    virtual void centres(const Stream<std::int32_t>& ids, const Stream<float4>& c) const = 0;
    virtual void clusters(const Stream<std::int32_t>& leaf_ids, const Stream<Cluster>& out) const = 0;
    virtual void fit(Bvh& tree) const = 0;
};

struct TreeBuilder {
    /// Classifies, orders by Morton code, builds the hierarchy (PLOC or
    /// LBVH) and fits the boxes; a PLOC tree taller than kMaxHeight is
    /// built again as an LBVH.
    static Bvh build(const Bvh& start, const Primitives& p, BuildQuality quality) {
        Bvh t = start;
        Runtime rt = p.rt;
        const std::int64_t n = p.count;
        t.faces_ = n;
        Stream<std::int32_t> kept = rt.scratch<std::int32_t>({std::max<std::int64_t>(n, 1)});
        std::int64_t m = 0;
        if (n > 0) {
            Stream<std::int32_t> ids = rt.scratch<std::int32_t>({n});
            // stats[2] gets the count kept, so that one read brings all back
            // (each read is a round trip between short dispatches).
            Stream<std::uint32_t> stats = rt.stream<std::uint32_t>({3}, std::vector<std::uint32_t>{0u, 0xffffffffu, 0u});
            p.classify(ids, stats);
            Stream<std::uint32_t> count = rt.scratch<std::uint32_t>({1});  // the compaction writes it
            non_negative()(ids, kept, count);
            rill::detail::copy_stream(count, stats.domain({2}, {3}));
            const std::vector<std::uint32_t> s = stats.download();
            p.check(s);
            m = s[2];
        }
        t.kept_ = m;
        const std::int64_t base = leaf_base(m);
        // No fills (each a GPU pass and a barrier): the fit writes both child
        // slots of every node, the hierarchy (or PLOC and the root's upload)
        // every parent, and from two leaves on the fit's arrival counters are
        // words that every kernel leaves zero (each node has two children,
        // and the second to arrive clears the counter). A lone leaf's arrival
        // leaves the root's counter at 1: a stream of its own.
        t.nodes_ = rt.scratch<float4>({base * 4});
        t.triangles_ = rt.scratch<float4>({t.boxes_ ? 1 : std::max<std::int64_t>(m, 1) * 3});
        t.parents_ = rt.scratch<std::int32_t>({base + std::max<std::int64_t>(m, 1)});
        t.arrivals_ = m >= 2 ? rt.zeroed_words(base) : rt.stream<std::uint32_t>({base});
        t.leaf_faces_ = kept.domain({0}, {m});
        if (m <= 1) {
            // The root alone: no child, or the one leaf (its box comes from fit).
            const float none = std::bit_cast<float>(kNoChild);
            t.nodes_.upload(std::vector<float4>{{0, 0, 0, none}, {0, 0, 0, 0}, {0, 0, 0, none}, {0, 0, 0, 0}});
            t.parents_.upload(std::vector<std::int32_t>{-1, m == 1 ? 0 : -1});
            if (m == 1) p.fit(t);
            return t;
        }
        Stream<float4> c = rt.scratch<float4>({m});
        Stream<float4> lo = rt.scratch<float4>({1}), hi = rt.scratch<float4>({1});
        Stream<std::uint32_t> keys = rt.scratch<std::uint32_t>({m});
        p.centres(t.leaf_faces_, c);
        reductions::min<float4>()(c, lo);
        reductions::max<float4>()(c, hi);
        morton_codes(c, lo, hi, keys);
        radix_sort(keys, t.leaf_faces_, {.bits = 30});
        if (quality == BuildQuality::High) {
            ploc(rt, m, [&](const Stream<Cluster>& out) { p.clusters(t.leaf_faces_, out); }, t.parents_);
            // The root has no parent (PLOC writes the others).
            t.parents_.domain({0}, {1}).upload(std::vector<std::int32_t>{-1});
        } else {
            hierarchy(keys, t.parents_, m);
        }
        p.fit(t);
        if (quality == BuildQuality::High && t.height() > kMaxHeight) return build(start, p, BuildQuality::Fast);
        return t;
    }

    static void fit_triangles(Bvh& t, const Stream<float4>& vertices) {
        bvh::fit_triangles(t, vertices, t.arrivals_, t.nodes_, t.triangles_);
    }
    static void fit_boxes(Bvh& t, const Stream<float4>& lo, const Stream<float4>& hi) {
        bvh::fit_boxes(t, lo, hi, t.arrivals_, t.nodes_);
    }
};

}  // namespace detail

namespace {

struct Triangles final : detail::Primitives {
    using Primitives::Primitives;
    Stream<float4> vertices;
    Stream<int4> faces;
    void classify(const Stream<std::int32_t>& ids, const Stream<std::uint32_t>& stats) const override {
        bvh::classify(faces, vertices, ids, stats);
    }
    void check(const std::vector<std::uint32_t>& s) const override {
        if (s[0] > 0)
            throw Error("rill::bvh::Bvh::build: face " + std::to_string(s[1]) + " has vertex indices " + face_text(faces, s[1]) +
                        " but there are " + std::to_string(vertices.size()) + " vertices (" + std::to_string(s[0]) +
                        " faces are like it); give indices in 0 .. " + std::to_string(vertices.size() - 1));
    }
    void centres(const Stream<std::int32_t>& ids, const Stream<float4>& c) const override {
        centroids(ids, faces, vertices, c);
    }
    void clusters(const Stream<std::int32_t>& leaf_ids, const Stream<Cluster>& out) const override {
        triangle_clusters(leaf_ids, faces, vertices, out);
    }
    void fit(Bvh& t) const override { detail::TreeBuilder::fit_triangles(t, vertices); }
};

struct Boxes final : detail::Primitives {
    using Primitives::Primitives;
    Stream<float4> lo, hi;
    void classify(const Stream<std::int32_t>& ids, const Stream<std::uint32_t>&) const override {
        classify_boxes(lo, hi, ids);
    }
    void check(const std::vector<std::uint32_t>&) const override {}
    void centres(const Stream<std::int32_t>& ids, const Stream<float4>& c) const override { box_centres(ids, lo, hi, c); }
    void clusters(const Stream<std::int32_t>& leaf_ids, const Stream<Cluster>& out) const override {
        box_clusters(leaf_ids, lo, hi, out);
    }
    void fit(Bvh& t) const override { detail::TreeBuilder::fit_boxes(t, lo, hi); }
};

/// lo and hi: dense streams of one runtime with one box per element.
void check_boxes(const char* who, const StreamBase& lo, const StreamBase& hi, const StreamBase& same_runtime_as,
                 const char* what) {
    rill::detail::require_runtime_of(who, lo, "lo", same_runtime_as, what);
    rill::detail::require_runtime_of(who, hi, "hi", same_runtime_as, what);
    rill::detail::require_dense(who, lo, "lo");
    rill::detail::require_dense(who, hi, "hi");
    if (lo.size() != hi.size())
        throw Error(std::string(who) + ": lo has " + std::to_string(lo.size()) + " elements and hi " + std::to_string(hi.size()) +
                    "; give one hi corner per lo corner");
}

}  // namespace

Bvh Bvh::build(const Stream<float4>& vertices, const Stream<int4>& faces, BuildQuality quality) {
    const char* who = "rill::bvh::Bvh::build";
    check_stream(who, vertices, "vertices", vertices);
    check_stream(who, faces, "faces", vertices);
    const std::int64_t n = faces.size();
    if (n >= (std::int64_t{1} << 30) || vertices.size() >= (std::int64_t{1} << 31))
        throw Error(std::string(who) + ": " + std::to_string(n) + " faces over " + std::to_string(vertices.size()) +
                    " vertices; give fewer than 2^30 faces and 2^31 vertices (split the mesh into several trees)");
    Triangles p(Runtime::of(vertices));
    p.count = n;
    p.vertices = vertices.reshape({vertices.size()});
    p.faces = faces.reshape({n});
    Bvh t;
    t.vertex_count_ = vertices.size();
    t.faces_stream_ = p.faces;
    return detail::TreeBuilder::build(t, p, quality);
}

Bvh Bvh::build_boxes(const Stream<float4>& lo, const Stream<float4>& hi, BuildQuality quality) {
    const char* who = "rill::bvh::Bvh::build_boxes";
    check_boxes(who, lo, hi, lo, "lo");
    const std::int64_t n = lo.size();
    if (n >= (std::int64_t{1} << 30))
        throw Error(std::string(who) + ": " + std::to_string(n) + " boxes; give fewer than 2^30 (split them into several trees)");
    Boxes p(Runtime::of(lo));
    p.count = n;
    p.lo = lo.reshape({n});
    p.hi = hi.reshape({n});
    Bvh t;
    t.boxes_ = true;
    return detail::TreeBuilder::build(t, p, quality);
}

void Bvh::refit(const Stream<float4>& vertices) {
    const char* who = "rill::bvh::Bvh::refit";
    if (boxes_)
        throw Error(std::string(who) + ": the tree was built from boxes; refit it with refit_boxes(lo, hi)");
    rill::detail::require_runtime_of(who, vertices, "vertices", nodes_, "the tree");
    rill::detail::require_dense(who, vertices, "vertices");
    if (vertices.size() != vertex_count_)
        throw Error(std::string(who) + ": " + std::to_string(vertices.size()) + " vertices but the tree was built over " +
                    std::to_string(vertex_count_) + "; refit moves the same vertices (build a new tree for another mesh)");
    if (kept_ == 0) return;
    detail::TreeBuilder::fit_triangles(*this, vertices.reshape({vertices.size()}));
}

void Bvh::refit_boxes(const Stream<float4>& lo, const Stream<float4>& hi) {
    const char* who = "rill::bvh::Bvh::refit_boxes";
    if (!boxes_)
        throw Error(std::string(who) + ": the tree was built from triangles; refit it with refit(vertices)");
    check_boxes(who, lo, hi, nodes_, "the tree");
    if (lo.size() != faces_)
        throw Error(std::string(who) + ": " + std::to_string(lo.size()) + " boxes but the tree was built over " +
                    std::to_string(faces_) + "; refit moves the same boxes (build a new tree for others)");
    if (kept_ == 0) return;
    detail::TreeBuilder::fit_boxes(*this, lo.reshape({lo.size()}), hi.reshape({hi.size()}));
}

int Bvh::height() const {
    if (kept_ <= 1) return kept_ == 1 ? 1 : 0;
    const std::vector<float4> root = nodes_.domain({0}, {4}).download();
    return 1 + static_cast<int>(std::max(root[1].w, root[3].w));
}

double Bvh::sah_cost() const {
    if (kept_ == 0) return 0.0;
    const std::vector<float4> n = nodes_.download();
    auto area = [](const float4& lo, const float4& hi) {
        const double x = double(hi.x) - lo.x, y = double(hi.y) - lo.y, z = double(hi.z) - lo.z;
        return 2.0 * (x * y + y * z + z * x);
    };
    // Every node is visited when a ray hits its box: the root always, each
    // child (internal node or leaf triangle) as often as its box is hit.
    double root = 0.0, children = 0.0;
    const std::int64_t nodes = std::max<std::int64_t>(kept_ - 1, 1);
    for (std::int64_t i = 0; i < nodes; ++i)
        for (int side = 0; side < 2; ++side) {
            const float4& lo = n[4 * i + 2 * side];
            if (std::bit_cast<std::int32_t>(lo.w) == kNoChild) continue;
            children += area(lo, n[4 * i + 2 * side + 1]);
        }
    float4 rlo = n[0], rhi = n[1];
    if (std::bit_cast<std::int32_t>(n[2].w) != kNoChild) {
        rlo = {std::min(n[0].x, n[2].x), std::min(n[0].y, n[2].y), std::min(n[0].z, n[2].z), 0};
        rhi = {std::max(n[1].x, n[3].x), std::max(n[1].y, n[3].y), std::max(n[1].z, n[3].z), 0};
    }
    root = area(rlo, rhi);
    return root > 0.0 ? 1.0 + children / root : 1.0 + double(kept_);
}

}  // namespace rill::bvh
