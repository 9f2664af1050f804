// The CPU backend: host buffers, "compilation" into an executor plan, and
// synchronous dispatch over TBB. It is the reference implementation of the IR.
#include <tbb/info.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>

#include <unistd.h>

#include "cpu_buffer.h"
#include "executor.h"
#include "native.h"
#include "native_executor.h"
#include "program.h"
#include "rill/core/error.h"

namespace rill::cpu {

namespace {

std::uint64_t physical_memory_bytes() {
    return static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE));
}

/// The host pool's bound: an eighth of physical memory, as the OpenGL
/// backend's pool holds an eighth of the device's; none under AddressSanitizer
/// (cpu_buffer.h).
std::shared_ptr<HostPool> host_pool() {
#if defined(__SANITIZE_ADDRESS__)
    return nullptr;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return nullptr;
#endif
#endif
    return std::make_shared<HostPool>(static_cast<std::size_t>(physical_memory_bytes() / 8));
}

int lanes_from_env() {
    // RILL_CPU_LANES: block width of the lane executor (tuning and tests).
    if (const char* v = std::getenv("RILL_CPU_LANES"); v && *v) {
        int n = std::atoi(v);
        if (n < 1 || n > 65536)
            throw Error("RILL_CPU_LANES=" + std::string(v) + " is out of range; use 1 to 65536 (default: 256 to 2048 per kernel)");
        return n;
    }
    return 0;  // per kernel: see CpuProgram
}

int subgroup_size_from_env() {
    // RILL_CPU_SUBGROUP_SIZE: lanes per subgroup in group kernels, so that code is
    // tested with the widths GPUs have (lavapipe 8, NVIDIA 32, AMD 64) and more.
    if (const char* v = std::getenv("RILL_CPU_SUBGROUP_SIZE"); v && *v) {
        const int n = std::atoi(v);
        if (n < 1 || n > 128 || (n & (n - 1)) != 0)
            throw Error("RILL_CPU_SUBGROUP_SIZE=" + std::string(v) + " is not a power of two from 1 to 128");
        return n;
    }
    return 8;
}

std::int64_t streaming_bytes_from_env() {
    // RILL_CPU_STREAMING_BYTES: outputs of at least this many bytes are written
    // with non-temporal stores (as memcpy does for large copies): they would
    // leave the caches anyway, and a store that skips the cache does not read
    // the line first. Default: the last-level cache, counted as 8 to 32 MiB
    // (virtual machines report anything). 0 turns it off.
    if (const char* v = std::getenv("RILL_CPU_STREAMING_BYTES"); v && *v) {
        const long long n = std::atoll(v);
        if (n < 0) throw Error("RILL_CPU_STREAMING_BYTES=" + std::string(v) + " is negative; use a size in bytes, or 0 for never");
        return n == 0 ? std::numeric_limits<std::int64_t>::max() : n;
    }
    const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return std::clamp<std::int64_t>(llc > 0 ? llc : 0, std::int64_t{8} << 20, std::int64_t{32} << 20);
}

class CpuBackend final : public Backend {
public:
    CpuBackend()
        : lanes_(lanes_from_env()),
          subgroup_size_(subgroup_size_from_env()),
          streaming_bytes_(streaming_bytes_from_env()),
          pool_(host_pool()) {
        info_.name = "cpu";
        info_.invocations_in_sequence = true;
        const unsigned threads = static_cast<unsigned>(tbb::info::default_concurrency());
        info_.device = "host CPU, " + std::to_string(threads) + " TBB threads";
        info_.limits.subgroup_size = static_cast<std::uint32_t>(subgroup_size_);
        info_.limits.subgroup_ops = kAllSubgroupOps | kSubgroupMatch;
        info_.limits.min_subgroup_size = 1;  // any power of two up to 128, per kernel
        info_.limits.max_subgroup_size = 128;
        info_.limits.max_workgroup_size = 4096;
        info_.limits.shared_memory_bytes = 1u << 20;
        info_.limits.max_buffer_bytes = ~0ull;
        info_.details.emplace_back("lanes per block", lanes_ > 0 ? std::to_string(lanes_) : "256 to 2048, per kernel");
        info_.details.emplace_back("default subgroup", "RILL_CPU_SUBGROUP_SIZE (8 when unset)");
        info_.details.emplace_back("group kernels", native_mode_ == NativeMode::Off      ? "lane executor (RILL_CPU_COMPILE=off)"
                                                    : native_mode_ == NativeMode::Always ? "compiled C++ (RILL_CPU_COMPILE=always)"
                                                                                         : "compiled C++ once worth it (RILL_CPU_COMPILE=auto)");
    }

    const BackendInfo& info() const override { return info_; }

    std::shared_ptr<Buffer> allocate(std::size_t bytes, BufferContents contents) override {
        // Refuse what cannot fit in physical memory up front: with memory
        // overcommit, calloc would "succeed" and the process die later.
        const std::uint64_t physical = physical_memory_bytes();
        if (bytes > physical)
            throw Error("cpu backend: out of host memory: a stream of " + std::to_string(bytes) +
                        " bytes is more than this machine's " + std::to_string(physical) +
                        " bytes; use smaller streams");
        try {
            return std::make_shared<CpuBuffer>(bytes, contents, pool_);
        } catch (const std::bad_alloc&) {
            throw Error("cpu backend: out of host memory allocating " + std::to_string(bytes) +
                        " bytes for a stream; use smaller streams or free others first");
        }
    }

