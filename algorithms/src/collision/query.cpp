// The collision query (rill/algorithms/collision.h): breadth first, a stream
// of candidate pairs per level, tested, expanded and compacted (a scan of
// per-candidate masks) on the device, as in Horn's GPU Gems 2 chapter 36; or,
// with a limit of pairs per pose, depth first, a pose per invocation.
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

// One level of the traversal is a compaction (Horn, section 36.1) in three
// kernels and a scan: `test` gives each candidate a mask of what it emits
// (bit 4: itself as a found pair; bits 0-3: the pairs of its children whose
// boxes overlap), rill's inclusive scan of the masks' sizes places the
// emits, `write` moves them. Candidates in the stream are pairs whose boxes
// overlap (the roots excepted): each box test is made once, at the parent.
// The count of candidates stays on the device: kernels run over a bound the
// host knows (at most 4 emits per candidate) and read the count there, so a
// level reads nothing back until the bound passes kReadBackAbove.
constexpr std::int64_t kReadBackAbove = std::int64_t{1} << 14;
// Queries of at most kSmallBatch poses run their levels in one workgroup
// while a level's candidates fit kSmallCapacity / 4.
constexpr std::int64_t kSmallBatch = 16;
constexpr std::int64_t kSmallCapacity = std::int64_t{1} << 16;
constexpr std::uint32_t kSelf = 16u;

/// The arrays of the two trees and the poses, as the level kernels bind them.
struct Scene {
    const Array<float4>& boxes_a;
    const Array<float4>& nodes_a;
    const Array<float4>& triangles_a;
    const Array<float4>& boxes_b;
    const Array<float4>& nodes_b;
    const Array<float4>& triangles_b;
    const Array<float4>& poses;
    const Array<std::uint32_t>& full;
};

/// What candidate c emits (see above).
Expr<std::uint32_t> candidate_mask(const Int4& c, const Scene& s) {
    Var<std::uint32_t> mask = 0u;
    Int pose_id = c.x(), a = c.y(), b = c.z();
    If(c.w() == kFound, [&] { mask = kSelf; }).Elif(c.w() == kTest && s.full.load(pose_id) == 0u, [&] {
        detail::Pose pose{{s.poses.load(3 * pose_id), s.poses.load(3 * pose_id + 1), s.poses.load(3 * pose_id + 2)}};
        If(a < 0 && b < 0, [&] {
            std::array<Float3, 3> q = triangle(s.triangles_b, ~b);
            for (auto& v : q) v = pose.apply(v);
            If(!detail::triangles_apart(triangle(s.triangles_a, ~a), q), [&] { mask = kSelf; });
        }).Else([&] {
            std::array<Int, 2> ca = children(s.nodes_a, a), cb = children(s.nodes_b, b);
            for (int k = 0; k < 2; ++k) {
                If(ca[k] != kNoChild, [&] {
                    detail::Box box_a = detail::load_box(s.boxes_a, box_index(s.nodes_a, ca[k]));
                    for (int l = 0; l < 2; ++l)
                        If(cb[l] != kNoChild, [&] {
                            detail::Box box_b = detail::posed(pose, detail::load_box(s.boxes_b, box_index(s.nodes_b, cb[l])));
                            If(!detail::boxes_apart(box_a, box_b), [&] { mask = mask | (1u << (2 * k + l)); });
                        });
                });
            }
        });
    });
    return mask;
}

/// Writes what candidate c emits under `mask`, from out[at] on.
void emit_candidate(const Int4& c, const Expr<std::uint32_t>& mask, const Expr<std::int32_t>& first, const Array<int4>& out,
                    const Array<float4>& nodes_a, const Array<float4>& nodes_b) {
    If(mask != 0u, [&] {
        Var<std::int32_t> at = first;
        If((mask & kSelf) != 0u, [&] {
            out.store(at, Int4(c.x(), c.y(), c.z(), kFound));
            at = at + 1;
        });
        std::array<Int, 2> ca = children(nodes_a, c.y()), cb = children(nodes_b, c.z());
        for (int k = 0; k < 2; ++k)
            for (int l = 0; l < 2; ++l)
                If((mask & (1u << (2 * k + l))) != 0u, [&] {
                    out.store(at, Int4(c.x(), ca[k], cb[l], kTest));
                    at = at + 1;
                });
    });
}

