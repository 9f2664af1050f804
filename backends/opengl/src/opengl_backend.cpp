// The OpenGL backend: OpenGL 4.3+ compute shaders on a headless EGL context.
// Streams are buffer objects bound as SSBOs; the GLSL comes from the shared
// generator (backends/glsl). GL orders commands itself; rill adds a
// glMemoryBarrier only where a command touches a buffer that a command wrote
// since the last barrier, or writes one that a command read since then (State::
// order). Released buffers are pooled for later streams. Program binaries
// persist on disk when the driver offers a binary format.
#include <GL/glew.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "egl_context.h"

#ifdef RILL_GL_SPIRV_PROBE
#include <shaderc/shaderc.hpp>
#endif

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#include "rill/backends/opengl.h"
#include "rill/backends/glsl/codegen.h"
#include "rill/backends/glsl/info_layout.h"
#include "rill/core/buffer_pool.h"
#include "rill/core/disk_cache.h"
#include "rill/core/error.h"
#include "rill/core/host_times.h"
#include "rill/core/launch.h"

#ifdef RILL_GL_VULKAN_MEMORY
#include "vulkan_memory.h"
#endif

namespace rill::gl {

namespace {

constexpr GLsizeiptr kInfoRingBytes = 4 << 20;

/// RILL_GL_SPIRV=1: kernels go to the driver as SPIR-V from shaderc
/// (GL_ARB_gl_spirv) instead of GLSL, to tell glslang's SPIR-V from the
/// driver's code generation when a kernel runs slower through Vulkan.
bool spirv_from_env() { return env_flag("RILL_GL_SPIRV"); }

/// Float min and max on NVIDIA's OpenGL: by default GLSL's own but where a
/// min takes a max or a max a min (the clamp pattern the driver merges,
/// glsl::FloatMinMax::NativeButClamps): the rays and PLOC's boxes ran
/// 1.35-1.54x faster so than with every float min and max through the
/// workarounds (docs/PERFORMANCE.md#ray-tracing). RILL_GL_NATIVE_MIN_MAX
/// chooses (an A/B knob, docs/TUNING.md): none, every float min and max
/// through the workarounds as the other types'; float, none of them; clamps,
/// the default; all, no type's (the driver's folds they avoid are then
/// expected back, docs/SEMANTICS.md#driver-workarounds).
enum class NativeMinMax { None, Float, Clamps, All };
NativeMinMax native_min_max_from_env() {
    static const NativeMinMax knob = [] {
        const char* v = std::getenv("RILL_GL_NATIVE_MIN_MAX");
        if (!v || !*v || std::string(v) == "clamps") return NativeMinMax::Clamps;
        if (std::string(v) == "none") return NativeMinMax::None;
        if (std::string(v) == "float") return NativeMinMax::Float;
        if (std::string(v) == "all") return NativeMinMax::All;
        throw Error(std::string("opengl backend: RILL_GL_NATIVE_MIN_MAX is '") + v + "'; give none, float, clamps or all, or unset it");
    }();
    return knob;
}

/// RILL_GL_STATIC_BUFFERS=1: stream buffer objects are made without
/// GL_DYNAMIC_STORAGE_BIT (every upload then goes through a staging buffer and
/// a GPU copy), to tell whether the driver places or pages such buffers
/// differently: OpenGL's random reads of large buffers ran at a fraction of
/// Vulkan's (docs/PERFORMANCE.md#ray-tracing). An experiment knob.
bool static_buffers_from_env() {
    static const bool on = env_flag("RILL_GL_STATIC_BUFFERS");
    return on;
}

bool debug_from_env() { return env_flag("RILL_GL_DEBUG"); }

/// RILL_GL_POOL_FENCED=1 (an A/B knob, docs/TUNING.md): a released buffer
/// waits for a fence on the commands issued before its release before it
/// joins the pool, so that a call's later streams cannot take the buffers of
/// its earlier ones while the GPU still runs them, where by default it joins
/// at once, its accesses still tracked (State::order puts a barrier before a
/// new stream's first command on it). The fences (one a release, each
/// allocation's first check flushing) cost spot's subdivision to level 5
/// 1.16-1.21 against 0.69-0.86 ms on the H200, as many buffer objects made
/// either way (2026-12-07, docs/PERFORMANCE.md#opengl-against-vulkan).
bool pool_fenced_from_env() {
    static const bool on = env_flag("RILL_GL_POOL_FENCED");
    return on;
}

/// RILL_GL_INFO_RANGES=1 (an A/B knob, docs/TUNING.md): a dispatch's
/// parameters bound as a range of the info ring (glBindBufferRange at its
/// offset, the shader's base uniform left at 0), where by default the whole
/// ring is bound and the base set by glProgramUniform1ui before each dispatch.
bool info_ranges_from_env() {
    static const bool on = env_flag("RILL_GL_INFO_RANGES");
    return on;
}

/// When the backend hands its commands to the GPU (glFlush) without waiting:
/// after `first` dispatches following a wait for the GPU (a read-back,
/// finish), then every `every`; 0 never (the driver flushes when it will).
/// A call of short dependent kernels with a read-back between them (a level
/// of a subdivision, a BVH build) leaves the GPU idle after each wait until
/// the driver sends what the host issued since; the first flush starts it on
/// them, as the Vulkan backend submits its first batch after a wait early
/// (RILL_VK_FIRST_SUBMIT). RILL_GL_FLUSH_FIRST and RILL_GL_FLUSH_EVERY
/// (docs/TUNING.md); the default on GPUs 4 and 32 (on an H100 spot's
/// subdivision to level 5 1.23 ms against 1.26 without flushes or with 8 and
/// 64, and 1.32 with one after every dispatch:
/// docs/PERFORMANCE.md#opengl-against-vulkan), on llvmpipe never (its threads
/// run a flushed batch while the host records the next: the two cores CI has
/// are taken).
struct FlushPolicy {
    long first = 0, every = 0;
};
FlushPolicy flush_policy_from_env(bool software) {
    return {env_count("RILL_GL_FLUSH_FIRST", 0, 4096, software ? 0 : 4, "dispatches (0: never)"),
            env_count("RILL_GL_FLUSH_EVERY", 0, 4096, software ? 0 : 32, "dispatches (0: never)")};
}

/// Stream buffers of at least this many bytes take memory that Vulkan
/// allocated, where the GL context's GPU has a Vulkan driver (vulkan_memory.h);
/// smaller ones, which the GL driver's own buffers serve as well, stay GL's
/// (one Vulkan allocation each). RILL_GL_VULKAN_MEMORY=0 keeps them all GL's
/// (an A/B knob, docs/TUNING.md).
constexpr std::size_t kVulkanMemoryFrom = std::size_t{1} << 20;
bool vulkan_memory_from_env() {
    const char* v = std::getenv("RILL_GL_VULKAN_MEMORY");
    return !(v && std::string(v) == "0");
}

/// A program of the backend's own shaders (the zero-fill, the offscreen
/// renderer's), one per stage, from their GLSL.
GLuint link_own_program(std::initializer_list<std::pair<GLenum, const char*>> stages);

/// Everything a GL runtime owns, shared with its buffers (which may outlive it).
struct State {
    explicit State(bool debug) : ctx(debug), debug(debug) {}
    EglContext ctx;
    std::mutex mutex;
    bool debug;
    std::vector<std::string> messages;  // KHR_debug errors and high-severity messages
    bool profiling = profiling_from_env();
    KernelTimes times;
    /// The kinds of host work RILL_GL_HOST_TIMES counts.
    struct HostTime {
        enum { StreamAllocate, BufferCreate, Upload, Download, Dispatch, Barrier, Compile, Finish };
    };
    HostTimes host_times{"RILL_GL_HOST_TIMES",
                         "rill opengl host times (RILL_GL_HOST_TIMES), since the context was made",
                         {"stream allocations (pooled or new)", "buffer objects made (glNamedBufferStorage or a Vulkan import)",
                          "uploads", "downloads (waited for)", "dispatches (issued)", "glMemoryBarrier", "kernel builds",
                          "finish (glFinish)"}};
    struct Timed {
        std::string name;
        GLuint elapsed, end;  // queries: GL_TIME_ELAPSED of the command, GL_TIMESTAMP once it is done
    };
    std::vector<Timed> pending_queries;
    std::unordered_set<GLuint> written;  // written by GPU commands since the last barrier
    std::unordered_set<GLuint> read;     // read by GPU commands since the last barrier
    bool external = false;               // the caller's own GL commands ran since the last barrier (opengl::make_current)
    /// Stream buffers given back, by capacity (pool_size_class), for the next
    /// streams of their size: the algorithms make scratch streams in every
    /// call, and a buffer fresh from glNamedBufferStorage costs the driver an
    /// allocation and its first touch each time (glClearNamedBufferData of
    /// fresh memory ran at 31 GB/s on the H200: 80 ms of a 10^6-triangle BVH
    /// build). A released buffer joins the pool only once the GPU has run
    /// every command issued before its release (a fence), as the Vulkan
    /// backend's do: with buffers reused at once, NVIDIA's driver (580, H200)
    /// let a collision query see another stream's values now and then, where
    /// a barrier before the reuse should have ordered them.
    BufferPool<GLuint> pool;
    struct Released {
        GLuint id;
        std::size_t capacity;
        GLsync done;
    };
    std::vector<Released> released;  // waiting for their fences
    bool pooling = false;  // set by the backend with the pool's bound; false once it is gone (buffers are deleted)

#ifdef RILL_GL_VULKAN_MEMORY
    VulkanMemory* vulkan_memory = nullptr;  // the process's, found at the first large stream, where there is one
    bool vulkan_memory_tried = false;
#endif
    std::unordered_map<GLuint, GLuint> memory_objects;  // stream buffer -> the GL memory object under it

