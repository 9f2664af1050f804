// OpenSubdiv's Loop topology of a triangle mesh, as the subdivision peers
// set it up (VTX_BOUNDARY_EDGE_ONLY, infinitely sharp creases); shared by
// osd_loop.cpp and osd_stencils.cpp.
#pragma once

#include <opensubdiv/far/topologyDescriptor.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace rill::peers {

/// An unrefined Far::TopologyRefiner over `faces` (three indices, then
/// ignored) of `vertex_count` vertices, `creases` sharp.
inline std::unique_ptr<OpenSubdiv::Far::TopologyRefiner> loop_refiner(std::size_t vertex_count,
                                                                      const std::vector<std::array<std::int32_t, 4>>& faces,
                                                                      const std::vector<std::array<std::int32_t, 2>>& creases = {}) {
    using namespace OpenSubdiv;
    using Descriptor = Far::TopologyDescriptor;
    std::vector<int> counts(faces.size(), 3), indices;
    for (const auto& f : faces) indices.insert(indices.end(), {f[0], f[1], f[2]});
    Descriptor d;
    d.numVertices = static_cast<int>(vertex_count);
    d.numFaces = static_cast<int>(faces.size());
    d.numVertsPerFace = counts.data();
    d.vertIndicesPerFace = indices.data();
    std::vector<int> crease_pairs;
    for (const auto& c : creases) crease_pairs.insert(crease_pairs.end(), {c[0], c[1]});
    const std::vector<float> sharpness(creases.size(), Sdc::Crease::SHARPNESS_INFINITE);
    d.numCreases = static_cast<int>(creases.size());
    d.creaseVertexIndexPairs = crease_pairs.data();
    d.creaseWeights = sharpness.data();
    Sdc::Options options;
    options.SetVtxBoundaryInterpolation(Sdc::Options::VTX_BOUNDARY_EDGE_ONLY);
    return std::unique_ptr<Far::TopologyRefiner>(Far::TopologyRefinerFactory<Descriptor>::Create(
        d, Far::TopologyRefinerFactory<Descriptor>::Options(Sdc::SCHEME_LOOP, options)));
}

}  // namespace rill::peers
