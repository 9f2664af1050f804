// The one interface a backend implements: buffers, compile, dispatch, sync.
//
// Backends are folders of overrides of this class (Dawn's *Impl pattern) that
// register themselves with RILL_REGISTER_BACKEND; the core never names one.
// No API type (vk::, GL) appears here or in any public header.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rill/core/ir.h"
#include "rill/core/shape.h"

namespace rill {

/// Device memory owned by a backend.
class Buffer {
public:
    virtual ~Buffer() = default;
    std::size_t bytes = 0;
};

/// A kernel compiled for one backend and one binding signature.
class Program {
public:
    virtual ~Program() = default;
    /// Where the build's time went, "GLSL 0.4 ms, SPIR-V 61.0 ms, ..." (empty
    /// where a backend does not time its phases); RILL_LOG_COMPILES prints it.
    std::string build_phases;

protected:
    /// Appends "`phase` X ms" for the time since `since` to build_phases and
    /// restarts `since`.
    void phase_done(const char* phase, std::chrono::steady_clock::time_point& since);
};

/// Where an iterator stream's values come from: value = start + (end - start) * pos / n
/// per component, with component c following dimension rank-1-c (or the only
/// dimension of a 1D stream). Stored as bit patterns of the element's scalar kind.
struct IteratorRange {
    Type type{};
    std::uint32_t start[4]{};
    std::uint32_t end[4]{};
};

/// How one stream argument is bound for a dispatch. Positions are in elements.
/// The element at stream position p (after implicit resize from the domain
/// position q: p[d] = q[d] * resize_mul[d] / resize_div[d]) lives at word
///   (offset + sum_d p[d] * strides[d]) * words
/// of the buffer.
struct StreamBinding {
    Buffer* buffer = nullptr;                 // null for an iterator
    const IteratorRange* iterator = nullptr;  // set for an iterator stream
    Shape shape;
    std::int64_t offset = 0;
    std::array<std::int64_t, kMaxRank> strides{};
    std::array<std::int64_t, kMaxRank> resize_mul{1, 1, 1, 1};
    std::array<std::int64_t, kMaxRank> resize_div{1, 1, 1, 1};
    /// Same shape as the domain and densely packed: element = offset + linear index.
    bool linear = false;
};

/// What varies between calls of a compiled program, beyond its IR: lets a
/// backend specialize code (e.g. linear addressing), and keys the program cache.
struct Signature {
    std::vector<std::uint8_t> stream_kinds;  // per param: 0 uniform, 1 linear, 2 general, 3 iterator
    /// Per param: 1 where the call binds its buffer to another param as well
    /// (it may then be written through the other: no restrict, and coherent
    /// where the kernel hands data between workgroups). Empty: not known, and
    /// every param counts as aliased.
    std::vector<std::uint8_t> aliased;
    bool is_aliased(std::size_t p) const { return aliased.empty() || aliased[p] != 0; }
    /// No buffer is bound to two params.
    bool distinct_buffers() const {
        for (std::size_t p = 0; p < aliased.size(); ++p)
            if (aliased[p]) return false;
        return !aliased.empty();
    }
    /// The domain's rank, and per stream param p and dimension d below
    /// it, dim_resizes[4 p + d]: 0 the position itself (no resize), 1 none (a
    /// dimension of 1 repeated: always 0), 2 position * mul / div. A GPU spends
    /// most of a small kernel's time on the divisions it need not do.
    int domain_rank = 0;
    std::vector<std::uint8_t> dim_resizes;
    std::uint64_t hash() const;
    friend bool operator==(const Signature&, const Signature&) = default;
};

struct Dispatch {
    Shape domain;                       // the output shape: one invocation per element
    std::vector<StreamBinding> streams; // one per kernel param (unused for constants)
    std::vector<std::uint32_t> uniforms;
};

/// Subgroup operation families a backend runs natively (DeviceLimits::subgroup_ops).
/// The first six are the bits of VkSubgroupFeatureFlagBits and GL_KHR_shader_subgroup;
/// every backend runs them. kSubgroupMatch (subgroup_match) is one instruction
/// only where the device has it (Vulkan / GL NV_shader_subgroup_partitioned,
/// the same bit there); elsewhere it is a loop of ballots.
enum SubgroupOps : std::uint32_t {
    kSubgroupBasic = 1, kSubgroupVote = 2, kSubgroupArithmetic = 4, kSubgroupBallot = 8,
    kSubgroupShuffle = 16, kSubgroupShuffleRelative = 32, kSubgroupMatch = 0x100
};
inline constexpr std::uint32_t kAllSubgroupOps = 63;

struct DeviceLimits {
    /// Invocations per subgroup in group kernels (1 where the API has no subgroups).
    std::uint32_t subgroup_size = 0;
    std::uint32_t subgroup_ops = 0;
    /// Sizes a group kernel may require (GroupOptions::subgroup_size).
    std::uint32_t min_subgroup_size = 0, max_subgroup_size = 0;
    std::uint32_t max_workgroup_size = 0;
    std::uint64_t shared_memory_bytes = 0;
    std::uint64_t max_buffer_bytes = 0;
    /// Loop iterations one invocation may run, summed over all its loops; 0:
    /// no limit. Mesa's llvmpipe and lavapipe end every loop of an invocation
    /// after 65535 iterations in all, silently (gallivm's loop limiter), so a
    /// kernel that waits on another workgroup in a loop cannot be exact there.
    std::uint64_t loop_iterations = 0;
};

/// gallivm's limit, for the Mesa software devices (llvmpipe, lavapipe).
inline constexpr std::uint64_t kLlvmpipeLoopIterations = 65535;

struct BackendInfo {
    std::string name;    // "cpu", "vulkan", "opengl"
    std::string device;  // human-readable device description
    DeviceLimits limits;
    /// Compiled kernels persist on disk (a second process compiles nothing).
    bool persistent_cache = false;
    /// A workgroup's invocations run one after another (the CPU backend), so
    /// that an invocation's run of consecutive elements is consecutive
    /// memory: algorithms then give each invocation long runs (row tiles)
    /// where GPUs stripe neighbouring invocations across neighbouring elements.
    bool invocations_in_sequence = false;
    std::vector<std::pair<std::string, std::string>> details;  // extra lines for rill-info
};

/// Time spent in one kernel, summed over its calls since the last reset, and
/// when its first call began and its last call ended there (ms on the
/// device's clock, whose zero is arbitrary: only differences mean anything),
/// so that the span of several kernels, gaps between them included, can be
/// told.
struct KernelTime {
    std::string kernel;
    std::uint64_t calls = 0;
    double total_ms = 0.0;  // device time (GPU timestamps) or host time (CPU)
    double first_start_ms = 0.0, last_end_ms = 0.0;
    /// Each call's start and end on the same clock, in the order recorded (the
    /// first kKeptCalls calls): where a chain of small kernels loses its time
    /// between them, the gaps tell (bench/timing.h's timeline).
    struct Call {
        double start_ms, end_ms;
    };
    std::vector<Call> each;
    static constexpr std::size_t kKeptCalls = 4096;
};

/// What a new buffer holds (Backend::allocate).
enum class BufferContents { Zero, Undefined };

class Backend {
public:
    virtual ~Backend() = default;

