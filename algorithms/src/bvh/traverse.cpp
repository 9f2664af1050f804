// Closest-hit and any-hit traversal of ray streams (rill/algorithms/bvh.h):
// one invocation per ray, a stack in a rill::Local array, Woop, Benthin and
// Wald's watertight ray-triangle test.
#include <rill/algorithms/bvh.h>
#include <rill/algorithms/detail/dense_streams.h>
#include <rill/algorithms/variable_output.h>

#include <string>
#include <utility>

namespace rill::bvh {

namespace {

constexpr int kWorkgroup = 64;
/// The tree is at most 63 deep (bvh.h): the stack never holds more.
constexpr int kStack = 64;

/// What the ray-triangle test needs of a ray, computed once per ray (Woop
/// et al. 2013, section 3): the axis where the direction is largest becomes
/// z, and a shear maps the direction onto it.
struct RayFrame {
    Expr<float3> origin;
    Expr<bool> x_is_0, x_is_1, y_is_0, y_is_1, z_is_0, z_is_1;  // kx, ky, kz as masks
    Expr<float> sx, sy, sz;
    Expr<float3> inverse;  // 1 / direction, with zero components nudged off zero

    Expr<float> pick(const Expr<float3>& v, const Expr<bool>& is_0, const Expr<bool>& is_1) const {
        return select(is_0, v.x(), select(is_1, v.y(), v.z()));
    }
};

RayFrame ray_frame(const Float3& o, const Float3& d) {
    Float3 ad = abs(d);
    Int kz = select(ad.x() >= ad.y(), select(ad.x() >= ad.z(), Int(0), Int(2)), select(ad.y() >= ad.z(), Int(1), Int(2)));
    Int kx0 = (kz + 1) % 3;
    Int ky0 = (kx0 + 1) % 3;
    Float dz = select(kz == 0, d.x(), select(kz == 1, d.y(), d.z()));
    // Swapping x and y keeps the winding for a direction along -z.
    Int kx = select(dz < 0.0f, ky0, kx0), ky = select(dz < 0.0f, kx0, ky0);
    Float dx = select(kx == 0, d.x(), select(kx == 1, d.y(), d.z()));
    Float dy = select(ky == 0, d.x(), select(ky == 1, d.y(), d.z()));
    Float3 nudged = select(ad >= Float3(1e-30f), d, select(d >= Float3(0.0f), Float3(1e-30f), Float3(-1e-30f)));
    return RayFrame{o, kx == 0, kx == 1, ky == 0, ky == 1, kz == 0, kz == 1, dx / dz, dy / dz, 1.0f / dz,
                    Float3(1.0f) / nudged};
}

/// The ray's entry distance into the box, and whether it enters it within
/// [t_min, t_max]. The far distance is scaled up by 1 + 2 gamma(3) (Ize 2013)
/// so that rounding never culls a box the ray touches.
///
/// Each axis's two distances are ordered by min and max. Picking the near and
/// far planes by the ray's signs instead (no min of maxes, the pattern rill
/// hands NVIDIA's OpenGL through opaque operands) gave the same distances but
/// slower rays through OpenGL: the subdivided bunny's 0.355 / 0.281 / 0.396 ms
/// against 0.344 / 0.270 / 0.380 (primary / shadow / bounce, H100, 2026-12-07,
/// docs/PERFORMANCE.md#ray-tracing).
struct BoxHit {
    Expr<float> t;
    Expr<bool> hit;
};
BoxHit box_hit(const RayFrame& r, const Float4& lo, const Float4& hi, const Expr<float>& t_min, const Expr<float>& t_max) {
    Float3 a = (lo.xyz() - r.origin) * r.inverse, b = (hi.xyz() - r.origin) * r.inverse;
    Float3 near = min(a, b), far = max(a, b);
    Float t_near = max(max(near.x(), near.y()), max(near.z(), t_min));
    Float t_far = min(min(far.x(), far.y()), far.z()) * 1.00000024f;
    return BoxHit{t_near, t_near <= min(t_far, t_max)};
}

/// Woop et al.'s test of leaf `leaf`; on a hit nearer than t_max, updates
/// t_max, u, v and face. rill keeps float arithmetic uncontracted, so the
/// edge functions of a shared edge are exact negations in its two faces.
void intersect(const RayFrame& r, const Array<float4>& triangles, const Expr<std::int32_t>& leaf, const Expr<float>& t_min,
               Var<float>& t_max, Var<float>& u, Var<float>& v, Var<std::int32_t>& face) {
    Float4 a4 = triangles.load(3 * leaf), b4 = triangles.load(3 * leaf + 1), c4 = triangles.load(3 * leaf + 2);
    Float3 A = a4.xyz() - r.origin, B = b4.xyz() - r.origin, C = c4.xyz() - r.origin;
    Float az = r.pick(A, r.z_is_0, r.z_is_1), bz = r.pick(B, r.z_is_0, r.z_is_1), cz = r.pick(C, r.z_is_0, r.z_is_1);
    Float ax = r.pick(A, r.x_is_0, r.x_is_1) - r.sx * az, ay = r.pick(A, r.y_is_0, r.y_is_1) - r.sy * az;
    Float bx = r.pick(B, r.x_is_0, r.x_is_1) - r.sx * bz, by = r.pick(B, r.y_is_0, r.y_is_1) - r.sy * bz;
    Float cx = r.pick(C, r.x_is_0, r.x_is_1) - r.sx * cz, cy = r.pick(C, r.y_is_0, r.y_is_1) - r.sy * cz;
    Float U = cx * by - cy * bx;
    Float V = ax * cy - ay * cx;
    Float W = bx * ay - by * ax;
    Bool outside = (U < 0.0f || V < 0.0f || W < 0.0f) && (U > 0.0f || V > 0.0f || W > 0.0f);
    Float det = U + V + W;
    Float T = U * (r.sz * az) + V * (r.sz * bz) + W * (r.sz * cz);
    Float t = T / det;
    If(!outside && det != 0.0f && t >= t_min && t < t_max, [&] {
        t_max = t;
        u = V / det;
        v = W / det;
        face = float_bits_to_int(a4.w());
    });
}

/// Walks the tree for one ray, nearer child first; `on_leaf` tests a leaf
/// and, for an any-hit walk (kStops), says whether to stop.
template <bool kStops, class OnLeaf>
void traverse(const RayFrame& r, const Array<float4>& nodes, const Expr<float>& t_min, const Var<float>& t_max,
              OnLeaf&& on_leaf) {
    Local<std::int32_t> stack(kStack);
    Var<std::int32_t> node = 0;
    Var<std::int32_t> depth = 0;
    While([&] { return depth >= 0; }, [&] {  // until a Break
        Float4 lo0 = nodes.load(4 * node), hi0 = nodes.load(4 * node + 1);
        Float4 lo1 = nodes.load(4 * node + 2), hi1 = nodes.load(4 * node + 3);
        Int c0 = float_bits_to_int(lo0.w()), c1 = float_bits_to_int(lo1.w());
        BoxHit h0 = box_hit(r, lo0, hi0, t_min, t_max), h1 = box_hit(r, lo1, hi1, t_min, t_max);
        Bool real0 = c0 != kNoChild, real1 = c1 != kNoChild;
        if constexpr (kStops) {
            Var<bool> stop = false;
            If(h0.hit && real0 && c0 < 0, [&] { stop = on_leaf(~c0); });
            If(!stop && h1.hit && real1 && c1 < 0, [&] { stop = on_leaf(~c1); });
            If(stop, [&] { Break(); });
        } else {
            If(h0.hit && real0 && c0 < 0, [&] { on_leaf(~c0); });
            If(h1.hit && real1 && c1 < 0, [&] { on_leaf(~c1); });
        }
        Bool go0 = h0.hit && c0 >= 0, go1 = h1.hit && c1 >= 0;
        If(go0 && go1, [&] {
            Bool first0 = h0.t <= h1.t;
            stack.store(depth, select(first0, c1, c0));
            depth = depth + 1;
            node = select(first0, c0, c1);
        }).Elif(go0, [&] { node = c0; }).Elif(go1, [&] { node = c1; }).Else([&] {
            If(depth == 0, [&] { Break(); });
            depth = depth - 1;
            node = stack.load(depth);
        });
    });
}

void check_rays(const char* who, const Bvh& tree, const Stream<float4>& origins, const Stream<float4>& directions,
                const StreamBase& out, const char* out_name) {
    if (tree.of_boxes())
        throw Error(std::string(who) + ": the tree was built from boxes and has no triangles to hit; trace rays through a "
                    "tree of triangles (Bvh::build), or find boxes with rill::bvh::overlaps");
    auto dense = [&](const StreamBase& s, const char* name) {
        rill::detail::require_runtime_of(who, s, name, tree.nodes(), "the tree");
        rill::detail::require_dense(who, s, name);
    };
    dense(origins, "origins");
    dense(directions, "directions");
    dense(out, out_name);
    if (directions.size() != origins.size() || out.size() != origins.size())
        throw Error(std::string(who) + ": origins has " + std::to_string(origins.size()) + " rays, directions " +
                    std::to_string(directions.size()) + " and " + out_name + " " + std::to_string(out.size()) +
                    "; give one direction and one result per origin");
    if (origins.size() >= (std::int64_t{1} << 31))
        throw Error(std::string(who) + ": " + std::to_string(origins.size()) + " rays; give fewer than 2^31 per call");
}

}  // namespace

namespace {

/// The kernel of closest_hit (kAny false: hits get (t, u, v, face)) or of
/// any_hit (kAny: stops at the first hit; results get 1 or 0).
template <bool kAny, class Result>
void trace(const char* who, const char* result_name, const Bvh& tree, const Stream<float4>& origins,
           const Stream<float4>& directions, const Stream<Result>& results) {
    check_rays(who, tree, origins, directions, results, result_name);
    static const auto kernel = group_kernel<kWorkgroup>(
        kAny ? "bvh_any_hit(nodes, triangles, origins, directions, occluded)"
             : "bvh_closest_hit(nodes, triangles, origins, directions, hits)",
        // Without rill's bounds checks: a ray reads only the nodes and
        // triangles its tree's own child and leaf indices name, and its own
        // element (checked on every test input: RILL_CPU_VERIFY_UNCHECKED in
        // ctest's cpu_native_Bvh). The subdivided bunny's rays went from 0.93 /
        // 0.90 / 1.01 of the Vulkan RT pipeline (checked, H200) to 1.07 / 1.02 /
        // 1.16 (H100), through OpenGL from 0.64 / 0.49 / 0.59 to 0.70 / 0.60 /
        // 0.70 (docs/PERFORMANCE.md#ray-tracing).
        GroupOptions{.unchecked_arrays = true},
        [](Array<float4> nodes, Array<float4> triangles, Array<float4> origins, Array<float4> directions, Array<Result> out) {
            Int i = global_id();
            If(i < origins.size(), [&] {
                Float4 o = origins.load(i), d = directions.load(i);
                RayFrame r = ray_frame(o.xyz(), d.xyz());
                Float t_min = o.w();
                Var<float> t_max = d.w();
                Var<float> u = 0.0f, v = 0.0f;
                Var<std::int32_t> face = -1;
                traverse<kAny>(r, nodes, t_min, t_max, [&](const Expr<std::int32_t>& leaf) {
                    intersect(r, triangles, leaf, t_min, t_max, u, v, face);
                    if constexpr (kAny) return face >= 0;
                });
                if constexpr (kAny) out.store(i, select(face >= 0, 1u, 0u));
                else out.store(i, Float4(t_max, u, v, int_bits_to_float(face)));
            });
        });
    const std::int64_t n = origins.size();
    if (n == 0) return;
    kernel(Groups{(n + kWorkgroup - 1) / kWorkgroup}, tree.nodes(), tree.triangles(), origins.reshape({n}),
           directions.reshape({n}), results.reshape({n}));
}

}  // namespace

void closest_hit(const Bvh& tree, const Stream<float4>& origins, const Stream<float4>& directions, const Stream<float4>& hits) {
    trace<false>("rill::bvh::closest_hit", "hits", tree, origins, directions, hits);
}

void any_hit(const Bvh& tree, const Stream<float4>& origins, const Stream<float4>& directions,
             const Stream<std::uint32_t>& occluded) {
    trace<true>("rill::bvh::any_hit", "occluded", tree, origins, directions, occluded);
}

namespace {

/// Whether the closed boxes [alo, ahi] and [blo, bhi] share a point.
Expr<bool> boxes_meet(const Float3& alo, const Float3& ahi, const Float3& blo, const Float3& bhi) {
    return all(alo <= bhi) && all(blo <= ahi);
}

/// One query box's walk: every leaf whose box meets it, in the tree's order
/// (left child first), emitted as (query, leaf's face or box). Stackless:
/// a node's children are tested when it is reached, leaves emitted there;
/// the walk descends into the first internal child that meets the query,
/// and where none does it climbs the parents until it comes up from a left
/// child whose right sibling is internal and meets the query. A stack in a
/// Local array would take 64 words per invocation of a VariableOutput's
/// workgroup of 256, more than a device's shared memory.
using OverlapWalk = VariableOutput<float4, int2, float4, float4, std::int32_t, std::int32_t>;
const OverlapWalk& overlap_walk() {
    static const OverlapWalk walk("bvh_overlaps", [](const Float4& lo4, const Int& i, Emitter<int2>& emit,
                                                     const Array<float4>& his, const Array<float4>& nodes,
                                                     const Array<std::int32_t>& leaf_ids, const Array<std::int32_t>& parents) {
        Float3 lo = lo4.xyz(), hi = his.load(i).xyz();
        // A child that exists and meets the query (a leaf's box also not
        // empty: a refit may have turned it inside out).
        auto meets = [&](const Int& c, const Float4& clo, const Float4& chi) {
            return c != kNoChild && boxes_meet(lo, hi, clo.xyz(), chi.xyz()) && (c >= 0 || all(clo.xyz() <= chi.xyz()));
        };
        // An empty or NaN query meets nothing (lo <= hi is false for both).
        If(all(lo <= hi), [&] {
            Var<std::int32_t> node = 0;
            While([&] { return node >= 0; }, [&] {  // until a Break
                Float4 lo0 = nodes.load(4 * node), hi0 = nodes.load(4 * node + 1);
                Float4 lo1 = nodes.load(4 * node + 2), hi1 = nodes.load(4 * node + 3);
                Int c0 = float_bits_to_int(lo0.w()), c1 = float_bits_to_int(lo1.w());
                Bool in0 = meets(c0, lo0, hi0), in1 = meets(c1, lo1, hi1);
                If(in0 && c0 < 0, [&] { emit(Int2(i, leaf_ids.load(~c0))); });
                If(in1 && c1 < 0, [&] { emit(Int2(i, leaf_ids.load(~c1))); });
                If(in0 && c0 >= 0, [&] { node = c0; }).Elif(in1 && c1 >= 0, [&] { node = c1; }).Else([&] {
                    Var<std::int32_t> from = node;
                    Var<bool> done = true;
                    While([&] { return from != 0; }, [&] {
                        Int up = parents.load(from), p = up / 2;
                        Float4 rlo = nodes.load(4 * p + 2), rhi = nodes.load(4 * p + 3);
                        Int right = float_bits_to_int(rlo.w());
                        If(up % 2 == 0 && right >= 0 && meets(right, rlo, rhi), [&] {
                            node = right;
                            done = false;
                            Break();
                        });
                        from = p;
                    });
                    If(done, [&] { Break(); });
                });
            });
        });
    });
    return walk;
}

void check_queries(const char* who, const Bvh& tree, const Stream<float4>& lo, const Stream<float4>& hi) {
    for (const auto& [s, name] : {std::pair<const StreamBase*, const char*>{&lo, "lo"}, {&hi, "hi"}}) {
        rill::detail::require_runtime_of(who, *s, name, tree.nodes(), "the tree");
        rill::detail::require_dense(who, *s, name);
    }
    if (lo.size() != hi.size())
        throw Error(std::string(who) + ": lo has " + std::to_string(lo.size()) + " query boxes and hi " +
                    std::to_string(hi.size()) + "; give one hi corner per lo corner");
}

}  // namespace

Stream<int2> overlaps(const Bvh& tree, const Stream<float4>& lo, const Stream<float4>& hi) {
    check_queries("rill::bvh::overlaps", tree, lo, hi);
    const std::int64_t n = lo.size();
    if (tree.triangle_count() == 0 || n == 0) return Runtime::of(lo).stream<int2>({0});
    return overlap_walk()(lo.reshape({n}), hi.reshape({n}), tree.nodes(), tree.leaf_faces(), tree.parents());
}

void overlaps(const Bvh& tree, const Stream<float4>& lo, const Stream<float4>& hi, const Stream<int2>& pairs,
              const Stream<std::uint32_t>& count) {
    const char* who = "rill::bvh::overlaps";
    check_queries(who, tree, lo, hi);
    rill::detail::require_runtime_of(who, pairs, "pairs", tree.nodes(), "the tree");
    rill::detail::require_dense(who, pairs, "pairs");
    rill::detail::require_runtime_of(who, count, "count", tree.nodes(), "the tree");
    if (count.size() != 1)
        throw Error(std::string(who) + ": count has " + std::to_string(count.size()) +
                    " elements; pass a Stream<uint32_t> of one element");
    const std::int64_t n = lo.size();
    if (tree.triangle_count() == 0 || n == 0) {
        Stream<std::uint32_t>(count).upload(std::vector<std::uint32_t>{0});
        return;
    }
    overlap_walk()(lo.reshape({n}), pairs.reshape({pairs.size()}), count, hi.reshape({n}), tree.nodes(), tree.leaf_faces(),
                   tree.parents());
}

}  // namespace rill::bvh
