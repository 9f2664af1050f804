// Stream memory for the OpenGL backend allocated by Vulkan on the same GPU and
// imported into GL (GL_EXT_memory_object_fd). Why: NVIDIA's OpenGL driver maps
// its own buffer objects so that streaming through them slows as they grow (a
// copy of 512 MB buffers at 0.61 of Vulkan's, 64 MB ones at 0.95, H100), while
// the same GL shader over memory Vulkan allocated copies at Vulkan's speed
// (docs/PERFORMANCE.md#opengl-against-vulkan).
#pragma once

#include <GL/glew.h>

#include <cstddef>
#include <memory>

namespace rill::gl {

class VulkanMemory {
public:
    /// The Vulkan device whose device and driver UUIDs are the current GL
    /// context's, or nullptr where there is none (no Vulkan loader or driver of
    /// this GPU, no GL_EXT_memory_object_fd). Matching UUIDs do not promise an
    /// import: llvmpipe has lavapipe's and refuses its memory.
    static std::unique_ptr<VulkanMemory> open();
    ~VulkanMemory();
    VulkanMemory(const VulkanMemory&) = delete;
    VulkanMemory& operator=(const VulkanMemory&) = delete;

    /// A GL buffer of `bytes` (storage without GL_DYNAMIC_STORAGE_BIT: uploads
    /// go through a staging copy) whose memory Vulkan allocated, and in
    /// `object` the GL memory object to delete after it; 0 where the memory
    /// is not there or the import fails. Vulkan's own reference to the memory
    /// goes at once: GL's memory object holds the memory from then on.
    GLuint buffer(std::size_t bytes, GLuint& object);

    struct Device;

private:
    explicit VulkanMemory(std::unique_ptr<Device> d);
    std::unique_ptr<Device> d_;
};

}  // namespace rill::gl
