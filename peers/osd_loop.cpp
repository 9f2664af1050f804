#include "osd_loop.h"

#include <opensubdiv/far/primvarRefiner.h>

#include <cmath>
#include <memory>

#include "osd_refiner.h"

namespace rill::peers {

namespace {

using namespace OpenSubdiv;

struct Point {
    double p[3];
    void Clear(void* = nullptr) { p[0] = p[1] = p[2] = 0; }
    void AddWithWeight(const Point& s, double w) {
        for (int k = 0; k < 3; ++k) p[k] += w * s.p[k];
    }
};

/// The refiner after `levels` uniform levels and every level's points (the
/// last level's from `last` on).
struct Refined {
    std::unique_ptr<Far::TopologyRefiner> refiner;
    std::vector<Point> points;
    std::size_t last = 0;
};

Refined refine(const std::vector<std::array<float, 4>>& vertices, const std::vector<std::array<std::int32_t, 4>>& faces, int levels,
               const std::vector<std::array<std::int32_t, 2>>& creases, bool full_topology) {
    Refined r;
    r.refiner = loop_refiner(vertices.size(), faces, creases);
    Far::TopologyRefiner::UniformOptions uniform(levels);
    uniform.fullTopologyInLastLevel = full_topology;  // the limit masks need the last level's edges and faces about each vertex
    r.refiner->RefineUniform(uniform);
    r.points.resize(static_cast<std::size_t>(r.refiner->GetNumVerticesTotal()));
    for (std::size_t i = 0; i < vertices.size(); ++i) r.points[i] = Point{{vertices[i][0], vertices[i][1], vertices[i][2]}};
    Far::PrimvarRefinerReal<double> primvars(*r.refiner);
    Point* src = r.points.data();
    for (int level = 1; level <= levels; ++level) {
        Point* dst = src + r.refiner->GetLevel(level - 1).GetNumVertices();
        primvars.Interpolate(level, src, dst);
        src = dst;
    }
    r.last = static_cast<std::size_t>(src - r.points.data());
    return r;
}

}  // namespace

OsdMesh osd_loop(const std::vector<std::array<float, 4>>& vertices, const std::vector<std::array<std::int32_t, 4>>& faces,
                 int levels, const std::vector<std::array<std::int32_t, 2>>& creases) {
    const Refined r = refine(vertices, faces, levels, creases, false);
    const Far::TopologyLevel& last = r.refiner->GetLevel(levels);
    const Point* src = r.points.data() + r.last;
    OsdMesh m;
    for (int v = 0; v < last.GetNumVertices(); ++v) m.vertices.push_back({src[v].p[0], src[v].p[1], src[v].p[2]});
    for (int f = 0; f < last.GetNumFaces(); ++f) {
        const Far::ConstIndexArray fv = last.GetFaceVertices(f);
        m.faces.push_back({fv[0], fv[1], fv[2]});
    }
    return m;
}

OsdLimit osd_loop_limit(const std::vector<std::array<float, 4>>& vertices, const std::vector<std::array<std::int32_t, 4>>& faces,
                        int levels, const std::vector<std::array<std::int32_t, 2>>& creases) {
    const Refined r = refine(vertices, faces, levels, creases, true);
    const Far::TopologyLevel& last = r.refiner->GetLevel(levels);
    const std::size_t n = static_cast<std::size_t>(last.GetNumVertices());
    std::vector<Point> position(n), tan1(n), tan2(n);
    const Point* src = r.points.data() + r.last;
    Point *pos = position.data(), *t1 = tan1.data(), *t2 = tan2.data();
    Far::PrimvarRefinerReal<double>(*r.refiner).Limit(src, pos, t1, t2);
    OsdLimit out;
    for (std::size_t v = 0; v < n; ++v) {
        const double* a = tan1[v].p;
        const double* b = tan2[v].p;
        std::array<double, 3> c{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
        const double l = std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        for (double& x : c) x = l > 0 ? x / l : 0;
        out.normals.push_back(c);
        const auto vi = static_cast<Far::Index>(v);
        out.manifold.push_back(!last.IsVertexNonManifold(vi));
        bool creased = false;
        for (Far::Index e : last.GetVertexEdges(vi)) creased = creased || (last.IsEdgeInfSharp(e) && !last.IsEdgeBoundary(e));
        const Sdc::Crease::Rule rule = last.GetVertexRule(vi);
        out.on_crease.push_back(creased && rule != Sdc::Crease::RULE_SMOOTH && rule != Sdc::Crease::RULE_DART);
        out.dart.push_back(rule == Sdc::Crease::RULE_DART);
        const double la = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        out.along_crease.push_back(creased && rule == Sdc::Crease::RULE_CREASE && la > 0
                                       ? std::array<double, 3>{a[0] / la, a[1] / la, a[2] / la}
                                       : std::array<double, 3>{0, 0, 0});
        out.positions.push_back({position[v].p[0], position[v].p[1], position[v].p[2]});
    }
    for (int f = 0; f < last.GetNumFaces(); ++f) {
        const Far::ConstIndexArray fv = last.GetFaceVertices(f);
        out.faces.push_back({fv[0], fv[1], fv[2]});
    }
    return out;
}

}  // namespace rill::peers
