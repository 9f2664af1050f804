#include "compile.h"

#include <shaderc/shaderc.hpp>

#include <cstdlib>
#include <string>
#include <system_error>
#include <thread>

#include "rill/backends/glsl/codegen.h"
#include "rill/core/error.h"

namespace rill::vk {

bool spirv_optimized(ir::SpirvOpt asked, bool driver_optimizes) {
    static const std::string forced = [] {
        const char* opt = std::getenv("RILL_VK_SPIRV_OPT");
        return std::string(opt ? opt : "");
    }();
    if (forced == "0" || forced == "1") return forced == "1";
    return asked == ir::SpirvOpt::Always || (asked == ir::SpirvOpt::UnlessTheDriverOptimizes && !driver_optimizes);
}

namespace {

/// One compiler for the process (shaderc's compilers may be used from several
/// threads at once).
const shaderc::Compiler& compiler() {
    static const shaderc::Compiler c;
    return c;
}

/// glslang builds its tables of built-in functions and variables at a
/// process's first compile: 150-200 ms of one core (160-180 ms on the H100
/// machine's host), paid by the first kernel that misses the disk cache. A
/// thread started before the Vulkan device is created compiles a one-line
/// kernel, so that the tables are ready, or nearly, when the first kernel
/// needs them. Its compiler is made first, so that at exit the thread is
/// joined before the compiler goes.
struct WarmUp {
    std::thread thread;
    WarmUp() {
        compiler();
        try {
            thread = std::thread([] {
                try {
                    compile_glsl("rill_compiler_warm_up",
                                 "#version 450\nlayout(local_size_x = 64) in;\n"
                                 "layout(std430, binding = 0) buffer B { uint b[]; };\n"
                                 "void main() { b[gl_GlobalInvocationID.x] += 1u; }\n",
                                 true);
                } catch (...) {
                    // Only a head start: a real kernel's compile reports its own errors.
                }
            });
        } catch (const std::system_error&) {
            // No thread to spare: the first kernel builds the tables, as without this.
        }
    }
    ~WarmUp() {
        if (thread.joinable()) thread.join();
    }
};

}  // namespace

void start_compiler_warm_up() { static WarmUp warm_up; }

std::vector<std::uint32_t> compile_glsl(const std::string& kernel_name, const std::string& source, bool optimize) {
    const shaderc::Compiler& glslc = compiler();
    shaderc::CompileOptions options;
    options.SetTargetEnvironment(shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_2);
    options.SetOptimizationLevel(optimize ? shaderc_optimization_level_performance : shaderc_optimization_level_zero);
    auto result = glslc.CompileGlslToSpv(source, shaderc_compute_shader, (kernel_name + ".comp").c_str(), options);
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