    /// A buffer object of `bytes` in memory Vulkan allocated, or 0 where that
    /// is not to be had (small buffers, no Vulkan driver of this GPU, RILL_GL_VULKAN_MEMORY=0).
    GLuint vulkan_buffer(std::size_t bytes) {
#ifdef RILL_GL_VULKAN_MEMORY
        if (bytes < kVulkanMemoryFrom) return 0;
        if (!vulkan_memory_tried) {
            vulkan_memory_tried = true;
            if (vulkan_memory_from_env()) vulkan_memory = VulkanMemory::of_current_context();
        }
        if (!vulkan_memory) return 0;
        GLuint object = 0;
        const std::size_t reported = messages.size();
        const GLuint id = vulkan_memory->buffer(bytes, object);
        if (id) {
            memory_objects.emplace(id, object);
        } else if (vulkan_memory->refused()) {
            // A driver that takes no import (llvmpipe refuses lavapipe's memory,
            // whose UUIDs are its own, with GL_OUT_OF_MEMORY): the GL driver's
            // buffers from now on, and what it reported about the refused import
            // is no error of the program. (Where Vulkan is out of memory, the GL
            // driver's buffer is tried, then the pool drained and this again.)
            messages.resize(reported);
            vulkan_memory = nullptr;
        }
        return id;
#else
        (void)bytes;
        return 0;
#endif
    }
    /// Whether stream buffer `id` lacks GL_DYNAMIC_STORAGE_BIT (its memory is Vulkan's).
    bool imported(GLuint id) const { return memory_objects.count(id) > 0; }

    /// Deletes stream buffer `id` and the memory object under it, if any.
    void delete_stream_buffer(GLuint id) {
        forget(id);
        glDeleteBuffers(1, &id);
        if (const auto it = memory_objects.find(id); it != memory_objects.end()) {
            glDeleteMemoryObjectsEXT(1, &it->second);
            memory_objects.erase(it);
        }
    }

    /// Call with the mutex held and the context current.
    void release(GLuint id, std::size_t capacity) {
        if (!pool_fenced_from_env()) return to_pool(id, capacity);
        released.push_back({id, capacity, glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0)});
        pool_released();
    }

    /// Gives buffer `id` to the pool, which deletes what it holds past its bound.
    void to_pool(GLuint id, std::size_t capacity) {
        pool.give(id, capacity, [&](GLuint gone) { delete_stream_buffer(gone); });
    }
    /// Moves the released buffers whose commands have run to the pool, or
    /// deletes them past its bound.
    void pool_released() {
        // Fences signal in the order they were made: the first unsignalled one
        // ends the search. The first check flushes, so that the fences reach the GPU.
        std::size_t done = 0;
        for (; done < released.size(); ++done) {
            const Released& r = released[done];
            if (glClientWaitSync(r.done, done == 0 ? GL_SYNC_FLUSH_COMMANDS_BIT : 0, 0) == GL_TIMEOUT_EXPIRED) break;
            glDeleteSync(r.done);
            forget(r.id);  // nothing in flight uses it: no barrier is owed for it
            to_pool(r.id, r.capacity);
        }
        released.erase(released.begin(), released.begin() + static_cast<std::ptrdiff_t>(done));
    }

    GLuint zero_program = 0;

    /// Sets the first `bytes` of buffer `id` to zero with a compute shader: a
    /// dispatch, ordered as the kernels' are. (glClearNamedBufferData ran at 31
    /// GB/s on the H200, and on pooled buffers NVIDIA's driver let later uploads
    /// land before its clears, which then overwrote them.)
    void zero(GLuint id, std::size_t bytes) {
        if (!zero_program) {
            static const char* source =
                "#version 430\n"
                "layout(local_size_x = 256) in;\n"
                "layout(std430, binding = 0) restrict writeonly buffer Words { uint words[]; };\n"
                "layout(location = 0) uniform uint n;\n"
                "void main() {\n"
                "    for (uint i = gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 256u) words[i] = 0u;\n"
                "}\n";
            zero_program = link_own_program({{GL_COMPUTE_SHADER, source}});
        }
        order({}, {id});  // after a pooled buffer's earlier commands
        glUseProgram(zero_program);
        // In pieces of 1 GiB, so that a word count fits the shader's uint.
        constexpr std::size_t kPiece = std::size_t{1} << 30;
        for (std::size_t offset = 0; offset < bytes; offset += kPiece) {
            const std::size_t piece = std::min(kPiece, bytes - offset);
            const auto words = static_cast<GLuint>(piece / 4);
            glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, id, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(piece));
            glProgramUniform1ui(zero_program, 0, words);
            timed("fill", [&] { glDispatchCompute(std::min<GLuint>((words + 255) / 256, 65535u), 1, 1); });
        }
    }

    /// Deletes the pooled buffers, and those released (their fences are
    /// left to the driver: it deletes a buffer once no command uses it).
    void drain_pool() {
        for (const Released& r : released) {
            glDeleteSync(r.done);
            delete_stream_buffer(r.id);
        }
        released.clear();
        pool.drain([&](GLuint id) { delete_stream_buffer(id); });
    }
    /// Dispatches' parameters (glsl::pack_info), one after another in a ring
    /// of kInfoRingBytes. A full ring is replaced by a new buffer object, not
    /// written over: the driver keeps the old one for the dispatches still
    /// reading it, and no upload rewrites bytes a GPU command has read
    /// (NVIDIA's driver lost such updates of stream buffers; upload()).
    GLuint info = 0;
    GLsizeiptr info_used = 0;
    bool info_ranges = false;  // RILL_GL_INFO_RANGES, where the driver's offset alignment divides 256
    FlushPolicy flush;           // flush_policy_from_env
    long unflushed = 0;          // dispatches since the last flush or wait
    bool waited = true;          // no flush since the last wait for the GPU
    /// After each dispatch: flushes by `flush`.
    void dispatched() {
        const long due = waited ? flush.first : flush.every;
        if (due == 0 || ++unflushed < due) return;
        glFlush();
        unflushed = 0;
        waited = false;
    }
    /// After a wait for the GPU: the next flush comes `flush.first` dispatches on.
    void waited_for_gpu() {
        unflushed = 0;
        waited = true;
    }
    void new_info_ring() {
        if (info) glDeleteBuffers(1, &info);
        glCreateBuffers(1, &info);
        glNamedBufferStorage(info, kInfoRingBytes, nullptr, GL_DYNAMIC_STORAGE_BIT);
        info_used = 0;
    }
    GLuint readback = 0;  // OpenGlBackend::download's staging buffer
    std::size_t readback_bytes = 0;

