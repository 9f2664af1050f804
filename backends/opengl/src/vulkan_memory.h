// Stream memory for the OpenGL backend allocated by Vulkan on the same GPU and
// imported into GL (GL_EXT_memory_object_fd). Why: NVIDIA's OpenGL driver maps
// its own buffer objects so that streaming through them slows as they grow (a
// copy of 512 MB buffers at 0.61 of Vulkan's, 64 MB ones at 0.95, H100), while
// the same GL shader over memory Vulkan allocated copies at Vulkan's speed
// (docs/PERFORMANCE.md#opengl-against-vulkan).
#pragma once

#include <GL/glew.h>

#include <cstddef>

namespace rill::gl {

class VulkanMemory {
public:
    /// This process's Vulkan device for the current GL context's GPU (its device
    /// and driver UUIDs), made at the first call; nullptr where there is none (no
    /// Vulkan loader or driver of this GPU, no GL_EXT_memory_object_fd) or where
    /// an import into GL failed before. Matching UUIDs do not promise an import:
    /// llvmpipe has lavapipe's and refuses its memory. Kept for the process, never
    /// destroyed: made and torn down with each GL runtime, lavapipe went with its
    /// last instance, and what it leaks (LeakSanitizer's suppressions name it)
    /// could no longer be told from rill's own leaks.
    static VulkanMemory* of_current_context();

    /// A GL buffer of `bytes` (storage without GL_DYNAMIC_STORAGE_BIT: uploads
    /// go through a staging copy) whose memory Vulkan allocated, and in
    /// `object` the GL memory object to delete after it; 0 where Vulkan has
    /// not the memory or GL refuses the import, after which refused() holds
    /// and of_current_context() offers this device no more. Vulkan's own
    /// reference to the memory goes at once: GL's memory object holds it.
    GLuint buffer(std::size_t bytes, GLuint& object);
    /// Whether GL refused an import of this device's memory.
    bool refused() const;

    struct Device;

private:
    explicit VulkanMemory(Device* d) : d_(d) {}
    Device* d_;
};

}  // namespace rill::gl