    virtual const BackendInfo& info() const = 0;

    /// A new buffer of `bytes`: zero, or, where the caller writes it whole
    /// before reading it (BufferContents::Undefined), whatever the memory it
    /// reuses held. The runtime asks for whole multiples of kBufferGranule, so
    /// that a vector access (Array::load_vector) to the last elements of a
    /// stream stays inside its buffer.
    virtual std::shared_ptr<Buffer> allocate(std::size_t bytes, BufferContents contents) = 0;
    static constexpr std::size_t kBufferGranule = 16;
    static std::size_t granular(std::size_t bytes) {
        return std::max<std::size_t>(kBufferGranule, (bytes + kBufferGranule - 1) / kBufferGranule * kBufferGranule);
    }
    virtual void upload(Buffer& dst, std::size_t offset, const void* src, std::size_t bytes) = 0;
    virtual void download(Buffer& src, std::size_t offset, void* dst, std::size_t bytes) = 0;
    virtual void copy(Buffer& src, std::size_t src_offset, Buffer& dst, std::size_t dst_offset,
                      std::size_t bytes) = 0;

    /// Throws rill::Error naming the kernel when the device cannot compile it.
    virtual std::unique_ptr<Program> compile(const ir::Kernel& kernel, const Signature& sig) = 0;
    /// May return before the work is done; reading a buffer or finish() waits.
    virtual void dispatch(Program& program, const ir::Kernel& kernel, const Dispatch& d) = 0;
    virtual void finish() = 0;