    /// The staging buffer of read-backs, at least `bytes` long (in system
    /// memory where the driver takes the hint: the GPU copies into it, the
    /// host reads it).
    GLuint readback_buffer(std::size_t bytes) {
        if (bytes <= readback_bytes) return readback;
        glDeleteBuffers(1, &readback);
        readback_bytes = pool_size_class(bytes);
        glCreateBuffers(1, &readback);
        glNamedBufferStorage(readback, static_cast<GLsizeiptr>(readback_bytes), nullptr, GL_CLIENT_STORAGE_BIT | GL_MAP_READ_BIT);
        if (glGetError() == GL_OUT_OF_MEMORY) {
            glDeleteBuffers(1, &readback);
            readback = 0;
            readback_bytes = 0;
            throw Error("opengl backend: out of memory staging a stream download of " + std::to_string(bytes) +
                        " bytes; use smaller streams or release others first");
        }
        return readback;
    }
    std::uint64_t shader_compiles = 0;
    bool binaries = false;  // the driver offers program binary formats
    std::uint64_t device_key = 0;
    bool native_subgroups = false;  // GL_KHR_shader_subgroup with every family rill uses
    bool float_atomic_add = false;  // GL_NV_shader_atomic_float
    bool subgroup_partitioned = false;  // GL_NV_shader_subgroup_partitioned, in compute shaders
    bool llvmpipe = false;  // Mesa's llvmpipe: glsl::ShaderOptions::reorderable_loads off, opaque min operands
    bool nvidia = false;    // NVIDIA's driver: glsl::ShaderOptions::uint_bit_queries_as_int, min_max_as_selects

    /// Orders a command that reads the buffers `reads` and writes `writes`
    /// after the commands before it, and records its accesses. GL runs
    /// dispatches one after another without waiting (NVIDIA's driver overlaps
    /// them), so a command must wait both for earlier writes of what it touches
    /// and for earlier reads of what it writes: a pooled buffer given to a new
    /// stream is written while the kernels of its earlier stream may still
    /// read it, and a stream read by one kernel may be the next one's output
    /// (on NVIDIA, a segmented sort read values of a later stream before
    /// this). One barrier with every bit covers every
    /// later consumer (shader reads, read-backs, copies, updates), so that
    /// forgetting all accesses afterwards is sound; a barrier with only the
    /// bits of the consumer at hand left a later read-back unordered.
    template <class Reads, class Writes>
    void order(const Reads& reads, const Writes& writes) {
        bool wait = external;
        for (GLuint b : reads) wait = wait || written.count(b);
        for (GLuint b : writes) wait = wait || written.count(b) || read.count(b);
        if (wait) barrier();
        read.insert(std::begin(reads), std::end(reads));
        written.insert(std::begin(writes), std::end(writes));
    }
    void order(std::initializer_list<GLuint> reads, std::initializer_list<GLuint> writes) {
        order<std::initializer_list<GLuint>, std::initializer_list<GLuint>>(reads, writes);
    }
    /// Before a read-back: waits where `buffers` were written.
    void barrier_if_written(std::initializer_list<GLuint> buffers) {
        for (GLuint b : buffers)
            if (written.count(b)) return barrier();
    }
    /// The bits of rill's own barriers: every bit, or with
    /// RILL_GL_BARRIER_BITS=buffers (an A/B knob, docs/TUNING.md) those of
    /// the consumers rill's commands are (shader storage, buffer reads,
    /// writes and copies, atomic counters); a barrier before the caller's own
    /// GL commands (opengl::make_current) takes every bit either way.
    GLbitfield barrier_bits = GL_ALL_BARRIER_BITS;
    void barrier(GLbitfield bits = 0) {
        const HostTimes::Scope timed(host_times, HostTime::Barrier);
        glMemoryBarrier(bits ? bits : barrier_bits);
        written.clear();
        read.clear();
        external = false;
    }
    void forget(GLuint id) {
        written.erase(id);
        read.erase(id);
    }

    /// Runs `command` (GL calls of one GPU command), timed as `name` when
    /// profiling: kernels, and the fills and copies that count as device time too.
    template <class Command>
    void timed(const std::string& name, Command command) {
        GLuint query[2] = {0, 0};
        if (profiling) {
            glGenQueries(2, query);
            glBeginQuery(GL_TIME_ELAPSED, query[0]);
        }
        command();
        if (profiling) {
            glEndQuery(GL_TIME_ELAPSED);
            glQueryCounter(query[1], GL_TIMESTAMP);
            pending_queries.push_back({name, query[0], query[1]});
        }
    }

    void collect_queries() {
        for (auto& t : pending_queries) {
            GLuint64 ns = 0, end = 0;
            glGetQueryObjectui64v(t.elapsed, GL_QUERY_RESULT, &ns);
            glGetQueryObjectui64v(t.end, GL_QUERY_RESULT, &end);
            times.add(t.name, static_cast<double>(ns) * 1e-6, end - ns, 1e-6);
            GLuint q[2] = {t.elapsed, t.end};
            glDeleteQueries(2, q);
        }
        pending_queries.clear();
    }

    void check_debug() {
        if (!debug) return;
        for (GLenum e = glGetError(); e != GL_NO_ERROR; e = glGetError())
            messages.push_back("glGetError: 0x" + [e] {
                char b[16];
                std::snprintf(b, sizeof b, "%x", e);
                return std::string(b);
            }());
        if (messages.empty()) return;
        std::string all;
        for (const auto& m : messages) all += "\n  " + m;
        messages.clear();
        throw Error("opengl backend: the driver reported GL errors or high-severity debug messages:" + all);
    }
};

void GLAPIENTRY on_debug_message(GLenum, GLenum type, GLuint, GLenum severity, GLsizei, const GLchar* message,
                                 const void* user) {
    if (type == GL_DEBUG_TYPE_ERROR || severity == GL_DEBUG_SEVERITY_HIGH) {
        auto* st = static_cast<State*>(const_cast<void*>(user));
        st->messages.emplace_back(message ? message : "(no message)");
    }
}

class GlBuffer final : public Buffer {
public:
    /// Call with st->mutex held and the context current.
    GlBuffer(std::shared_ptr<State> st, std::size_t nbytes) : st_(std::move(st)), capacity_(pool_size_class(nbytes)) {
        bytes = nbytes;
        st_->pool_released();
        if (const auto pooled = st_->pool.take(capacity_)) {
            id = *pooled;
            gpu_used = true;
            return;
        }
        if (!create() && !(st_->pool.empty() && st_->released.empty())) {
            glFinish();  // the memory may be held by buffers released or pooled, of other sizes
            st_->drain_pool();
            create();
        }
        if (!id)
            throw Error("opengl backend: out of device memory allocating a stream of " + std::to_string(nbytes) +
                        " bytes; use smaller streams or release others first");
    }
    ~GlBuffer() override {
        std::lock_guard lock(st_->mutex);
        try {
            st_->ctx.make_current();
            if (st_->pooling) {
                st_->release(id, capacity_);
            } else {
                st_->delete_stream_buffer(id);
            }
        } catch (...) {
            // Destruction on a thread that cannot take the context leaks the buffer
            // until the context goes; nothing better can be done from a destructor.
        }
    }
    std::size_t capacity() const { return capacity_; }
    GLuint id = 0;
    /// A command on the GPU (kernel, copy, fill) has used this buffer object,
    /// here or under an earlier stream that gave it back to the pool: uploads
    /// into it then go through a staging buffer (OpenGlBackend::upload says why).
    bool gpu_used = false;

private:
    bool create() {
        const HostTimes::Scope timed(st_->host_times, State::HostTime::BufferCreate);
        if ((id = st_->vulkan_buffer(capacity_))) return true;
        glCreateBuffers(1, &id);
        glNamedBufferStorage(id, static_cast<GLsizeiptr>(capacity_), nullptr, static_buffers_from_env() ? 0 : GL_DYNAMIC_STORAGE_BIT);
        if (glGetError() != GL_OUT_OF_MEMORY) return true;
        glDeleteBuffers(1, &id);
        id = 0;
        return false;
    }
    std::shared_ptr<State> st_;
    std::size_t capacity_;
};

GlBuffer& gl_buffer(Buffer* b) { return *static_cast<GlBuffer*>(b); }
GLuint handle(Buffer* b) { return gl_buffer(b).id; }