const auto& test_kernel() {
    static const auto kernel = group_kernel<kWorkgroup>(
        "collide_test(candidates, count, bound, masks, sizes, boxes_a, nodes_a, triangles_a, boxes_b, nodes_b, triangles_b, poses, full)",
        [](Array<int4> candidates, Array<std::uint32_t> count, Int bound, Array<std::uint32_t> masks, Array<std::uint32_t> sizes,
           Array<float4> boxes_a, Array<float4> nodes_a, Array<float4> triangles_a, Array<float4> boxes_b, Array<float4> nodes_b,
           Array<float4> triangles_b, Array<float4> poses, Array<std::uint32_t> full) {
            Int i = global_id();
            If(i < bound, [&] {
                Var<std::uint32_t> mask = 0u;
                If(i < cast<std::int32_t>(count.load(0)), [&] {
                    mask = candidate_mask(candidates.load(i), Scene{boxes_a, nodes_a, triangles_a, boxes_b, nodes_b, triangles_b, poses, full});
                });
                masks.store(i, mask);
                sizes.store(i, cast<std::uint32_t>(bit_count(mask)));
            });
        });
    return kernel;
}

/// A whole level in one workgroup, for queries of a few poses: chunks of
/// 256 candidates tested, their emits placed by a scan in shared memory,
/// written, the next count left on the device. A level whose candidates
/// could emit more than `next` holds sets state[0] and writes nothing; the
/// levels after it then do nothing either, and the host goes on from that
/// level's input with the multi-kernel levels. state[1] = that level,
/// state[2] = the last count written.
const auto& small_level_kernel() {
    static const auto kernel = group_kernel<kWorkgroup>(
        "collide_small_level(candidates, count, next, next_count, state, stats, level, boxes_a, nodes_a, triangles_a, boxes_b, "
        "nodes_b, triangles_b, poses, full)",
        [](Array<int4> candidates, Array<std::uint32_t> count, Array<int4> next, Array<std::uint32_t> next_count,
           Array<std::uint32_t> state, Array<std::uint32_t> stats, Int level, Array<float4> boxes_a, Array<float4> nodes_a,
           Array<float4> triangles_a, Array<float4> boxes_b, Array<float4> nodes_b, Array<float4> triangles_b,
           Array<float4> poses, Array<std::uint32_t> full) {
            Shared<std::uint32_t> sums(kWorkgroup);
            Int l = local_id();
            Int n = cast<std::int32_t>(count.load(0));
            Bool skipped = state.load(0) != 0u;
            Bool overflows = n > next.size() / 4;
            If(!skipped && overflows && l == 0, [&] {
                state.store(0, 1u);
                state.store(1, cast<std::uint32_t>(level));
            });
            If(!skipped && !overflows, [&] {
                const Scene scene{boxes_a, nodes_a, triangles_a, boxes_b, nodes_b, triangles_b, poses, full};
                Var<std::int32_t> base = 0;
                For(0, (n + (kWorkgroup - 1)) / kWorkgroup, [&](Int chunk) {
                    Int i = chunk * kWorkgroup + l;
                    Int4 c = candidates.load(i);
                    Var<std::uint32_t> mask = 0u;
                    If(i < n, [&] { mask = candidate_mask(c, scene); });
                    UInt own = cast<std::uint32_t>(bit_count(mask));
                    sums.store(l, own);
                    barrier();
                    for (int d = 1; d < kWorkgroup; d *= 2) {  // Hillis-Steele, inclusive
                        UInt left = select(l >= d, sums.load(l - d), UInt(0u));
                        barrier();
                        sums.store(l, sums.load(l) + left);
                        barrier();
                    }
                    UInt ends = sums.load(l);
                    UInt total = sums.load(kWorkgroup - 1);
                    barrier();
                    emit_candidate(c, mask, base + cast<std::int32_t>(ends - own), next, nodes_a, nodes_b);
                    base = base + cast<std::int32_t>(total);
                });
                If(l == 0, [&] {
                    next_count.store(0, cast<std::uint32_t>(base));
                    stats.store(level, cast<std::uint32_t>(n));
                    state.store(2, cast<std::uint32_t>(base));
                });
            });
        });
    return kernel;
}

/// next_count[0] = where the last candidate's emits end (the next level's
/// count); stats[level] = this level's count.
const auto& total_kernel() {
    static const auto kernel = group_kernel<64>(
        "collide_total(count, ends, next_count, stats, level)",
        [](Array<std::uint32_t> count, Array<std::uint32_t> ends, Array<std::uint32_t> next_count, Array<std::uint32_t> stats,
           Int level) {
            If(global_id() == 0, [&] {
                UInt n = count.load(0);
                next_count.store(0, select(n > 0u, ends.load(cast<std::int32_t>(n) - 1), UInt(0u)));
                stats.store(level, n);
            });
        });
    return kernel;
}

