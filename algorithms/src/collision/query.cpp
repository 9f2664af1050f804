// The breadth-first collision query (rill/algorithms/collision.h): a stream
// of candidate pairs per level, expanded and compacted by one
// rill::VariableOutput, as in Horn's GPU Gems 2 chapter 36.
#include <rill/algorithms/collision.h>
#include <rill/algorithms/detail/dense_streams.h>
#include <rill/algorithms/scan.h>
#include <rill/algorithms/variable_output.h>

#include <algorithm>
#include <string>

#include "separating_axes.h"

namespace rill::collision {

namespace {

using bvh::kNoChild;
constexpr int kWorkgroup = 256;
std::int64_t groups_for(std::int64_t n) { return (n + kWorkgroup - 1) / kWorkgroup; }

// A candidate: (pose, node of a, node of b, state); nodes as in bvh.h (>= 0
// internal, < 0 the leaf ~id).
constexpr std::int32_t kTest = 0;     // its boxes are tested at the next level
constexpr std::int32_t kFound = 1;    // two leaves whose triangles intersect
constexpr std::int32_t kInvalid = 2;  // a pose that is not rigid: dropped

/// candidates[p] = (p, root, root, kTest), or kInvalid with counts[p] = -1
/// where the rotation is not orthonormal within 1e-3 or not finite.
void start(const Stream<float4>& poses, const Stream<int4>& candidates, const Stream<std::int32_t>& counts) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "collide_start(poses, candidates, counts)", [](Array<float4> poses, Array<int4> candidates, Array<std::int32_t> counts) {
            Int p = global_id();
            If(p < counts.size(), [&] {
                std::array<Float4, 3> row{poses.load(3 * p), poses.load(3 * p + 1), poses.load(3 * p + 2)};
                Var<bool> rigid = true;
                for (int i = 0; i < 3; ++i) {
                    rigid = rigid && !any(isnan(row[i])) && !any(isinf(row[i]));
                    for (int j = 0; j < 3; ++j) {
                        Float off = dot(row[i].xyz(), row[j].xyz()) - (i == j ? 1.0f : 0.0f);
                        rigid = rigid && abs(off) <= 1e-3f;  // false for NaN too
                    }
                }
                candidates.store(p, Int4(p, 0, 0, select(rigid, Int(kTest), Int(kInvalid))));
                counts.store(p, select(rigid, Int(0), Int(-1)));
            });
        });
    kernel(Groups{groups_for(counts.size())}, poses, candidates, counts);
}

/// Where a tree's boxes array keeps node `id` (internal nodes, then leaves).
Int box_index(const Array<float4>& nodes, const Expr<std::int32_t>& id) {
    return select(id >= 0, Int(id), Int(nodes.size() / 4 + ~id));
}

/// A node's two children, or a leaf itself and no second.
std::array<Int, 2> children(const Array<float4>& nodes, const Expr<std::int32_t>& id) {
    Int at = max(Int(id), Int(0));
    return {select(id >= 0, float_bits_to_int(nodes.load(4 * at).w()), Int(id)),
            select(id >= 0, float_bits_to_int(nodes.load(4 * at + 2).w()), Int(kNoChild))};
}

std::array<Float3, 3> triangle(const Array<float4>& triangles, const Expr<std::int32_t>& leaf) {
    return {triangles.load(3 * leaf).xyz(), triangles.load(3 * leaf + 1).xyz(), triangles.load(3 * leaf + 2).xyz()};
}

