// Why is rill's OpenGL copy slower than the same copy on Vulkan (docs/PERFORMANCE.md#opengl-against-vulkan)?
// A hand-written GL uvec4 copy, the shader of rill-vk-copy-peer, timed with
// each suspect changed in turn, in one process:
//   buffer creation   glNamedBufferStorage(0), (GL_DYNAMIC_STORAGE_BIT, what
//                     rill uses), glNamedBufferData(GL_STATIC_DRAW / GL_DYNAMIC_COPY)
//   barrier           glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT) between
//                     dispatches, or none
//   timing            GL_TIME_ELAPSED around each dispatch; GL_TIMESTAMP
//                     before and after 20 dispatches; host wall clock to glFinish
//   shader            one uvec4 per invocation, or rill's shape (floats, a
//                     grid-stride loop of 4 per invocation)
//   compiler          the driver's GLSL compiler, or SPIR-V from shaderc
//                     (GL_ARB_gl_spirv), as the Vulkan driver receives it
//   loads in flight   four uvec4 per invocation (a grid-stride loop), in case
//                     the GL driver keeps fewer warps on an SM than Vulkan's
//   addressing        bindless pointers (GL_NV_shader_buffer_load) instead of
//                     shader storage blocks, in case the blocks' accesses are
//                     what costs (range checks, another cache path)
//   memory            buffers whose memory Vulkan allocated, imported through
//                     GL_EXT_memory_object_fd: where GL's own buffers of
//                     256 MB and more copy slower than Vulkan's (H100: 0.61
//                     of it at 512 MB and more, 0.94-0.97 up to 128 MB), is it
//                     how the GL driver maps them?
//   occupancy         the highest warp slot (gl_WarpIDNV) each SM used during a
//                     copy, against the slots it has (gl_WarpsPerSMNV)
// Prints one JSON line per variant: {"variant": ..., "gbs": ...}.
//
//   rill-gl-copy-probe LOG2N scatter    dst[perm[i]] = src[i] for each pattern of
//       scatter_probe.h, in buffers made as rill makes them: the OpenGL side
//       of rill-vk-copy-peer LOG2N scatter, with its kernel of subgroup ballots
#include <GL/glew.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>

#ifdef RILL_PROBE_SPIRV
#include <shaderc/shaderc.hpp>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "scatter_probe.h"

#ifdef RILL_PROBE_VULKAN_MEMORY
#include "vulkan_peer.h"
#endif

namespace {

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "rill-gl-copy-probe: %s\n", what.c_str());
    std::exit(1);
}

void make_context() {
    auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    auto platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    EGLDisplay dpy = EGL_NO_DISPLAY;
    EGLDeviceEXT devs[8];
    EGLint ndev = 0;
    if (query_devices && platform_display && query_devices(8, devs, &ndev) && ndev > 0)
        dpy = platform_display(EGL_PLATFORM_DEVICE_EXT, devs[0], nullptr);
    if (dpy == EGL_NO_DISPLAY && platform_display) dpy = platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, nullptr, nullptr)) die("no EGL display");
    eglBindAPI(EGL_OPENGL_API);
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5, EGL_CONTEXT_OPENGL_PROFILE_MASK,
                              EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
    if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) die("no GL 4.5 context");
    glewExperimental = GL_TRUE;
    glewInit();  // GLX build of GLEW: returns 4 with EGL after loading everything
    if (!glDispatchCompute) die("no glDispatchCompute");
}

bool has_extension(const std::string& name) {
    GLint extensions = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &extensions);
    for (GLint e = 0; e < extensions; ++e)
        if (name == reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(e)))) return true;
    return false;
}

GLuint program(const char* src) {
    GLuint s = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(s, 1, &src, nullptr);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096];
        glGetShaderInfoLog(s, sizeof log, nullptr, log);
        die(std::string("compile: ") + log);
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, s);
    glLinkProgram(p);
    return p;
}

const char* kUvec4 = R"(#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(location = 0) uniform uint n4;
void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (i < n4) dst[i] = src[i];
}
)";

// Four uvec4 per invocation, a grid-stride loop over a quarter of the grid.
const char* kUvec4x4 = R"(#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(location = 0) uniform uint n4;
void main() {
    uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * 256u;
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (i + 3u * stride < n4) {
        uvec4 a = src[i], b = src[i + stride], c = src[i + 2u * stride], d = src[i + 3u * stride];
        dst[i] = a; dst[i + stride] = b; dst[i + 2u * stride] = c; dst[i + 3u * stride] = d;
    } else {
        for (; i < n4; i += stride) dst[i] = src[i];
    }
}
)";