class GlProgram final : public Program {
public:
    GlProgram(std::shared_ptr<State> st, const ir::Kernel& k, const Signature& sig) : st_(std::move(st)) {
        auto since = std::chrono::steady_clock::now();
        glsl::ShaderOptions options{glsl::Dialect::OpenGL, glsl::kWorkgroupSize, st_->native_subgroups,
                                    st_->float_atomic_add ? "GL_NV_shader_atomic_float" : "", false, st_->subgroup_partitioned,
                                    !st_->llvmpipe, st_->nvidia, st_->nvidia, /*opaque_operands=*/st_->llvmpipe  ? glsl::OpaqueOperands::Min
                                                        : st_->nvidia ? glsl::OpaqueOperands::MinAndMax
                                                                      : glsl::OpaqueOperands::None};
        options.int_negation_as_subtraction = st_->nvidia;
        if (native_min_max_from_env() == NativeMinMax::All) {
            options.min_max_as_selects = false;
            if (options.opaque_operands == glsl::OpaqueOperands::MinAndMax) options.opaque_operands = glsl::OpaqueOperands::None;
        }
        // Only NVIDIA's driver takes min and max through workarounds to lift.
        if (st_->nvidia && native_min_max_from_env() == NativeMinMax::Float) options.float_min_max = glsl::FloatMinMax::Native;
        if (st_->nvidia && native_min_max_from_env() == NativeMinMax::Clamps) options.float_min_max = glsl::FloatMinMax::NativeButClamps;
        id = glCreateProgram();
        // A kernel this build compiled before, found by its IR: the driver's
        // program binary and the shader's bindings, no GLSL generated.
        const glsl::CompiledKey ir =
            st_->binaries && !spirv_from_env() && !std::getenv("RILL_DUMP") ? glsl::compiled_key(k, sig, options) : glsl::CompiledKey{};
        std::uint64_t ir_key = 0;
        char ir_file[48] = {};
        // GroupOptions::quick_build: the pragma that asks NVIDIA's compiler
        // (and any other that reads it) for a short compile.
        const bool quick = k.quick_build && quick_builds();
        if (ir.key != 0) {
            ir_key = disk_cache::hash_bytes(&st_->device_key, sizeof st_->device_key, ir.key + quick);
            std::snprintf(ir_file, sizeof ir_file, "opengl-ir-%016llx.bin",
                          static_cast<unsigned long long>(disk_cache::hash_bytes(&st_->device_key, sizeof st_->device_key, ir.slot)));
            if (load_binary_by_ir(ir_file, ir_key)) {
                phase_done("program by the kernel's IR from the disk cache", since);
                return;
            }
        }
        shader = glsl::generate(k, sig, options);
        if (quick) shader.source.insert(shader.source.find('\n') + 1, "#pragma optimize(off)\n");  // after #version
        phase_done("GLSL", since);
        std::uint64_t key = disk_cache::hash_bytes(shader.source.data(), shader.source.size(), st_->device_key);
        char file[48];
        std::snprintf(file, sizeof file, "opengl-%016llx.bin", static_cast<unsigned long long>(key));
        if (spirv_from_env()) {
            compile_spirv(k.name);
            phase_done("SPIR-V and the driver's compile", since);
            return;
        }
        if (st_->binaries && load_binary(file, key)) {
            phase_done("program from the disk cache", since);
        } else {
            compile(k.name);
            ++st_->shader_compiles;
            phase_done("the driver's compile and link", since);
            if (st_->binaries) store_binary(file, key, {});
        }
        if (st_->binaries && std::getenv("RILL_DUMP")) detail::dump_file(shader.dump_name + ".glbin", program_binary());
        if (ir_key != 0) store_binary(ir_file, ir_key, glsl::binding_words(shader));
    }
    ~GlProgram() override {
        std::lock_guard lock(st_->mutex);
        try {
            st_->ctx.make_current();
            glDeleteProgram(id);
        } catch (...) {
        }
    }

    glsl::Shader shader;
    GLuint id = 0;

private:
    void compile(const std::string& kernel) {
        GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
        const char* src = shader.source.c_str();
        glShaderSource(sh, 1, &src, nullptr);
        glCompileShader(sh);
        GLint ok = 0;
        glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
        if (!ok) {
            GLint len = 0;
            glGetShaderiv(sh, GL_INFO_LOG_LENGTH, &len);
            std::string log(static_cast<std::size_t>(std::max(len, 1)), '\0');
            glGetShaderInfoLog(sh, len, nullptr, log.data());
            glDeleteShader(sh);
            glDeleteProgram(id);
            throw Error("opengl backend: kernel '" + kernel + "' failed to compile: " + log + glsl::quote_source_line(log, shader.source) +
                        "\nThis is a bug in rill's GLSL generator unless the kernel uses a feature the driver lacks; "
                        "RILL_DUMP=<dir> writes the whole shader.");
        }
        glAttachShader(id, sh);
        glProgramParameteri(id, GL_PROGRAM_BINARY_RETRIEVABLE_HINT, GL_TRUE);
        glLinkProgram(id);
        glDeleteShader(sh);
        GLint linked = 0;
        glGetProgramiv(id, GL_LINK_STATUS, &linked);
        if (!linked) {
            char log[2048] = {};
            glGetProgramInfoLog(id, sizeof log, nullptr, log);
            glDeleteProgram(id);
            throw Error("opengl backend: kernel '" + kernel + "' failed to link: " + log);
        }
    }

    void compile_spirv(const std::string& kernel) {
#ifdef RILL_GL_SPIRV_PROBE
        if (!glSpecializeShader) throw Error("opengl backend: RILL_GL_SPIRV is set, but the driver lacks GL_ARB_gl_spirv; unset it");
        static const shaderc::Compiler compiler;
        shaderc::CompileOptions options;
        options.SetTargetEnvironment(shaderc_target_env_opengl, shaderc_env_version_opengl_4_5);
        // Subgroup operations need SPIR-V 1.3, which spirv-opt refuses for
        // OpenGL: compare with RILL_VK_SPIRV_OPT=0 on the Vulkan side.
        options.SetTargetSpirv(shaderc_spirv_version_1_3);
        options.SetOptimizationLevel(shaderc_optimization_level_zero);
        auto spv = compiler.CompileGlslToSpv(shader.source, shaderc_compute_shader, (kernel + ".comp").c_str(), options);
        if (spv.GetCompilationStatus() != shaderc_compilation_status_success)
            throw Error("opengl backend: RILL_GL_SPIRV: kernel '" + kernel + "' failed to compile to SPIR-V: " +
                        spv.GetErrorMessage() + "; unset RILL_GL_SPIRV");
        const std::vector<std::uint32_t> words(spv.cbegin(), spv.cend());
        GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
        glShaderBinary(1, &sh, GL_SHADER_BINARY_FORMAT_SPIR_V, words.data(), static_cast<GLsizei>(words.size() * 4));
        glSpecializeShader(sh, "main", 0, nullptr, nullptr);
        GLint ok = 0;
        glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
        if (ok) {
            glAttachShader(id, sh);
            glLinkProgram(id);
            glGetProgramiv(id, GL_LINK_STATUS, &ok);
        }
        glDeleteShader(sh);
        if (!ok) throw Error("opengl backend: RILL_GL_SPIRV: the driver rejected kernel '" + kernel + "' as SPIR-V; unset RILL_GL_SPIRV");
#else
        throw Error("opengl backend: RILL_GL_SPIRV is set, but this build has no shaderc (kernel '" + kernel +
                    "'); unset it, or build with the Vulkan backend");
#endif
    }

    bool load_binary(const std::string& file, std::uint64_t key) {
        auto data = disk_cache::load(file, key);
        return data && program_from(data->data(), data->size());
    }

    /// An entry stored by the kernel's IR: the shader's bindings, then the binary.
    bool load_binary_by_ir(const std::string& file, std::uint64_t key) {
        auto data = disk_cache::load(file, key);
        if (!data) return false;
        const std::size_t at = glsl::read_bindings(*data, shader);
        return at != 0 && program_from(data->data() + at, data->size() - at);
    }

    /// The program from a stored binary (its format, then its bytes).
    bool program_from(const std::uint8_t* data, std::size_t size) {
        if (size <= 4) return false;
        GLenum format = 0;
        std::memcpy(&format, data, 4);
        glProgramBinary(id, format, data + 4, static_cast<GLsizei>(size - 4));
        GLint linked = 0;
        glGetProgramiv(id, GL_LINK_STATUS, &linked);
        if (linked) return true;
        // A driver that rejects a stored binary (updated driver...) compiles anew.
        glDeleteProgram(id);
        id = glCreateProgram();
        while (glGetError() != GL_NO_ERROR) {
        }
        return false;
    }

