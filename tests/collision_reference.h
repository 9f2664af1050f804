// The collision tests' reference: every pair of triangles of two posed meshes,
// in float64, by their exact distance (Ericson, Real-Time Collision Detection,
// 5.1.5 and 5.1.9, and a segment-triangle crossing test), an algorithm of its
// own beside rill's separating axes. Pairs at distance 0 (intersecting or
// touching, up to float64 rounding) must be found; pairs farther apart than
// the tolerance must not.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace rill::test::collision_reference {

using V3 = std::array<double, 3>;
using Tri = std::array<V3, 3>;
using PoseRows = std::array<float, 12>;  // the rows of [R | t]

inline V3 sub(const V3& a, const V3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
inline V3 add(const V3& a, const V3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
inline V3 mul(const V3& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
inline double dot(const V3& a, const V3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
inline V3 cross(const V3& a, const V3& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
inline double norm2(const V3& a) { return dot(a, a); }

/// The point of triangle abc closest to p (Ericson 5.1.5).
inline V3 closest_on_triangle(const V3& p, const V3& a, const V3& b, const V3& c) {
    const V3 ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
    const double d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) return a;
    const V3 bp = sub(p, b);
    const double d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) return b;
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) return add(a, mul(ab, d1 / (d1 - d3)));
    const V3 cp = sub(p, c);
    const double d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) return c;
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) return add(a, mul(ac, d2 / (d2 - d6)));
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) return add(b, mul(sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6))));
    const double denom = 1.0 / (va + vb + vc);
    return add(a, add(mul(ab, vb * denom), mul(ac, vc * denom)));
}

/// The squared distance between segments p1q1 and p2q2 (Ericson 5.1.9).
inline double segment_distance2(const V3& p1, const V3& q1, const V3& p2, const V3& q2) {
    const V3 d1 = sub(q1, p1), d2 = sub(q2, p2), r = sub(p1, p2);
    const double a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
    double s = 0, t = 0;
    if (a <= 0 && e <= 0) return norm2(r);
    if (a <= 0) {
        t = std::clamp(f / e, 0.0, 1.0);
    } else {
        const double c = dot(d1, r);
        if (e <= 0) {
            s = std::clamp(-c / a, 0.0, 1.0);
        } else {
            const double b = dot(d1, d2), denom = a * e - b * b;
            s = denom > 0 ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
            t = (b * s + f) / e;
            if (t < 0) t = 0, s = std::clamp(-c / a, 0.0, 1.0);
            else if (t > 1) t = 1, s = std::clamp((b - c) / a, 0.0, 1.0);
        }
    }
    return norm2(sub(add(p1, mul(d1, s)), add(p2, mul(d2, t))));
}

/// Whether segment pq crosses the plane of abc at a point inside abc.
inline bool segment_crosses(const V3& p, const V3& q, const Tri& t) {
    const V3 n = cross(sub(t[1], t[0]), sub(t[2], t[0]));
    const double dp = dot(n, sub(p, t[0])), dq = dot(n, sub(q, t[0]));
    if ((dp > 0 && dq > 0) || (dp < 0 && dq < 0) || dp == dq) return false;
    const V3 x = add(p, mul(sub(q, p), dp / (dp - dq)));
    for (int k = 0; k < 3; ++k)
        if (dot(n, cross(sub(t[(k + 1) % 3], t[k]), sub(x, t[k]))) < 0) return false;
    return true;
}

/// The distance between two triangles: 0 where they intersect.
inline double distance(const Tri& s, const Tri& t) {
    for (int k = 0; k < 3; ++k)
        if (segment_crosses(s[k], s[(k + 1) % 3], t) || segment_crosses(t[k], t[(k + 1) % 3], s)) return 0.0;
    double best = INFINITY;
    for (int k = 0; k < 3; ++k) {
        best = std::min(best, norm2(sub(s[k], closest_on_triangle(s[k], t[0], t[1], t[2]))));
        best = std::min(best, norm2(sub(t[k], closest_on_triangle(t[k], s[0], s[1], s[2]))));
        for (int l = 0; l < 3; ++l)
            best = std::min(best, segment_distance2(s[k], s[(k + 1) % 3], t[l], t[(l + 1) % 3]));
    }
    return std::sqrt(best);
}

struct Mesh {
    std::vector<std::array<float, 4>> vertices;
    std::vector<std::array<std::int32_t, 4>> faces;
};

