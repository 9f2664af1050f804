#include "vulkan_memory.h"

#include <vulkan/vulkan.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

namespace rill::gl {

struct VulkanMemory::Device {
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkPhysicalDeviceMemoryProperties memory{};
    VkDevice device = VK_NULL_HANDLE;
    PFN_vkGetMemoryFdKHR get_fd = nullptr;
    std::atomic<bool> refused{false};  // an import failed: GL's own buffers from then on

    std::uint32_t device_local_type(std::uint32_t allowed) const {
        for (std::uint32_t i = 0; i < memory.memoryTypeCount; ++i)
            if ((allowed & (1u << i)) && (memory.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) return i;
        return memory.memoryTypeCount;
    }
};

namespace {

bool has_gl_extension(const char* name) {
    GLint count = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &count);
    for (GLint e = 0; e < count; ++e)
        if (std::strcmp(name, reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(e)))) == 0)
            return true;
    return false;
}

bool has_device_extension(VkPhysicalDevice d, const char* name) {
    std::uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(d, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> all(n);
    vkEnumerateDeviceExtensionProperties(d, nullptr, &n, all.data());
    for (const auto& e : all)
        if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
}

}  // namespace

namespace {

using Uuids = std::array<GLubyte, 2 * GL_UUID_SIZE_EXT>;  // device, then driver

/// The device of the physical device with these UUIDs, or nullptr.
VulkanMemory::Device* make_device(VkInstance instance, const Uuids& uuids) {
    std::uint32_t count = 0;
    vkEnumeratePhysicalDevices(instance, &count, nullptr);
    std::vector<VkPhysicalDevice> all(count);
    vkEnumeratePhysicalDevices(instance, &count, all.data());
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    for (VkPhysicalDevice p : all) {
        VkPhysicalDeviceProperties basic;
        vkGetPhysicalDeviceProperties(p, &basic);
        if (basic.apiVersion < VK_API_VERSION_1_1) continue;
        VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        props.pNext = &ids;
        vkGetPhysicalDeviceProperties2(p, &props);
        if (std::memcmp(ids.deviceUUID, uuids.data(), GL_UUID_SIZE_EXT) == 0 &&
            std::memcmp(ids.driverUUID, uuids.data() + GL_UUID_SIZE_EXT, GL_UUID_SIZE_EXT) == 0 &&
            has_device_extension(p, "VK_KHR_external_memory_fd")) {
            physical = p;
            break;
        }
    }
    if (!physical) return nullptr;
    // A device needs a queue; this one never submits anything.
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = 0;
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    const char* extensions[] = {"VK_KHR_external_memory_fd"};
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = 1;
    dci.ppEnabledExtensionNames = extensions;
    VkDevice device = VK_NULL_HANDLE;
    if (vkCreateDevice(physical, &dci, nullptr, &device) != VK_SUCCESS) return nullptr;
    auto get_fd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(device, "vkGetMemoryFdKHR"));
    if (!get_fd) {
        vkDestroyDevice(device, nullptr);
        return nullptr;
    }
    auto* d = new VulkanMemory::Device;  // kept for the process (vulkan_memory.h says why)
    d->physical = physical;
    vkGetPhysicalDeviceMemoryProperties(physical, &d->memory);
    d->device = device;
    d->get_fd = get_fd;
    return d;
}

}  // namespace

VulkanMemory* VulkanMemory::of_current_context() {
    if (!has_gl_extension("GL_EXT_memory_object") || !has_gl_extension("GL_EXT_memory_object_fd")) return nullptr;
    Uuids uuids{};
    glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, uuids.data());
    glGetUnsignedBytevEXT(GL_DRIVER_UUID_EXT, uuids.data() + GL_UUID_SIZE_EXT);
    if (glGetError() != GL_NO_ERROR) return nullptr;

    // Never destroyed, as what they point to (a static vector's destructor at
    // exit would leave the devices unreachable, a leak to LeakSanitizer).
    static std::mutex mutex;
    static VkInstance instance = VK_NULL_HANDLE;
    static bool tried = false;
    static auto& known = *new std::vector<std::pair<Uuids, VulkanMemory*>>;  // by GPU, nullptr where it has none
    std::lock_guard lock(mutex);
    if (!tried) {
        tried = true;
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.pApplicationName = "rill opengl backend's stream memory";
        app.apiVersion = VK_API_VERSION_1_1;
        VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        ici.pApplicationInfo = &app;
        if (vkCreateInstance(&ici, nullptr, &instance) != VK_SUCCESS) instance = VK_NULL_HANDLE;
    }
    if (!instance) return nullptr;
    for (const auto& [id, memory] : known)
        if (id == uuids) return memory && !memory->d_->refused ? memory : nullptr;
    Device* d = make_device(instance, uuids);
    VulkanMemory* memory = d ? new VulkanMemory(d) : nullptr;  // kept for the process
    known.emplace_back(uuids, memory);
    return memory;
}

bool VulkanMemory::refused() const { return d_->refused; }

GLuint VulkanMemory::buffer(std::size_t bytes, GLuint& object) {
    object = 0;
    const VkDevice dev = d_->device;
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.pNext = &external;
    bi.size = bytes;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer vb = VK_NULL_HANDLE;
    if (vkCreateBuffer(dev, &bi, nullptr, &vb) != VK_SUCCESS) return 0;
    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(dev, vb, &req);
    VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    dedicated.buffer = vb;
    VkExportMemoryAllocateInfo exported{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    exported.pNext = &dedicated;
    exported.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.pNext = &exported;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = d_->device_local_type(req.memoryTypeBits);
    VkDeviceMemory memory = VK_NULL_HANDLE;
    int fd = -1;
    bool ok = ai.memoryTypeIndex < d_->memory.memoryTypeCount && vkAllocateMemory(dev, &ai, nullptr, &memory) == VK_SUCCESS;
    if (ok) {
        VkMemoryGetFdInfoKHR fi{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
        fi.memory = memory;
        fi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
        ok = d_->get_fd(dev, &fi, &fd) == VK_SUCCESS;
    }
    GLuint b = 0;
    if (ok) {
        glCreateMemoryObjectsEXT(1, &object);
        const GLint yes = GL_TRUE;
        glMemoryObjectParameterivEXT(object, GL_DEDICATED_MEMORY_OBJECT_EXT, &yes);
        glImportMemoryFdEXT(object, req.size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);  // the fd is GL's now
        glCreateBuffers(1, &b);
        glNamedBufferStorageMemEXT(b, static_cast<GLsizeiptr>(bytes), object, 0);
        if (glGetError() != GL_NO_ERROR) {
            glDeleteBuffers(1, &b);
            glDeleteMemoryObjectsEXT(1, &object);
            b = object = 0;
            d_->refused = true;
        }
    }
    // Vulkan's references go: an imported payload lives while GL's memory object holds it.
    vkDestroyBuffer(dev, vb, nullptr);
    if (memory) vkFreeMemory(dev, memory, nullptr);
    return b;
}

}  // namespace rill::gl