    /// The driver's program binary as it gives it (its format enum, then the bytes), for
    /// RILL_DUMP: NVIDIA's holds the driver's assembly of the kernel
    /// (bench/gpu/nv_gl_binary_code.py cuts it out).
    std::string program_binary() const {
        GLint len = 0;
        glGetProgramiv(id, GL_PROGRAM_BINARY_LENGTH, &len);
        if (len <= 0) return {};
        std::string data(4 + static_cast<std::size_t>(len), '\0');
        GLenum format = 0;
        glGetProgramBinary(id, len, nullptr, &format, data.data() + 4);
        std::memcpy(data.data(), &format, 4);
        return data;
    }

    /// The program's binary after `prefix` (the shader's bindings, in an entry by its IR).
    void store_binary(const std::string& file, std::uint64_t key, const std::vector<std::uint32_t>& prefix) {
        const std::string binary = program_binary();
        if (binary.empty()) return;
        std::vector<std::uint8_t> data(4 * prefix.size() + binary.size());
        if (!prefix.empty()) std::memcpy(data.data(), prefix.data(), 4 * prefix.size());
        std::memcpy(data.data() + 4 * prefix.size(), binary.data(), binary.size());
        disk_cache::store(file, key, data);
    }

    std::shared_ptr<State> st_;
};

class OpenGlBackend final : public Backend {
public:
    OpenGlBackend() : st_(std::make_shared<State>(debug_from_env())) {
        State& s = *st_;
        if (s.debug) {
            glEnable(GL_DEBUG_OUTPUT);
            glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
            glDebugMessageCallback(on_debug_message, st_.get());
        }
        const std::string vendor = reinterpret_cast<const char*>(glGetString(GL_VENDOR));
        const std::string renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
        const std::string version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
        const std::string identity = vendor + "|" + renderer + "|" + version + "|rill-codegen-1";
        s.device_key = disk_cache::hash_bytes(identity.data(), identity.size());
        GLint formats = 0;
        glGetIntegerv(GL_NUM_PROGRAM_BINARY_FORMATS, &formats);
        s.binaries = formats > 0;
        s.new_info_ring();
        info_.name = "opengl";
        info_.device = renderer + " (" + version + ", " + s.ctx.platform() + ")";
        GLint v = 0;
        glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &v);
        info_.limits.max_workgroup_size = static_cast<std::uint32_t>(v);
        glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &v);
        info_.limits.shared_memory_bytes = static_cast<std::uint64_t>(v);
        GLint64 ssbo = 0;
        glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &ssbo);
        info_.limits.max_buffer_bytes = static_cast<std::uint64_t>(ssbo);
        s.llvmpipe = renderer.find("llvmpipe") != std::string::npos;
        s.nvidia = vendor.find("NVIDIA") != std::string::npos;
        s.flush = flush_policy_from_env(s.llvmpipe);
        if (info_ranges_from_env()) {
            GLint alignment = 0;
            glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &alignment);
            s.info_ranges = alignment > 0 && 256 % alignment == 0;
        }
        if (const char* bits = std::getenv("RILL_GL_BARRIER_BITS"); bits && *bits) {
            const std::string v = bits;
            if (v == "buffers")
                s.barrier_bits = GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT | GL_ATOMIC_COUNTER_BARRIER_BIT;
            else if (v != "all")
                throw Error("RILL_GL_BARRIER_BITS is '" + v + "'; give all or buffers, or unset it");
        }
        if (s.llvmpipe) info_.limits.loop_iterations = kLlvmpipeLoopIterations;
        // Released buffers kept for reuse, as the Vulkan backend keeps them: an
        // eighth of the device's memory where the driver tells it (NVIDIA's
        // NVX_gpu_memory_info, in KiB); else 1 GiB; 256 MiB on llvmpipe, whose
        // memory is the host's. Unlike the Vulkan backend's, not capped at 4
        // GiB: NVIDIA's driver commits a buffer's memory at its first use, at
        // about 31 GB/s, so a call whose streams outgrow the pool pays that
        // each time (H200, the adaptive bunny of 27 M triangles,
        // docs/PERFORMANCE.md#opengl-against-vulkan: 1,990 ms with 4 GiB,
        // 1,105 ms with 8, 125 ms with an eighth, 17.6 GiB; Vulkan 120 ms).
        std::size_t pool_limit = std::size_t{1} << 30;
        if (s.llvmpipe) {
            pool_limit = std::size_t{256} << 20;
        } else if (GLEW_NVX_gpu_memory_info) {
            GLint kib = 0;
            glGetIntegerv(GL_GPU_MEMORY_INFO_TOTAL_AVAILABLE_MEMORY_NVX, &kib);
            if (kib > 0) pool_limit = static_cast<std::size_t>(kib) * 1024 / 8;
        }
        s.pool.set_limit(pool_limit);
        s.pooling = true;
        glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &max_groups_[0]);
        glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 1, &max_groups_[1]);
        info_.persistent_cache = s.binaries;
        detect_subgroups(s);
        info_.details.emplace_back("vendor", vendor);
        info_.details.emplace_back("workgroups a dispatch", std::to_string(max_groups_[0]) + " x " + std::to_string(max_groups_[1]) +
                                                                " (more than the first spread over the second)");
        info_.details.emplace_back("program binary formats", std::to_string(formats) + (s.binaries ? "" : " (no disk cache)"));
        info_.details.emplace_back("debug output", s.debug ? "on" : "off (RILL_GL_DEBUG=1)");
#ifdef RILL_GL_VULKAN_MEMORY
        info_.details.emplace_back("stream memory", vulkan_memory_from_env()
                                                        ? "streams of 1 MiB and more in memory Vulkan allocates, where this GPU has a Vulkan "
                                                          "driver (GL_EXT_memory_object_fd); else the GL driver's"
                                                        : "the GL driver's (RILL_GL_VULKAN_MEMORY=0)");
