// OpenSubdiv's precomputed-stencil path for uniform Loop refinement, the
// benchmarks' GPU and threaded CPU peer: Far::TopologyRefiner and
// Far::StencilTableFactory build, on the CPU, one stencil per vertex of the
// level straight from the control cage (factorized); the level's positions
// then come from those stencils, by Osd::OmpEvaluator on the CPU or by
// Osd::GLComputeEvaluator (libosdGPU) on an EGL context of its own. That is
// how OpenSubdiv is meant to be used for animated meshes: topology and
// stencils once, positions per frame.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rill::peers {

class OsdStencils {
public:
    /// vertices: x, y, z, (ignored); faces: three indices, (ignored). Builds
    /// the level's topology and stencil table (one CPU thread: Debian's Far).
    OsdStencils(const std::vector<std::array<float, 4>>& vertices, const std::vector<std::array<std::int32_t, 4>>& faces,
                int level);
    ~OsdStencils();
    OsdStencils(const OsdStencils&) = delete;
    OsdStencils& operator=(const OsdStencils&) = delete;

    std::size_t vertex_count() const;  // the level's vertices
    std::size_t weight_count() const;  // the stencils' weights in all

    /// The level's positions by Osd::OmpEvaluator (OpenMP, all cores).
    std::vector<std::array<float, 3>> evaluate_cpu();

    /// Opens an OpenGL 4.3 context through EGL (the device platform, then
    /// Mesa's surfaceless one) and uploads the cage and the stencils; false,
    /// with the reason in `why`, where there is none.
    bool open_gl(std::string& why);
    /// One evaluation of the level's positions by Osd::GLComputeEvaluator,
    /// waited for (glFinish); after open_gl.
    void evaluate_gl();
    /// The positions the last evaluate_gl wrote.
    std::vector<std::array<float, 3>> gl_positions();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace rill::peers
