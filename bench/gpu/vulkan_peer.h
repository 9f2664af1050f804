// What the hand-written Vulkan peer programs (rill-vk-copy-peer,
// rill-vkfft-peer, rill-vkrt-peer) share: a call that must succeed, and the device they run
// on (the discrete GPU where there is one, its first compute queue). No rill
// code: the peers are measured as a user would write them.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define VK(call)                                                                  \
    do {                                                                          \
        VkResult r_ = (call);                                                     \
        if (r_ != VK_SUCCESS) {                                                   \
            std::fprintf(stderr, "%s failed: %d\n", #call, static_cast<int>(r_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

/// A Vulkan 1.2 instance, the discrete GPU (else the first device) and a
/// device with one queue of its first compute family, with `extensions` and
/// the feature structs chained at `features` enabled; a command pool whose
/// buffers can be reset and a fence for that queue. Destroyed by the program.
struct VulkanPeer {
    VkInstance instance{};
    VkPhysicalDevice physical{};
    VkPhysicalDeviceProperties props{};
    VkPhysicalDeviceMemoryProperties memory{};
    VkDevice device{};
    VkQueue queue{};
    std::uint32_t family = 0;
    VkCommandPool pool{};
    VkFence fence{};

    /// The first memory type among `allowed` (a memoryTypeBits mask) with every
    /// property of `want`; memory.memoryTypeCount when there is none.
    std::uint32_t memory_type(std::uint32_t allowed, VkMemoryPropertyFlags want) const {
        for (std::uint32_t i = 0; i < memory.memoryTypeCount; ++i)
            if ((allowed & (1u << i)) && (memory.memoryTypes[i].propertyFlags & want) == want) return i;
        return memory.memoryTypeCount;
    }

    explicit VulkanPeer(const std::vector<const char*>& extensions = {}, void* features = nullptr) {
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.apiVersion = VK_API_VERSION_1_2;
        VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        ici.pApplicationInfo = &app;
        VK(vkCreateInstance(&ici, nullptr, &instance));
        std::uint32_t count = 0;
        vkEnumeratePhysicalDevices(instance, &count, nullptr);
        std::vector<VkPhysicalDevice> all(count);
        vkEnumeratePhysicalDevices(instance, &count, all.data());
        if (all.empty()) {
            std::fprintf(stderr, "no Vulkan device\n");
            std::exit(1);
        }
        physical = all[0];
        for (VkPhysicalDevice d : all) {
            VkPhysicalDeviceProperties p;
            vkGetPhysicalDeviceProperties(d, &p);
            if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) physical = d;
        }
        vkGetPhysicalDeviceProperties(physical, &props);
        vkGetPhysicalDeviceMemoryProperties(physical, &memory);
        std::uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, nullptr);
        std::vector<VkQueueFamilyProperties> families(nq);
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, families.data());
        while (family < nq && !(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
        std::uint32_t ne = 0;
        vkEnumerateDeviceExtensionProperties(physical, nullptr, &ne, nullptr);
        std::vector<VkExtensionProperties> available(ne);
        vkEnumerateDeviceExtensionProperties(physical, nullptr, &ne, available.data());
        for (const char* wanted : extensions) {
            bool found = false;
            for (const VkExtensionProperties& e : available) found = found || std::strcmp(e.extensionName, wanted) == 0;
            if (!found) {
                std::fprintf(stderr, "%s has no %s: this peer needs a device that has it\n", props.deviceName, wanted);
                std::exit(1);
            }
        }
        const float priority = 1.0f;
        VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        qci.queueFamilyIndex = family;
        qci.queueCount = 1;
        qci.pQueuePriorities = &priority;
        VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
        dci.queueCreateInfoCount = 1;
        dci.pQueueCreateInfos = &qci;
        dci.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
        dci.ppEnabledExtensionNames = extensions.data();
        dci.pNext = features;
        VK(vkCreateDevice(physical, &dci, nullptr, &device));
        vkGetDeviceQueue(device, family, 0, &queue);
        VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        cpi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        cpi.queueFamilyIndex = family;
        VK(vkCreateCommandPool(device, &cpi, nullptr, &pool));
        VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VK(vkCreateFence(device, &fci, nullptr, &fence));
    }
};
