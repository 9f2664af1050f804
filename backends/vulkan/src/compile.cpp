#include "compile.h"

#include <shaderc/shaderc.hpp>

#include <cstdlib>
#include <string>

#include "rill/backends/glsl/codegen.h"
#include "rill/core/error.h"

namespace rill::vk {

bool spirv_optimized(bool asked) {
    static const std::string forced = [] {
        const char* opt = std::getenv("RILL_VK_SPIRV_OPT");
        return std::string(opt ? opt : "");
    }();
    return forced == "0" ? false : forced == "1" ? true : asked;
}

std::vector<std::uint32_t> compile_glsl(const std::string& kernel_name, const std::string& source, bool optimize) {
    static const shaderc::Compiler compiler;
    shaderc::CompileOptions options;
    options.SetTargetEnvironment(shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_2);
    options.SetOptimizationLevel(optimize ? shaderc_optimization_level_performance : shaderc_optimization_level_zero);
    auto result = compiler.CompileGlslToSpv(source, shaderc_compute_shader, (kernel_name + ".comp").c_str(), options);
    if (result.GetCompilationStatus() != shaderc_compilation_status_success) {
        const std::string msg = result.GetErrorMessage();
        throw Error("vulkan backend: kernel '" + kernel_name + "' failed to compile to SPIR-V: " + msg +
                    glsl::quote_source_line(msg, source) +
                    "\nThis is a bug in rill's GLSL generator unless the kernel uses a feature the device lacks; "
                    "RILL_DUMP=<dir> writes the whole shader.");
    }
    return {result.cbegin(), result.cend()};
}

}  // namespace rill::vk
