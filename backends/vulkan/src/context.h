// The Vulkan objects a backend needs for its whole life: instance (with the
// validation layer when RILL_VULKAN_VALIDATION=1), the chosen physical device
// (RILL_DEVICE = index or name substring), the logical device and a compute
// queue. Kept in a shared_ptr so that buffers can outlive the Runtime.
#pragma once

#include <vulkan/vulkan.h>

#include <mutex>
#include <string>
#include <vector>

#include "rill/core/backend.h"

namespace rill::vk {

/// Throws rill::Error for a failed Vulkan call, naming the call and the result.
void check(VkResult r, const char* what);

struct Context {
    Context();
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    VkInstance instance = VK_NULL_HANDLE;  // the process-wide instance (context.cpp)
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;   // shared by the runtimes of the process (context.cpp)
    VkQueue queue = VK_NULL_HANDLE;
    std::mutex* queue_mutex = nullptr;  // held around vkQueueSubmit
    std::uint32_t queue_family = 0;
    VkPhysicalDeviceProperties properties{};
    VkPhysicalDeviceMemoryProperties memory{};
    std::uint32_t subgroup_size = 0;
    VkSubgroupFeatureFlags subgroup_ops = 0;    // in compute shaders
    bool native_subgroups = false;              // every family rill uses
    /// VK_NV_shader_subgroup_partitioned enabled with its operation in compute
    /// shaders: subgroup_match is one instruction (subgroupPartitionNV).
    bool subgroup_partitioned = false;
    /// VK_KHR_shader_subgroup_uniform_control_flow enabled (RILL_VK_SUBGROUP_UNIFORM_CONTROL_FLOW=1).
    bool subgroup_uniform_control_flow = false;
    /// Mesa's lavapipe (llvmpipe underneath): loops end after 65535 iterations,
    /// and memory_fence() goes through a shared atomic (glsl::ShaderOptions).
    bool llvmpipe = false;
    /// NVIDIA's proprietary driver, whose compiler optimizes unoptimized
    /// SPIR-V as well as spirv-opt's (ir::SpirvOpt::UnlessTheDriverOptimizes).
    bool driver_optimizes_spirv = false;
    bool validation = false;
    /// VK_KHR_push_descriptor: descriptors recorded with the dispatch, no sets to allocate.
    PFN_vkCmdPushDescriptorSetKHR push_descriptor_set = nullptr;
    bool float_atomic_add = false;  // atomicAdd on float storage buffer elements
    /// VK_EXT_subgroup_size_control enabled: pipelines may require a size in [min, max].
    bool subgroup_size_control = false;
    /// RILL_VK_PIPELINE_STATS set and VK_KHR_pipeline_executable_properties
    /// there: every new pipeline prints the driver's statistics (registers,
    /// spills ...) to stderr, to see why a kernel is slow.
    bool pipeline_stats = false;
    /// RILL_VK_GLSL_MODULES set and VK_NV_glsl_shader there: shader modules are
    /// made from the GLSL itself, compiled by the driver's own front end (the
    /// one its OpenGL uses), to tell glslang's SPIR-V from the driver's code
    /// generation when a kernel runs slower here than through OpenGL.
    bool glsl_modules = false;
    std::uint32_t min_subgroup_size = 0, max_subgroup_size = 0;
    /// VK_EXT_pipeline_robustness there, and not RILL_VK_DRIVER_CHECKS=1:
    /// pipelines are made without the driver's bounds checks on storage
    /// buffers (rill's shaders make their own).
    bool unchecked_buffers = false;

    /// Index of a memory type with all of `want` among `allowed`, or -1.
    int memory_type(std::uint32_t allowed, VkMemoryPropertyFlags want) const;

    /// "index: name" of every device of the instance (for rill-info and RILL_DEVICE).
    std::vector<std::string> device_names() const;

    /// Validation messages since the last call (empty without validation).
    std::vector<std::string> take_messages();
    std::mutex messages_mutex;
    std::vector<std::string> messages;

private:
    void release();
};

}  // namespace rill::vk