const auto& write_kernel() {
    static const auto kernel = group_kernel<kWorkgroup>(
        "collide_write(candidates, count, bound, masks, ends, out, nodes_a, nodes_b)",
        [](Array<int4> candidates, Array<std::uint32_t> count, Int bound, Array<std::uint32_t> masks, Array<std::uint32_t> ends,
           Array<int4> out, Array<float4> nodes_a, Array<float4> nodes_b) {
            Int i = global_id();
            If(i < cast<std::int32_t>(count.load(0)) && i < bound, [&] {
                // ends[-1] reads 0
                emit_candidate(candidates.load(i), masks.load(i), cast<std::int32_t>(ends.load(i - 1)), out, nodes_a, nodes_b);
            });
        });
    return kernel;
}

/// counts[p] = found pairs of pose p among the first count[0] candidates
/// (poses of count -1 stay -1; `every`: each element is a found pair, as in
/// the result's pairs); with limit > 0, full[p] = 1 once pose p has `limit`.
void count_found(const Stream<int4>& candidates, const Stream<std::uint32_t>& count, std::int64_t bound,
                 const Stream<std::int32_t>& counts, const Stream<std::uint32_t>& full, std::int64_t limit, bool every = false) {
    static const auto reset = group_kernel<kWorkgroup>("collide_reset(counts)", [](Array<std::int32_t> counts) {
        Int p = global_id();
        If(p < counts.size() && counts.load(p) > 0, [&] { counts.store(p, 0); });
    });
    static const auto add = group_kernel<kWorkgroup>("collide_count(candidates, count, counts, every)",
                                                     [](Array<int4> candidates, Array<std::uint32_t> count, Array<std::int32_t> counts, Int every) {
        Int i = global_id();
        If(i < cast<std::int32_t>(count.load(0)) && i < candidates.size(), [&] {
            Int4 c = candidates.load(i);
            If(c.w() == kFound || every != 0, [&] { counts.atomic_add(c.x(), 1); });
        });
    });
    static const auto mark = group_kernel<kWorkgroup>(
        "collide_full(counts, full, limit)", [](Array<std::int32_t> counts, Array<std::uint32_t> full, Int limit) {
            Int p = global_id();
            If(p < counts.size(), [&] { full.store(p, select(limit > 0 && counts.load(p) >= limit, 1u, 0u)); });
        });
    reset(Groups{groups_for(counts.size())}, counts);
    if (bound > 0) add(Groups{groups_for(bound)}, candidates, count, counts, every ? 1 : 0);
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

/// The found pairs' leaves as input face indices: (pose, face of a, face of b, 0).
void to_faces(const Stream<int4>& found, const Stream<int4>& pairs, const bvh::Bvh& a, const bvh::Bvh& b) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "collide_faces(found, pairs, triangles_a, triangles_b)",
        [](Array<int4> found, Array<int4> pairs, Array<float4> ta, Array<float4> tb) {
            Int i = global_id();
            If(i < pairs.size(), [&] {
                Int4 c = found.load(i);
                pairs.store(i, Int4(c.x(), float_bits_to_int(ta.load(3 * ~c.y()).w()), float_bits_to_int(tb.load(3 * ~c.z()).w()), 0));
            });
        });
    if (pairs.size() > 0) kernel(Groups{groups_for(pairs.size())}, found, pairs, a.triangles(), b.triangles());
}

// Depth first, one invocation per pose (QueryOptions::Traversal): a stack of
// node pairs in a per-invocation array; a pair is popped, and its children's
// pairs whose boxes overlap are pushed (both trees descending at once, as in
// the breadth-first levels), or, for two leaves, their triangles tested. A
// pose stops at its limit, where breadth first would still test every
// overlapping pair of the level it found its first pair in. A walk of depth d
// keeps at most 3 d + 4 pairs on the stack.
constexpr int kDepthFirstWorkgroup = 16;
constexpr int kDepthFirstStack = 128;
constexpr int kDeepestDepthFirst = (kDepthFirstStack - 4) / 3 - 1;  // tree height whose walk fits the stack
constexpr std::int64_t kDepthFirstSlots = std::int64_t{1} << 28;   // poses x limit

