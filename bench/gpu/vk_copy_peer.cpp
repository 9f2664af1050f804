// The bandwidth roof for the Vulkan backend, measured the way a careful
// engineer would by hand: raw Vulkan, a copy shader moving one uvec4 per
// invocation, timestamp queries around each dispatch. Shares no code with rill.
//
//   rill-vk-copy-peer [log2 n floats = 28]           prints one JSON line
//   rill-vk-copy-peer LOG2N scatter                  dst[perm[i]] = src[i] for each
//       pattern of scatter_probe.h, on every device-local memory type the
//       buffers may have, allocated plainly, as dedicated allocations and as
//       one block, timed twice and checked: one
//       JSON line each (rill-gl-copy-probe LOG2N scatter is the OpenGL side);
//       then a kernel of subgroup ballots (rill's digit match), also one line
#include <shaderc/shaderc.hpp>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "scatter_probe.h"
#include "vulkan_peer.h"

static const char* kShader = R"(#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform P { uint n4; };
void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (i < n4) dst[i] = src[i];
}
)";

int main(int argc, char** argv) {
    const int log2n = argc > 1 ? std::atoi(argv[1]) : 28;
    const VkDeviceSize n = VkDeviceSize{1} << log2n, bytes = n * 4;
    const VulkanPeer peer;
    VkInstance inst = peer.instance;
    const VkPhysicalDeviceProperties& props = peer.props;
    const VkPhysicalDeviceMemoryProperties& mp = peer.memory;
    VkDevice dev = peer.device;
    VkQueue queue = peer.queue;

    auto make_buffer = [&](VkDeviceSize size, int type_wanted, bool dedicated, bool mappable, VkBuffer& b, VkDeviceMemory& m) {
        VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bi.size = size;
        bi.usage = mappable ? VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT
                            : VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
        VK(vkCreateBuffer(dev, &bi, nullptr, &b));
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(dev, b, &req);
        const VkMemoryPropertyFlags want =
            mappable ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        std::uint32_t type = peer.memory_type(req.memoryTypeBits, want);
        if (type == mp.memoryTypeCount) type = 0;
        if (type_wanted >= 0) type = static_cast<std::uint32_t>(type_wanted);
        VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.allocationSize = req.size;
        ai.memoryTypeIndex = type;
        VkMemoryDedicatedAllocateInfo dai{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
        dai.buffer = b;
        if (dedicated) ai.pNext = &dai;
        VK(vkAllocateMemory(dev, &ai, nullptr, &m));
        VK(vkBindBufferMemory(dev, b, m, 0));
    };

    // One layout for both shaders: src, dst, and the scatter's perm.
    VkDescriptorSetLayoutBinding binds[3] = {};
    for (int i = 0; i < 3; ++i) {
        binds[i].binding = static_cast<std::uint32_t>(i);
        binds[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        binds[i].descriptorCount = 1;
        binds[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo dli{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dli.bindingCount = 3;
    dli.pBindings = binds;
    VkDescriptorSetLayout dsl;
    VK(vkCreateDescriptorSetLayout(dev, &dli, nullptr, &dsl));
    VkPushConstantRange pcr{VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
    VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &dsl;
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &pcr;
    VkPipelineLayout layout;
    VK(vkCreatePipelineLayout(dev, &pli, nullptr, &layout));
    std::vector<VkShaderModule> modules;
    auto make_pipeline = [&](const char* glsl) {
        shaderc::Compiler compiler;
        shaderc::CompileOptions opt;
        opt.SetOptimizationLevel(shaderc_optimization_level_performance);
        opt.SetTargetEnvironment(shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_2);  // subgroup ops: SPIR-V 1.3+
        auto spv = compiler.CompileGlslToSpv(glsl, shaderc_compute_shader, "probe.comp", opt);
        if (spv.GetCompilationStatus() != shaderc_compilation_status_success) {
            std::fprintf(stderr, "%s\n", spv.GetErrorMessage().c_str());
            std::exit(1);
        }
        std::vector<std::uint32_t> code(spv.cbegin(), spv.cend());
        VkShaderModuleCreateInfo smi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        smi.codeSize = code.size() * 4;
        smi.pCode = code.data();
        VkShaderModule module;
        VK(vkCreateShaderModule(dev, &smi, nullptr, &module));
        modules.push_back(module);
        VkComputePipelineCreateInfo cpi{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        cpi.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT, module, "main", nullptr};
        cpi.layout = layout;
        VkPipeline pipe;
        VK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpi, nullptr, &pipe));
        return pipe;
    };
    VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3};
    VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    dpi.maxSets = 1;
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = &ps;
    VkDescriptorPool dpool;
    VK(vkCreateDescriptorPool(dev, &dpi, nullptr, &dpool));
    auto make_set = [&](VkBuffer src, VkBuffer dst, VkBuffer perm) {
        VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        dsai.descriptorPool = dpool;
        dsai.descriptorSetCount = 1;
        dsai.pSetLayouts = &dsl;
        VkDescriptorSet set;
        VK(vkAllocateDescriptorSets(dev, &dsai, &set));
        VkDescriptorBufferInfo dbi[3] = {{src, 0, VK_WHOLE_SIZE}, {dst, 0, VK_WHOLE_SIZE}, {perm, 0, VK_WHOLE_SIZE}};
        VkWriteDescriptorSet w[3] = {};
        for (int i = 0; i < 3; ++i) {
            w[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            w[i].dstSet = set;
            w[i].dstBinding = static_cast<std::uint32_t>(i);
            w[i].descriptorCount = 1;
            w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            w[i].pBufferInfo = &dbi[i];
        }
        vkUpdateDescriptorSets(dev, 3, w, 0, nullptr);
        return set;
    };

    const int reps = 40;
    VkQueryPoolCreateInfo qpi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qpi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qpi.queryCount = 2 * reps;
    VkQueryPool qp;
    VK(vkCreateQueryPool(dev, &qpi, nullptr, &qp));
    VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cbai.commandPool = peer.pool;
    cbai.commandBufferCount = 1;
    VkCommandBuffer cb;
    VK(vkAllocateCommandBuffers(dev, &cbai, &cb));
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    auto submit = [&] {
        VK(vkEndCommandBuffer(cb));
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cb;
        VK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
        VK(vkQueueWaitIdle(queue));
    };
    // Median time of the later half of `reps` dispatches over `items` invocations (the first half warms the clocks up).
    auto time_dispatch = [&](VkPipeline pipe, VkDescriptorSet set, std::uint32_t items, VkBuffer fill, std::uint32_t fill_value) {
        VkCommandBufferBeginInfo cbbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        VK(vkBeginCommandBuffer(cb, &cbbi));
        vkCmdFillBuffer(cb, fill, 0, VK_WHOLE_SIZE, fill_value);
        vkCmdResetQueryPool(cb, qp, 0, 2 * reps);
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
        vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &items);
        const std::uint32_t groups = (items + 255) / 256;
        const std::uint32_t gx = std::min<std::uint32_t>(groups, props.limits.maxComputeWorkGroupCount[0]);
        const std::uint32_t gy = (groups + gx - 1) / gx;
        for (int r = 0; r < reps; ++r) {
            vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, qp, 2 * r);
            vkCmdDispatch(cb, gx, gy, 1);
            vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, qp, 2 * r + 1);
            vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0,
                                 nullptr, 0, nullptr);
        }
        submit();
        std::vector<std::uint64_t> ts(2 * reps);
        VK(vkGetQueryPoolResults(dev, qp, 0, 2 * reps, ts.size() * 8, ts.data(), 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        std::vector<double> ms;
        for (int r = reps / 2; r < reps; ++r)
            ms.push_back(double(ts[2 * r + 1] - ts[2 * r]) * props.limits.timestampPeriod * 1e-6);
        std::sort(ms.begin(), ms.end());
        return ms[ms.size() / 2];
    };
    auto free_buffer = [&](VkBuffer b, VkDeviceMemory m) {
        vkDestroyBuffer(dev, b, nullptr);
        vkFreeMemory(dev, m, nullptr);
    };

    if (argc > 2 && std::string(argv[2]) == "scatter") {
        const VkPipeline pipe = make_pipeline(rill_probe::kScatterShader);
        VkBuffer probe;
        VkDeviceMemory probe_mem;
        make_buffer(bytes, -1, false, false, probe, probe_mem);
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(dev, probe, &req);
        free_buffer(probe, probe_mem);
        std::vector<int> types;
        for (std::uint32_t i = 0; i < mp.memoryTypeCount; ++i) {
            std::fprintf(stderr, "memory type %u: heap %u, flags 0x%x%s\n", i, mp.memoryTypes[i].heapIndex,
                         mp.memoryTypes[i].propertyFlags, (req.memoryTypeBits >> i) & 1 ? " (a storage buffer may have it)" : "");
            if ((req.memoryTypeBits >> i & 1) && (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
                types.push_back(static_cast<int>(i));
        }
        VkBuffer staging;
        VkDeviceMemory staging_mem;
        make_buffer(bytes, -1, false, true, staging, staging_mem);
        void* mapped = nullptr;
        VK(vkMapMemory(dev, staging_mem, 0, VK_WHOLE_SIZE, 0, &mapped));
        // How the three buffers get their memory: one allocation each (plain or
        // dedicated), or one allocation for all three at 2 MiB-aligned offsets.
        enum class Alloc { Plain, Dedicated, Block };
        const char* alloc_names[] = {"plain", "dedicated", "one block"};
        for (const std::string& pattern : rill_probe::kScatterPatterns) {
            const std::vector<std::uint32_t> perm = rill_probe::scatter_pattern(pattern, log2n);
            for (int type : types)
                for (Alloc alloc : {Alloc::Plain, Alloc::Dedicated, Alloc::Block}) {
                    VkBuffer buf[3];
                    VkDeviceMemory mem[3] = {};
                    if (alloc == Alloc::Block) {
                        const VkDeviceSize stride = (req.size + (2u << 20) - 1) / (2u << 20) * (2u << 20);
                        VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
                        ai.allocationSize = 3 * stride;
                        ai.memoryTypeIndex = static_cast<std::uint32_t>(type);
                        VK(vkAllocateMemory(dev, &ai, nullptr, &mem[0]));
                        for (int k = 0; k < 3; ++k) {
                            VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
                            bi.size = bytes;
                            bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
                            VK(vkCreateBuffer(dev, &bi, nullptr, &buf[k]));
                            VkMemoryRequirements r;
                            vkGetBufferMemoryRequirements(dev, buf[k], &r);
                            VK(vkBindBufferMemory(dev, buf[k], mem[0], k * stride));
                        }
                    } else {
                        for (int k = 0; k < 3; ++k) make_buffer(bytes, type, alloc == Alloc::Dedicated, false, buf[k], mem[k]);
                    }
                    const VkBuffer src = buf[0], dst = buf[1], idx = buf[2];
                    std::memcpy(mapped, perm.data(), bytes);
                    VkCommandBufferBeginInfo cbbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
                    VK(vkBeginCommandBuffer(cb, &cbbi));
                    VkBufferCopy region{0, 0, bytes};
                    vkCmdCopyBuffer(cb, staging, idx, 1, &region);
                    vkCmdFillBuffer(cb, dst, 0, VK_WHOLE_SIZE, 0u);
                    submit();
                    const VkDescriptorSet set = make_set(src, dst, idx);
                    // Twice: memory fresh from the driver, then the same memory again.
                    const double first = time_dispatch(pipe, set, static_cast<std::uint32_t>(n), src, rill_probe::kScattered);
                    const double again = time_dispatch(pipe, set, static_cast<std::uint32_t>(n), src, rill_probe::kScattered);
                    VK(vkBeginCommandBuffer(cb, &cbbi));
                    vkCmdCopyBuffer(cb, dst, staging, 1, &region);
                    submit();
                    const std::uint64_t wrong = rill_probe::unwritten(static_cast<const std::uint32_t*>(mapped), n);
                    std::printf("{\"probe\":\"vulkan scatter\",\"pattern\":\"%s\",\"memory_type\":%d,\"alloc\":\"%s\","
                                "\"log2n\":%d,\"ms\":%.4f,\"ms_again\":%.4f,\"wrong\":%llu}\n",
                                pattern.c_str(), type, alloc_names[static_cast<int>(alloc)], log2n, first, again,
                                static_cast<unsigned long long>(wrong));
                    std::fflush(stdout);
                    VK(vkFreeDescriptorSets(dev, dpool, 1, &set));
                    for (int k = 0; k < 3; ++k) {
                        vkDestroyBuffer(dev, buf[k], nullptr);
                        if (mem[k]) vkFreeMemory(dev, mem[k], nullptr);
                    }
                }
        }
        vkUnmapMemory(dev, staging_mem);
        free_buffer(staging, staging_mem);
        vkDestroyPipeline(dev, pipe, nullptr);
        const VkPipeline ballots = make_pipeline(rill_probe::kBallotShader);
        VkBuffer src, dst;
        VkDeviceMemory srcm, dstm;
        make_buffer(bytes, -1, false, false, src, srcm);
        make_buffer(bytes, -1, false, false, dst, dstm);
        const VkDescriptorSet set = make_set(src, dst, src);
        const double ms = time_dispatch(ballots, set, static_cast<std::uint32_t>(n), src, 12345u);
        std::printf("{\"probe\":\"vulkan ballots\",\"log2n\":%d,\"ms\":%.4f}\n", log2n, ms);
        VK(vkFreeDescriptorSets(dev, dpool, 1, &set));
        free_buffer(src, srcm);
        free_buffer(dst, dstm);
        vkDestroyPipeline(dev, ballots, nullptr);
    } else {
        const VkPipeline pipe = make_pipeline(kShader);
        VkBuffer src, dst;
        VkDeviceMemory srcm, dstm;
        make_buffer(bytes, -1, false, false, src, srcm);
        make_buffer(bytes, -1, false, false, dst, dstm);
        const VkDescriptorSet set = make_set(src, dst, src);
        const double med = time_dispatch(pipe, set, static_cast<std::uint32_t>(n / 4), src, 0x3f800000u);
        std::printf("{\"peer\":\"hand-written Vulkan uvec4 copy\",\"device\":\"%s\",\"log2n\":%d,\"copy_ms\":%.4f,\"copy_gbs\":%.1f}\n",
                    props.deviceName, log2n, med, 2.0 * double(bytes) / med / 1e6);
        free_buffer(src, srcm);
        free_buffer(dst, dstm);
        vkDestroyPipeline(dev, pipe, nullptr);
    }
    vkDeviceWaitIdle(dev);
    vkDestroyCommandPool(dev, peer.pool, nullptr);
    vkDestroyQueryPool(dev, qp, nullptr);
    vkDestroyDescriptorPool(dev, dpool, nullptr);
    vkDestroyPipelineLayout(dev, layout, nullptr);
    vkDestroyDescriptorSetLayout(dev, dsl, nullptr);
    for (VkShaderModule m : modules) vkDestroyShaderModule(dev, m, nullptr);
    vkDestroyDevice(dev, nullptr);
    vkDestroyInstance(inst, nullptr);
    return 0;
}
