// ITK's GradientAnisotropicDiffusionImageFilter (Debian: libinsighttoolkit5-dev), the
// CPU peer of Segment's diffusion in the benchmarks. No rill code.
#pragma once

#include <cstdint>
#include <vector>

namespace rill::peers {

/// `iterations` steps of ITK's Perona-Malik diffusion (exponential conductance)
/// of the n x n image `in` (row-major) into `out`, with `time_step` and ITK's
/// relative conductance parameter, on `threads` work units.
void itk_gradient_diffusion(const std::vector<float>& in, std::vector<float>& out, std::int64_t n, int iterations,
                            float time_step, float conductance, int threads);

}  // namespace rill::peers
