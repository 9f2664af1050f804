// The ray tracer's GPU peer: a Vulkan ray-tracing pipeline
// (VK_KHR_ray_tracing_pipeline) over the driver's acceleration structure,
// written as a Vulkan user would, on the scene and rays that
// `rill-bench-raytrace --rays-out DIR` wrote (bench/ray_dump.h). Shares no code
// with rill.
//
//   rill-vkrt-peer DIR
//
// Builds the bottom-level structure over the triangles (one geometry, opaque,
// PREFER_FAST_TRACE) and a top level of one instance, then traces each of
// DIR's ray sets (primary and bounce rays to the closest hit, shadow rays to
// any hit: TerminateOnFirstHit, SkipClosestHitShader) as a width x height
// launch, timed by timestamps around vkCmdTraceRaysKHR (median of 5 after one
// warm-up, as rill-bench-raytrace times rill). Its answers are compared with
// rill's in DIR (hit or miss, t within 1e-4 relative); more than 1 ray in
// 10^4 differing stops the program. The builds are timed too: the traced
// structure's, a PREFER_FAST_BUILD one's, and an update (refit) of one built
// with ALLOW_UPDATE. Prints a table with rill's figures from DIR beside.
#include <shaderc/shaderc.hpp>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "../ray_dump.h"
#include "vulkan_peer.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "rill-vkrt-peer: %s\n", what.c_str());
    std::exit(1);
}

struct Float4 {
    float x, y, z, w;
};

/// The extension entry points the program calls.
struct RayTracingCalls {
    PFN_vkGetAccelerationStructureBuildSizesKHR build_sizes;
    PFN_vkCreateAccelerationStructureKHR create_structure;
    PFN_vkDestroyAccelerationStructureKHR destroy_structure;
    PFN_vkCmdBuildAccelerationStructuresKHR cmd_build;
    PFN_vkGetAccelerationStructureDeviceAddressKHR structure_address;
    PFN_vkCreateRayTracingPipelinesKHR create_pipelines;
    PFN_vkGetRayTracingShaderGroupHandlesKHR group_handles;
    PFN_vkCmdTraceRaysKHR cmd_trace;

    explicit RayTracingCalls(VkDevice d) {
        auto get = [&](const char* name) {
            PFN_vkVoidFunction f = vkGetDeviceProcAddr(d, name);
            if (!f) fail(std::string("the driver has no ") + name);
            return f;
        };
        build_sizes = reinterpret_cast<PFN_vkGetAccelerationStructureBuildSizesKHR>(get("vkGetAccelerationStructureBuildSizesKHR"));
        create_structure = reinterpret_cast<PFN_vkCreateAccelerationStructureKHR>(get("vkCreateAccelerationStructureKHR"));
        destroy_structure = reinterpret_cast<PFN_vkDestroyAccelerationStructureKHR>(get("vkDestroyAccelerationStructureKHR"));
        cmd_build = reinterpret_cast<PFN_vkCmdBuildAccelerationStructuresKHR>(get("vkCmdBuildAccelerationStructuresKHR"));
        structure_address =
            reinterpret_cast<PFN_vkGetAccelerationStructureDeviceAddressKHR>(get("vkGetAccelerationStructureDeviceAddressKHR"));
        create_pipelines = reinterpret_cast<PFN_vkCreateRayTracingPipelinesKHR>(get("vkCreateRayTracingPipelinesKHR"));
        group_handles = reinterpret_cast<PFN_vkGetRayTracingShaderGroupHandlesKHR>(get("vkGetRayTracingShaderGroupHandlesKHR"));
        cmd_trace = reinterpret_cast<PFN_vkCmdTraceRaysKHR>(get("vkCmdTraceRaysKHR"));
    }
};