#endif
        s.check_debug();
    }

    ~OpenGlBackend() override {
        std::lock_guard lock(st_->mutex);
        try {
            st_->ctx.make_current();
            st_->collect_queries();
            st_->drain_pool();
            st_->pooling = false;
            if (st_->zero_program) glDeleteProgram(st_->zero_program);
            glDeleteBuffers(1, &st_->info);
            glDeleteBuffers(1, &st_->readback);
            st_->ctx.release();
        } catch (...) {
        }
        if (profiling_from_env()) std::fputs(st_->times.summary("opengl").c_str(), stderr);
        if (st_->host_times.on) std::fputs(st_->host_times.summary().c_str(), stderr);
    }

    const BackendInfo& info() const override { return info_; }

    std::shared_ptr<Buffer> allocate(std::size_t bytes, BufferContents contents) override {
        // Before the lock: where a later step throws, the lock goes first, then
        // the buffer, whose destructor takes the lock (it deadlocked otherwise).
        std::shared_ptr<GlBuffer> b;
        std::lock_guard lock(st_->mutex);
        const HostTimes::Scope timed(st_->host_times, State::HostTime::StreamAllocate);
        st_->ctx.make_current();
        b = std::make_shared<GlBuffer>(st_, bytes);
        if (contents == BufferContents::Zero) {
            st_->zero(b->id, bytes);
            b->gpu_used = true;
        }
        st_->check_debug();
        return b;
    }

    // Uploads into a buffer object no GPU command has used yet are
    // glNamedBufferSubData in 64 KiB pieces: on the H100's driver (580.159) a
    // single glNamedBufferSubData of 256 KiB or more that follows a GPU clear of
    // the buffer was overwritten by that clear, silently, with no GL error;
    // small pieces take the driver's ordered path (found by bisecting on the
    // H100; tests: Streams.CopyAtEdgeSizes, Streams.LargeCopies...). Into a
    // buffer the GPU has used (a kernel, copy or fill, or a pooled buffer's
    // earlier stream), NVIDIA's driver (580, H200) also lost updates of a few
    // bytes: a count uploaded twice in a row read back its first value
    // (VariableOutputs.DeviceCountAndTooShortOutput with pooled buffers). Such
    // uploads go into a new staging buffer object, created with the data, and
    // from there by glCopyNamedBufferSubData: a GPU command, ordered with the
    // kernels and fills as copies are. Read-backs have no such problem and go
    // in large pieces.
    static constexpr std::size_t kUploadPiece = std::size_t{64} << 10;
    static constexpr std::size_t kPiece = std::size_t{64} << 20;

    void upload(Buffer& dst, std::size_t offset, const void* src, std::size_t bytes) override {
        std::lock_guard lock(st_->mutex);
        const HostTimes::Scope timed(st_->host_times, State::HostTime::Upload);
        st_->ctx.make_current();
        GlBuffer& to = gl_buffer(&dst);
        const char* from = static_cast<const char*>(src);
        if (!to.gpu_used && !static_buffers_from_env() && !st_->imported(to.id)) {
            for (std::size_t done = 0; done < bytes; done += kUploadPiece)
                glNamedBufferSubData(to.id, static_cast<GLintptr>(offset + done),
                                     static_cast<GLsizeiptr>(std::min(kUploadPiece, bytes - done)), from + done);
        } else {
            st_->order({}, {to.id});
            for (std::size_t done = 0; done < bytes; done += kPiece) {
                const auto piece = static_cast<GLsizeiptr>(std::min(kPiece, bytes - done));
                GLuint staging = 0;
                glCreateBuffers(1, &staging);
                glNamedBufferStorage(staging, piece, from + done, 0);
                if (glGetError() == GL_OUT_OF_MEMORY) {
                    glDeleteBuffers(1, &staging);
                    throw Error("opengl backend: out of memory staging a stream upload of " + std::to_string(piece) +
                                " bytes; use smaller streams or release others first");
                }
                st_->timed("copy", [&] {
                    glCopyNamedBufferSubData(staging, to.id, 0, static_cast<GLintptr>(offset + done), piece);
                });
                glDeleteBuffers(1, &staging);  // the driver keeps it until the copy has run
            }
        }
        check_transfer("upload");
        st_->check_debug();
    }

    /// NVIDIA's driver (580, H200) reads a buffer object back whole, whatever
    /// the range asked: 64 bytes of a 68 MB buffer (a tree's root) took 8 ms,
    /// most of a 10^6-triangle OBB tree's build, which took 2.2 ms instead of
    /// 8.8 once such reads went through a copy (docs/PERFORMANCE.md#collision-detection).
    /// So a read of less than half its buffer object is copied on the GPU into
    /// a staging buffer of its own size and read from there.
    void download(Buffer& src, std::size_t offset, void* dst, std::size_t bytes) override {
        std::lock_guard lock(st_->mutex);
        const HostTimes::Scope timed(st_->host_times, State::HostTime::Download);
        st_->ctx.make_current();
        const GlBuffer& from = gl_buffer(&src);
        st_->barrier_if_written({from.id});
        const bool staged = bytes <= from.capacity() / 2;
        for (std::size_t done = 0; done < bytes; done += kPiece) {
            const auto piece = static_cast<GLsizeiptr>(std::min(kPiece, bytes - done));
            char* to = static_cast<char*>(dst) + done;
            if (staged) {
                // The copy is ordered after the kernels by the barrier above, and
                // the read after the copy by GL (a copy is no incoherent shader write).
                const GLuint staging = st_->readback_buffer(static_cast<std::size_t>(piece));
                glCopyNamedBufferSubData(from.id, staging, static_cast<GLintptr>(offset + done), 0, piece);
                glGetNamedBufferSubData(staging, 0, piece, to);
            } else {
                glGetNamedBufferSubData(from.id, static_cast<GLintptr>(offset + done), piece, to);
            }
        }
        st_->waited_for_gpu();
        check_transfer("download");
        st_->check_debug();
    }

    /// Errors of transfers are checked always, not only with RILL_GL_DEBUG: a
    /// failed transfer must never look like data.
    void check_transfer(const char* what) {
        const GLenum e = glGetError();
        if (e == GL_NO_ERROR) return;
        if (e == GL_OUT_OF_MEMORY)
            throw Error(std::string("opengl backend: out of memory during a stream ") + what +
                        "; use smaller streams or release others first");
        char code[16];
        std::snprintf(code, sizeof code, "0x%x", e);
        throw Error(std::string("opengl backend: a stream ") + what + " failed with GL error " + code);
    }

    void copy(Buffer& src, std::size_t src_offset, Buffer& dst, std::size_t dst_offset, std::size_t bytes) override {
        std::lock_guard lock(st_->mutex);
        st_->ctx.make_current();
        st_->order({handle(&src)}, {handle(&dst)});
        gl_buffer(&src).gpu_used = gl_buffer(&dst).gpu_used = true;
        st_->timed("copy", [&] {
            glCopyNamedBufferSubData(handle(&src), handle(&dst), static_cast<GLintptr>(src_offset),
                                     static_cast<GLintptr>(dst_offset), static_cast<GLsizeiptr>(bytes));
        });
    }

    std::unique_ptr<Program> compile(const ir::Kernel& k, const Signature& sig) override {
        std::lock_guard lock(st_->mutex);
        const HostTimes::Scope timed(st_->host_times, State::HostTime::Compile);
        st_->ctx.make_current();
        auto p = std::make_unique<GlProgram>(st_, k, sig);
        st_->check_debug();
        return p;
    }

    void dispatch(Program& program, const ir::Kernel& k, const Dispatch& d) override {
        auto& p = static_cast<GlProgram&>(program);
        std::lock_guard lock(st_->mutex);
        State& s = *st_;
        const HostTimes::Scope timed(s.host_times, State::HostTime::Dispatch);
        s.ctx.make_current();
        glsl::pack_info(k, d, info_words_);
        const GLsizeiptr bytes = static_cast<GLsizeiptr>((info_words_.size() * 4 + 255) & ~std::size_t{255});
        if (bytes > kInfoRingBytes) throw Error("opengl backend: kernel '" + k.name + "' has too many parameters");
        if (s.info_used + bytes > kInfoRingBytes) s.new_info_ring();
        glNamedBufferSubData(s.info, s.info_used, static_cast<GLsizeiptr>(info_words_.size() * 4), info_words_.data());
        const GLuint base = static_cast<GLuint>(s.info_used / 4);
        s.info_used += bytes;

        reads_.clear();
        writes_.clear();
        for (std::uint32_t i = 0; i < k.params.size(); ++i) {
            const std::uint32_t b = p.shader.stream_binding[i];
            if (b == ir::kNone) continue;
            GlBuffer& buffer = gl_buffer(d.streams[i].buffer);
            buffer.gpu_used = true;
            const bool writes = k.params[i].kind == ir::ParamKind::Output || k.params[i].kind == ir::ParamKind::Array;
            (writes ? writes_ : reads_).push_back(buffer.id);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b, buffer.id);
        }
        if (s.info_ranges) {
            glBindBufferRange(GL_SHADER_STORAGE_BUFFER, p.shader.info_binding, s.info, static_cast<GLintptr>(4 * base), bytes);
        } else {
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, p.shader.info_binding, s.info);
        }
        s.order(reads_, writes_);
        glUseProgram(p.id);
        if (!s.info_ranges) glProgramUniform1ui(p.id, 0, base);
        const glsl::Grid grid = glsl::dispatch_grid(k, static_cast<std::uint64_t>(d.domain.size()),
                                                    static_cast<std::uint64_t>(max_groups_[0]),
                                                    static_cast<std::uint64_t>(max_groups_[1]));
        s.timed(k.name, [&] { glDispatchCompute(grid.x, grid.y, 1); });
        s.dispatched();
        s.check_debug();
    }

    void finish() override {
        std::lock_guard lock(st_->mutex);
        st_->ctx.make_current();
        const HostTimes::Scope timed(st_->host_times, State::HostTime::Finish);
        glFinish();
        st_->waited_for_gpu();
        st_->collect_queries();
        st_->check_debug();
        st_->ctx.release();  // another thread may use this runtime next
    }

    std::uint64_t shader_compiles() const override {
        std::lock_guard lock(st_->mutex);
        return st_->shader_compiles;
    }
    void set_profiling(bool on) override {
        finish();
        std::lock_guard lock(st_->mutex);
        st_->profiling = on;
    }
    std::vector<KernelTime> kernel_times() override {
        finish();
        std::lock_guard lock(st_->mutex);
        return st_->times.list();
    }
    void reset_kernel_times() override {
        finish();
        std::lock_guard lock(st_->mutex);
        st_->times.reset();
    }

    const std::shared_ptr<State>& state() const { return st_; }

