// The OBB tree's boxes (rill/algorithms/collision.h), fitted on the device
// over the shape of rill's BVH: moments bottom up, axes by Jacobi rotations,
// extents by atomic extremes, then centres.
#include <rill/algorithms/collision.h>

#include <algorithm>
#include <array>
#include <string>

#include "ordered_bits.h"

namespace rill::collision {

namespace {

constexpr int kWorkgroup = 256;
std::int64_t groups_for(std::int64_t n) { return (n + kWorkgroup - 1) / kWorkgroup; }

/// Internal nodes come first in the parents and boxes arrays (at least the
/// root, even over one triangle), then the leaves.
std::int64_t leaf_base(std::int64_t kept) { return std::max<std::int64_t>(kept - 1, 1); }

/// Every coordinate is taken relative to the middle of the root's first
/// child's box, so that a mesh far from the origin keeps its covariance's
/// digits (any point would be correct).
Float3 reference_point(const Array<float4>& nodes) {
    return (nodes.load(0).xyz() + nodes.load(1).xyz()) * 0.5f;
}

/// Subtrees up to kExactHeight levels get their extents from their
/// triangles' vertices; the nodes above, from the boxes of those subtrees
/// (slightly larger boxes for the few nodes near the root, and each triangle
/// widens at most kExactHeight ancestors instead of every one up to the root).
constexpr int kExactHeight = 10;

/// Levels below internal node `node` (bvh.h keeps each child's in its hi.w).
Expr<float> node_height(const Array<float4>& nodes, const Expr<std::int32_t>& node) {
    return 1.0f + max(nodes.load(4 * node + 1).w(), nodes.load(4 * node + 3).w());
}

/// A triangle's moments about `o`, area-weighted over its surface (RAPID):
/// (area * centroid, area), then the second moments (xx, yy, zz, xy), (xz, yz).
std::array<Float4, 3> triangle_moments(const Float3& p, const Float3& q, const Float3& r) {
    Float area = length(cross(q - p, r - p)) * 0.5f;
    Float3 m = (p + q + r) * (1.0f / 3.0f);
    Float w = area * (1.0f / 12.0f);
    auto second = [&](auto i, auto j) { return w * (9.0f * i(m) * j(m) + i(p) * j(p) + i(q) * j(q) + i(r) * j(r)); };
    auto x = [](const Float3& v) { return Float(v.x()); };
    auto y = [](const Float3& v) { return Float(v.y()); };
    auto z = [](const Float3& v) { return Float(v.z()); };
    return {Float4(m * area, area), Float4(second(x, x), second(y, y), second(z, z), second(x, y)),
            Float4(second(x, z), second(y, z), 0.0f, 0.0f)};
}

/// moments: per internal node, 3 float4 per child side. Each leaf walks to
/// the root; the second child to arrive at a node (an atomic counter) adds
/// its sibling's moments and goes on (as bvh_fit does with boxes).
void moments(const bvh::Bvh& tree, const Stream<std::uint32_t>& arrivals, const Stream<float4>& sums) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "obb_moments(triangles, nodes, parents, arrivals, sums, leaf_base)",
        [](Array<float4> triangles, Array<float4> nodes, Array<std::int32_t> parents, Array<std::uint32_t> arrivals,
           Array<float4> sums, Int leaf_base) {
            Int pos = global_id();
            If(pos < triangles.size() / 3, [&] {
                Float3 o = reference_point(nodes);
                auto own = triangle_moments(triangles.load(3 * pos).xyz() - o, triangles.load(3 * pos + 1).xyz() - o,
                                            triangles.load(3 * pos + 2).xyz() - o);
                Var<float4> m0 = own[0], m1 = own[1], m2 = own[2];
                Var<std::int32_t> up = parents.load(leaf_base + pos);
                While([&] { return up >= 0; }, [&] {
                    Int p = up / 2, side = up % 2;
                    sums.store(6 * p + 3 * side, m0);
                    sums.store(6 * p + 3 * side + 1, m1);
                    sums.store(6 * p + 3 * side + 2, m2);
                    memory_fence();
                    If(arrivals.atomic_add(p, 1u) == 0u, [&] { Break(); });
                    memory_fence();
                    Int other = 6 * p + 3 * (1 - side);
                    m0 = m0 + sums.load(other);
                    m1 = m1 + sums.load(other + 1);
                    m2 = m2 + sums.load(other + 2);
                    up = parents.load(p);
                });
            });
        });
    kernel(Groups{groups_for(tree.triangle_count())}, tree.triangles(), tree.nodes(), tree.parents(), arrivals, sums,
           static_cast<std::int32_t>(leaf_base(tree.triangle_count())));
}

