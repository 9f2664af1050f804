// SPIR-V inspection around a compiled kernel: a disassembly for RILL_DUMP,
// and a SPIRV-Cross reflection check that the module declares exactly the
// bindings and push constants the backend will bind.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rill::vk {

std::string disassemble(const std::vector<std::uint32_t>& spirv);

/// Aborts (internal error) when the module declares a storage-buffer binding
/// outside set 0 / 0..bindings-1 (unused ones may be missing), or a
/// push-constant block of another size than `push_bytes`.
void check_interface(const std::string& kernel, const std::vector<std::uint32_t>& spirv, std::uint32_t bindings,
                     std::uint32_t push_bytes);

}  // namespace rill::vk