// The uvec4 copy through bindless pointers (GL_NV_shader_buffer_load).
const char* kPointers = R"(#version 450
#extension GL_NV_shader_buffer_load : require
#extension GL_NV_gpu_shader5 : require
layout(local_size_x = 256) in;
layout(location = 0) uniform uint n4;
uniform uvec4* src;
uniform uvec4* dst;
void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (i < n4) dst[i] = src[i];
}
)";

// The uvec4 copy, each warp's first lane noting its warp slot per SM.
const char* kOccupancy = R"(#version 450
#extension GL_NV_shader_thread_group : require
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(std430, binding = 2) buffer Slots { uint slots[]; };  // [0] warp slots an SM has, [1 + sm] highest used
layout(location = 0) uniform uint n4;
void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (i < n4) dst[i] = src[i];
    if (gl_ThreadInWarpNV == 0u) {
        atomicMax(slots[1u + gl_SMIDNV], gl_WarpIDNV + 1u);
        if (i == 0u) slots[0] = gl_WarpsPerSMNV;
    }
}
)";

// What rill generates for `r = x` on floats (RILL_DUMP of the bandwidth
// benchmark), with its info buffer: 4 elements per invocation in a
// grid-stride loop over restrict buffers, `precise` temporaries.
const char* kRillShape = R"(#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) restrict readonly buffer Stream0 { uint data[]; } s0;
layout(std430, binding = 1) restrict buffer Stream1 { uint data[]; } s1;
layout(std430, binding = 2) restrict readonly buffer Info { uint info[]; };
layout(location = 0) uniform uint rill_info_base;
#define INFO_BASE rill_info_base
uint I(uint i) { return info[INFO_BASE + i]; }
void rill_element(const uint gid) {
    const uint e0 = I(5u) + gid;
    const uint e1 = I(34u) + gid;
    precise float t0 = uintBitsToFloat(s0.data[e0 * 1u + 0u]);
    s1.data[e1 * 1u + 0u] = floatBitsToUint(t0);
}
void main() {
    const uint n = I(0u);
    const uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * 256u;
    uint gid = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * 256u);
    for (; gid + 3u * stride < n && gid + 3u * stride > gid; gid += 4u * stride) {
        rill_element(gid); rill_element(gid + stride);
        rill_element(gid + 2u * stride); rill_element(gid + 3u * stride);
    }
    for (; gid < n; gid += stride) rill_element(gid);
}
)";

/// The same source through shaderc to SPIR-V for OpenGL, loaded with
/// glShaderBinary + glSpecializeShader; 0 when the driver lacks ARB_gl_spirv.
GLuint spirv_program(const char* src) {
#ifndef RILL_PROBE_SPIRV
    (void)src;
    return 0;
#else
    if (!glSpecializeShader) return 0;
    shaderc::Compiler compiler;
    shaderc::CompileOptions opt;
    opt.SetTargetEnvironment(shaderc_target_env_opengl, shaderc_env_version_opengl_4_5);
    opt.SetOptimizationLevel(shaderc_optimization_level_performance);
    auto spv = compiler.CompileGlslToSpv(src, shaderc_compute_shader, "copy.comp", opt);
    if (spv.GetCompilationStatus() != shaderc_compilation_status_success) die("shaderc: " + spv.GetErrorMessage());
    const std::vector<std::uint32_t> words(spv.cbegin(), spv.cend());
    GLuint s = glCreateShader(GL_COMPUTE_SHADER);
    glShaderBinary(1, &s, GL_SHADER_BINARY_FORMAT_SPIR_V, words.data(), static_cast<GLsizei>(words.size() * 4));
    glSpecializeShader(s, "main", 0, nullptr, nullptr);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) return 0;
    GLuint p = glCreateProgram();
    glAttachShader(p, s);
    glLinkProgram(p);
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    return ok ? p : 0;
#endif
}

enum class Alloc { Storage0, StorageDynamic, DataStaticDraw, DataDynamicCopy };
const char* name(Alloc a) {
    switch (a) {
        case Alloc::Storage0: return "BufferStorage(0)";
        case Alloc::StorageDynamic: return "BufferStorage(DYNAMIC_STORAGE) [rill]";
        case Alloc::DataStaticDraw: return "BufferData(STATIC_DRAW)";
        case Alloc::DataDynamicCopy: return "BufferData(DYNAMIC_COPY)";
    }
    return "";
}