/// One Jacobi rotation in the (p, q) plane of the symmetric matrix a, its
/// rotations gathered in v (Numerical Recipes, section 11.1).
void jacobi_rotate(std::array<std::array<Float, 3>, 3>& a, std::array<std::array<Float, 3>, 3>& v, int p, int q) {
    Float apq = a[p][q];
    Bool rotate = abs(apq) > 1e-30f;
    Float theta = (a[q][q] - a[p][p]) / (2.0f * select(rotate, apq, Float(1.0f)));
    Float t_full = select(theta >= 0.0f, Float(1.0f), Float(-1.0f)) / (abs(theta) + sqrt(theta * theta + 1.0f));
    Float t = select(rotate, t_full, Float(0.0f));
    Float c = inversesqrt(t * t + 1.0f), s = t * c;
    const int r = 3 - p - q;
    Float arp = a[r][p], arq = a[r][q];
    a[p][p] = a[p][p] - t * apq;
    a[q][q] = a[q][q] + t * apq;
    a[p][q] = 0.0f;
    a[q][p] = 0.0f;
    a[r][p] = c * arp - s * arq;
    a[p][r] = a[r][p];
    a[r][q] = s * arp + c * arq;
    a[q][r] = a[r][q];
    for (int k = 0; k < 3; ++k) {
        Float vkp = v[k][p], vkq = v[k][q];
        v[k][p] = c * vkp - s * vkq;
        v[k][q] = s * vkp + c * vkq;
    }
}

/// Per internal node: the covariance from its children's moments, its
/// eigenvectors as the box's axes (boxes[4 node + i], w = 0 until the
/// extents), and the extremes reset (extremes: 6 per node, min then max).
void axes(const Stream<float4>& sums, const Stream<float4>& boxes, const Stream<std::uint32_t>& extremes,
          std::int64_t internal) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "obb_axes(sums, boxes, extremes, internal)",
        [](Array<float4> sums, Array<float4> boxes, Array<std::uint32_t> extremes, Int internal) {
            Int node = global_id();
            If(node < internal, [&] {
                Float4 m0 = sums.load(6 * node) + sums.load(6 * node + 3);
                Float4 m1 = sums.load(6 * node + 1) + sums.load(6 * node + 4);
                Float4 m2 = sums.load(6 * node + 2) + sums.load(6 * node + 5);
                Float area = m0.w();
                Float inv = select(area > 0.0f, 1.0f / area, Float(0.0f));
                Float3 mu = m0.xyz() * inv;
                Float cxx = m1.x() * inv - mu.x() * mu.x(), cyy = m1.y() * inv - mu.y() * mu.y();
                Float czz = m1.z() * inv - mu.z() * mu.z(), cxy = m1.w() * inv - mu.x() * mu.y();
                Float cxz = m2.x() * inv - mu.x() * mu.z(), cyz = m2.y() * inv - mu.y() * mu.z();
                // Scaled to entries of at most 1: the rotations neither overflow nor underflow.
                Float big = max(max(max(abs(cxx), abs(cyy)), max(abs(czz), abs(cxy))), max(abs(cxz), abs(cyz)));
                Float scale = select(big > 0.0f && !isinf(big), 1.0f / big, Float(0.0f));
                std::array<std::array<Float, 3>, 3> a{{{cxx * scale, cxy * scale, cxz * scale},
                                                       {cxy * scale, cyy * scale, cyz * scale},
                                                       {cxz * scale, cyz * scale, czz * scale}}};
                std::array<std::array<Float, 3>, 3> v{{{Float(1.0f), Float(0.0f), Float(0.0f)},
                                                       {Float(0.0f), Float(1.0f), Float(0.0f)},
                                                       {Float(0.0f), Float(0.0f), Float(1.0f)}}};
                for (int sweep = 0; sweep < 4; ++sweep)
                    for (auto [p, q] : {std::pair{0, 1}, std::pair{0, 2}, std::pair{1, 2}}) jacobi_rotate(a, v, p, q);
                for (int i = 0; i < 3; ++i) boxes.store(4 * node + i, Float4(v[0][i], v[1][i], v[2][i], 0.0f));
                for (int i = 0; i < 3; ++i) {
                    extremes.store(6 * node + i, 0xffffffffu);
                    extremes.store(6 * node + 3 + i, 0u);
                }
            });
        });
    kernel(Groups{groups_for(internal)}, sums, boxes, extremes, static_cast<std::int32_t>(internal));
}

