// GLSL -> SPIR-V with shaderc, in process. A compile failure is a user-facing
// error that names the kernel and quotes the generated line it points at.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rill/core/ir.h"

namespace rill::vk {

/// Starts, once a process, a thread that compiles a one-line kernel, so that
/// glslang's built-in tables are built while the device is being created
/// rather than at the first kernel (docs/PERFORMANCE.md#dispatch-and-compile-cost).
void start_compiler_warm_up();

/// With `optimize`, spirv-opt optimizes the SPIR-V glslang makes.
std::vector<std::uint32_t> compile_glsl(const std::string& kernel_name, const std::string& source, bool optimize);

/// Whether spirv-opt runs on a kernel (ir::Kernel::spirv_opt) on a device
/// whose driver optimizes as well without it or not: as the kernel asks,
/// unless RILL_VK_SPIRV_OPT says 0 (never) or 1 (always), an experiment
/// knob. Part of the disk cache's key.
bool spirv_optimized(ir::SpirvOpt asked, bool driver_optimizes);

}  // namespace rill::vk
