#include "spirv_tools.h"

#include <spirv-tools/libspirv.h>
#include <spirv_cross/spirv_cross.hpp>

#include <algorithm>

#include "rill/core/error.h"

namespace rill::vk {

std::string disassemble(const std::vector<std::uint32_t>& spirv) {
    spv_context ctx = spvContextCreate(SPV_ENV_VULKAN_1_2);
    spv_text text = nullptr;
    spv_diagnostic diag = nullptr;
    std::string out;
    if (spvBinaryToText(ctx, spirv.data(), spirv.size(), SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES, &text, &diag) ==
        SPV_SUCCESS)
        out.assign(text->str, text->length);
    else
        out = "(disassembly failed)";
    spvTextDestroy(text);
    spvDiagnosticDestroy(diag);
    spvContextDestroy(ctx);
    return out;
}

void check_interface(const std::string& kernel, const std::vector<std::uint32_t>& spirv, std::uint32_t bindings,
                     std::uint32_t push_bytes) {
    spirv_cross::Compiler reflect(spirv);
    const spirv_cross::ShaderResources res = reflect.get_shader_resources();
    std::vector<std::uint32_t> seen;
    for (const auto& b : res.storage_buffers) {
        RILL_ASSERT(reflect.get_decoration(b.id, spv::DecorationDescriptorSet) == 0,
                    "kernel '" + kernel + "': a storage buffer outside descriptor set 0");
        seen.push_back(reflect.get_decoration(b.id, spv::DecorationBinding));
    }
    // Unused buffers are legitimately dropped by the compiler: every binding the
    // module declares must be one the backend binds (a binding may be declared
    // twice: float atomics go through a float view of a uint buffer).
    std::sort(seen.begin(), seen.end());
    RILL_ASSERT(seen.empty() || seen.back() < bindings,
                "kernel '" + kernel + "': the SPIR-V module declares storage buffer bindings outside the " +
                    std::to_string(bindings) + " the backend binds");
    std::uint32_t push = 0;
    for (const auto& p : res.push_constant_buffers)
        push = static_cast<std::uint32_t>(reflect.get_declared_struct_size(reflect.get_type(p.base_type_id)));
    RILL_ASSERT(push == push_bytes, "kernel '" + kernel + "': push constants of " + std::to_string(push) +
                                        " bytes, the backend pushes " + std::to_string(push_bytes));
}

}  // namespace rill::vk