/// The features the program enables, chained for vkCreateDevice.
struct Features {
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceAccelerationStructureFeaturesKHR structures{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
    VkPhysicalDeviceRayTracingPipelineFeaturesKHR pipeline{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
    Features() {
        v12.bufferDeviceAddress = VK_TRUE;
        structures.accelerationStructure = VK_TRUE;
        pipeline.rayTracingPipeline = VK_TRUE;
        pipeline.pNext = &structures;
        structures.pNext = &v12;
    }
};

struct Buffer {
    VkBuffer buffer{};
    VkDeviceMemory memory{};
    VkDeviceSize bytes = 0;
    VkDeviceAddress address = 0;
    void* mapped = nullptr;
};

/// The device (vulkan_peer.h) and what every step needs from it.
struct Device : VulkanPeer {
    RayTracingCalls rt;
    VkPhysicalDeviceRayTracingPipelinePropertiesKHR pipeline_props{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_PROPERTIES_KHR};
    VkPhysicalDeviceAccelerationStructurePropertiesKHR structure_props{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_PROPERTIES_KHR};
    VkQueryPool queries{};

    explicit Device(Features& f)
        : VulkanPeer({VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME, VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME,
                      VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME},
                     &f.pipeline),
          rt(device) {
        pipeline_props.pNext = &structure_props;
        VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        p2.pNext = &pipeline_props;
        vkGetPhysicalDeviceProperties2(physical, &p2);
        VkQueryPoolCreateInfo qpi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qpi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qpi.queryCount = 2;
        VK(vkCreateQueryPool(device, &qpi, nullptr, &queries));
    }

    /// A buffer of `bytes` for `usage`, device-local or host-visible (mapped),
    /// with a device address.
    Buffer buffer(VkDeviceSize bytes, VkBufferUsageFlags usage, bool host_visible) const {
        Buffer b;
        b.bytes = std::max<VkDeviceSize>(bytes, 16);
        VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bi.size = b.bytes;
        bi.usage = usage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        VK(vkCreateBuffer(device, &bi, nullptr, &b.buffer));
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(device, b.buffer, &req);
        const VkMemoryPropertyFlags want = host_visible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                                        : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        const std::uint32_t type = memory_type(req.memoryTypeBits, want);
        if (type == memory.memoryTypeCount) fail("no memory type for a buffer of " + std::to_string(bytes) + " bytes");
        VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
        flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
        VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.pNext = &flags;
        ai.allocationSize = req.size;
        ai.memoryTypeIndex = type;
        VK(vkAllocateMemory(device, &ai, nullptr, &b.memory));
        VK(vkBindBufferMemory(device, b.buffer, b.memory, 0));
        if (host_visible) VK(vkMapMemory(device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
        VkBufferDeviceAddressInfo dai{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
        dai.buffer = b.buffer;
        b.address = vkGetBufferDeviceAddress(device, &dai);
        return b;
    }

    void free(Buffer& b) const {
        if (b.mapped) vkUnmapMemory(device, b.memory);
        vkDestroyBuffer(device, b.buffer, nullptr);
        vkFreeMemory(device, b.memory, nullptr);
        b = Buffer{};
    }

    /// Records `body` into a command buffer after a barrier that makes every
    /// earlier command's writes visible, between two timestamps when `timed`;
    /// runs it, waits: the device milliseconds between the timestamps.
    template <typename Body>
    double submit(bool timed, Body&& body) const {
        VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        cai.commandPool = pool;
        cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        cai.commandBufferCount = 1;
        VkCommandBuffer cb;
        VK(vkAllocateCommandBuffers(device, &cai, &cb));
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VK(vkBeginCommandBuffer(cb, &bi));
        barrier(cb);
        if (timed) {
            vkCmdResetQueryPool(cb, queries, 0, 2);
            vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, 0);
        }
        body(cb);
        if (timed) vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 1);
        barrier(cb);
        VK(vkEndCommandBuffer(cb));
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cb;
        VK(vkQueueSubmit(queue, 1, &si, fence));
        VK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));
        VK(vkResetFences(device, 1, &fence));
        vkFreeCommandBuffers(device, pool, 1, &cb);
        if (!timed) return 0;
        std::uint64_t stamps[2];
        VK(vkGetQueryPoolResults(device, queries, 0, 2, sizeof stamps, stamps, sizeof stamps[0],
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        return static_cast<double>(stamps[1] - stamps[0]) * props.limits.timestampPeriod * 1e-6;
    }

    /// Every earlier write (transfers, builds, shaders, the host's) visible to every later access.
    static void barrier(VkCommandBuffer cb) {
        VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        mb.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0, nullptr, 0,
                             nullptr);
    }

    /// A device-local buffer for `usage` holding `data`, through a staging buffer.
    template <typename T>
    Buffer upload(const std::vector<T>& data, VkBufferUsageFlags usage) const {
        const VkDeviceSize bytes = data.size() * sizeof(T);
        Buffer staging = buffer(bytes, 0, true);
        if (bytes) std::memcpy(staging.mapped, data.data(), bytes);
        Buffer b = buffer(bytes, usage, false);
        submit(false, [&](VkCommandBuffer cb) {
            const VkBufferCopy region{0, 0, staging.bytes};
            vkCmdCopyBuffer(cb, staging.buffer, b.buffer, 1, &region);
        });
        free(staging);
        return b;
    }

    template <typename T>
    std::vector<T> download(const Buffer& b, std::size_t count) const {
        Buffer staging = buffer(count * sizeof(T), 0, true);
        submit(false, [&](VkCommandBuffer cb) {
            const VkBufferCopy region{0, 0, staging.bytes};
            vkCmdCopyBuffer(cb, b.buffer, staging.buffer, 1, &region);
        });
        std::vector<T> out(count);
        std::memcpy(out.data(), staging.mapped, count * sizeof(T));
        free(staging);
        return out;
    }
};

/// An acceleration structure of one geometry (triangles or instances) with its
/// storage and scratch, built (or updated) by `record`.
struct Structure {
    const Device& d;
    VkAccelerationStructureGeometryKHR geometry{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
    VkAccelerationStructureBuildGeometryInfoKHR info{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR};
    VkAccelerationStructureBuildRangeInfoKHR range{};
    VkAccelerationStructureKHR handle{};
    Buffer storage, scratch;

    Structure(const Device& dev, VkAccelerationStructureTypeKHR type, const VkAccelerationStructureGeometryKHR& g,
              std::uint32_t primitives, VkBuildAccelerationStructureFlagsKHR flags)
        : d(dev), geometry(g) {
        info.type = type;
        info.flags = flags;
        info.mode = VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR;
        info.geometryCount = 1;
        info.pGeometries = &geometry;
        range.primitiveCount = primitives;
        VkAccelerationStructureBuildSizesInfoKHR sizes{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_SIZES_INFO_KHR};
        d.rt.build_sizes(d.device, VK_ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR, &info, &primitives, &sizes);
        storage = d.buffer(sizes.accelerationStructureSize, VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_STORAGE_BIT_KHR, false);
        const VkDeviceSize align = d.structure_props.minAccelerationStructureScratchOffsetAlignment;
        scratch = d.buffer(std::max(sizes.buildScratchSize, sizes.updateScratchSize) + align, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false);
        VkAccelerationStructureCreateInfoKHR ci{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_CREATE_INFO_KHR};
        ci.buffer = storage.buffer;
        ci.size = sizes.accelerationStructureSize;
        ci.type = type;
        VK(d.rt.create_structure(d.device, &ci, nullptr, &handle));
        info.dstAccelerationStructure = handle;
        info.scratchData.deviceAddress = (scratch.address + align - 1) / align * align;
    }
    ~Structure() {
        d.rt.destroy_structure(d.device, handle, nullptr);
        d.free(storage);
        d.free(scratch);
    }

    /// Records a build, or an update of the structure in place.
    void record(VkCommandBuffer cb, bool update) {
        info.mode = update ? VK_BUILD_ACCELERATION_STRUCTURE_MODE_UPDATE_KHR : VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR;
        info.srcAccelerationStructure = update ? handle : VK_NULL_HANDLE;
        const VkAccelerationStructureBuildRangeInfoKHR* ranges = &range;
        d.rt.cmd_build(cb, 1, &info, &ranges);
    }

    VkDeviceAddress address() const {
        VkAccelerationStructureDeviceAddressInfoKHR ai{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_DEVICE_ADDRESS_INFO_KHR};
        ai.accelerationStructure = handle;
        return d.rt.structure_address(d.device, &ai);
    }
};

// One pipeline, two variants by a specialization constant: closest hit
// (hits[i] = t and the triangle's index as int bits, -1 for a miss, as rill
// writes them) and any hit (occluded[i] = 1 unless the miss shader ran).
const char* kRaygen = R"(#version 460
#extension GL_EXT_ray_tracing : require
layout(constant_id = 0) const int kAnyHit = 0;
struct Hit { float t; int face; };
layout(location = 0) rayPayloadEXT Hit payload;
layout(binding = 0) uniform accelerationStructureEXT scene;
layout(std430, binding = 1) readonly buffer Origins { vec4 origins[]; };
layout(std430, binding = 2) readonly buffer Directions { vec4 directions[]; };
layout(std430, binding = 3) writeonly buffer Hits { vec4 hits[]; };
layout(std430, binding = 4) writeonly buffer Occluded { uint occluded[]; };
void main() {
    uint i = gl_LaunchIDEXT.y * gl_LaunchSizeEXT.x + gl_LaunchIDEXT.x;
    vec4 o = origins[i], d = directions[i];
    // Rays with t_max < t_min (rill's samples of pixels whose primary ray missed)
    // are misses; Vulkan leaves tracing them undefined.
    if (!(d.w >= o.w)) {
        if (kAnyHit != 0) occluded[i] = 0u;
        else hits[i] = vec4(d.w, 0.0, 0.0, intBitsToFloat(-1));
        return;
    }
    if (kAnyHit != 0) {
        payload.face = 0;
        traceRayEXT(scene, gl_RayFlagsOpaqueEXT | gl_RayFlagsTerminateOnFirstHitEXT | gl_RayFlagsSkipClosestHitShaderEXT,
                    0xff, 0, 0, 0, o.xyz, o.w, d.xyz, d.w, 0);
        occluded[i] = payload.face < 0 ? 0u : 1u;
    } else {
        traceRayEXT(scene, gl_RayFlagsOpaqueEXT, 0xff, 0, 0, 0, o.xyz, o.w, d.xyz, d.w, 0);
        hits[i] = vec4(payload.face < 0 ? d.w : payload.t, 0.0, 0.0, intBitsToFloat(payload.face));
    }
}
)";
const char* kMiss = R"(#version 460
#extension GL_EXT_ray_tracing : require
struct Hit { float t; int face; };
layout(location = 0) rayPayloadInEXT Hit payload;
void main() { payload.face = -1; }
)";
const char* kClosestHit = R"(#version 460
#extension GL_EXT_ray_tracing : require
struct Hit { float t; int face; };
layout(location = 0) rayPayloadInEXT Hit payload;
void main() {
    payload.t = gl_HitTEXT;
    payload.face = gl_PrimitiveID;
}
)";