/// Half extents widened by 1e-6 of the coordinates' size (about 8 ulps):
/// what rounding of the projections and the centre can move.
Float padded(const Float& half, const Float& size) { return half + 1e-6f * size + 1e-30f; }

/// Per leaf: its triangle's box (the plane's normal, the first edge, their
/// cross product), then every ancestor widened to the triangle's vertices
/// along the ancestor's axes.
void extents(const bvh::Bvh& tree, const Stream<float4>& boxes, const Stream<std::uint32_t>& extremes) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "obb_extents(triangles, nodes, parents, boxes, extremes, leaf_base)",
        [](Array<float4> triangles, Array<float4> nodes, Array<std::int32_t> parents, Array<float4> boxes,
           Array<std::uint32_t> extremes, Int leaf_base) {
            Int pos = global_id();
            If(pos < triangles.size() / 3, [&] {
                Float3 o = reference_point(nodes);
                Float3 p = triangles.load(3 * pos).xyz() - o, q = triangles.load(3 * pos + 1).xyz() - o,
                       r = triangles.load(3 * pos + 2).xyz() - o;
                Float3 n = cross(q - p, r - p);
                Float nn = length(n), ee = length(q - p);
                Bool flat = !(nn > 0.0f) || isinf(nn) || !(ee > 0.0f) || isinf(ee);
                Float3 w = select(flat, Float3(0.0f, 0.0f, 1.0f), n / select(flat, Float(1.0f), nn));
                Float3 u = select(flat, Float3(1.0f, 0.0f, 0.0f), (q - p) / select(flat, Float(1.0f), ee));
                Float3 v = cross(w, u);
                std::array<Float3, 3> axis{u, v, w};
                Int leaf = leaf_base + pos;
                Var<float3> centre = Float3(0.0f);
                for (int i = 0; i < 3; ++i) {
                    Float a = dot(axis[i], p), b = dot(axis[i], q), c = dot(axis[i], r);
                    Float mn = min(a, min(b, c)), mx = max(a, max(b, c));
                    Float s = max(abs(mn), abs(mx)) + max(abs(o.x()), max(abs(o.y()), abs(o.z())));
                    boxes.store(4 * leaf + i, Float4(axis[i], padded((mx - mn) * 0.5f, s)));
                    centre = centre + axis[i] * ((mn + mx) * 0.5f);
                }
                boxes.store(4 * leaf + 3, Float4(centre + o, 0.0f));
                Var<std::int32_t> up = parents.load(leaf);
                While([&] { return up >= 0 && node_height(nodes, up / 2) <= float(kExactHeight); }, [&] {
                    Int node = up / 2;
                    for (int i = 0; i < 3; ++i) {
                        Float3 a = boxes.load(4 * node + i).xyz();
                        Float x = dot(a, p), y = dot(a, q), z = dot(a, r);
                        extremes.atomic_min(6 * node + i, ordered_bits(min(x, min(y, z))));
                        extremes.atomic_max(6 * node + 3 + i, ordered_bits(max(x, max(y, z))));
                    }
                    up = parents.load(node);
                });
            });
        });
    kernel(Groups{groups_for(tree.triangle_count())}, tree.triangles(), tree.nodes(), tree.parents(), boxes, extremes,
           static_cast<std::int32_t>(leaf_base(tree.triangle_count())));
}

/// Per internal node up to kExactHeight (upper: above it): half extents and
/// centre from the extremes.
void centres(const bvh::Bvh& tree, const Stream<float4>& boxes, const Stream<std::uint32_t>& extremes, std::int64_t internal,
             bool upper) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "obb_centres(nodes, boxes, extremes, internal, upper)",
        [](Array<float4> nodes, Array<float4> boxes, Array<std::uint32_t> extremes, Int internal, Int upper) {
            Int node = global_id();
            If(node < internal && (node_height(nodes, node) > float(kExactHeight)) == (upper != 0), [&] {
                Float3 o = reference_point(nodes);
                Float size_o = max(abs(o.x()), max(abs(o.y()), abs(o.z())));
                Var<float3> centre = o;
                for (int i = 0; i < 3; ++i) {
                    Float4 a = boxes.load(4 * node + i);
                    Float mn = from_ordered_bits(extremes.load(6 * node + i));
                    Float mx = from_ordered_bits(extremes.load(6 * node + 3 + i));
                    boxes.store(4 * node + i, Float4(a.xyz(), padded((mx - mn) * 0.5f, max(abs(mn), abs(mx)) + size_o)));
                    centre = centre + a.xyz() * ((mn + mx) * 0.5f);
                }
                boxes.store(4 * node + 3, Float4(centre, 0.0f));
            });
        });
    kernel(Groups{groups_for(internal)}, tree.nodes(), boxes, extremes, static_cast<std::int32_t>(internal), upper ? 1 : 0);
}