inline Tri triangle(const Mesh& m, std::size_t f) {
    Tri t;
    for (int k = 0; k < 3; ++k) {
        const auto& v = m.vertices[m.faces[f][k]];
        t[k] = {v[0], v[1], v[2]};
    }
    return t;
}

inline V3 transform(const PoseRows& p, const V3& v) {
    return {p[0] * v[0] + p[1] * v[1] + p[2] * v[2] + p[3], p[4] * v[0] + p[5] * v[1] + p[6] * v[2] + p[7],
            p[8] * v[0] + p[9] * v[1] + p[10] * v[2] + p[11]};
}

using Pairs = std::set<std::pair<std::int32_t, std::int32_t>>;

struct Expected {
    Pairs must;  // at distance 0
    Pairs may;   // closer than the tolerance (must included)
};

/// The pairs of a and (posed) b at distance 0 and within `tolerance` times
/// the largest coordinate of the pair; faces with a non-finite coordinate or
/// zero area are left out, as rill leaves them out of its trees.
inline Expected brute_force(const Mesh& a, const Mesh& b, const PoseRows& pose, double tolerance) {
    auto usable = [](const Tri& t) {
        for (const V3& v : t)
            for (double x : v)
                if (!std::isfinite(x)) return false;
        return norm2(cross(sub(t[1], t[0]), sub(t[2], t[0]))) > 0;
    };
    std::vector<Tri> ta, tb;
    std::vector<bool> ua, ub;
    for (std::size_t f = 0; f < a.faces.size(); ++f) {
        ta.push_back(triangle(a, f));
        ua.push_back(usable(ta.back()));
    }
    for (std::size_t f = 0; f < b.faces.size(); ++f) {
        Tri t = triangle(b, f);
        ub.push_back(usable(t));
        if (ub.back())
            for (V3& v : t) v = transform(pose, v);
        tb.push_back(t);
    }
    auto bounds = [](const Tri& t) {
        std::array<double, 7> r{INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY, 0};
        for (const V3& v : t)
            for (int k = 0; k < 3; ++k) {
                r[k] = std::min(r[k], v[k]), r[k + 3] = std::max(r[k + 3], v[k]);
                r[6] = std::max(r[6], std::abs(v[k]));
            }
        return r;
    };
    Expected e;
    for (std::size_t i = 0; i < ta.size(); ++i) {
        if (!ua[i]) continue;
        const auto ba = bounds(ta[i]);
        for (std::size_t j = 0; j < tb.size(); ++j) {
            if (!ub[j]) continue;
            const auto bb = bounds(tb[j]);
            const double slack = tolerance * std::max(ba[6], bb[6]);
            bool apart = false;
            for (int k = 0; k < 3; ++k) apart = apart || ba[k] > bb[k + 3] + slack || bb[k] > ba[k + 3] + slack;
            if (apart) continue;
            const double d = distance(ta[i], tb[j]);
            const std::pair<std::int32_t, std::int32_t> ij{static_cast<std::int32_t>(i), static_cast<std::int32_t>(j)};
            if (d <= 1e-12 * std::max(ba[6], bb[6])) e.must.insert(ij);
            if (d <= slack) e.may.insert(ij);
        }
    }
    return e;
}

/// A rotation uniformly at random (a unit quaternion) and a translation in
/// [-span, span]^3.
inline PoseRows random_pose(std::mt19937& rng, float span) {
    std::normal_distribution<double> g;
    double w = g(rng), x = g(rng), y = g(rng), z = g(rng);
    const double n = std::sqrt(w * w + x * x + y * y + z * z);
    w /= n, x /= n, y /= n, z /= n;
    std::uniform_real_distribution<float> t(-span, span);
    return {float(1 - 2 * (y * y + z * z)), float(2 * (x * y - w * z)), float(2 * (x * z + w * y)), t(rng),
            float(2 * (x * y + w * z)), float(1 - 2 * (x * x + z * z)), float(2 * (y * z - w * x)), t(rng),
            float(2 * (x * z - w * y)), float(2 * (y * z + w * x)), float(1 - 2 * (x * x + y * y)), t(rng)};
}

inline PoseRows identity_pose(float tx = 0, float ty = 0, float tz = 0) { return {1, 0, 0, tx, 0, 1, 0, ty, 0, 0, 1, tz}; }

}  // namespace rill::test::collision_reference