std::vector<std::uint32_t> compile(const char* source, shaderc_shader_kind kind, const char* name) {
    shaderc::Compiler compiler;
    shaderc::CompileOptions options;
    options.SetTargetEnvironment(shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_2);
    options.SetTargetSpirv(shaderc_spirv_version_1_4);
    options.SetOptimizationLevel(shaderc_optimization_level_performance);
    const auto r = compiler.CompileGlslToSpv(source, kind, name, options);
    if (r.GetCompilationStatus() != shaderc_compilation_status_success) fail(std::string(name) + ": " + r.GetErrorMessage());
    return {r.cbegin(), r.cend()};
}

/// The ray-tracing pipeline of one variant and its shader binding table.
struct Pipeline {
    const Device& d;
    VkPipeline pipeline{};
    Buffer table;
    VkStridedDeviceAddressRegionKHR raygen{}, miss{}, hit{}, callable{};

    Pipeline(const Device& dev, VkPipelineLayout layout, const std::vector<VkShaderModule>& modules, int any_hit) : d(dev) {
        const VkSpecializationMapEntry entry{0, 0, sizeof(int)};
        const VkSpecializationInfo special{1, &entry, sizeof(int), &any_hit};
        const VkShaderStageFlagBits stages[3] = {VK_SHADER_STAGE_RAYGEN_BIT_KHR, VK_SHADER_STAGE_MISS_BIT_KHR,
                                                 VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR};
        VkPipelineShaderStageCreateInfo stage_info[3];
        VkRayTracingShaderGroupCreateInfoKHR groups[3];
        for (std::uint32_t i = 0; i < 3; ++i) {
            stage_info[i] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
            stage_info[i].stage = stages[i];
            stage_info[i].module = modules[i];
            stage_info[i].pName = "main";
            groups[i] = {VK_STRUCTURE_TYPE_RAY_TRACING_SHADER_GROUP_CREATE_INFO_KHR};
            groups[i].type = i == 2 ? VK_RAY_TRACING_SHADER_GROUP_TYPE_TRIANGLES_HIT_GROUP_KHR : VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR;
            groups[i].generalShader = i == 2 ? VK_SHADER_UNUSED_KHR : i;
            groups[i].closestHitShader = i == 2 ? i : VK_SHADER_UNUSED_KHR;
            groups[i].anyHitShader = VK_SHADER_UNUSED_KHR;
            groups[i].intersectionShader = VK_SHADER_UNUSED_KHR;
        }
        stage_info[0].pSpecializationInfo = &special;
        VkRayTracingPipelineCreateInfoKHR pci{VK_STRUCTURE_TYPE_RAY_TRACING_PIPELINE_CREATE_INFO_KHR};
        pci.stageCount = 3;
        pci.pStages = stage_info;
        pci.groupCount = 3;
        pci.pGroups = groups;
        pci.maxPipelineRayRecursionDepth = 1;
        pci.layout = layout;
        VK(d.rt.create_pipelines(d.device, VK_NULL_HANDLE, VK_NULL_HANDLE, 1, &pci, nullptr, &pipeline));

        // Each group's handle at the start of its own region: regions start at
        // shaderGroupBaseAlignment, a record's stride is the handle rounded up
        // to shaderGroupHandleAlignment (the raygen region's size is its stride).
        const std::uint32_t handle_size = d.pipeline_props.shaderGroupHandleSize;
        const VkDeviceSize base = d.pipeline_props.shaderGroupBaseAlignment;
        const VkDeviceSize stride = (handle_size + d.pipeline_props.shaderGroupHandleAlignment - 1) /
                                    d.pipeline_props.shaderGroupHandleAlignment * d.pipeline_props.shaderGroupHandleAlignment;
        const VkDeviceSize region = (stride + base - 1) / base * base;
        std::vector<std::uint8_t> handles(3 * handle_size);
        VK(d.rt.group_handles(d.device, pipeline, 0, 3, handles.size(), handles.data()));
        table = d.buffer(3 * region + base, VK_BUFFER_USAGE_SHADER_BINDING_TABLE_BIT_KHR, true);
        const VkDeviceAddress start = (table.address + base - 1) / base * base;
        VkStridedDeviceAddressRegionKHR* regions[3] = {&raygen, &miss, &hit};
        for (std::uint32_t i = 0; i < 3; ++i) {
            const VkDeviceAddress at = start + i * region;
            std::memcpy(static_cast<std::uint8_t*>(table.mapped) + (at - table.address), handles.data() + i * handle_size, handle_size);
            *regions[i] = {at, i == 0 ? region : stride, i == 0 ? region : stride};
        }
    }
    ~Pipeline() {
        vkDestroyPipeline(d.device, pipeline, nullptr);
        d.free(table);
    }
};