/// The nodes above kExactHeight: each node of at most that height (or
/// leaf) whose parent is higher widens every ancestor to its own box (a
/// box's projection on an axis a: a . centre +- sum_i e_i |a . axis_i|). A
/// million triangles have about a thousand such nodes, so the atomics are few.
void upper_extents(const bvh::Bvh& tree, const Stream<float4>& boxes, const Stream<std::uint32_t>& extremes, std::int64_t internal) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "obb_upper(nodes, parents, boxes, extremes, internal, elements)",
        [](Array<float4> nodes, Array<std::int32_t> parents, Array<float4> boxes, Array<std::uint32_t> extremes, Int internal,
           Int elements) {
            Int e = global_id();  // an internal node, or the leaf e - internal
            If(e < elements, [&] {
                Float height = select(e < internal, node_height(nodes, e), Float(0.0f));
                Var<std::int32_t> up = parents.load(e);
                If(height <= float(kExactHeight) && up >= 0 && node_height(nodes, max(up / 2, Int(0))) > float(kExactHeight), [&] {
                    Float3 o = reference_point(nodes);
                    Float4 b0 = boxes.load(4 * e), b1 = boxes.load(4 * e + 1), b2 = boxes.load(4 * e + 2);
                    Float3 centre = boxes.load(4 * e + 3).xyz() - o;
                    While([&] { return up >= 0; }, [&] {
                        Int p = up / 2;
                        for (int i = 0; i < 3; ++i) {
                            Float3 a = boxes.load(4 * p + i).xyz();
                            Float reach = b0.w() * abs(dot(a, b0.xyz())) + b1.w() * abs(dot(a, b1.xyz())) + b2.w() * abs(dot(a, b2.xyz()));
                            Float mid = dot(a, centre);
                            extremes.atomic_min(6 * p + i, ordered_bits(mid - reach));
                            extremes.atomic_max(6 * p + 3 + i, ordered_bits(mid + reach));
                        }
                        up = parents.load(p);
                    });
                });
            });
        });
    const std::int64_t m = tree.triangle_count();
    kernel(Groups{groups_for(internal + m)}, tree.nodes(), tree.parents(), boxes, extremes, static_cast<std::int32_t>(internal),
           static_cast<std::int32_t>(internal + m));
}

}  // namespace

ObbTree ObbTree::build(const Stream<float4>& vertices, const Stream<int4>& faces, bvh::BuildQuality quality) {
    ObbTree t;
    try {
        t.bvh_ = bvh::Bvh::build(vertices, faces, quality);
    } catch (const Error& e) {
        const std::string what = e.what(), from = "rill::bvh::Bvh::build";
        throw Error("rill::collision::ObbTree::build" + (what.rfind(from, 0) == 0 ? what.substr(from.size()) : ": " + what));
    }
    const std::int64_t m = t.bvh_.triangle_count();
    Runtime rt = Runtime::of(vertices);
    const std::int64_t internal = leaf_base(m);
    t.boxes_ = rt.stream<float4>({4 * (internal + std::max<std::int64_t>(m, 1))});
    if (m == 0) return t;
    t.height_ = t.bvh_.height();
    Stream<float4> sums = rt.stream<float4>({6 * internal});
    Stream<std::uint32_t> arrivals = rt.stream<std::uint32_t>({internal});
    Stream<std::uint32_t> extremes = rt.scratch<std::uint32_t>({6 * internal});
    moments(t.bvh_, arrivals, sums);
    axes(sums, t.boxes_, extremes, internal);
    extents(t.bvh_, t.boxes_, extremes);
    centres(t.bvh_, t.boxes_, extremes, internal, false);
    if (t.height_ > kExactHeight) {
        upper_extents(t.bvh_, t.boxes_, extremes, internal);
        centres(t.bvh_, t.boxes_, extremes, internal, true);
    }
    return t;
}

}  // namespace rill::collision