/// Whether a query walks depth first (QueryOptions::Traversal says when).
/// Automatically for limits of up to kMostDepthFirstPairs: there it was faster
/// on every device measured, from one pose to 10^4 and limits of 1 and 32
/// (H200 through Vulkan and OpenGL 1.3-3.3x, lavapipe 15-32x; the CPU backend
/// 28x at 10^3 poses and a limit of 1: docs/PERFORMANCE.md#collision-detection).
/// A larger limit walks one pose's many pairs one after another, where
/// breadth first tests them at once, and no limit at all (two walks, one to
/// count) was slower on the CPU as well. The walks' output, `limit` pairs
/// per pose, must fit one of the device's buffers (lavapipe's hold 128 MiB).
constexpr std::int64_t kMostDepthFirstPairs = 32;
bool depth_first(const Runtime& rt, const QueryOptions& options, int height, std::int64_t n_poses) {
    using T = QueryOptions::Traversal;
    const std::int64_t limit = options.max_pairs_per_pose;
    if (options.traversal == T::breadth_first || limit == 0 || height > kDeepestDepthFirst || limit >= kDepthFirstSlots / n_poses)
        return false;
    const std::uint64_t max_bytes = rt.info().limits.max_buffer_bytes;
    if (max_bytes != 0 && static_cast<std::uint64_t>(n_poses * limit) * sizeof(int4) > max_bytes) return false;
    return options.traversal == T::depth_first || limit <= kMostDepthFirstPairs;
}

/// found[p * limit + j] = pose p's j-th pair found (p, leaf of a, leaf of b,
/// kFound), counts[p] = how many, for the poses whose count is 0 (rigid).
const auto& depth_first_kernel() {
    static const auto kernel = group_kernel<kDepthFirstWorkgroup>(
        "collide_depth_first(found, counts, limit, boxes_a, nodes_a, triangles_a, boxes_b, nodes_b, triangles_b, poses)",
        [](Array<int4> found, Array<std::int32_t> counts, Int limit, Array<float4> boxes_a, Array<float4> nodes_a,
           Array<float4> triangles_a, Array<float4> boxes_b, Array<float4> nodes_b, Array<float4> triangles_b,
           Array<float4> poses) {
            Local<int2> stack(kDepthFirstStack);
            Int p = global_id();
            If(p < counts.size() && counts.load(p) == 0, [&] {
                detail::Pose pose{{poses.load(3 * p), poses.load(3 * p + 1), poses.load(3 * p + 2)}};
                stack.store(0, Int2(0, 0));
                Var<std::int32_t> top = 1, n = 0;
                While([&] { return top > 0 && n < limit; }, [&] {
                    top = top - 1;
                    Int2 c = stack.load(top);
                    Int a = c.x(), b = c.y();
                    If(a < 0 && b < 0, [&] {
                        std::array<Float3, 3> q = triangle(triangles_b, ~b);
                        for (auto& v : q) v = pose.apply(v);
                        If(!detail::triangles_apart(triangle(triangles_a, ~a), q), [&] {
                            found.store(p * limit + n, Int4(p, a, b, kFound));
                            n = n + 1;
                        });
                    }).Else([&] {
                        std::array<Int, 2> ca = children(nodes_a, a), cb = children(nodes_b, b);
                        for (int k = 0; k < 2; ++k)
                            If(ca[k] != kNoChild, [&] {
                                detail::Box box_a = detail::load_box(boxes_a, box_index(nodes_a, ca[k]));
                                for (int l = 0; l < 2; ++l)
                                    If(cb[l] != kNoChild, [&] {
                                        detail::Box box_b = detail::posed(pose, detail::load_box(boxes_b, box_index(nodes_b, cb[l])));
                                        If(!detail::boxes_apart(box_a, box_b), [&] {
                                            stack.store(top, Int2(ca[k], cb[l]));
                                            top = top + 1;
                                        });
                                    });
                            });
                    });
                });
                counts.store(p, n);
            });
        });
    return kernel;
}

/// sizes[p] = the pairs of pose p (counts[p], 0 where it is -1).
void pair_counts(const Stream<std::int32_t>& counts, const Stream<std::uint32_t>& sizes) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "collide_nonnegative(counts, sizes)", [](Array<std::int32_t> counts, Array<std::uint32_t> sizes) {
            Int p = global_id();
            If(p < counts.size(), [&] { sizes.store(p, cast<std::uint32_t>(max(counts.load(p), Int(0)))); });
        });
    kernel(Groups{groups_for(counts.size())}, counts, sizes);
}