GLuint buffer(Alloc a, GLsizeiptr bytes) {
    GLuint b = 0;
    glCreateBuffers(1, &b);
    switch (a) {
        case Alloc::Storage0: glNamedBufferStorage(b, bytes, nullptr, 0); break;
        case Alloc::StorageDynamic: glNamedBufferStorage(b, bytes, nullptr, GL_DYNAMIC_STORAGE_BIT); break;
        case Alloc::DataStaticDraw: glNamedBufferData(b, bytes, nullptr, GL_STATIC_DRAW); break;
        case Alloc::DataDynamicCopy: glNamedBufferData(b, bytes, nullptr, GL_DYNAMIC_COPY); break;
    }
    const GLuint one = rill_probe::kScattered;
    glClearNamedBufferData(b, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &one);
    return b;
}

#ifdef RILL_PROBE_VULKAN_MEMORY
/// A GL buffer of `bytes` in device-local memory that Vulkan allocated (a
/// dedicated allocation, exported as an opaque fd and imported by GL); 0 where
/// the GL driver lacks GL_EXT_memory_object_fd.
GLuint vulkan_memory_buffer(GLsizeiptr bytes) {
    if (!has_extension("GL_EXT_memory_object_fd")) return 0;
    static VulkanPeer peer({"VK_KHR_external_memory_fd"});
    VkExternalMemoryBufferCreateInfo ext{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.pNext = &ext;
    bi.size = static_cast<VkDeviceSize>(bytes);
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer vb{};
    VK(vkCreateBuffer(peer.device, &bi, nullptr, &vb));
    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(peer.device, vb, &req);
    VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    dedicated.buffer = vb;
    VkExportMemoryAllocateInfo exp{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    exp.pNext = &dedicated;
    exp.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.pNext = &exp;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = peer.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VkDeviceMemory memory{};
    VK(vkAllocateMemory(peer.device, &ai, nullptr, &memory));
    VK(vkBindBufferMemory(peer.device, vb, memory, 0));
    auto get_fd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(peer.device, "vkGetMemoryFdKHR"));
    VkMemoryGetFdInfoKHR fi{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    fi.memory = memory;
    fi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    VK(get_fd(peer.device, &fi, &fd));
    GLuint object = 0, b = 0;
    glCreateMemoryObjectsEXT(1, &object);
    const GLint yes = GL_TRUE;
    glMemoryObjectParameterivEXT(object, GL_DEDICATED_MEMORY_OBJECT_EXT, &yes);
    glImportMemoryFdEXT(object, req.size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);  // GL owns the fd now
    glCreateBuffers(1, &b);
    glNamedBufferStorageMemEXT(b, bytes, object, 0);
    if (const GLenum e = glGetError()) {  // llvmpipe cannot take lavapipe's memory: GL_OUT_OF_MEMORY
        std::fprintf(stderr, "importing Vulkan's memory: GL error %u\n", e);
        glDeleteBuffers(1, &b);
        glDeleteMemoryObjectsEXT(1, &object);
        return 0;
    }
    const GLuint one = rill_probe::kScattered;
    glClearNamedBufferData(b, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &one);
    return b;  // the Vulkan objects live as long as the process
}
#endif

struct Result {
    double elapsed_gbs, timestamp_gbs, wall_gbs;
};

Result run(GLuint prog, bool uvec4, GLuint src, GLuint dst, std::uint64_t n, bool barrier, GLint max_x, int per_invocation = 1) {
    glUseProgram(prog);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, src);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, dst);
    const std::uint64_t items = uvec4 ? n / 4 : n;
    GLuint info = 0;
    if (uvec4) {
        glUniform1ui(0, static_cast<GLuint>(items));
    } else {
        std::vector<GLuint> words(64, 0u);
        words[0] = static_cast<GLuint>(n);
        glCreateBuffers(1, &info);
        glNamedBufferStorage(info, 256, words.data(), GL_DYNAMIC_STORAGE_BIT);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, info);
        glUniform1ui(0, 0u);
    }
    // rill's grid (glsl::dispatch_grid): four elements per invocation from 2^22 on.
    const std::uint64_t groups = uvec4 ? (items + 256 * per_invocation - 1) / (256 * per_invocation) : (items + 1023) / 1024;
    const GLuint gx = static_cast<GLuint>(std::min<std::uint64_t>(groups, static_cast<std::uint64_t>(max_x)));
    const GLuint gy = static_cast<GLuint>((groups + gx - 1) / gx);
    const int reps = 20;
    const double bytes = 2.0 * double(n) * 4;
    // Warm the clocks up.
    for (int i = 0; i < 40; ++i) {
        glDispatchCompute(gx, gy, 1);
        if (barrier) glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    glFinish();
    std::vector<GLuint> q(reps);
    glGenQueries(reps, q.data());
    GLuint stamps[2];
    glGenQueries(2, stamps);
    for (int i = 0; i < reps; ++i) {
        glBeginQuery(GL_TIME_ELAPSED, q[i]);
        glDispatchCompute(gx, gy, 1);
        glEndQuery(GL_TIME_ELAPSED);
        if (barrier) glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    glFinish();
    std::vector<double> ms;
    for (GLuint id : q) {
        GLuint64 ns = 0;
        glGetQueryObjectui64v(id, GL_QUERY_RESULT, &ns);
        ms.push_back(double(ns) * 1e-6);
    }
    std::sort(ms.begin(), ms.end());
    const auto t0 = std::chrono::steady_clock::now();
    glQueryCounter(stamps[0], GL_TIMESTAMP);
    for (int i = 0; i < reps; ++i) {
        glDispatchCompute(gx, gy, 1);
        if (barrier) glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    glQueryCounter(stamps[1], GL_TIMESTAMP);
    glFinish();
    const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / reps;
    GLuint64 a = 0, b = 0;
    glGetQueryObjectui64v(stamps[0], GL_QUERY_RESULT, &a);
    glGetQueryObjectui64v(stamps[1], GL_QUERY_RESULT, &b);
    const double ts_ms = double(b - a) * 1e-6 / reps;
    glDeleteQueries(reps, q.data());
    glDeleteQueries(2, stamps);
    if (info) glDeleteBuffers(1, &info);
    return {bytes / ms[reps / 2] / 1e6, bytes / ts_ms / 1e6, bytes / wall_ms / 1e6};
}

/// Median GL_TIME_ELAPSED of 20 scatters after 40 that warm the clocks up.
double time_scatter(GLuint prog, GLuint src, GLuint dst, GLuint perm, std::uint32_t n, GLint max_x) {
    glUseProgram(prog);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, src);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, dst);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, perm);
    const GLuint groups = (n + 255) / 256;
    const GLuint gx = std::min<GLuint>(groups, static_cast<GLuint>(max_x)), gy = (groups + gx - 1) / gx;
    for (int i = 0; i < 40; ++i) {
        glDispatchCompute(gx, gy, 1);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    const int reps = 20;
    std::vector<GLuint> q(reps);
    glGenQueries(reps, q.data());
    for (GLuint id : q) {
        glBeginQuery(GL_TIME_ELAPSED, id);
        glDispatchCompute(gx, gy, 1);
        glEndQuery(GL_TIME_ELAPSED);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    glFinish();
    std::vector<double> ms;
    for (GLuint id : q) {
        GLuint64 ns = 0;
        glGetQueryObjectui64v(id, GL_QUERY_RESULT, &ns);
        ms.push_back(double(ns) * 1e-6);
    }
    glDeleteQueries(reps, q.data());
    std::sort(ms.begin(), ms.end());
    return ms[reps / 2];
}

void scatter_probe(int log2n, GLint max_x) {
    const GLuint prog = program(rill_probe::kScatterShader);
    const auto bytes = static_cast<GLsizeiptr>((std::size_t{1} << log2n) * 4);
    for (const std::string& pattern : rill_probe::kScatterPatterns) {
        const std::vector<std::uint32_t> perm = rill_probe::scatter_pattern(pattern, log2n);
        const GLuint src = buffer(Alloc::StorageDynamic, bytes), dst = buffer(Alloc::StorageDynamic, bytes);
        GLuint idx = 0;
        glCreateBuffers(1, &idx);
        glNamedBufferStorage(idx, bytes, perm.data(), GL_DYNAMIC_STORAGE_BIT);
        if (const GLenum e = glGetError()) die("uploading the pattern: GL error " + std::to_string(e));
        const GLuint zero = 0;
        glClearNamedBufferData(dst, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
        const double ms = time_scatter(prog, src, dst, idx, static_cast<std::uint32_t>(perm.size()), max_x);
        const double again = time_scatter(prog, src, dst, idx, static_cast<std::uint32_t>(perm.size()), max_x);
        std::vector<std::uint32_t> out(perm.size());
        glGetNamedBufferSubData(dst, 0, bytes, out.data());
        const std::uint64_t wrong = rill_probe::unwritten(out.data(), out.size());
        std::printf("{\"probe\":\"opengl scatter\",\"pattern\":\"%s\",\"alloc\":\"%s\",\"log2n\":%d,\"ms\":%.4f,"
                    "\"ms_again\":%.4f,\"wrong\":%llu,\"gl_error\":%u}\n",
                    pattern.c_str(), name(Alloc::StorageDynamic), log2n, ms, again, static_cast<unsigned long long>(wrong),
                    glGetError());
        std::fflush(stdout);
        GLuint bufs[3] = {src, dst, idx};
        glDeleteBuffers(3, bufs);
    }
    if (!has_extension("GL_KHR_shader_subgroup")) {
        std::fprintf(stderr, "no GL_KHR_shader_subgroup: no ballot probe\n");
        return;
    }
    const GLuint ballots = program(rill_probe::kBallotShader);
    const GLuint src = buffer(Alloc::StorageDynamic, bytes), dst = buffer(Alloc::StorageDynamic, bytes);
    const double ms = time_scatter(ballots, src, dst, src, static_cast<std::uint32_t>(bytes / 4), max_x);
    std::printf("{\"probe\":\"opengl ballots\",\"log2n\":%d,\"ms\":%.4f}\n", log2n, ms);
    GLuint bufs[2] = {src, dst};
    glDeleteBuffers(2, bufs);
}

}  // namespace

int main(int argc, char** argv) {
    const int log2n = argc > 1 ? std::atoi(argv[1]) : 28;
    const std::uint64_t n = std::uint64_t{1} << log2n;
    make_context();
    std::fprintf(stderr, "%s / %s\n", reinterpret_cast<const char*>(glGetString(GL_RENDERER)),
                 reinterpret_cast<const char*>(glGetString(GL_VERSION)));
    GLint max_x = 65535;
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &max_x);
    if (argc > 2 && std::string(argv[2]) == "scatter") {
        scatter_probe(log2n, max_x);
        if (glGetError() != GL_NO_ERROR) die("a GL error was raised");
        return 0;
    }
    const GLuint uvec4 = program(kUvec4), rill_shape = program(kRillShape);
    if (const GLuint spirv = spirv_program(kUvec4)) {
        const GLuint src = buffer(Alloc::StorageDynamic, static_cast<GLsizeiptr>(n * 4)),
                     dst = buffer(Alloc::StorageDynamic, static_cast<GLsizeiptr>(n * 4));
        const Result r = run(spirv, true, src, dst, n, true, max_x);
        std::printf("{\"alloc\":\"%s\",\"shader\":\"uvec4 as SPIR-V\",\"barrier\":true,\"log2n\":%d,"
                    "\"time_elapsed_gbs\":%.1f,\"timestamp_gbs\":%.1f,\"wall_gbs\":%.1f}\n",
                    name(Alloc::StorageDynamic), log2n, r.elapsed_gbs, r.timestamp_gbs, r.wall_gbs);
        std::fflush(stdout);
        GLuint bufs[2] = {src, dst};
        glDeleteBuffers(2, bufs);
    } else {
        std::fprintf(stderr, "no SPIR-V shaders on this driver (GL_ARB_gl_spirv)\n");
    }
    {
        const GLuint src = buffer(Alloc::StorageDynamic, static_cast<GLsizeiptr>(n * 4)),
                     dst = buffer(Alloc::StorageDynamic, static_cast<GLsizeiptr>(n * 4));
        auto say = [&](const char* shader, const Result& r) {
            std::printf("{\"alloc\":\"%s\",\"shader\":\"%s\",\"barrier\":true,\"log2n\":%d,\"time_elapsed_gbs\":%.1f,"
                        "\"timestamp_gbs\":%.1f,\"wall_gbs\":%.1f}\n",
                        name(Alloc::StorageDynamic), shader, log2n, r.elapsed_gbs, r.timestamp_gbs, r.wall_gbs);
            std::fflush(stdout);
        };
        say("uvec4", run(uvec4, true, src, dst, n, true, max_x));
#ifdef RILL_PROBE_VULKAN_MEMORY
        if (const GLuint vsrc = vulkan_memory_buffer(static_cast<GLsizeiptr>(n * 4))) {
            const GLuint vdst = vulkan_memory_buffer(static_cast<GLsizeiptr>(n * 4));
            if (!vdst) die("a second buffer in Vulkan's memory failed where the first worked");
            say("uvec4, buffers in memory Vulkan allocated", run(uvec4, true, vsrc, vdst, n, true, max_x));
            GLuint bufs[2] = {vsrc, vdst};
            glDeleteBuffers(2, bufs);
        } else {
            std::fprintf(stderr, "no buffers in Vulkan's memory: no probe of them\n");
        }
#endif
        say("4 uvec4 an invocation", run(program(kUvec4x4), true, src, dst, n, true, max_x, 4));
        if (has_extension("GL_NV_shader_buffer_load") && has_extension("GL_NV_gpu_shader5")) {
            const GLuint p = program(kPointers);
            GLuint64EXT a = 0, b = 0;
            glMakeNamedBufferResidentNV(src, GL_READ_ONLY);
            glMakeNamedBufferResidentNV(dst, GL_READ_WRITE);
            glGetNamedBufferParameterui64vNV(src, GL_BUFFER_GPU_ADDRESS_NV, &a);
            glGetNamedBufferParameterui64vNV(dst, GL_BUFFER_GPU_ADDRESS_NV, &b);
            glProgramUniformui64NV(p, glGetUniformLocation(p, "src"), a);
            glProgramUniformui64NV(p, glGetUniformLocation(p, "dst"), b);
            say("uvec4 through bindless pointers", run(p, true, src, dst, n, true, max_x));
            glMakeNamedBufferNonResidentNV(src);
            glMakeNamedBufferNonResidentNV(dst);
        } else {
            std::fprintf(stderr, "no GL_NV_shader_buffer_load: no bindless probe\n");
        }
        if (!has_extension("GL_NV_shader_thread_group")) {
            std::fprintf(stderr, "no GL_NV_shader_thread_group: no occupancy probe\n");
        } else {
            const GLuint p = program(kOccupancy);
            std::vector<GLuint> zeros(1025, 0u);
            GLuint slots = 0;
            glCreateBuffers(1, &slots);
            glNamedBufferStorage(slots, static_cast<GLsizeiptr>(zeros.size() * 4), zeros.data(), GL_DYNAMIC_STORAGE_BIT);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, slots);
            glUseProgram(p);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, src);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, dst);
            glUniform1ui(0, static_cast<GLuint>(n / 4));
            const std::uint64_t groups = (n / 4 + 255) / 256;
            const GLuint gx = static_cast<GLuint>(std::min<std::uint64_t>(groups, static_cast<std::uint64_t>(max_x)));
            glDispatchCompute(gx, static_cast<GLuint>((groups + gx - 1) / gx), 1);
            glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
            glGetNamedBufferSubData(slots, 0, static_cast<GLsizeiptr>(zeros.size() * 4), zeros.data());
            GLuint lowest = ~0u, highest = 0, sms = 0;
            for (std::size_t k = 1; k < zeros.size(); ++k)
                if (zeros[k]) {
                    ++sms;
                    lowest = std::min(lowest, zeros[k]);
                    highest = std::max(highest, zeros[k]);
                }
            std::printf("{\"probe\":\"opengl warp slots during the uvec4 copy\",\"slots_an_sm\":%u,\"sms\":%u,"
                        "\"highest_used_least\":%u,\"highest_used_most\":%u}\n", zeros[0], sms, lowest, highest);
            std::fflush(stdout);
            glDeleteBuffers(1, &slots);
        }
        GLuint bufs[2] = {src, dst};
        glDeleteBuffers(2, bufs);
    }
    for (Alloc a : {Alloc::StorageDynamic, Alloc::Storage0, Alloc::DataStaticDraw, Alloc::DataDynamicCopy}) {
        const GLuint src = buffer(a, static_cast<GLsizeiptr>(n * 4)), dst = buffer(a, static_cast<GLsizeiptr>(n * 4));
        for (int shader = 0; shader < 2; ++shader)
            for (bool barrier : {true, false}) {
                const Result r = run(shader ? rill_shape : uvec4, shader == 0, src, dst, n, barrier, max_x);
                std::printf("{\"alloc\":\"%s\",\"shader\":\"%s\",\"barrier\":%s,\"log2n\":%d,\"time_elapsed_gbs\":%.1f,"
                            "\"timestamp_gbs\":%.1f,\"wall_gbs\":%.1f}\n",
                            name(a), shader ? "rill shape" : "uvec4", barrier ? "true" : "false", log2n, r.elapsed_gbs,
                            r.timestamp_gbs, r.wall_gbs);
                std::fflush(stdout);
            }
        GLuint bufs[2] = {src, dst};
        glDeleteBuffers(2, bufs);
    }
    if (glGetError() != GL_NO_ERROR) die("a GL error was raised");
    return 0;
}