/// One level: found pairs stay, candidates whose boxes are apart go, the
/// rest become their children's pairs (or a found pair of leaves).
const auto& expand() {
    static const VariableOutput<int4, int4, float4, float4, float4, float4, float4, float4, float4, std::uint32_t> kernel(
        "collide_level",
        [](const Expr<int4>& c, const Int&, Emitter<int4>& emit, const Array<float4>& boxes_a, const Array<float4>& nodes_a,
           const Array<float4>& triangles_a, const Array<float4>& boxes_b, const Array<float4>& nodes_b,
           const Array<float4>& triangles_b, const Array<float4>& poses, const Array<std::uint32_t>& full) {
            Int pose_id = c.x(), a = c.y(), b = c.z();
            If(c.w() == kFound, [&] { emit(c); }).Elif(c.w() == kTest && full.load(pose_id) == 0u, [&] {
                detail::Pose pose{{poses.load(3 * pose_id), poses.load(3 * pose_id + 1), poses.load(3 * pose_id + 2)}};
                detail::Box box_a = detail::load_box(boxes_a, box_index(nodes_a, a));
                detail::Box box_b = detail::posed(pose, detail::load_box(boxes_b, box_index(nodes_b, b)));
                If(!detail::boxes_apart(box_a, box_b), [&] {
                    If(a < 0 && b < 0, [&] {
                        std::array<Float3, 3> q = triangle(triangles_b, ~b);
                        for (auto& v : q) v = pose.apply(v);
                        If(!detail::triangles_apart(triangle(triangles_a, ~a), q), [&] { emit(Int4(pose_id, a, b, kFound)); });
                    }).Else([&] {
                        std::array<Int, 2> ca = children(nodes_a, a), cb = children(nodes_b, b);
                        for (const Int& x : ca)
                            for (const Int& y : cb)
                                If(x != kNoChild && y != kNoChild, [&] { emit(Int4(pose_id, x, y, kTest)); });
                    });
                });
            });
        });
    return kernel;
}

/// counts[p] = found pairs of pose p (poses of count -1 stay -1); with
/// limit > 0, full[p] = 1 once pose p has `limit` of them.
void count_found(const Stream<int4>& candidates, const Stream<std::int32_t>& counts, const Stream<std::uint32_t>& full,
                 std::int64_t limit) {
    static const auto reset = group_kernel<kWorkgroup>("collide_reset(counts)", [](Array<std::int32_t> counts) {
        Int p = global_id();
        If(p < counts.size() && counts.load(p) > 0, [&] { counts.store(p, 0); });
    });
    static const auto add = group_kernel<kWorkgroup>("collide_count(candidates, counts)",
                                                     [](Array<int4> candidates, Array<std::int32_t> counts) {
        Int i = global_id();
        If(i < candidates.size(), [&] {
            Int4 c = candidates.load(i);
            If(c.w() == kFound, [&] { counts.atomic_add(c.x(), 1); });
        });
    });
    static const auto mark = group_kernel<kWorkgroup>(
        "collide_full(counts, full, limit)", [](Array<std::int32_t> counts, Array<std::uint32_t> full, Int limit) {
            Int p = global_id();
            If(p < counts.size(), [&] { full.store(p, select(limit > 0 && counts.load(p) >= limit, 1u, 0u)); });
        });
    reset(Groups{groups_for(counts.size())}, counts);
    if (candidates.size() > 0) add(Groups{groups_for(candidates.size())}, candidates, counts);
    mark(Groups{groups_for(counts.size())}, counts, full, static_cast<std::int32_t>(std::min<std::int64_t>(limit, 1 << 30)));
}

/// keep[i] = 1 for the first `limit` found pairs of each pose (the pairs are
/// grouped by pose; starts[p] is where pose p's begin).
void first_of_each(const Stream<int4>& pairs, const Stream<std::uint32_t>& starts, const Stream<std::uint32_t>& keep,
                   std::int64_t limit) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "collide_first(pairs, starts, keep, limit)",
        [](Array<int4> pairs, Array<std::uint32_t> starts, Array<std::uint32_t> keep, Int limit) {
            Int i = global_id();
            If(i < pairs.size(), [&] {
                Int rank = i - cast<std::int32_t>(starts.load(pairs.load(i).x()));
                keep.store(i, select(rank < limit, 1u, 0u));
            });
        });
    kernel(Groups{groups_for(pairs.size())}, pairs, starts, keep, static_cast<std::int32_t>(std::min<std::int64_t>(limit, 1 << 30)));
}

/// Leaves to input face indices, in place: (pose, face of a, face of b, 0).
void to_faces(const Stream<int4>& pairs, const bvh::Bvh& a, const bvh::Bvh& b) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "collide_faces(pairs, triangles_a, triangles_b)", [](Array<int4> pairs, Array<float4> ta, Array<float4> tb) {
            Int i = global_id();
            If(i < pairs.size(), [&] {
                Int4 c = pairs.load(i);
                pairs.store(i, Int4(c.x(), float_bits_to_int(ta.load(3 * ~c.y()).w()), float_bits_to_int(tb.load(3 * ~c.z()).w()), 0));
            });
        });
    if (pairs.size() > 0) kernel(Groups{groups_for(pairs.size())}, pairs, a.triangles(), b.triangles());
}

}  // namespace