private:
    std::shared_ptr<State> st_;
    BackendInfo info_;
    std::vector<std::uint32_t> info_words_;
    std::vector<GLuint> reads_, writes_;  // a dispatch's buffers
    GLint max_groups_[2] = {65535, 65535};

    /// Subgroups through GL_KHR_shader_subgroup when the driver has every
    /// operation family in compute shaders; otherwise a subgroup is one
    /// invocation (exact, and documented in docs/SEMANTICS.md).
    void detect_subgroups(State& s) {
        GLint n = 0;
        glGetIntegerv(GL_NUM_EXTENSIONS, &n);
        bool has = false, partitioned = false;
        for (GLint i = 0; i < n; ++i) {
            const std::string ext = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i)));
            has = has || ext == "GL_KHR_shader_subgroup";
            s.float_atomic_add = s.float_atomic_add || ext == "GL_NV_shader_atomic_float";
            partitioned = partitioned || ext == "GL_NV_shader_subgroup_partitioned";
        }
        info_.details.emplace_back("float atomic add", s.float_atomic_add ? "native (GL_NV_shader_atomic_float)"
                                                                          : "compare-exchange loop");
        GLint size = 1, stages = 0, features = 0;
        if (has) {
            constexpr GLenum kSubgroupSize = 0x9532, kStages = 0x9533, kFeatures = 0x9534;  // KHR_shader_subgroup
            glGetIntegerv(kSubgroupSize, &size);
            glGetIntegerv(kStages, &stages);
            glGetIntegerv(kFeatures, &features);
        }
        s.native_subgroups = has && (stages & GL_COMPUTE_SHADER_BIT) && (features & kAllSubgroupOps) == kAllSubgroupOps;
        info_.limits.subgroup_size = s.native_subgroups ? static_cast<std::uint32_t>(size) : 1u;
        s.subgroup_partitioned = s.native_subgroups && partitioned && (features & kSubgroupMatch) != 0;
        info_.limits.subgroup_ops = kAllSubgroupOps | (s.subgroup_partitioned ? kSubgroupMatch : 0u);
        info_.limits.min_subgroup_size = info_.limits.max_subgroup_size = info_.limits.subgroup_size;  // GL cannot pin
        info_.details.emplace_back("subgroup match", s.subgroup_partitioned ? "native (GL_NV_shader_subgroup_partitioned)"
                                                                            : "a loop of shuffles");
        info_.details.emplace_back("subgroups", s.native_subgroups ? "GL_KHR_shader_subgroup"
                                                                   : "one invocation each (no GL_KHR_shader_subgroup)");
    }
};

GLuint link_own_program(std::initializer_list<std::pair<GLenum, const char*>> stages) {
    const GLuint program = glCreateProgram();
    std::vector<GLuint> shaders;
    for (const auto& [stage, source] : stages) {
        const GLuint sh = glCreateShader(stage);
        glShaderSource(sh, 1, &source, nullptr);
        glCompileShader(sh);
        GLint ok = 0;
        glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
        RILL_ASSERT(ok, "one of the OpenGL backend's own shaders failed to compile");
        glAttachShader(program, sh);
        shaders.push_back(sh);
    }
    glLinkProgram(program);
    for (GLuint sh : shaders) glDeleteShader(sh);
    GLint linked = 0;
    glGetProgramiv(program, GL_LINK_STATUS, &linked);
    RILL_ASSERT(linked, "one of the OpenGL backend's own programs failed to link");
    return program;
}

}  // namespace

State& state_of(Runtime& rt) {
    auto* gl = dynamic_cast<OpenGlBackend*>(&rt.backend());
    if (!gl)
        throw Error("rill::opengl: runtime '" + rt.backend_name() +
                    "' is not an OpenGL runtime; create it with rill::Runtime(\"opengl\")");
    return *gl->state();
}

GLuint buffer_of(const StreamBase& s) {
    auto* b = dynamic_cast<GlBuffer*>(s.buffer());
    if (!b)
        throw Error("rill::opengl: the stream (" + s.element_type_name() + ", shape " + s.shape().str() +
                    ") is not stored in an OpenGL runtime (or is an iterator); create it with an OpenGL rill::Runtime");
    b->gpu_used = true;  // the caller's own GL commands may use it from here on
    return b->id;
}

// Behind Vulkan (batching, explicit barriers), ahead of the CPU.
RILL_REGISTER_BACKEND("opengl", 10, [] { return std::make_unique<OpenGlBackend>(); });

}  // namespace rill::gl

