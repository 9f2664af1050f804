#include "context.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "rill/core/backend.h"
#include "rill/core/error.h"

namespace rill::vk {

namespace {

const char* result_name(VkResult r) {
    switch (r) {
        case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
        case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
        case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
        case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
        case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
        case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
        case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
        case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
        default: return "a Vulkan error";
    }
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                          VkDebugUtilsMessageTypeFlagsEXT, const VkDebugUtilsMessengerCallbackDataEXT* data,
                                          void* user);

bool layer_available(const char* name) {
    std::uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> layers(n);
    vkEnumerateInstanceLayerProperties(&n, layers.data());
    for (const auto& l : layers)
        if (std::strcmp(l.layerName, name) == 0) return true;
    return false;
}

/// The process's one VkInstance, created on first use and kept until exit:
/// creating and destroying instances repeatedly makes the NVIDIA driver fail
/// vkCreateInstance with VK_ERROR_INCOMPATIBLE_DRIVER after a few dozen
/// (seen on the H100, driver 580), and one instance is cheaper anyway.
/// One logical device per physical device, shared by every runtime of the
/// process (like CUDA's primary context): the NVIDIA driver keeps file
/// descriptors from each device created, and runtimes start faster this way.
struct SharedDevice {
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    std::uint32_t family = 0;
    PFN_vkCmdPushDescriptorSetKHR push_descriptor_set = nullptr;
    bool float_atomic_add = false;  // VK_EXT_shader_atomic_float on storage buffers
    bool subgroup_size_control = false;
    bool pipeline_stats = false;
    bool glsl_modules = false;
    bool subgroup_partitioned = false;  // VK_NV_shader_subgroup_partitioned enabled
    bool subgroup_uniform_control_flow = false;  // VK_KHR_shader_subgroup_uniform_control_flow enabled
    bool unchecked_buffers = false;     // VK_EXT_pipeline_robustness enabled to make pipelines without the driver's checks
    std::mutex queue_mutex;  // vkQueueSubmit needs external synchronization
};

struct SharedInstance {
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    bool validation = false;
    std::mutex mutex;
    std::vector<Context*> listeners;  // contexts that collect validation messages
    std::vector<std::pair<VkPhysicalDevice, std::unique_ptr<SharedDevice>>> devices;
};
SharedInstance& shared_instance();
bool device_extension(VkPhysicalDevice d, const char* name);

/// Feature struct `f` (its sType set) as the physical device reports it.
template <class F>
F device_features(VkPhysicalDevice physical, F f) {
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &f;
    vkGetPhysicalDeviceFeatures2(physical, &f2);
    f.pNext = nullptr;
    return f;
}

/// Chains feature struct `f` (the fields to enable set) into the device's
/// create info, with its extension.
template <class F>
void enable_features(VkDeviceCreateInfo& di, std::vector<const char*>& extensions, F& f, const char* extension) {
    f.pNext = const_cast<void*>(di.pNext);
    di.pNext = &f;
    extensions.push_back(extension);
}

SharedDevice& shared_device(VkPhysicalDevice physical, std::uint32_t family);

VkInstance make_instance(bool validation) {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "rill";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;
    const char* layer = "VK_LAYER_KHRONOS_validation";
    const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    if (validation) {
        ci.enabledLayerCount = 1;
        ci.ppEnabledLayerNames = &layer;
        ci.enabledExtensionCount = 1;
        ci.ppEnabledExtensionNames = &ext;
    }
    VkInstance inst = VK_NULL_HANDLE;
    VkResult r = vkCreateInstance(&ci, nullptr, &inst);
    if (r != VK_SUCCESS)
        throw Error(std::string("vulkan backend: no Vulkan driver answered (vkCreateInstance: ") + result_name(r) +
                    "); install a Vulkan driver (Debian: mesa-vulkan-drivers) or use another backend");
    return inst;
}

std::vector<VkPhysicalDevice> physical_devices(VkInstance inst) {
    std::uint32_t n = 0;
    vkEnumeratePhysicalDevices(inst, &n, nullptr);
    std::vector<VkPhysicalDevice> devs(n);
    vkEnumeratePhysicalDevices(inst, &n, devs.data());
    return devs;
}

bool device_extension(VkPhysicalDevice d, const char* name) {
    std::uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(d, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> exts(n);
    vkEnumerateDeviceExtensionProperties(d, nullptr, &n, exts.data());
    for (const auto& e : exts)
        if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
}

int compute_family(VkPhysicalDevice d) {
    std::uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d, &n, nullptr);
    std::vector<VkQueueFamilyProperties> fams(n);
    vkGetPhysicalDeviceQueueFamilyProperties(d, &n, fams.data());
    for (std::uint32_t i = 0; i < n; ++i)
        if (fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT) return static_cast<int>(i);
    return -1;
}

}  // namespace

void check(VkResult r, const char* what) {
    if (r == VK_SUCCESS) return;
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
        throw Error(std::string("vulkan backend: out of ") + (r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? "device" : "host") +
                    " memory in " + what + "; use smaller streams or release others first");
    if (r == VK_ERROR_DEVICE_LOST)
        throw Error(std::string("vulkan backend: the device was lost in ") + what +
                    " (a driver reset, often a kernel that ran too long); create a new rill::Runtime");
    throw Error(std::string("vulkan backend: ") + what + " failed with " + result_name(r));
}

Context::Context() {
    validation = env_flag("RILL_VULKAN_VALIDATION");
    if (validation && !layer_available("VK_LAYER_KHRONOS_validation"))
        throw Error("vulkan backend: RILL_VULKAN_VALIDATION is set but the Khronos validation layer is not installed "
                    "(Debian: vulkan-validationlayers)");
    {
        SharedInstance& si = shared_instance();
        std::lock_guard lock(si.mutex);
        if (!si.instance) {
            si.instance = make_instance(validation);
            si.validation = validation;
            if (validation) {
                auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
                    vkGetInstanceProcAddr(si.instance, "vkCreateDebugUtilsMessengerEXT"));
                VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
                mi.messageSeverity =
                    VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
                mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                 VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
                mi.pfnUserCallback = on_message;
                mi.pUserData = &si;
                check(create(si.instance, &mi, nullptr, &si.messenger), "vkCreateDebugUtilsMessengerEXT");
            }
        } else if (validation && !si.validation) {
            throw Error("vulkan backend: RILL_VULKAN_VALIDATION was set after the first Vulkan runtime of this process "
                        "started; set it before the first one");
        }
        instance = si.instance;
        si.listeners.push_back(this);
    }
    try {
        std::vector<VkPhysicalDevice> devs = physical_devices(instance);
        if (devs.empty())
            throw Error("vulkan backend: Vulkan reports no device; install a driver (Debian: mesa-vulkan-drivers)");
        int chosen = -1;
        if (const char* want = std::getenv("RILL_DEVICE"); want && *want) {
            char* end = nullptr;
            long idx = std::strtol(want, &end, 10);
            for (std::size_t i = 0; i < devs.size(); ++i) {
                VkPhysicalDeviceProperties p;
                vkGetPhysicalDeviceProperties(devs[i], &p);
                if ((*end == '\0' && static_cast<long>(i) == idx) || std::strstr(p.deviceName, want)) {
                    chosen = static_cast<int>(i);
                    break;
                }
            }
            if (chosen < 0) {
                std::string names;
                for (const auto& n : device_names()) names += "\n  " + n;
                throw Error("vulkan backend: RILL_DEVICE='" + std::string(want) + "' matches no device; devices:" + names);
            }
        } else {
            // Prefer a discrete GPU, then integrated, then anything (lavapipe).
            int best = -1;
            for (std::size_t i = 0; i < devs.size(); ++i) {
                VkPhysicalDeviceProperties p;
                vkGetPhysicalDeviceProperties(devs[i], &p);
                int score = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? 3
                            : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 2 : 1;
                if (compute_family(devs[i]) >= 0 && score > best) {
                    best = score;
                    chosen = static_cast<int>(i);
                }
            }
        }
        physical = devs[static_cast<std::size_t>(chosen)];
        const int family = compute_family(physical);
        if (family < 0) throw Error("vulkan backend: the chosen device has no compute queue");
        queue_family = static_cast<std::uint32_t>(family);
        vkGetPhysicalDeviceProperties(physical, &properties);
        llvmpipe = std::strstr(properties.deviceName, "llvmpipe") != nullptr;
        vkGetPhysicalDeviceMemoryProperties(physical, &memory);
        VkPhysicalDeviceSubgroupProperties sub{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
        VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
        VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        p2.pNext = &sub;
        if (properties.apiVersion >= VK_API_VERSION_1_2) sub.pNext = &driver;
        vkGetPhysicalDeviceProperties2(physical, &p2);
        driver_optimizes_spirv = properties.apiVersion >= VK_API_VERSION_1_2 && driver.driverID == VK_DRIVER_ID_NVIDIA_PROPRIETARY;
        subgroup_size = sub.subgroupSize;
        subgroup_ops = (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ? sub.supportedOperations : 0;
        native_subgroups = (subgroup_ops & kAllSubgroupOps) == kAllSubgroupOps;  // same bits as VkSubgroupFeatureFlagBits

        SharedDevice& shared = shared_device(physical, queue_family);
        device = shared.device;
        queue = shared.queue;
        queue_mutex = &shared.queue_mutex;
        push_descriptor_set = shared.push_descriptor_set;
        float_atomic_add = shared.float_atomic_add;
        pipeline_stats = shared.pipeline_stats;
        glsl_modules = shared.glsl_modules;
        unchecked_buffers = shared.unchecked_buffers;
        subgroup_uniform_control_flow = native_subgroups && shared.subgroup_uniform_control_flow;
        subgroup_partitioned = native_subgroups && shared.subgroup_partitioned &&
                               (subgroup_ops & VK_SUBGROUP_FEATURE_PARTITIONED_BIT_NV) != 0;
        min_subgroup_size = max_subgroup_size = native_subgroups ? subgroup_size : 1u;
        if (shared.subgroup_size_control && native_subgroups) {
            VkPhysicalDeviceSubgroupSizeControlPropertiesEXT sc{
                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES_EXT};
            VkPhysicalDeviceProperties2 p3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
            p3.pNext = &sc;
            vkGetPhysicalDeviceProperties2(physical, &p3);
            if (sc.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) {
                subgroup_size_control = true;
                min_subgroup_size = sc.minSubgroupSize;
                max_subgroup_size = sc.maxSubgroupSize;
            }
        }
    } catch (...) {
        release();
        throw;
    }
}

Context::~Context() { release(); }

void Context::release() {
    device = VK_NULL_HANDLE;  // shared: stays for the next runtime on this device
    SharedInstance& si = shared_instance();
    std::lock_guard lock(si.mutex);
    si.listeners.erase(std::remove(si.listeners.begin(), si.listeners.end(), this), si.listeners.end());
    instance = VK_NULL_HANDLE;  // the shared instance stays for the next runtime
}

namespace {

SharedDevice& shared_device(VkPhysicalDevice physical, std::uint32_t family) {
    SharedInstance& si = shared_instance();
    std::lock_guard lock(si.mutex);
    for (auto& [pd, dev] : si.devices)
        if (pd == physical) return *dev;
    auto dev = std::make_unique<SharedDevice>();
    dev->family = family;
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    std::vector<const char*> extensions;
    const bool has_push = device_extension(physical, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    if (has_push) extensions.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    // Float atomic add on storage buffers: ScatterOp and atomic_add on float
    // Arrays use it where the device has it (a compare-exchange loop otherwise).
    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT float_atomics{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
    if (device_extension(physical, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME) &&
        device_features(physical, float_atomics).shaderBufferFloat32AtomicAdd == VK_TRUE) {
        float_atomics.shaderBufferFloat32AtomicAdd = VK_TRUE;
        enable_features(di, extensions, float_atomics, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
        dev->float_atomic_add = true;
    }
    // Pinned subgroup sizes (GroupOptions::subgroup_size) where compute shaders can have them.
    VkPhysicalDeviceSubgroupSizeControlFeaturesEXT size_control{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT};
    if (device_extension(physical, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME)) {
        const auto has = device_features(physical, size_control);
        if (has.subgroupSizeControl == VK_TRUE && has.computeFullSubgroups == VK_TRUE) {
            size_control.subgroupSizeControl = VK_TRUE;
            size_control.computeFullSubgroups = VK_TRUE;
            enable_features(di, extensions, size_control, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
            dev->subgroup_size_control = true;
        }
    }
    // subgroup_match as one instruction (the radix sort's ranking uses it).
    if (device_extension(physical, VK_NV_SHADER_SUBGROUP_PARTITIONED_EXTENSION_NAME)) {
        extensions.push_back(VK_NV_SHADER_SUBGROUP_PARTITIONED_EXTENSION_NAME);
        dev->subgroup_partitioned = true;
    }
    // rill's shaders check every storage-buffer index themselves (SEMANTICS.md,
    // "Memory"); the driver's own checks on top cost an instruction or two per
    // access (NVIDIA makes them by default, as its machine code shows) and the
    // radix sort 3-4% on the H100 (docs/PERFORMANCE.md#radix-sort).
    // So pipelines are made without them where VK_EXT_pipeline_robustness
    // allows; RILL_VK_DRIVER_CHECKS=1 keeps them (to tell a rill check that
    // is missing from a driver's).
    VkPhysicalDevicePipelineRobustnessFeaturesEXT robustness{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_ROBUSTNESS_FEATURES_EXT};
    const char* driver_checks = std::getenv("RILL_VK_DRIVER_CHECKS");
    if (!(driver_checks && std::string(driver_checks) == "1") &&
        device_extension(physical, VK_EXT_PIPELINE_ROBUSTNESS_EXTENSION_NAME) &&
        device_features(physical, robustness).pipelineRobustness == VK_TRUE) {
        robustness.pipelineRobustness = VK_TRUE;
        enable_features(di, extensions, robustness, VK_EXT_PIPELINE_ROBUSTNESS_EXTENSION_NAME);
        dev->unchecked_buffers = true;
    }
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable_info{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    if (std::getenv("RILL_VK_PIPELINE_STATS")) {
        if (device_extension(physical, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
            executable_info.pipelineExecutableInfo = VK_TRUE;
            enable_features(di, extensions, executable_info, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
            dev->pipeline_stats = true;
        } else {
            std::fprintf(stderr, "rill vulkan: RILL_VK_PIPELINE_STATS: the device has no VK_KHR_pipeline_executable_properties\n");
        }
    }
    // Subgroups that reconverge after branches (an A/B knob, docs/TUNING.md:
    // whether the look-back's subgroup operations after lane-divergent branches
    // are why some single-pass compactions went wrong through NVIDIA's driver).
    VkPhysicalDeviceShaderSubgroupUniformControlFlowFeaturesKHR uniform_control_flow{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_UNIFORM_CONTROL_FLOW_FEATURES_KHR};
    if (env_flag("RILL_VK_SUBGROUP_UNIFORM_CONTROL_FLOW")) {
        if (device_extension(physical, VK_KHR_SHADER_SUBGROUP_UNIFORM_CONTROL_FLOW_EXTENSION_NAME) &&
            device_features(physical, uniform_control_flow).shaderSubgroupUniformControlFlow == VK_TRUE) {
            uniform_control_flow.shaderSubgroupUniformControlFlow = VK_TRUE;
            enable_features(di, extensions, uniform_control_flow, VK_KHR_SHADER_SUBGROUP_UNIFORM_CONTROL_FLOW_EXTENSION_NAME);
            dev->subgroup_uniform_control_flow = true;
        } else {
            throw Error("vulkan backend: RILL_VK_SUBGROUP_UNIFORM_CONTROL_FLOW is set, but the device has no "
                        "VK_KHR_shader_subgroup_uniform_control_flow; unset it");
        }
    }
    if (std::getenv("RILL_VK_GLSL_MODULES")) {
        if (device_extension(physical, VK_NV_GLSL_SHADER_EXTENSION_NAME)) {
            extensions.push_back(VK_NV_GLSL_SHADER_EXTENSION_NAME);
            dev->glsl_modules = true;
        } else {
            std::fprintf(stderr, "rill vulkan: RILL_VK_GLSL_MODULES: the device has no VK_NV_glsl_shader\n");
        }
    }
    di.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
    di.ppEnabledExtensionNames = extensions.data();
    check(vkCreateDevice(physical, &di, nullptr, &dev->device), "vkCreateDevice");
    vkGetDeviceQueue(dev->device, family, 0, &dev->queue);
    if (has_push)
        dev->push_descriptor_set =
            reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(dev->device, "vkCmdPushDescriptorSetKHR"));
    si.devices.emplace_back(physical, std::move(dev));
    return *si.devices.back().second;
}

SharedInstance& shared_instance() {
    // Never destroyed: tearing the device down in a static destructor crashed
    // at exit on the H100 (after the driver's own exit handlers, with GL also
    // loaded). The process exit releases it; LeakSanitizer is told (tests/lsan.supp).
    static SharedInstance* si = new SharedInstance;
    return *si;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                          VkDebugUtilsMessageTypeFlagsEXT, const VkDebugUtilsMessengerCallbackDataEXT* data,
                                          void* user) {
    if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        // Messages cannot be attributed to one runtime: every live one hears them.
        auto* si = static_cast<SharedInstance*>(user);
        std::lock_guard lock(si->mutex);
        for (Context* ctx : si->listeners) {
            std::lock_guard lock2(ctx->messages_mutex);
            ctx->messages.emplace_back(data->pMessage ? data->pMessage : "(no message)");
        }
    }
    return VK_FALSE;
}

}  // namespace

int Context::memory_type(std::uint32_t allowed, VkMemoryPropertyFlags want) const {
    for (std::uint32_t i = 0; i < memory.memoryTypeCount; ++i)
        if ((allowed & (1u << i)) && (memory.memoryTypes[i].propertyFlags & want) == want) return static_cast<int>(i);
    return -1;
}

std::vector<std::string> Context::take_messages() {
    std::lock_guard lock(messages_mutex);
    return std::exchange(messages, {});
}

std::vector<std::string> Context::device_names() const {
    std::vector<std::string> out;
    auto devs = physical_devices(instance);
    for (std::size_t i = 0; i < devs.size(); ++i) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devs[i], &p);
        out.push_back(std::to_string(i) + ": " + p.deviceName);
    }
    return out;
}

}  // namespace rill::vk