Collisions collide(const ObbTree& a, const ObbTree& b, const Stream<float4>& poses, const QueryOptions& options) {
    const char* who = "rill::collision::collide";
    rill::detail::require_runtime_of(who, b.boxes(), "tree b", a.boxes(), "tree a");
    rill::detail::require_runtime_of(who, poses, "poses", a.boxes(), "tree a");
    rill::detail::require_dense(who, poses, "poses");
    if (poses.size() % 3 != 0)
        throw Error(std::string(who) + ": poses has " + std::to_string(poses.size()) +
                    " float4; give 3 per pose (the rows of [R | t])");
    if (options.max_pairs_per_pose < 0)
        throw Error(std::string(who) + ": max_pairs_per_pose is " + std::to_string(options.max_pairs_per_pose) +
                    "; give 0 (every pair) or a positive limit");
    const std::int64_t n_poses = poses.size() / 3;
    if (n_poses >= (std::int64_t{1} << 31) - 4096)
        throw Error(std::string(who) + ": " + std::to_string(n_poses) + " poses; give fewer than 2^31 - 4096 per call");
    Runtime rt = Runtime::of(poses);
    Collisions result;
    result.counts = rt.stream<std::int32_t>({n_poses});
    Stream<int4> candidates = rt.scratch<int4>({n_poses});
    const Stream<float4> flat_poses = poses.reshape({poses.size()});
    if (n_poses > 0) start(flat_poses, candidates, result.counts);
    const bool empty = a.triangle_count() == 0 || b.triangle_count() == 0 || n_poses == 0;
    if (empty) candidates = rt.stream<int4>({0});
    Stream<std::uint32_t> full = rt.stream<std::uint32_t>({std::max<std::int64_t>(n_poses, 1)});
    const std::int64_t limit = options.max_pairs_per_pose;
    // A pair of leaves at depth d is made at level d - 1 and tested at level d.
    const int levels = std::max(a.height(), b.height()) + 1;
    for (int level = 0; level < levels && candidates.size() > 0; ++level) {
        result.candidates_per_level.push_back(candidates.size());
        if (limit > 0 && level > 0) count_found(candidates, result.counts, full, limit);
        candidates = expand()(candidates, a.boxes(), a.bvh().nodes(), a.bvh().triangles(), b.boxes(), b.bvh().nodes(),
                              b.bvh().triangles(), flat_poses, full);
    }
    if (n_poses > 0) count_found(candidates, result.counts, full, 0);
    if (limit > 0 && candidates.size() > 0) {
        // Poses reach the limit within a level: keep the first `limit` of each.
        static const auto nonnegative = group_kernel<kWorkgroup>(
            "collide_nonnegative(counts, sizes)", [](Array<std::int32_t> counts, Array<std::uint32_t> sizes) {
                Int p = global_id();
                If(p < counts.size(), [&] { sizes.store(p, cast<std::uint32_t>(max(counts.load(p), Int(0)))); });
            });
        Stream<std::uint32_t> starts = rt.scratch<std::uint32_t>({n_poses});
        nonnegative(Groups{groups_for(n_poses)}, result.counts, starts);
        exclusive_scan(starts, starts);
        Stream<std::uint32_t> keep = rt.scratch<std::uint32_t>({candidates.size()});
        first_of_each(candidates, starts, keep, limit);
        static const VariableOutput<int4, int4, std::uint32_t> kept(
            "collide_keep", [](const Expr<int4>& c, const Int& i, Emitter<int4>& emit, const Array<std::uint32_t>& keep) {
                If(keep.load(i) != 0u, [&] { emit(c); });
            });
        candidates = kept(candidates, keep);
        count_found(candidates, result.counts, full, 0);
    }
    to_faces(candidates, a.bvh(), b.bvh());
    result.pairs = candidates;
    return result;
}

}  // namespace rill::collision
