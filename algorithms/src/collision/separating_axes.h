// The separating-axis tests of the collision query (rill/algorithms/collision.h),
// as DSL functions: two oriented boxes (RAPID's 15 axes) and two triangles
// (17 axes), each with a margin that makes it conservative under rounding.
#pragma once

#include <array>

#include <rill/algorithms/collision.h>

namespace rill::collision::detail {

struct Box {
    std::array<Float3, 3> axis;
    Float3 half;
    Float3 centre;
};

inline Float max_abs(const Float3& v) { return max(abs(v.x()), max(abs(v.y()), abs(v.z()))); }

/// Box `index` of a tree's boxes array (4 float4: axes with half extents in w, centre).
inline Box load_box(const Array<float4>& boxes, const Expr<std::int32_t>& index) {
    Float4 a0 = boxes.load(4 * index), a1 = boxes.load(4 * index + 1), a2 = boxes.load(4 * index + 2);
    return Box{{a0.xyz(), a1.xyz(), a2.xyz()}, Float3(a0.w(), a1.w(), a2.w()), boxes.load(4 * index + 3).xyz()};
}

/// A rigid pose: the rows of [R | t].
struct Pose {
    std::array<Float4, 3> row;
    Float3 rotate(const Float3& v) const { return Float3(dot(row[0].xyz(), v), dot(row[1].xyz(), v), dot(row[2].xyz(), v)); }
    Float3 apply(const Float3& v) const { return rotate(v) + Float3(row[0].w(), row[1].w(), row[2].w()); }
};

inline Box posed(const Pose& pose, const Box& b) {
    return Box{{pose.rotate(b.axis[0]), pose.rotate(b.axis[1]), pose.rotate(b.axis[2])}, b.half, pose.apply(b.centre)};
}

/// True when one of the 15 axes of Gottschalk et al. (the 3 + 3 face normals
/// and their 9 cross products) separates the boxes by more than kTolerance
/// of their coordinates' size. |R| gets 1e-6 more, as in RAPID, so that the
/// cross products of near-parallel axes never separate by rounding alone.
inline Bool boxes_apart(const Box& a, const Box& b) {
    std::array<std::array<Float, 3>, 3> r, ar;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            r[i][j] = dot(a.axis[i], b.axis[j]);
            ar[i][j] = abs(r[i][j]) + 1e-6f;
        }
    Float3 d = b.centre - a.centre;
    std::array<Float, 3> t{dot(d, a.axis[0]), dot(d, a.axis[1]), dot(d, a.axis[2])};
    std::array<Float, 3> ea{a.half.x(), a.half.y(), a.half.z()}, eb{b.half.x(), b.half.y(), b.half.z()};
    Float margin = kTolerance * (max_abs(a.centre) + max_abs(b.centre) + ea[0] + ea[1] + ea[2] + eb[0] + eb[1] + eb[2]);
    Var<bool> apart = false;
    for (int i = 0; i < 3; ++i)
        apart = apart || abs(t[i]) > ea[i] + eb[0] * ar[i][0] + eb[1] * ar[i][1] + eb[2] * ar[i][2] + margin;
    for (int j = 0; j < 3; ++j)
        apart = apart || abs(t[0] * r[0][j] + t[1] * r[1][j] + t[2] * r[2][j]) >
                             ea[0] * ar[0][j] + ea[1] * ar[1][j] + ea[2] * ar[2][j] + eb[j] + margin;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            apart = apart || abs(t[i2] * r[i1][j] - t[i1] * r[i2][j]) >
                                 ea[i1] * ar[i2][j] + ea[i2] * ar[i1][j] + eb[j1] * ar[i][j2] + eb[j2] * ar[i][j1] + margin;
        }
    return apart;
}

/// True when one of the 17 axes of two triangles (both normals, the 9 cross
/// products of their edges, the 3 + 3 edge normals within each plane)
/// separates them by more than kTolerance of their coordinates' size times
/// the axis's natural length (the product of the edge lengths it is made
/// of), so that an axis of rounding noise never separates touching triangles.
inline Bool triangles_apart(const std::array<Float3, 3>& P, const std::array<Float3, 3>& Q) {
    const Float3& o = P[0];
    std::array<Float3, 3> p{Float3(0.0f), P[1] - o, P[2] - o}, q{Q[0] - o, Q[1] - o, Q[2] - o};
    Float size = max(max(max_abs(P[0]), max(max_abs(P[1]), max_abs(P[2]))),
                     max(max_abs(Q[0]), max(max_abs(Q[1]), max_abs(Q[2]))));
    Float relative = max(max(max_abs(p[1]), max_abs(p[2])), max(max_abs(q[0]), max(max_abs(q[1]), max_abs(q[2]))));
    Float scale = kTolerance * (size + relative);
    std::array<Float3, 3> e1{p[1] - p[0], p[2] - p[1], p[0] - p[2]}, e2{q[1] - q[0], q[2] - q[1], q[0] - q[2]};
    std::array<Float, 3> l1{length(e1[0]), length(e1[1]), length(e1[2])}, l2{length(e2[0]), length(e2[1]), length(e2[2])};
    Float3 n1 = cross(e1[0], e1[1]), n2 = cross(e2[0], e2[1]);
    Float ln1 = l1[0] * l1[1], ln2 = l2[0] * l2[1];
    Var<bool> apart = false;
    auto axis = [&](const Float3& L, const Expr<float>& natural) {
        Float p0 = dot(L, p[0]), p1 = dot(L, p[1]), p2 = dot(L, p[2]);
        Float q0 = dot(L, q[0]), q1 = dot(L, q[1]), q2 = dot(L, q[2]);
        Float gap = max(min(q0, min(q1, q2)) - max(p0, max(p1, p2)), min(p0, min(p1, p2)) - max(q0, max(q1, q2)));
        apart = apart || gap > scale * natural;
    };
    axis(n1, ln1);
    axis(n2, ln2);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) axis(cross(e1[i], e2[j]), l1[i] * l2[j]);
    for (int i = 0; i < 3; ++i) axis(cross(n1, e1[i]), ln1 * l1[i]);
    for (int j = 0; j < 3; ++j) axis(cross(n2, e2[j]), ln2 * l2[j]);
    return apart;
}

}  // namespace rill::collision::detail