    /// Shader compilations from source so far (a warm disk cache keeps it at 0).
    virtual std::uint64_t shader_compiles() const { return 0; }

    /// Per-kernel times, when profiling is on (set_profiling or RILL_PROFILE=1);
    /// GPU fills and copies between buffers count as kernels "fill" and "copy".
    virtual void set_profiling(bool on) = 0;
    virtual std::vector<KernelTime> kernel_times() = 0;
    virtual void reset_kernel_times() = 0;
};

/// Accumulates per-kernel times; shared by backends.
class KernelTimes {
public:
    /// One call of `kernel` that took `ms`, from `start` ticks of `ms_per_tick`
    /// on the device's clock. Starts are kept in ms from the first start
    /// seen, so that clocks counting from long ago (NVIDIA's GL timestamps,
    /// about 10^18 ns) keep their precision in a double.
    void add(const std::string& kernel, double ms, std::uint64_t start, double ms_per_tick);
    std::vector<KernelTime> list() const;
    void reset() { times_.clear(); }
    /// "kernel  calls  total ms  mean us" lines, for RILL_PROFILE=1 at exit.
    std::string summary(const std::string& backend) const;

private:
    std::vector<KernelTime> times_;
    std::optional<std::uint64_t> origin_;  // ticks of the first start seen
};

/// True when environment variable `name` is set to something other than
/// empty or 0 (how rill's on/off variables read).
bool env_flag(const char* name);

/// Whether backends honour GroupOptions::quick_build: unless
/// RILL_QUICK_BUILDS is 0 (an A/B knob, docs/TUNING.md).
bool quick_builds();

/// The whole number environment variable `name` holds, from `lo` to `hi`
/// (`what` they count), or `fallback` where it is unset or empty; anything
/// else is a rill::Error that says what to give (the backends' knobs,
/// docs/TUNING.md).
long env_count(const char* name, long lo, long hi, long fallback, const char* what);

/// True when RILL_PROFILE is set to something other than 0.
bool profiling_from_env();

/// How a backend makes itself known. `priority` orders "best available".
struct BackendFactory {
    std::string name;
    int priority = 0;
    std::function<std::unique_ptr<Backend>()> create;  // throws rill::Error if unusable here
};

bool register_backend(BackendFactory factory);
/// Registered backends, best first.
std::vector<BackendFactory> registered_backends();

}  // namespace rill

#define RILL_CONCAT_INNER(a, b) a##b
#define RILL_CONCAT(a, b) RILL_CONCAT_INNER(a, b)
/// In a backend's .cpp: RILL_REGISTER_BACKEND("cpu", 0, [] { return std::make_unique<CpuBackend>(); });
#define RILL_REGISTER_BACKEND(name, priority, ...)                                   \
    [[maybe_unused]] static const bool RILL_CONCAT(rill_backend_registered_, __LINE__) = \
        ::rill::register_backend(::rill::BackendFactory{name, priority, __VA_ARGS__})