namespace rill::opengl {

using gl::State;

std::uint32_t buffer_name(const StreamBase& s) { return gl::buffer_of(s); }
std::size_t offset_bytes(const StreamBase& s) { return static_cast<std::size_t>(s.offset()) * s.element_words() * 4; }
std::size_t stride_bytes(const StreamBase& s) {
    if (s.shape().rank != 1 && !s.contiguous())
        throw Error("rill::opengl: a multi-dimensional strided view has no single vertex stride; copy it into a new "
                    "stream (or reshape a contiguous one) first");
    const std::int64_t step = s.shape().rank == 1 ? s.strides()[0] : 1;
    return static_cast<std::size_t>(step) * s.element_words() * 4;
}

void make_current(Runtime& rt) {
    State& st = gl::state_of(rt);
    std::lock_guard lock(st.mutex);
    st.ctx.make_current();
    if (!st.written.empty()) st.barrier(GL_ALL_BARRIER_BITS);
    st.external = true;  // the caller's commands may read or write any stream: the next command waits for them
}

struct OffscreenRenderer::Impl {
    std::shared_ptr<State> st;
    GLuint fbo = 0, color = 0, program = 0, vao = 0;
    // Round sprites with a colour each (position and colour attributes), and
    // a triangle that covers the screen (draw_background).
    GLuint sprites = 0, sprite_vao = 0, cover = 0;
};


OffscreenRenderer::OffscreenRenderer(Runtime& rt, int width, int height) : impl_(new Impl), width_(width), height_(height) {
    if (width < 1 || height < 1)
        throw Error("rill::opengl::OffscreenRenderer: the size must be at least 1x1, got " + std::to_string(width) + "x" +
                    std::to_string(height));
    auto* gl = dynamic_cast<gl::OpenGlBackend*>(&rt.backend());
    if (!gl) gl::state_of(rt);  // throws the explanation
    impl_->st = gl->state();
    State& st = *impl_->st;
    std::lock_guard lock(st.mutex);
    st.ctx.make_current();
    glCreateRenderbuffers(1, &impl_->color);
    glNamedRenderbufferStorage(impl_->color, GL_RGBA8, width, height);
    glCreateFramebuffers(1, &impl_->fbo);
    glNamedFramebufferRenderbuffer(impl_->fbo, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, impl_->color);
    RILL_ASSERT(glCheckNamedFramebufferStatus(impl_->fbo, GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE,
                "offscreen framebuffer incomplete");
    static const char* vs = "#version 430 core\n"
                            "layout(location = 0) in vec2 position;\n"
                            "layout(location = 0) uniform float point_size;\n"
                            "void main() { gl_Position = vec4(position, 0.0, 1.0); gl_PointSize = point_size; }\n";
    static const char* fs = "#version 430 core\n"
                            "layout(location = 1) uniform vec4 color;\n"
                            "out vec4 fragment;\n"
                            "void main() { fragment = color; }\n";
    impl_->program = gl::link_own_program({{GL_VERTEX_SHADER, vs}, {GL_FRAGMENT_SHADER, fs}});
    glCreateVertexArrays(1, &impl_->vao);
    glEnableVertexArrayAttrib(impl_->vao, 0);
    glVertexArrayAttribFormat(impl_->vao, 0, 2, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribBinding(impl_->vao, 0, 0);
    static const char* sprite_vs = "#version 430 core\n"
                                   "layout(location = 0) in vec2 position;\n"
                                   "layout(location = 1) in vec4 colour;\n"
                                   "layout(location = 0) uniform float point_size;\n"
                                   "out vec4 v_colour;\n"
                                   "void main() { gl_Position = vec4(position, 0.0, 1.0); gl_PointSize = point_size; v_colour = colour; }\n";
    // Under blends premultiplied colours (glBlendFuncSeparate below).
    static const char* sprite_fs = "#version 430 core\n"
                                   "layout(location = 1) uniform int premultiplied;\n"
                                   "in vec4 v_colour;\n"
                                   "out vec4 fragment;\n"
                                   "void main() {\n"
                                   "    vec2 d = gl_PointCoord * 2.0 - 1.0;\n"
                                   "    if (dot(d, d) > 1.0) discard;\n"
                                   "    fragment = premultiplied != 0 ? vec4(v_colour.rgb * v_colour.a, v_colour.a) : v_colour;\n"
                                   "}\n";
    impl_->sprites = gl::link_own_program({{GL_VERTEX_SHADER, sprite_vs}, {GL_FRAGMENT_SHADER, sprite_fs}});
    glCreateVertexArrays(1, &impl_->sprite_vao);
    for (GLuint a : {0u, 1u}) {
        glEnableVertexArrayAttrib(impl_->sprite_vao, a);
        glVertexArrayAttribFormat(impl_->sprite_vao, a, a == 0 ? 2 : 4, GL_FLOAT, GL_FALSE, 0);
        glVertexArrayAttribBinding(impl_->sprite_vao, a, a);
    }
    const float corners[6] = {-1, -1, 3, -1, -1, 3};
    glCreateBuffers(1, &impl_->cover);
    glNamedBufferStorage(impl_->cover, sizeof corners, corners, 0);
    st.check_debug();
}

OffscreenRenderer::~OffscreenRenderer() {
    State& st = *impl_->st;
    std::lock_guard lock(st.mutex);
    try {
        st.ctx.make_current();
        glDeleteVertexArrays(1, &impl_->vao);
        glDeleteProgram(impl_->program);
        glDeleteVertexArrays(1, &impl_->sprite_vao);
        glDeleteProgram(impl_->sprites);
        glDeleteBuffers(1, &impl_->cover);
        glDeleteFramebuffers(1, &impl_->fbo);
        glDeleteRenderbuffers(1, &impl_->color);
    } catch (...) {
    }
}

void OffscreenRenderer::clear(float4 color) {
    State& st = *impl_->st;
    std::lock_guard lock(st.mutex);
    st.ctx.make_current();
    const float c[4] = {color.x, color.y, color.z, color.w};
    glClearNamedFramebufferfv(impl_->fbo, GL_COLOR, 0, c);
    st.check_debug();
}

namespace {
/// Runs `body` (uniforms, blending, vertex buffers, the draw call) with the
/// renderer's framebuffer bound over its whole size, `program` in use and
/// `vao` bound, after the kernels that wrote `read` (buffer names); leaves
/// blending off and checks GL's debug output.
template <class F>
void draw_into(State& st, GLuint fbo, int width, int height, std::initializer_list<GLuint> read, GLuint program, GLuint vao, F body) {
    std::lock_guard lock(st.mutex);
    st.ctx.make_current();
    st.order(read, {});  // after the kernels that wrote them, before any that writes them next
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, width, height);
    glUseProgram(program);
    glBindVertexArray(vao);
    body();
    glBindVertexArray(0);
    glDisable(GL_BLEND);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    st.check_debug();
}

void draw(State& st, GLuint fbo, GLuint program, GLuint vao, const Stream<float2>& s, GLenum mode,
          float size, float4 color, int width, int height) {
    const GLuint buf = gl::buffer_of(s);
    draw_into(st, fbo, width, height, {buf}, program, vao, [&] {
        glEnable(GL_PROGRAM_POINT_SIZE);
        glProgramUniform1f(program, 0, size);
        glProgramUniform4f(program, 1, color.x, color.y, color.z, color.w);
        glVertexArrayVertexBuffer(vao, 0, buf, static_cast<GLintptr>(offset_bytes(s)), static_cast<GLsizei>(stride_bytes(s)));
        glDrawArrays(mode, 0, static_cast<GLsizei>(mode == GL_TRIANGLES ? s.size() / 3 * 3 : s.size()));
    });
}
}  // namespace

void OffscreenRenderer::draw_points(const Stream<float2>& positions, float size, float4 color) {
    draw(*impl_->st, impl_->fbo, impl_->program, impl_->vao, positions, GL_POINTS, size, color, width_, height_);
}

void OffscreenRenderer::draw_points(const Stream<float2>& positions, const Stream<float4>& colours, float size, Blend blend) {
    const char* who = "rill::opengl::OffscreenRenderer::draw_points";
    if (colours.size() != positions.size())
        throw Error(std::string(who) + ": " + std::to_string(positions.size()) + " positions but " + std::to_string(colours.size()) +
                    " colours; give one colour per point");
    if (!(size > 0 && size <= 1024))
        throw Error(std::string(who) + ": size is " + std::to_string(size) + "; give a point size in pixels, above 0 and at most 1024");
    const GLuint position_buffer = gl::buffer_of(positions), colour_buffer = gl::buffer_of(colours);
    const GLuint program = impl_->sprites, vao = impl_->sprite_vao;
    draw_into(*impl_->st, impl_->fbo, width_, height_, {position_buffer, colour_buffer}, program, vao, [&] {
        glEnable(GL_PROGRAM_POINT_SIZE);
        glProgramUniform1f(program, 0, size);
        glProgramUniform1i(program, 1, blend == Blend::Under ? 1 : 0);
        if (blend != Blend::Replace) {
            glEnable(GL_BLEND);
            if (blend == Blend::Over) glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
            else glBlendFuncSeparate(GL_ONE_MINUS_DST_ALPHA, GL_ONE, GL_ONE_MINUS_DST_ALPHA, GL_ONE);
        }
        glVertexArrayVertexBuffer(vao, 0, position_buffer, static_cast<GLintptr>(offset_bytes(positions)),
                                  static_cast<GLsizei>(stride_bytes(positions)));
        glVertexArrayVertexBuffer(vao, 1, colour_buffer, static_cast<GLintptr>(offset_bytes(colours)),
                                  static_cast<GLsizei>(stride_bytes(colours)));
        glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(positions.size()));
    });
}

void OffscreenRenderer::draw_background(float4 color) {
    const GLuint program = impl_->program, vao = impl_->vao;
    draw_into(*impl_->st, impl_->fbo, width_, height_, {}, program, vao, [&] {
        glProgramUniform4f(program, 1, color.x, color.y, color.z, 1.0f);
        glEnable(GL_BLEND);
        glBlendFuncSeparate(GL_ONE_MINUS_DST_ALPHA, GL_ONE, GL_ONE_MINUS_DST_ALPHA, GL_ONE);
        glVertexArrayVertexBuffer(vao, 0, impl_->cover, 0, 2 * sizeof(float));
        glDrawArrays(GL_TRIANGLES, 0, 3);
    });
}

void OffscreenRenderer::draw_triangles(const Stream<float2>& corners, float4 color) {
    draw(*impl_->st, impl_->fbo, impl_->program, impl_->vao, corners, GL_TRIANGLES, 1.0f, color, width_, height_);
}

std::vector<std::uint8_t> OffscreenRenderer::read_rgba() {
    State& st = *impl_->st;
    std::lock_guard lock(st.mutex);
    st.ctx.make_current();
    std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width_) * height_ * 4);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, impl_->fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    st.check_debug();
    // GL's first row is the bottom one; images start at the top.
    const std::size_t row = static_cast<std::size_t>(width_) * 4;
    for (int y = 0; y < height_ / 2; ++y)
        std::swap_ranges(pixels.begin() + y * row, pixels.begin() + (y + 1) * row, pixels.begin() + (height_ - 1 - y) * row);
    return pixels;
}

void OffscreenRenderer::save_png(const std::string& path) {
    const std::vector<std::uint8_t> rgba = read_rgba();
    if (!stbi_write_png(path.c_str(), width_, height_, 4, rgba.data(), width_ * 4))
        throw Error("rill::opengl::OffscreenRenderer::save_png: cannot write '" + path +
                    "'; check that its directory exists and is writable");
}

}  // namespace rill::opengl