std::FILE* open_dump(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) fail("cannot read " + path + ": write it with rill-bench-raytrace --rays-out DIR");
    return f;
}

template <typename Header>
Header read_header(std::FILE* f, const std::string& path) {
    std::vector<Header> h;
    if (!ray_dump::get(f, h, 1)) fail(path + " is shorter than its header");
    return h[0];
}

template <typename F>
double median_ms(F&& run) {
    run();
    std::vector<double> t;
    for (int r = 0; r < 5; ++r) t.push_back(run());
    std::sort(t.begin(), t.end());
    return t[2];
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2 || argv[1][0] == '-') {
        std::fprintf(stderr, "usage: rill-vkrt-peer DIR   (DIR written by rill-bench-raytrace --rays-out DIR)\n");
        return 2;
    }
    const std::string dir = argv[1];
    std::FILE* mesh_file = open_dump(dir + "/mesh.bin");
    const auto mh = read_header<ray_dump::MeshHeader>(mesh_file, dir + "/mesh.bin");
    std::vector<Float4> vertices;
    std::vector<std::int32_t> faces4;
    if (mh.vertices < 0 || mh.faces < 0 || !ray_dump::get(mesh_file, vertices, static_cast<std::size_t>(mh.vertices)) ||
        !ray_dump::get(mesh_file, faces4, 4 * static_cast<std::size_t>(mh.faces)))
        fail(dir + "/mesh.bin is shorter than its header says");
    std::fclose(mesh_file);
    std::vector<std::uint32_t> indices;  // the faces' xyz: the driver reads 3 indices per triangle
    for (std::size_t f = 0; f < faces4.size() / 4; ++f)
        for (int k = 0; k < 3; ++k) indices.push_back(static_cast<std::uint32_t>(faces4[4 * f + k]));

    Features features;
    const Device d(features);
    std::printf("device %s; mesh of %d triangles\n", d.props.deviceName, mh.faces);

    const VkBufferUsageFlags input = VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR;
    Buffer vertex_buffer = d.upload(vertices, input), index_buffer = d.upload(indices, input);
    VkAccelerationStructureGeometryKHR triangles{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
    triangles.geometryType = VK_GEOMETRY_TYPE_TRIANGLES_KHR;
    triangles.flags = VK_GEOMETRY_OPAQUE_BIT_KHR;
    triangles.geometry.triangles = {VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_TRIANGLES_DATA_KHR};
    triangles.geometry.triangles.vertexFormat = VK_FORMAT_R32G32B32_SFLOAT;
    triangles.geometry.triangles.vertexData.deviceAddress = vertex_buffer.address;
    triangles.geometry.triangles.vertexStride = sizeof(Float4);
    triangles.geometry.triangles.maxVertex = static_cast<std::uint32_t>(std::max(mh.vertices, 1) - 1);
    triangles.geometry.triangles.indexType = VK_INDEX_TYPE_UINT32;
    triangles.geometry.triangles.indexData.deviceAddress = index_buffer.address;
    const auto count = static_cast<std::uint32_t>(mh.faces);

    // The traced structure, and the builds a user picks for speed of building or refitting.
    Structure bottom(d, VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR, triangles, count,
                     VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR);
    const double build_trace_ms = median_ms([&] { return d.submit(true, [&](VkCommandBuffer cb) { bottom.record(cb, false); }); });
    double build_fast_ms = 0, update_ms = 0;
    {
        Structure fast(d, VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR, triangles, count,
                       VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_BUILD_BIT_KHR);
        build_fast_ms = median_ms([&] { return d.submit(true, [&](VkCommandBuffer cb) { fast.record(cb, false); }); });
        Structure refit(d, VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR, triangles, count,
                        VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR | VK_BUILD_ACCELERATION_STRUCTURE_ALLOW_UPDATE_BIT_KHR);
        d.submit(false, [&](VkCommandBuffer cb) { refit.record(cb, false); });
        update_ms = median_ms([&] { return d.submit(true, [&](VkCommandBuffer cb) { refit.record(cb, true); }); });
    }

    VkAccelerationStructureInstanceKHR instance{};
    instance.transform.matrix[0][0] = instance.transform.matrix[1][1] = instance.transform.matrix[2][2] = 1.0f;
    instance.mask = 0xff;
    instance.flags = VK_GEOMETRY_INSTANCE_TRIANGLE_FACING_CULL_DISABLE_BIT_KHR;
    instance.accelerationStructureReference = bottom.address();
    Buffer instance_buffer = d.upload(std::vector<VkAccelerationStructureInstanceKHR>{instance}, input);
    VkAccelerationStructureGeometryKHR instances{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
    instances.geometryType = VK_GEOMETRY_TYPE_INSTANCES_KHR;
    instances.geometry.instances = {VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_INSTANCES_DATA_KHR};
    instances.geometry.instances.data.deviceAddress = instance_buffer.address;
    Structure top(d, VK_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR, instances, 1, VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR);
    d.submit(false, [&](VkCommandBuffer cb) { top.record(cb, false); });

    // Descriptors: the scene, the rays, the two kinds of answers.
    VkDescriptorSetLayoutBinding binds[5] = {};
    for (std::uint32_t i = 0; i < 5; ++i) {
        binds[i].binding = i;
        binds[i].descriptorType = i == 0 ? VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        binds[i].descriptorCount = 1;
        binds[i].stageFlags = VK_SHADER_STAGE_RAYGEN_BIT_KHR;
    }
    VkDescriptorSetLayoutCreateInfo dli{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dli.bindingCount = 5;
    dli.pBindings = binds;
    VkDescriptorSetLayout set_layout;
    VK(vkCreateDescriptorSetLayout(d.device, &dli, nullptr, &set_layout));
    VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &set_layout;
    VkPipelineLayout layout;
    VK(vkCreatePipelineLayout(d.device, &pli, nullptr, &layout));
    const VkDescriptorPoolSize pool_sizes[2] = {{VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR, 1}, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4}};
    VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.maxSets = 1;
    dpi.poolSizeCount = 2;
    dpi.pPoolSizes = pool_sizes;
    VkDescriptorPool descriptor_pool;
    VK(vkCreateDescriptorPool(d.device, &dpi, nullptr, &descriptor_pool));
    VkDescriptorSetAllocateInfo dsa{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsa.descriptorPool = descriptor_pool;
    dsa.descriptorSetCount = 1;
    dsa.pSetLayouts = &set_layout;
    VkDescriptorSet set;
    VK(vkAllocateDescriptorSets(d.device, &dsa, &set));

    std::vector<VkShaderModule> modules;
    for (const auto& [source, kind, name] : {std::tuple{kRaygen, shaderc_raygen_shader, "raygen"},
                                             std::tuple{kMiss, shaderc_miss_shader, "miss"},
                                             std::tuple{kClosestHit, shaderc_closesthit_shader, "closest hit"}}) {
        const auto spirv = compile(source, kind, name);
        VkShaderModuleCreateInfo smi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        smi.codeSize = spirv.size() * 4;
        smi.pCode = spirv.data();
        modules.emplace_back();
        VK(vkCreateShaderModule(d.device, &smi, nullptr, &modules.back()));
    }
    const Pipeline closest(d, layout, modules, 0), any(d, layout, modules, 1);

    std::printf("\n| rays (%s) | Vulkan ray-tracing pipeline | rill | rill / pipeline (speed) | rays differing |\n|---|---|---|---|---|\n",
                d.props.deviceName);
    for (const char* kind : ray_dump::kKinds) {
        const std::string path = dir + "/" + kind + ".bin";
        std::FILE* f = open_dump(path);
        const auto rh = read_header<ray_dump::RaysHeader>(f, path);
        const std::size_t n = static_cast<std::size_t>(rh.width) * static_cast<std::size_t>(rh.height);
        std::vector<Float4> origins, directions, rill_hits;
        std::vector<std::uint32_t> rill_occluded;
        if (rh.width < 1 || rh.height < 1 || !ray_dump::get(f, origins, n) || !ray_dump::get(f, directions, n) ||
            !(rh.any_hit ? ray_dump::get(f, rill_occluded, n) : ray_dump::get(f, rill_hits, n)))
            fail(path + " is shorter than its header says");
        std::fclose(f);
        Buffer o = d.upload(origins, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT), dirs = d.upload(directions, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
        Buffer hits = d.buffer(n * sizeof(Float4), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false);
        Buffer occluded = d.buffer(n * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false);
        VkWriteDescriptorSetAccelerationStructureKHR scene{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR};
        scene.accelerationStructureCount = 1;
        scene.pAccelerationStructures = &top.handle;
        VkDescriptorBufferInfo infos[4] = {{o.buffer, 0, VK_WHOLE_SIZE}, {dirs.buffer, 0, VK_WHOLE_SIZE},
                                           {hits.buffer, 0, VK_WHOLE_SIZE}, {occluded.buffer, 0, VK_WHOLE_SIZE}};
        VkWriteDescriptorSet writes[5];
        for (std::uint32_t i = 0; i < 5; ++i) {
            writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            writes[i].dstSet = set;
            writes[i].dstBinding = i;
            writes[i].descriptorCount = 1;
            writes[i].descriptorType = binds[i].descriptorType;
            if (i == 0) writes[i].pNext = &scene;
            else writes[i].pBufferInfo = &infos[i - 1];
        }
        vkUpdateDescriptorSets(d.device, 5, writes, 0, nullptr);
        const Pipeline& p = rh.any_hit ? any : closest;
        const double ms = median_ms([&] {
            return d.submit(true, [&](VkCommandBuffer cb) {
                vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, p.pipeline);
                vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, layout, 0, 1, &set, 0, nullptr);
                d.rt.cmd_trace(cb, &p.raygen, &p.miss, &p.hit, &p.callable, static_cast<std::uint32_t>(rh.width),
                               static_cast<std::uint32_t>(rh.height), 1);
            });
        });
        std::size_t differ = 0;
        if (rh.any_hit) {
            const auto got = d.download<std::uint32_t>(occluded, n);
            for (std::size_t i = 0; i < n; ++i) differ += got[i] != rill_occluded[i];
        } else {
            const auto got = d.download<Float4>(hits, n);
            for (std::size_t i = 0; i < n; ++i) {
                const bool h = std::bit_cast<std::int32_t>(got[i].w) >= 0, want = std::bit_cast<std::int32_t>(rill_hits[i].w) >= 0;
                differ += h != want || (h && std::abs(got[i].x - rill_hits[i].x) > 1e-4f * rill_hits[i].x);
            }
        }
        if (differ > 1 + n / 10000) fail(std::string(kind) + " rays: " + std::to_string(differ) + " of " + std::to_string(n) + " differ from rill's");
        std::printf("| %s | %.1f Mrays/s (%.3f ms) | %.1f Mrays/s (%.3f ms) | %.2f | %zu |\n", kind, n / (ms * 1e3), ms,
                    n / (rh.rill_ms * 1e3), rh.rill_ms, ms / rh.rill_ms, differ);
        for (Buffer* b : {&o, &dirs, &hits, &occluded}) d.free(*b);
    }
    std::printf("\n| BVH of %d triangles | driver (device time) | rill | rill / driver (speed) |\n|---|---|---|---|\n", mh.faces);
    std::printf("| build, PREFER_FAST_BUILD; rill's Fast (LBVH, host wall) | %.3f ms | %.3f ms | %.2f |\n", build_fast_ms,
                mh.build_fast_ms, build_fast_ms / mh.build_fast_ms);
    std::printf("| build, PREFER_FAST_TRACE (the traced one); rill's High (PLOC, host wall) | %.3f ms | %.3f ms | %.2f |\n",
                build_trace_ms, mh.build_ms, build_trace_ms / mh.build_ms);
    std::printf("| update (ALLOW_UPDATE); rill's refit (device time) | %.3f ms | %.3f ms | %.2f |\n", update_ms, mh.refit_ms,
                update_ms / mh.refit_ms);
    for (Buffer* b : {&vertex_buffer, &index_buffer, &instance_buffer}) d.free(*b);
    return 0;
}
