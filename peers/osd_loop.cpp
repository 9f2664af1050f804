#include "osd_loop.h"

#include <opensubdiv/far/primvarRefiner.h>
#include <opensubdiv/far/topologyDescriptor.h>

#include <memory>

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

}  // namespace

OsdMesh osd_loop(const std::vector<std::array<float, 4>>& vertices, const std::vector<std::array<std::int32_t, 4>>& faces,
                 int levels) {
    using Descriptor = Far::TopologyDescriptor;
    std::vector<int> counts(faces.size(), 3), indices;
    for (const auto& f : faces) indices.insert(indices.end(), {f[0], f[1], f[2]});
    Descriptor d;
    d.numVertices = static_cast<int>(vertices.size());
    d.numFaces = static_cast<int>(faces.size());
    d.numVertsPerFace = counts.data();
    d.vertIndicesPerFace = indices.data();
    Sdc::Options options;
    options.SetVtxBoundaryInterpolation(Sdc::Options::VTX_BOUNDARY_EDGE_ONLY);
    std::unique_ptr<Far::TopologyRefiner> refiner(Far::TopologyRefinerFactory<Descriptor>::Create(
        d, Far::TopologyRefinerFactory<Descriptor>::Options(Sdc::SCHEME_LOOP, options)));
    refiner->RefineUniform(Far::TopologyRefiner::UniformOptions(levels));
    std::vector<Point> buffer(static_cast<std::size_t>(refiner->GetNumVerticesTotal()));
    for (std::size_t i = 0; i < vertices.size(); ++i) buffer[i] = Point{{vertices[i][0], vertices[i][1], vertices[i][2]}};
    Far::PrimvarRefinerReal<double> primvars(*refiner);
    Point* src = buffer.data();
    for (int level = 1; level <= levels; ++level) {
        Point* dst = src + refiner->GetLevel(level - 1).GetNumVertices();
        primvars.Interpolate(level, src, dst);
        src = dst;
    }
    const Far::TopologyLevel& last = refiner->GetLevel(levels);
    OsdMesh m;
    for (int v = 0; v < last.GetNumVertices(); ++v) m.vertices.push_back({src[v].p[0], src[v].p[1], src[v].p[2]});
    for (int f = 0; f < last.GetNumFaces(); ++f) {
        const Far::ConstIndexArray fv = last.GetFaceVertices(f);
        m.faces.push_back({fv[0], fv[1], fv[2]});
    }
    return m;
}

}  // namespace rill::peers
