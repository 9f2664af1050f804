// GLSL -> SPIR-V with shaderc, in process. A compile failure is a user-facing
// error that names the kernel and quotes the generated line it points at.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rill::vk {

std::vector<std::uint32_t> compile_glsl(const std::string& kernel_name, const std::string& source);

/// Whether compile_glsl runs spirv-opt: yes unless RILL_VK_SPIRV_OPT=0 (an
/// experiment knob: the driver optimizes too). Part of the disk cache's key.
bool spirv_optimized();

}  // namespace rill::vk