    void upload(Buffer& dst, std::size_t offset, const void* src, std::size_t bytes) override {
        std::memcpy(static_cast<CpuBuffer&>(dst).bytes_ptr() + offset, src, bytes);
    }
    void download(Buffer& src, std::size_t offset, void* dst, std::size_t bytes) override {
        std::memcpy(dst, static_cast<CpuBuffer&>(src).bytes_ptr() + offset, bytes);
    }
    void copy(Buffer& src, std::size_t src_offset, Buffer& dst, std::size_t dst_offset, std::size_t bytes) override {
        timed("copy", [&] {
            std::memmove(static_cast<CpuBuffer&>(dst).bytes_ptr() + dst_offset,
                         static_cast<CpuBuffer&>(src).bytes_ptr() + src_offset, bytes);
        });
    }

    std::unique_ptr<Program> compile(const ir::Kernel& kernel, const Signature&) override {
        auto p = std::make_unique<CpuProgram>(kernel, lanes_, subgroup_size_, streaming_bytes_);
        if (native_mode_ == NativeMode::Off) return p;
        NativeState& native = p->native();
        native.source = generate_native(p->kernel(), p->subgroup_size(), p->shared_offsets());
        if (!native.source) return p;
        if (native_mode_ == NativeMode::Always) native.fn = load_native(native.source->code, kernel.name);
        else native.fn = find_native(native.source->code);
        return p;
    }
    void dispatch(Program& program, const ir::Kernel& k, const Dispatch& d) override {
        timed(k.name, [&] { run(static_cast<CpuProgram&>(program), d); });
    }
    /// Runs `work`, timed as `name` on the host when profiling.
    template <class Work>
    void timed(const std::string& name, Work work) {
        if (!profiling_) return work();
        const auto t0 = std::chrono::steady_clock::now();
        work();
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t0.time_since_epoch()).count();
        times_.add(name, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
                   static_cast<std::uint64_t>(ns), 1e-6);
    }
    void finish() override {}

    void set_profiling(bool on) override { profiling_ = on; }
    std::vector<KernelTime> kernel_times() override { return times_.list(); }
    void reset_kernel_times() override { times_.reset(); }

    ~CpuBackend() override {
        if (profiling_from_env()) std::fputs(times_.summary("cpu").c_str(), stderr);
    }

private:
    // A group kernel is built once the lane executor has run this many of its
    // invocations, or spent this long on it (RILL_CPU_COMPILE=auto): a build
    // takes about a second, which a few calls on large streams repay, while a
    // kernel called on small streams now and then never pays it. Time counts
    // too because invocations of row tiles (algorithms/detail/rows.h) each
    // loop over hundreds of elements, and within a dispatch: one long dispatch
    // switches to the compiled code midway.
    static constexpr std::int64_t kNativeAfterInvocations = std::int64_t{1} << 20;
    static constexpr std::chrono::milliseconds kNativeAfterTime{250};

    void run(CpuProgram& p, const Dispatch& d) {
        NativeState& native = p.native();
        if (native::WorkgroupFn fn = native.fn.load(std::memory_order_acquire)) return execute_native(p, fn, d);
        if (!native.source || native_mode_ != NativeMode::Auto || native_failed_) return execute(p, d);
        // Checked before every workgroup, so that one long dispatch (a row
        // tile's invocation loops over thousands of elements) hands the rest
        // of its workgroups to compiled code once that is built.
        const auto start = std::chrono::steady_clock::now();
        std::optional<NativeDispatch> compiled;
        std::once_flag compiled_once;
        execute(p, d, [&](std::int64_t group) {
            native::WorkgroupFn fn = native.fn.load(std::memory_order_acquire);
            if (!fn) fn = build_if_worth_it(p, start);
            if (!fn) return false;
            std::call_once(compiled_once, [&] { compiled.emplace(p, d); });
            compiled->run(fn, group);
            return true;
        });
        std::lock_guard lock(native.building);
        native.invocations += d.domain.size();
        native.interpreted += std::chrono::steady_clock::now() - start;
    }

    /// The compiled workgroup once this kernel has run long enough in the lane
    /// executor (counting the dispatch begun at `start`), built by the first
    /// thread to see that; null before, while another thread builds it, or
    /// when building failed.
    native::WorkgroupFn build_if_worth_it(CpuProgram& p, std::chrono::steady_clock::time_point start) {
        NativeState& native = p.native();
        std::unique_lock lock(native.building, std::try_to_lock);
        if (!lock || native.attempted || native_failed_) return native.fn.load(std::memory_order_acquire);
        if (native.invocations < kNativeAfterInvocations &&
            native.interpreted + (std::chrono::steady_clock::now() - start) < kNativeAfterTime)
            return nullptr;
        native.attempted = true;
        try {
            native.fn = load_native(native.source->code, p.kernel().name);
        } catch (const Error& e) {
            // One warning, and no more builds: the next would most likely fail alike.
            native_failed_ = true;
            std::fprintf(stderr, "rill: %s\nrill: group kernels keep running in the lane executor.\n", e.what());
        }
        return native.fn.load(std::memory_order_acquire);
    }

    BackendInfo info_;
    NativeMode native_mode_ = native_mode_from_env();
    std::atomic<bool> native_failed_{false};
    int lanes_;
    int subgroup_size_;
    std::int64_t streaming_bytes_;
    std::shared_ptr<HostPool> pool_;  // released stream memory (cpu_buffer.h); null: none
    bool profiling_ = profiling_from_env();
    KernelTimes times_;
};

}  // namespace

RILL_REGISTER_BACKEND("cpu", 0, [] { return std::make_unique<CpuBackend>(); });

}  // namespace rill::cpu