/// The pairs of a depth-first query: each pose's found pairs (at most limit,
/// from found[p * limit] on) placed after those of the poses before it.
Stream<int4> gather_depth_first(Runtime& rt, const Stream<int4>& found, const Stream<std::int32_t>& counts, std::int64_t limit,
                                const bvh::Bvh& a, const bvh::Bvh& b) {
    static const auto place = group_kernel<kWorkgroup>(
        "collide_place(found, counts, ends, limit, pairs)",
        [](Array<int4> found, Array<std::int32_t> counts, Array<std::uint32_t> ends, Int limit, Array<int4> pairs) {
            Int i = global_id();
            If(i < found.size(), [&] {
                Int p = i / limit, j = i % limit;
                Int n = counts.load(p);
                If(j < n, [&] { pairs.store(cast<std::int32_t>(ends.load(p)) - n + j, found.load(i)); });
            });
        });
    const std::int64_t n_poses = counts.size();
    Stream<std::uint32_t> ends = rt.scratch<std::uint32_t>({n_poses});
    pair_counts(counts, ends);
    inclusive_scan(ends, ends);
    const std::int64_t total = ends.domain({n_poses - 1}, {n_poses}).download()[0];
    Stream<int4> leaves = rt.scratch<int4>({total});
    if (total > 0) place(Groups{groups_for(found.size())}, found, counts, ends, static_cast<std::int32_t>(limit), leaves);
    Stream<int4> pairs = rt.scratch<int4>({total});
    to_faces(leaves, pairs, a, b);
    return pairs;
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
    // A few poses (every pair): levels of one workgroup, no read-back until
    // the end unless a level outgrows kSmallCapacity.
    const bool small = options.max_pairs_per_pose == 0 && n_poses <= kSmallBatch;
    const std::int64_t first_capacity = small ? kSmallCapacity : 1;
    Stream<int4> candidates = rt.scratch<int4>({std::max<std::int64_t>(n_poses, first_capacity)});
    const Stream<float4> flat_poses = poses.reshape({poses.size()});
    if (n_poses > 0) start(flat_poses, candidates, result.counts);
    const bool empty = a.triangle_count() == 0 || b.triangle_count() == 0 || n_poses == 0;
    if (!empty && depth_first(rt, options, std::max(a.height(), b.height()), n_poses)) {
        const std::int64_t limit = options.max_pairs_per_pose;
        Stream<int4> found = rt.scratch<int4>({n_poses * limit});
        depth_first_kernel()(Groups{(n_poses + kDepthFirstWorkgroup - 1) / kDepthFirstWorkgroup}, found, result.counts,
                             static_cast<std::int32_t>(limit), a.boxes(), a.bvh().nodes(), a.bvh().triangles(), b.boxes(),
                             b.bvh().nodes(), b.bvh().triangles(), flat_poses);
        result.pairs = gather_depth_first(rt, found, result.counts, limit, a.bvh(), b.bvh());
        return result;
    }
    // The level's buffers grow to what a level needs and are reused after
    // (allocating them per level took longer than a small level's kernels).
    auto grow = [&rt]<class T>(Stream<T>& buffer, std::int64_t n) {
        if (buffer.size() < n) buffer = rt.template scratch<T>({std::max(n, 2 * buffer.size())});
    };
    Stream<int4> next = rt.scratch<int4>({first_capacity});
    Stream<std::uint32_t> masks = rt.scratch<std::uint32_t>({1}), ends = rt.scratch<std::uint32_t>({1});
    Stream<std::uint32_t> full = rt.stream<std::uint32_t>({std::max<std::int64_t>(n_poses, 1)});
    const std::int64_t limit = options.max_pairs_per_pose;
    // A pair of leaves at depth d is made at level d - 1 and tested at level d.
    const int levels = empty ? 0 : std::max(a.height(), b.height()) + 1;
    Stream<std::uint32_t> count = rt.stream<std::uint32_t>({1}, std::vector<std::uint32_t>{std::uint32_t(empty ? 0 : n_poses)});
    Stream<std::uint32_t> next_count = rt.scratch<std::uint32_t>({1});
    Stream<std::uint32_t> stats = rt.stream<std::uint32_t>({std::max(levels, 1)});
    std::int64_t bound = empty ? 0 : n_poses;  // at least the count on the device
    bool exact = true;                         // the bound is the count
    int level = 0;
    if (small && bound > 0) {
        Stream<std::uint32_t> state = rt.stream<std::uint32_t>({3});
        Stream<int4> buffer[2] = {candidates, next};
        Stream<std::uint32_t> counts[2] = {count, next_count};
        for (int l = 0; l < levels; ++l)
            small_level_kernel()(Groups{1}, buffer[l % 2], counts[l % 2], buffer[(l + 1) % 2], counts[(l + 1) % 2], state, stats, l,
                                 a.boxes(), a.bvh().nodes(), a.bvh().triangles(), b.boxes(), b.bvh().nodes(), b.bvh().triangles(),
                                 flat_poses, full);
        const std::vector<std::uint32_t> s = state.download();
        // Done, or on from the level that outgrew the buffers, with its input.
        level = s[0] ? static_cast<int>(s[1]) : levels;
        candidates = buffer[level % 2];
        next = buffer[(level + 1) % 2];
        count = counts[level % 2];
        next_count = counts[(level + 1) % 2];
        bound = s[0] ? count.download()[0] : s[2];
    }
    for (; level < levels && bound > 0; ++level) {
        if (limit > 0 && level > 0) count_found(candidates, count, bound, result.counts, full, limit);
        grow(masks, bound);
        grow(ends, bound);
        const auto b32 = static_cast<std::int32_t>(bound);
        test_kernel()(Groups{groups_for(bound)}, candidates, count, b32, masks, ends, a.boxes(), a.bvh().nodes(),
                      a.bvh().triangles(), b.boxes(), b.bvh().nodes(), b.bvh().triangles(), flat_poses, full);
        inclusive_scan(ends.domain({0}, {bound}), ends.domain({0}, {bound}));
        total_kernel()(Groups{1}, count, ends, next_count, stats, level);
        std::int64_t capacity = 4 * bound;
        exact = capacity > kReadBackAbove;
        if (exact) capacity = next_count.download()[0];
        if (capacity >= (std::int64_t{1} << 31) - 4096)
            throw Error(std::string(who) + ": " + std::to_string(capacity) + " candidate pairs at level " + std::to_string(level) +
                        "; give fewer poses per call");
        grow(next, std::max<std::int64_t>(capacity, 1));
        write_kernel()(Groups{groups_for(bound)}, candidates, count, b32, masks, ends, next, a.bvh().nodes(), b.bvh().nodes());
        std::swap(candidates, next);
        std::swap(count, next_count);
        bound = capacity;
    }
    const std::int64_t found = exact ? bound : count.download()[0];
    if (level > 0) {
        const std::vector<std::uint32_t> per_level = stats.domain({0}, {level}).download();
        result.candidates_per_level.assign(per_level.begin(), per_level.end());
        // The one-workgroup levels run to the end: the empty ones after the last are not levels.
        while (result.candidates_per_level.size() > 1 && result.candidates_per_level.back() == 0 &&
               result.candidates_per_level[result.candidates_per_level.size() - 2] == 0)
            result.candidates_per_level.pop_back();
    }
    if (n_poses > 0) count_found(candidates, count, found, result.counts, full, 0);
    result.pairs = rt.scratch<int4>({found});
    to_faces(candidates, result.pairs, a.bvh(), b.bvh());
    if (limit > 0 && found > 0) {
        // Poses reach the limit within a level: keep the first `limit` of each.
        Stream<std::uint32_t> starts = rt.scratch<std::uint32_t>({n_poses});
        pair_counts(result.counts, starts);
        exclusive_scan(starts, starts);
        Stream<std::uint32_t> keep = rt.scratch<std::uint32_t>({found});
        first_of_each(result.pairs, starts, keep, limit);
        static const VariableOutput<int4, int4, std::uint32_t> kept(
            "collide_keep", [](const Expr<int4>& c, const Int& i, Emitter<int4>& emit, const Array<std::uint32_t>& keep) {
                If(keep.load(i) != 0u, [&] { emit(c); });
            });
        result.pairs = kept(result.pairs, keep);
        Stream<std::uint32_t> kept_count = rt.stream<std::uint32_t>({1}, std::vector<std::uint32_t>{std::uint32_t(result.pairs.size())});
        count_found(result.pairs, kept_count, result.pairs.size(), result.counts, full, 0, true);
    }
    return result;
}

}  // namespace rill::collision
