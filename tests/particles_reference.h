// A float64 host particle engine with the rules of rill::particles (the
// header's comment): every pair tested against every other (no grid),
// discrete-element springs, gravity, drag, a force, semi-implicit Euler,
// bilinear height field, walls. The particle tests step it beside the
// device's engine and compare.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <set>
#include <utility>
#include <vector>

namespace particles_reference {

using V3 = std::array<double, 3>;

inline V3 add(const V3& a, const V3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
inline V3 sub(const V3& a, const V3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
inline V3 mul(const V3& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
inline double dot(const V3& a, const V3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

struct Particle {
    V3 p, v;
    double birth = 0, life = 0;
    int id = 0;
};

inline bool live(const Particle& q, double t) { return q.birth <= t && t < q.birth + q.life; }

/// Pairs (i, j), i < j, of live particles closer than `reach`; pairs whose
/// squared distance is within `band` (relative) of reach^2 go to `ambiguous`
/// instead, as float rounding may decide them either way. The particles are
/// swept in order of x: a pair further apart than that in x alone is
/// further apart in all (a sum of squares rounds to no less than one of
/// them), so the sweep finds the all-pairs loop's pairs; at 65536 particles
/// the loop's 2e9 tests took 3 s, 12 s under ASan.
inline void pairs_within(const std::vector<Particle>& ps, double t, double reach, double band, std::set<std::pair<int, int>>& sure,
                         std::set<std::pair<int, int>>& ambiguous) {
    const double r2 = reach * reach, above = r2 * (1 + band), below = r2 * (1 - band);
    std::vector<int> index;
    for (std::size_t i = 0; i < ps.size(); ++i)
        if (live(ps[i], t)) index.push_back(int(i));
    std::sort(index.begin(), index.end(), [&](int a, int b) { return ps[a].p[0] < ps[b].p[0]; });
    std::vector<double> x, y, z;
    for (int i : index) {
        x.push_back(ps[i].p[0]);
        y.push_back(ps[i].p[1]);
        z.push_back(ps[i].p[2]);
    }
    const std::size_t n = index.size();
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) {
            const double dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j];
            if (dx * dx > above) break;
            const double d2 = dx * dx + dy * dy + dz * dz;
            if (d2 > above) continue;
            const std::pair<int, int> p{std::min(index[i], index[j]), std::max(index[i], index[j])};
            if (d2 < below) sure.insert(p);
            else ambiguous.insert(p);
        }
}

struct Config {
    V3 lo{-1, -1, -1}, hi{1, 1, 1};
    double radius = 0.01, drag = 0, stiffness = 2e4, damping = 20, restitution = 0.5;
    V3 gravity{0, -9.81, 0};
    bool walls = true;
    bool contacts = true;
    std::function<V3(const V3&, const V3&, double)> force{};
};

/// One step of dt at time t, all particles at once.
inline void step(std::vector<Particle>& ps, const Config& c, double t, double dt) {
    const std::size_t n = ps.size();
    const double diameter = 2 * c.radius;
    std::vector<V3> dv(n, V3{0, 0, 0});
    if (c.contacts)
        for (std::size_t i = 0; i < n; ++i) {
            if (!live(ps[i], t)) continue;
            V3 f{0, 0, 0};
            for (std::size_t j = 0; j < n; ++j) {
                if (!live(ps[j], t)) continue;
                const V3 d = sub(ps[i].p, ps[j].p);
                const double d2 = dot(d, d);
                if (!(d2 < diameter * diameter && d2 > 0)) continue;
                const double dist = std::sqrt(d2);
                const V3 nrm = mul(d, 1 / dist);
                const V3 rel = sub(ps[i].v, ps[j].v);
                f = add(f, mul(nrm, c.stiffness * (diameter - dist) - c.damping * dot(rel, nrm)));
            }
            dv[i] = mul(f, dt);
        }
    for (std::size_t i = 0; i < n; ++i) {
        Particle& q = ps[i];
        if (!live(q, t)) continue;
        V3 a = sub(c.gravity, mul(q.v, c.drag));
        if (c.force) a = add(a, c.force(q.p, q.v, t));
        q.v = add(add(q.v, mul(a, dt)), dv[i]);
        q.p = add(q.p, mul(q.v, dt));
        if (c.walls)
            for (int k = 0; k < 3; ++k) {
                const double low = c.lo[k] + c.radius, high = c.hi[k] - c.radius;
                if (q.p[k] < low) q.v[k] = std::max(q.v[k], -c.restitution * q.v[k]);
                else if (q.p[k] > high) q.v[k] = std::min(q.v[k], -c.restitution * q.v[k]);
                q.p[k] = std::clamp(q.p[k], low, high);
            }
    }
}

/// The bilinear height of a field {rows, columns} over the box at (x, z),
/// clamped to the edge.
inline double height_at(const std::vector<float>& h, int rows, int cols, const V3& lo, const V3& hi, double x, double z) {
    auto coord = [](double u, double a, double b, int n) {
        const double c = n > 1 ? (u - a) / (b - a) * (n - 1) : 0.0;
        return std::clamp(c, 0.0, double(n - 1));
    };
    const double r = coord(z, lo[2], hi[2], rows), c = coord(x, lo[0], hi[0], cols);
    const int r0 = std::min(int(r), rows - 1), c0 = std::min(int(c), cols - 1);
    const int r1 = std::min(r0 + 1, rows - 1), c1 = std::min(c0 + 1, cols - 1);
    const double fr = r - r0, fc = c - c0;
    auto at = [&](int i, int j) { return double(h[std::size_t(i) * cols + j]); };
    return (at(r0, c0) * (1 - fc) + at(r0, c1) * fc) * (1 - fr) + (at(r1, c0) * (1 - fc) + at(r1, c1) * fc) * fr;
}

/// The trilinear value of a field {nz, ny, nx} over the box at p.
inline double distance_at(const std::vector<float>& f, int nz, int ny, int nx, const V3& lo, const V3& hi, const V3& p) {
    const int n[3] = {nx, ny, nz};
    double c[3];
    int i0[3], i1[3];
    for (int k = 0; k < 3; ++k) {
        c[k] = std::clamp(n[k] > 1 ? (p[k] - lo[k]) / (hi[k] - lo[k]) * (n[k] - 1) : 0.0, 0.0, double(n[k] - 1));
        i0[k] = std::min(int(c[k]), n[k] - 1);
        i1[k] = std::min(i0[k] + 1, n[k] - 1);
        c[k] -= i0[k];
    }
    double sum = 0;
    for (int corner = 0; corner < 8; ++corner) {
        double w = 1;
        int at[3];
        for (int k = 0; k < 3; ++k) {
            const bool up = (corner >> k) & 1;
            w *= up ? c[k] : 1 - c[k];
            at[k] = up ? i1[k] : i0[k];
        }
        sum += w * f[(std::size_t(at[2]) * ny + at[1]) * nx + at[0]];
    }
    return sum;
}

}  // namespace particles_reference
