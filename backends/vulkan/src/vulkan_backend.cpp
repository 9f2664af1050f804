// The Vulkan backend. Kernel calls, uploads and copies are recorded into
// command buffers, each submitted without waiting once it holds enough work or
// a per-batch resource runs out; the host waits only when it needs a result
// (download, finish). A barrier is recorded
// only before a command that touches a buffer written since the last barrier
// (or writes one read since then). Streams live in device-local memory;
// transfers go through host-visible staging buffers.
#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_set>

#include <unistd.h>

#include "compile.h"
#include "context.h"
#include "rill/core/buffer_pool.h"
#include "rill/core/host_times.h"
#include "rill/core/disk_cache.h"
#include "spirv_tools.h"
#include "rill/backends/glsl/codegen.h"
#include "rill/backends/glsl/info_layout.h"
#include "rill/core/error.h"
#include "rill/core/launch.h"

namespace rill::vk {

namespace {

constexpr VkDeviceSize kInfoRingBytes = 4u << 20;
constexpr std::uint32_t kSetsPerPool = 1024;
constexpr std::uint32_t kTimedPerBatch = 1024;  // dispatches with timestamps per submission
// Submissions in flight at once, and dispatches per submission: a long chain
// of calls reaches the GPU in pieces, so that it runs one piece while the host
// records the next instead of waiting for the whole chain to be recorded.
constexpr std::size_t kBatchesInFlight = 3;
constexpr std::uint32_t kDispatchesPerSubmit = 64;

/// A host-visible buffer, persistently mapped.
struct HostBuffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void* mapped = nullptr;
    VkDeviceSize size = 0, used = 0;
};

/// What one submission owns: its command buffer and fence, and the per-batch
/// resources its commands point into (info words, staging, descriptor sets,
/// timestamp queries). A batch is reused only after its fence has signalled.
struct Batch {
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkDescriptorPool descriptors = VK_NULL_HANDLE;
    VkQueryPool queries = VK_NULL_HANDLE;
    HostBuffer info;
    std::vector<HostBuffer> staging;
    std::vector<std::string> timed;  // kernel of each timestamp pair
    std::uint32_t sets = 0;
    std::uint32_t dispatches = 0;
    std::uint64_t serial = 0;        // submission number while in flight
    bool in_flight = false;
};

/// The kinds of host work RILL_VK_HOST_TIMES counts (HostTimes). They nest: a
/// download's time holds the wait for its batch, which the waits count too, and
/// a stream allocation's holds any vkAllocateMemory it made.
struct HostTime {
    enum { StreamAllocate, DriverAllocate, DriverFree, Upload, Download, Dispatch, Submit, Wait, Compile };
};

class Device {
public:
    Context ctx;
    HostTimes host_times{"RILL_VK_HOST_TIMES",
                         "rill vulkan host times (RILL_VK_HOST_TIMES), since the device was made",
                         {"stream allocations (pooled or new)", "vkAllocateMemory", "vkFreeMemory", "uploads (recorded)",
                          "downloads (waited for)", "dispatches (recorded)", "vkQueueSubmit", "waits for a batch", "kernel builds"}};

    Device() {
        VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        pi.queueFamilyIndex = ctx.queue_family;
        check(vkCreateCommandPool(ctx.device, &pi, nullptr, &pool_), "vkCreateCommandPool");
        open_pipeline_cache();
    }

    ~Device() {
        try {
            finish();
        } catch (...) {
            // Destruction cannot report; the device is torn down regardless.
        }
        release_done(true);  // finish() waited for this runtime's work; the device is shared
        drain_pool();
        for (Batch& b : batches_) {
            if (!b.cmd) continue;
            destroy_host(b.info);
            for (auto& s : b.staging) destroy_host(s);
            vkDestroyDescriptorPool(ctx.device, b.descriptors, nullptr);
            vkDestroyQueryPool(ctx.device, b.queries, nullptr);
            vkDestroyFence(ctx.device, b.fence, nullptr);
        }
        destroy_host(readback_);
        save_pipeline_cache();
        vkDestroyPipelineCache(ctx.device, pipeline_cache, nullptr);
        vkDestroyCommandPool(ctx.device, pool_, nullptr);
    }

    std::mutex mutex;
    VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
    std::uint64_t shader_compiles = 0;

    /// Identity of the device and driver: part of every disk-cache key.
    std::uint64_t device_key() const {
        const auto& p = ctx.properties;
        std::uint64_t h = disk_cache::hash_bytes(p.pipelineCacheUUID, VK_UUID_SIZE);
        h = disk_cache::hash_bytes(&p.vendorID, sizeof p.vendorID, h);
        h = disk_cache::hash_bytes(&p.deviceID, sizeof p.deviceID, h);
        return disk_cache::hash_bytes(&p.driverVersion, sizeof p.driverVersion, h);
    }

    // --- memory ----------------------------------------------------------------

    /// Buffers of at least this many bytes get a dedicated allocation (create_buffer).
    static constexpr VkDeviceSize kDedicatedBytes = VkDeviceSize{1} << 26;

    void create_buffer(VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags want, VkMemoryPropertyFlags fallback,
                       VkBuffer& buf, VkDeviceMemory& mem) {
        VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bi.size = size;
        bi.usage = usage;
        bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        check(vkCreateBuffer(ctx.device, &bi, nullptr, &buf), "vkCreateBuffer");
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(ctx.device, buf, &req);
        int type = ctx.memory_type(req.memoryTypeBits, want);
        if (type < 0) type = ctx.memory_type(req.memoryTypeBits, fallback);
        if (type < 0) {
            vkDestroyBuffer(ctx.device, buf, nullptr);
            throw Error("vulkan backend: the device has no suitable memory type for a buffer");
        }
        VkMemoryAllocateInfo mi{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        mi.allocationSize = req.size;
        mi.memoryTypeIndex = static_cast<std::uint32_t>(type);
        // A large buffer gets memory of its own (Vulkan 1.1's dedicated allocation). On the H100
        // (docs/PERFORMANCE.md#scan) a 2^28 radix sort of pairs whose scratch streams
        // were allocated after others ran 10.18-10.43 ms in shared allocations, 9.82-9.87 in
        // dedicated ones (made first: 9.84-9.93 either way).
        VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
        dedicated.buffer = buf;
        if (size >= kDedicatedBytes) mi.pNext = &dedicated;
        VkResult r;
        {
            const HostTimes::Scope timed(host_times, HostTime::DriverAllocate);
            r = vkAllocateMemory(ctx.device, &mi, nullptr, &mem);
        }
        if (r != VK_SUCCESS) {
            vkDestroyBuffer(ctx.device, buf, nullptr);
            check(r, "vkAllocateMemory (a stream buffer)");
        }
        check(vkBindBufferMemory(ctx.device, buf, mem, 0), "vkBindBufferMemory");
    }

    /// A mapped buffer the host writes or reads. `gpu_reads`: the GPU reads it
    /// in every dispatch (the info words), so it goes in device memory the host
    /// can map where there is such memory (a read over PCIe from host memory
    /// costs each dependent dispatch about a microsecond more); transfers stay
    /// in cached host memory.
    HostBuffer host_buffer(VkDeviceSize size, VkBufferUsageFlags usage, bool gpu_reads = false) {
        HostBuffer h;
        h.size = size;
        const VkMemoryPropertyFlags hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        bool placed = false;
        if (gpu_reads) {
            try {
                create_buffer(size, usage, hv | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, hv, h.buffer, h.memory);
                placed = true;
            } catch (const Error&) {
                // The mappable part of device memory (a 256 MiB BAR) may be full.
            }
        }
        if (!placed) create_buffer(size, usage, hv | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, hv, h.buffer, h.memory);
        check(vkMapMemory(ctx.device, h.memory, 0, VK_WHOLE_SIZE, 0, &h.mapped), "vkMapMemory");
        return h;
    }

    void destroy_host(HostBuffer& h) {
        if (!h.buffer) return;
        vkDestroyBuffer(ctx.device, h.buffer, nullptr);
        vkFreeMemory(ctx.device, h.memory, nullptr);
        h = HostBuffer{};
    }

    /// A stream buffer with its memory, of `capacity` bytes (a size class).
    struct Pooled {
        VkBuffer buffer = VK_NULL_HANDLE;
        VkDeviceMemory memory = VK_NULL_HANDLE;
        VkDeviceSize capacity = 0;
    };

    /// A stream buffer of at least `bytes`: one released earlier when there is
    /// one of that size class, else a new one. Call with `mutex` held.
    Pooled acquire(VkDeviceSize bytes) {
        const VkDeviceSize capacity = pool_size_class(bytes);
        if (auto p = buffers_.take(capacity)) return *p;
        Pooled p{VK_NULL_HANDLE, VK_NULL_HANDLE, capacity};
        const VkBufferUsageFlags usage =
            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        try {
            create_buffer(capacity, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, p.buffer, p.memory);
        } catch (const Error&) {
            if (buffers_.empty()) throw;
            drain_pool();  // the memory may be held by released buffers of other sizes
            create_buffer(capacity, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, p.buffer, p.memory);
        }
        return p;
    }

    /// Gives a stream buffer back once no recorded or submitted command can
    /// still use it: after the submission that the batch being recorded will
    /// become. It then goes to the pool or, past the pool's bound, back to the
    /// driver. Why a pool (H100): with an algorithm's scratch
    /// streams made anew in each call, a 2^24 scan took 0.90 ms of host time
    /// per call instead of 0.17, and the kernels of a radix sort ran 2.2x
    /// slower on memory fresh from vkAllocateMemory (the cause is inside the
    /// driver; reusing the memory is what measurably helps).
    void release(const Pooled& p) {
        std::lock_guard lock(mutex);
        pending_release_.push_back({p, submitted_ + (recording_ ? 1 : 0)});
        release_done(false);
    }

    // --- recording -------------------------------------------------------------

    /// The batch being recorded; its resources are made on first use, so a
    /// runtime that never has more than one batch of work in flight makes one.
    Batch& batch() {
        Batch& b = batches_[current_];
        if (!b.cmd) create(b);
        return b;
    }

    void create(Batch& b) {
        VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = pool_;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        check(vkAllocateCommandBuffers(ctx.device, &ai, &b.cmd), "vkAllocateCommandBuffers");
        VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        check(vkCreateFence(ctx.device, &fi, nullptr, &b.fence), "vkCreateFence");
        VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * 16};
        VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        dpi.maxSets = kSetsPerPool;
        dpi.poolSizeCount = 1;
        dpi.pPoolSizes = &ps;
        check(vkCreateDescriptorPool(ctx.device, &dpi, nullptr, &b.descriptors), "vkCreateDescriptorPool");
        b.info = host_buffer(kInfoRingBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true);
        VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = 2 * kTimedPerBatch;
        check(vkCreateQueryPool(ctx.device, &qi, nullptr, &b.queries), "vkCreateQueryPool");
    }

    VkCommandBuffer cmd() {
        Batch& b = batch();
        if (!recording_) {
            VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
            bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
            check(vkBeginCommandBuffer(b.cmd, &bi), "vkBeginCommandBuffer");
            recording_ = true;
            if (profiling) vkCmdResetQueryPool(b.cmd, b.queries, 0, 2 * kTimedPerBatch);
        }
        return b.cmd;
    }

    // --- profiling ---------------------------------------------------------------

    bool profiling = profiling_from_env();
    KernelTimes times;

    /// Makes room in this batch for one dispatch with `info_words` info words
    /// (submitting the batch first if any per-batch resource is short), so that
    /// nothing allocated for the dispatch belongs to another batch.
    void reserve(std::size_t info_words) {
        const VkDeviceSize bytes = ((info_words * 4) + 63) & ~VkDeviceSize{63};
        if (bytes > kInfoRingBytes) throw Error("vulkan backend: a kernel has too many parameters for the info buffer");
        const Batch& b = batch();
        if (b.info.used + bytes > b.info.size || b.sets == kSetsPerPool || (profiling && b.timed.size() == kTimedPerBatch))
            flush();
    }

    /// Counts a recorded dispatch; a batch that has enough work goes to the
    /// GPU now, so that the GPU runs it while the host records the next one.
    /// The first batch after a wait goes sooner (first_submit dispatches):
    /// the GPU is idle then, and a short chain of calls after a read-back
    /// (a subdivision's levels, a BVH build's rounds) would otherwise reach
    /// it only once all of it is recorded.
    void dispatched() {
        if (++batch().dispatches >= submit_at_) {
            flush();
            submit_at_ = kDispatchesPerSubmit;
        }
    }
    /// Dispatches in the first batch after a wait: RILL_VK_FIRST_SUBMIT
    /// (1 to 64; 64: every batch alike), else 8 on GPUs and 64 on lavapipe,
    /// where a submission costs 30 us of the host's time (docs/TUNING.md).
    const std::uint32_t first_submit = static_cast<std::uint32_t>(
        env_count("RILL_VK_FIRST_SUBMIT", 1, kDispatchesPerSubmit, ctx.llvmpipe ? kDispatchesPerSubmit : 8, "dispatches"));
    std::uint32_t submit_at_ = first_submit;

    /// Brackets the next recorded command with timestamps (when profiling): a
    /// dispatch, or a transfer on the GPU (`stage`), timed as `kernel`, so that
    /// the fill or copy an algorithm causes counts as its device time too.
    void begin_timing(const std::string& kernel, VkPipelineStageFlagBits stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) {
        if (!profiling) return;
        VkCommandBuffer c = cmd();
        Batch& b = batch();
        b.timed.push_back(kernel);
        vkCmdWriteTimestamp(c, stage, b.queries, 2 * static_cast<std::uint32_t>(b.timed.size() - 1));
    }
    void end_timing(VkPipelineStageFlagBits stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) {
        if (!profiling) return;
        Batch& b = batch();
        vkCmdWriteTimestamp(cmd(), stage, b.queries, 2 * static_cast<std::uint32_t>(b.timed.size() - 1) + 1);
    }
    /// Records a transfer on the GPU (`record(cmd)`: a fill or a copy) that
    /// reads `reads` and writes `writes`, behind the barrier it needs and
    /// timed as `name`; the batch is submitted first if its timestamps are used up.
    template <class Record>
    void transfer(const std::string& name, std::initializer_list<VkBuffer> reads, std::initializer_list<VkBuffer> writes,
                  Record record) {
        if (profiling && batch().timed.size() == kTimedPerBatch) flush();
        hazard(reads, writes);
        begin_timing(name, VK_PIPELINE_STAGE_TRANSFER_BIT);
        record(cmd());
        end_timing(VK_PIPELINE_STAGE_TRANSFER_BIT);
    }

    /// Records a barrier if the command about to be recorded (a transfer, or a
    /// dispatch when `compute`) reads `reads` or writes `writes` in a way that
    /// conflicts with what ran since the last barrier. The barrier waits only
    /// for the stages used since then (a chain of dispatches waits for compute
    /// alone) and makes their writes visible to every later command. A barrier
    /// orders everything earlier in submission order, earlier submissions
    /// included, so the tracking carries over a non-waiting submit.
    void hazard(std::initializer_list<VkBuffer> reads, std::initializer_list<VkBuffer> writes, bool compute = false) {
        hazard(std::vector<VkBuffer>(reads), std::vector<VkBuffer>(writes), compute);
    }
    void hazard(const std::vector<VkBuffer>& reads, const std::vector<VkBuffer>& writes, bool compute) {
        bool need = false;
        for (VkBuffer b : reads) need = need || written_.count(b);
        for (VkBuffer b : writes) need = need || touched_.count(b);
        if (need) {
            const VkPipelineStageFlags all = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
            VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
            if (since_barrier_ & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) mb.srcAccessMask |= VK_ACCESS_SHADER_WRITE_BIT;
            if (since_barrier_ & VK_PIPELINE_STAGE_TRANSFER_BIT) mb.srcAccessMask |= VK_ACCESS_TRANSFER_WRITE_BIT;
            mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                               VK_ACCESS_TRANSFER_WRITE_BIT;
            // A conflict means some command ran since the last barrier, so
            // since_barrier_ is never empty here.
            vkCmdPipelineBarrier(cmd(), since_barrier_, all, 0, 1, &mb, 0, nullptr, 0, nullptr);
            written_.clear();
            touched_.clear();
            since_barrier_ = 0;
            ++barriers;
        }
        since_barrier_ |= compute ? VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT : VK_PIPELINE_STAGE_TRANSFER_BIT;
        for (VkBuffer b : reads) touched_.insert(b);
        for (VkBuffer b : writes) {
            touched_.insert(b);
            written_.insert(b);
        }
    }

    /// Staging space for an upload recorded in this batch.
    std::pair<VkBuffer, VkDeviceSize> stage(const void* src, VkDeviceSize bytes) {
        // Pieces start 16-byte aligned; a piece is rounded up to 16 bytes, and
        // buffers are made in multiples of 16 so that `used` never passes `size`
        // (it did once, and the next piece was copied past the mapping).
        const VkDeviceSize rounded = (bytes + 15) & ~VkDeviceSize{15};
        for (auto& s : batch().staging) {
            if (s.used <= s.size && s.size - s.used >= rounded) {
                const VkDeviceSize at = s.used;
                std::memcpy(static_cast<char*>(s.mapped) + at, src, bytes);
                s.used += rounded;
                return {s.buffer, at};
            }
        }
        if (recording_ && !batch().staging.empty()) {
            // Full: hand this batch to the GPU and continue in the next one.
            flush();
            return stage(src, bytes);
        }
        batch().staging.push_back(host_buffer(std::max<VkDeviceSize>(rounded, 16u << 20), VK_BUFFER_USAGE_TRANSFER_SRC_BIT));
        return stage(src, bytes);
    }

    /// Space for `words` info words in this batch (reserved); returns the word offset.
    std::uint32_t info(const std::vector<std::uint32_t>& words) {
        HostBuffer& info = batch().info;
        const VkDeviceSize bytes = ((words.size() * 4) + 63) & ~VkDeviceSize{63};
        RILL_ASSERT(info.used + bytes <= info.size, "info buffer used without reserve()");
        const VkDeviceSize at = info.used;
        std::memcpy(static_cast<char*>(info.mapped) + at, words.data(), words.size() * 4);
        info.used += bytes;
        return static_cast<std::uint32_t>(at / 4);
    }
    VkBuffer info_buffer() { return batch().info.buffer; }

    VkDescriptorSet descriptor_set(VkDescriptorSetLayout layout) {
        Batch& b = batch();
        VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        ai.descriptorPool = b.descriptors;
        ai.descriptorSetCount = 1;
        ai.pSetLayouts = &layout;
        VkDescriptorSet set = VK_NULL_HANDLE;
        RILL_ASSERT(b.sets < kSetsPerPool, "descriptor pool used without reserve()");
        check(vkAllocateDescriptorSets(ctx.device, &ai, &set), "vkAllocateDescriptorSets");
        ++b.sets;
        return set;
    }

    /// Copies `bytes` from device buffer `src` at `offset` to host memory.
    void read(VkBuffer src, VkDeviceSize offset, void* dst, VkDeviceSize bytes) {
        if (readback_.size < bytes) {
            submit_and_wait();  // the old readback buffer may be in a recorded copy
            destroy_host(readback_);
            readback_ = host_buffer(std::max<VkDeviceSize>(bytes, 1u << 20), VK_BUFFER_USAGE_TRANSFER_DST_BIT);
        }
        hazard({src}, {readback_.buffer});
        VkBufferCopy region{offset, 0, bytes};
        vkCmdCopyBuffer(cmd(), src, readback_.buffer, 1, &region);
        submit_and_wait();
        std::memcpy(dst, readback_.mapped, bytes);
    }

    void finish() {
        submit_and_wait();
        check_validation();
    }

    void check_validation() {
        auto msgs = ctx.take_messages();
        if (msgs.empty()) return;
        std::string all;
        for (const auto& m : msgs) all += "\n  " + m;
        throw Error("vulkan backend: the Khronos validation layer reported " + std::to_string(msgs.size()) +
                    " message(s):" + all);
    }

    std::uint64_t submits = 0, barriers = 0;

private:
    std::string pipeline_cache_name() const {
        char name[64];
        std::snprintf(name, sizeof name, "vulkan-pipelines-%016llx.bin", static_cast<unsigned long long>(device_key()));
        return name;
    }

    // The driver's own pipeline cache, persisted: the SPIR-V cache skips
    // shaderc, this one skips the driver's compile of SPIR-V to machine code.
    void open_pipeline_cache() {
        VkPipelineCacheCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
        auto data = disk_cache::load(pipeline_cache_name(), device_key());
        if (data) {
            ci.initialDataSize = data->size();
            ci.pInitialData = data->data();
        }
        if (vkCreatePipelineCache(ctx.device, &ci, nullptr, &pipeline_cache) != VK_SUCCESS) {
            ci.initialDataSize = 0;  // a driver that rejects the stored data starts empty
            ci.pInitialData = nullptr;
            check(vkCreatePipelineCache(ctx.device, &ci, nullptr, &pipeline_cache), "vkCreatePipelineCache");
        }
    }

    void save_pipeline_cache() {
        std::size_t size = 0;
        if (vkGetPipelineCacheData(ctx.device, pipeline_cache, &size, nullptr) != VK_SUCCESS || size == 0) return;
        std::vector<std::uint8_t> data(size);
        if (vkGetPipelineCacheData(ctx.device, pipeline_cache, &size, data.data()) != VK_SUCCESS) return;
        data.resize(size);
        disk_cache::store(pipeline_cache_name(), device_key(), data);
    }

    /// Submits the batch being recorded without waiting for it, and makes the
    /// next batch of the ring current (waiting for it first if it is still
    /// running).
    void flush() {
        if (!submit()) return;
        current_ = (current_ + 1) % batches_.size();
        retire(batch());
    }

    /// Submits the batch being recorded; false when nothing was recorded.
    bool submit() {
        if (!recording_) return false;
        Batch& b = batch();
        check(vkEndCommandBuffer(b.cmd), "vkEndCommandBuffer");
        recording_ = false;
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &b.cmd;
        {
            std::lock_guard queue_lock(*ctx.queue_mutex);
            const HostTimes::Scope timed(host_times, HostTime::Submit);
            check(vkQueueSubmit(ctx.queue, 1, &si, b.fence), "vkQueueSubmit");
        }
        b.in_flight = true;
        b.serial = ++submitted_;
        ++submits;
        return true;
    }

    /// How long a wait for the GPU polls its fence before it blocks in the
    /// driver: on an H100 a wait that blocked in NVIDIA's driver returned
    /// about 30-80 us later than polling, paid at every read-back of calls
    /// that read counts between short dispatches (a BVH build, a growth,
    /// subdivision levels: docs/PERFORMANCE.md#dispatch-and-compile-cost);
    /// CUDA's default waits spin likewise. None on lavapipe, whose own
    /// threads need the cores. RILL_VK_FENCE_SPIN_US sets it (docs/TUNING.md).
    const std::chrono::microseconds fence_spin{env_count("RILL_VK_FENCE_SPIN_US", 0, 1000000, ctx.llvmpipe ? 0 : 2000, "microseconds")};
    /// Polls `fence` until it is signalled or fence_spin has passed.
    void spin_on(VkFence fence) const {
        if (fence_spin.count() == 0) return;
        const auto start = std::chrono::steady_clock::now();
        while (vkGetFenceStatus(ctx.device, fence) == VK_NOT_READY && std::chrono::steady_clock::now() - start < fence_spin) {
        }
    }

    /// Waits for batch `b` if it is in flight, then collects its timestamps
    /// and makes all its resources free for reuse.
    void retire(Batch& b) {
        if (!b.cmd || !b.in_flight) return;
        {
            const HostTimes::Scope timed(host_times, HostTime::Wait);
            spin_on(b.fence);
            check(vkWaitForFences(ctx.device, 1, &b.fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
        }
        check(vkResetFences(ctx.device, 1, &b.fence), "vkResetFences");
        b.in_flight = false;
        completed_ = std::max(completed_, b.serial);
        if (!b.timed.empty()) {
            std::vector<std::uint64_t> stamps(2 * b.timed.size());
            check(vkGetQueryPoolResults(ctx.device, b.queries, 0, static_cast<std::uint32_t>(stamps.size()),
                                        stamps.size() * 8, stamps.data(), 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                  "vkGetQueryPoolResults");
            const double ms_per_tick = ctx.properties.limits.timestampPeriod * 1e-6;
            for (std::size_t i = 0; i < b.timed.size(); ++i)
                times.add(b.timed[i], double(stamps[2 * i + 1] - stamps[2 * i]) * ms_per_tick, stamps[2 * i], ms_per_tick);
            b.timed.clear();
        }
        check(vkResetCommandBuffer(b.cmd, 0), "vkResetCommandBuffer");
        check(vkResetDescriptorPool(ctx.device, b.descriptors, 0), "vkResetDescriptorPool");
        b.sets = 0;
        b.dispatches = 0;
        b.info.used = 0;
        for (auto& s : b.staging) s.used = 0;
        release_done(false);
    }

    /// Submits what is recorded and waits for every batch in flight.
    void submit_and_wait() {
        submit();  // the same batch is recorded next: all are idle after this
        for (Batch& b : batches_) retire(b);
        submit_at_ = first_submit;  // the GPU is idle
        // Everything has run: no later command needs a barrier against it.
        written_.clear();
        touched_.clear();
        since_barrier_ = 0;
        release_done(false);
    }

    /// Pools (or frees, when `all`) the released buffers that no batch in
    /// flight or being recorded can use any more.
    void release_done(bool all) {
        std::erase_if(pending_release_, [&](const PendingRelease& r) {
            if (!all && r.after > completed_) return false;
            if (all) destroy(r.buffer);
            else buffers_.give(r.buffer, r.buffer.capacity, [&](const Pooled& p) { destroy(p); });
            return true;
        });
    }

    void destroy(const Pooled& p) {
        const HostTimes::Scope timed(host_times, HostTime::DriverFree);
        vkDestroyBuffer(ctx.device, p.buffer, nullptr);
        vkFreeMemory(ctx.device, p.memory, nullptr);
    }

    void drain_pool() {
        buffers_.drain([&](const Pooled& p) { destroy(p); });
    }

    /// Released memory kept for reuse: an eighth of the largest device-local
    /// heap, at most 4 GiB; 256 MiB on lavapipe, whose heap is the host's memory.
    VkDeviceSize pool_limit() const {
        if (ctx.llvmpipe) return VkDeviceSize{256} << 20;
        VkDeviceSize heap = 0;
        for (std::uint32_t i = 0; i < ctx.memory.memoryHeapCount; ++i)
            if (ctx.memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
                heap = std::max(heap, ctx.memory.memoryHeaps[i].size);
        return std::min<VkDeviceSize>(heap / 8, VkDeviceSize{4} << 30);
    }

    struct PendingRelease {
        Pooled buffer;
        std::uint64_t after;  // reusable once this submission has completed
    };
    BufferPool<Pooled> buffers_{pool_limit()};  // released stream buffers for reuse

    VkCommandPool pool_ = VK_NULL_HANDLE;
    std::array<Batch, kBatchesInFlight> batches_;
    std::size_t current_ = 0;
    std::uint64_t submitted_ = 0, completed_ = 0;
    HostBuffer readback_;
    bool recording_ = false;
    std::unordered_set<VkBuffer> written_, touched_;
    VkPipelineStageFlags since_barrier_ = 0;  // stages of the commands since the last barrier
    std::vector<PendingRelease> pending_release_;
};

class VkStreamBuffer final : public Buffer {
public:
    /// Call with the device's mutex held.
    VkStreamBuffer(std::shared_ptr<Device> dev, std::size_t nbytes) : dev_(std::move(dev)), pooled_(dev_->acquire(nbytes)) {
        bytes = nbytes;
    }
    ~VkStreamBuffer() override { dev_->release(pooled_); }
    VkBuffer buffer() const { return pooled_.buffer; }

private:
    std::shared_ptr<Device> dev_;
    Device::Pooled pooled_;
};

class VkProgram final : public Program {
public:
    VkProgram(std::shared_ptr<Device> dev, const ir::Kernel& k, const Signature& sig) : dev_(std::move(dev)) {
        auto since = std::chrono::steady_clock::now();
        glsl::ShaderOptions options{glsl::Dialect::Vulkan, glsl::kWorkgroupSize,
                                    dev_->ctx.native_subgroups,
                                    dev_->ctx.float_atomic_add ? "GL_EXT_shader_atomic_float" : "",
                                    dev_->ctx.llvmpipe, dev_->ctx.subgroup_partitioned,
                                    /*reorderable_loads=*/true, /*uint_bit_queries_as_int=*/false,
                                    /*min_max_as_selects=*/false, /*opaque_operands=*/dev_->ctx.llvmpipe ? glsl::OpaqueOperands::Min
                                                                                          : glsl::OpaqueOperands::None};
        options.subgroup_uniform_control_flow = dev_->ctx.subgroup_uniform_control_flow;
        const bool optimize = spirv_optimized(k.spirv_opt, dev_->ctx.driver_optimizes_spirv);
        // A kernel this build compiled before, found by its IR: no GLSL to
        // generate, hash and look up (0.6 of a warm FFT kernel's 1.1 ms on an
        // H100's host). Not where the GLSL itself goes to the driver or is dumped.
        glsl::CompiledKey ir = glsl::compiled_key(k, sig, options);
        const bool by_ir = ir.key != 0 && !dev_->ctx.glsl_modules && !dev_->ctx.pipeline_stats && !std::getenv("RILL_DUMP");
        char ir_name[48] = {};
        std::uint64_t ir_key = 0;
        std::vector<std::uint32_t> spirv;
        if (by_ir) {
            const std::uint64_t parts[] = {dev_->device_key(), optimize};
            ir_key = disk_cache::hash_bytes(parts, sizeof parts, ir.key);
            std::snprintf(ir_name, sizeof ir_name, "vulkan-ir-%016llx.bin",
                          static_cast<unsigned long long>(disk_cache::hash_bytes(parts, sizeof parts, ir.slot)));
            spirv = compiled_by_ir(ir_name, ir_key);
            if (!spirv.empty()) phase_done("SPIR-V by the kernel's IR from the disk cache", since);
        }
        if (spirv.empty()) {
            shader = glsl::generate(k, sig, options);
            phase_done("GLSL", since);
            bool from_disk = false;
            spirv = spirv_for(k.name, shader.source, optimize, from_disk, [&](const std::vector<std::uint32_t>& m) {
                check_interface(k.name, m, shader.info_binding + 1, 4);
            });
            phase_done(from_disk ? "SPIR-V from the disk cache" : optimize ? "SPIR-V with spirv-opt" : "SPIR-V", since);
            if (by_ir) store_by_ir(ir_name, ir_key, spirv);
        }
        if (std::getenv("RILL_DUMP")) detail::dump_file(shader.dump_name + ".spvasm", disassemble(spirv));
        VkDevice d = dev_->ctx.device;
        VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        mi.codeSize = spirv.size() * 4;
        mi.pCode = spirv.data();
        std::string glsl_text;  // VK_NV_glsl_shader: the text, padded to whole words
        if (dev_->ctx.glsl_modules) {
            glsl_text = shader.source;
            glsl_text.resize((glsl_text.size() + 4) & ~std::size_t{3}, '\0');
            mi.codeSize = glsl_text.size();
            mi.pCode = reinterpret_cast<const std::uint32_t*>(glsl_text.data());
        }
        check(vkCreateShaderModule(d, &mi, nullptr, &module), "vkCreateShaderModule");
        const std::uint32_t n = shader.info_binding + 1;
        std::vector<VkDescriptorSetLayoutBinding> bindings(n);
        for (std::uint32_t i = 0; i < n; ++i) {
            bindings[i].binding = i;
            bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            bindings[i].descriptorCount = 1;
            bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
        }
        VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        if (dev_->ctx.push_descriptor_set) li.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
        li.bindingCount = n;
        li.pBindings = bindings.data();
        check(vkCreateDescriptorSetLayout(d, &li, nullptr, &set_layout), "vkCreateDescriptorSetLayout");
        VkPushConstantRange pr{VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
        VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
        pli.setLayoutCount = 1;
        pli.pSetLayouts = &set_layout;
        pli.pushConstantRangeCount = 1;
        pli.pPushConstantRanges = &pr;
        check(vkCreatePipelineLayout(d, &pli, nullptr, &layout), "vkCreatePipelineLayout");
        VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        ci.stage = VkPipelineShaderStageCreateInfo{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
        ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        ci.stage.module = module;
        ci.stage.pName = "main";
        VkPipelineShaderStageRequiredSubgroupSizeCreateInfoEXT required{
            VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO_EXT};
        if (k.subgroup_size && dev_->ctx.subgroup_size_control) {
            // The launch checked the size against the device's range.
            required.requiredSubgroupSize = k.subgroup_size;
            ci.stage.pNext = &required;
            ci.stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT_EXT;
        }
        ci.layout = layout;
        VkPipelineRobustnessCreateInfoEXT unchecked{VK_STRUCTURE_TYPE_PIPELINE_ROBUSTNESS_CREATE_INFO_EXT};
        if (dev_->ctx.unchecked_buffers) {
            unchecked.storageBuffers = VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DISABLED_EXT;
            unchecked.uniformBuffers = VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DISABLED_EXT;
            unchecked.vertexInputs = VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DEVICE_DEFAULT_EXT;
            unchecked.images = VK_PIPELINE_ROBUSTNESS_IMAGE_BEHAVIOR_DEVICE_DEFAULT_EXT;
            ci.pNext = &unchecked;
        }
        if (k.quick_build && quick_builds()) ci.flags |= VK_PIPELINE_CREATE_DISABLE_OPTIMIZATION_BIT;
        if (dev_->ctx.pipeline_stats)
            ci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR | VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
        const char* dump = dev_->ctx.pipeline_stats ? std::getenv("RILL_VK_PIPELINE_DUMP") : nullptr;
        static std::atomic<int> dumped{0};
        // A pipeline cache of this pipeline alone: its data is the driver's machine code, for offline disassembly.
        VkPipelineCache own_cache = VK_NULL_HANDLE;
        if (dump) {
            std::error_code made;  // an existing folder is fine; a write that fails says so (write_file)
            std::filesystem::create_directories(dump, made);
            VkPipelineCacheCreateInfo pci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
            check(vkCreatePipelineCache(d, &pci, nullptr, &own_cache), "vkCreatePipelineCache");
        }
        check(vkCreateComputePipelines(d, dump ? own_cache : dev_->pipeline_cache, 1, &ci, nullptr, &pipeline),
              "vkCreateComputePipelines");
        phase_done("pipeline", since);
        if (dev_->ctx.pipeline_stats) print_pipeline_statistics(k.name);
        if (dump) {
            dump_pipeline(std::string(dump) + "/" + k.name.substr(0, k.name.find('(')) + "-" + std::to_string(getpid()) + "-" +
                              std::to_string(dumped++),
                          own_cache);
            vkDestroyPipelineCache(d, own_cache, nullptr);
        }
    }

    static void write_file(const std::string& path, const void* data, std::size_t size) {
        if (FILE* f = std::fopen(path.c_str(), "wb")) {
            std::fwrite(data, 1, size, f);
            std::fclose(f);
        } else {
            std::fprintf(stderr, "rill vulkan: could not write '%s' (RILL_VK_PIPELINE_DUMP names a folder rill could not make?)\n",
                         path.c_str());
        }
    }

    /// RILL_VK_PIPELINE_DUMP=dir (with RILL_VK_PIPELINE_STATS): the pipeline's
    /// cache data, its GLSL and the driver's internal representations, as files
    /// `base`.cache, `base`.glsl and `base`.ir<i>.
    void dump_pipeline(const std::string& base, VkPipelineCache cache) const {
        VkDevice d = dev_->ctx.device;
        std::size_t size = 0;
        if (vkGetPipelineCacheData(d, cache, &size, nullptr) == VK_SUCCESS && size) {
            std::vector<std::uint8_t> data(size);
            if (vkGetPipelineCacheData(d, cache, &size, data.data()) == VK_SUCCESS) write_file(base + ".cache", data.data(), size);
        }
        write_file(base + ".glsl", shader.source.data(), shader.source.size());
        auto representations = reinterpret_cast<PFN_vkGetPipelineExecutableInternalRepresentationsKHR>(
            vkGetDeviceProcAddr(d, "vkGetPipelineExecutableInternalRepresentationsKHR"));
        if (!representations) return;
        VkPipelineExecutableInfoKHR ei{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
        ei.pipeline = pipeline;
        std::uint32_t count = 0;
        representations(d, &ei, &count, nullptr);
        std::vector<VkPipelineExecutableInternalRepresentationKHR> irs(count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR});
        representations(d, &ei, &count, irs.data());
        std::vector<std::vector<char>> bytes(count);
        for (std::uint32_t i = 0; i < count; ++i) {
            bytes[i].resize(irs[i].dataSize);
            irs[i].pData = bytes[i].data();
        }
        representations(d, &ei, &count, irs.data());
        for (std::uint32_t i = 0; i < count; ++i) {
            std::string name = irs[i].name;
            for (char& c : name)
                if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
            write_file(base + ".ir" + std::to_string(i) + "-" + name, bytes[i].data(), irs[i].dataSize);
        }
        std::fprintf(stderr, "rill vulkan: dumped '%s' (%u internal representations)\n", base.c_str(), count);
    }

    void print_pipeline_statistics(const std::string& kernel) const {
        VkDevice d = dev_->ctx.device;
        auto properties = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
            vkGetDeviceProcAddr(d, "vkGetPipelineExecutablePropertiesKHR"));
        auto statistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
            vkGetDeviceProcAddr(d, "vkGetPipelineExecutableStatisticsKHR"));
        if (!properties || !statistics) {
            std::fprintf(stderr, "rill vulkan: no vkGetPipelineExecutableStatisticsKHR\n");
            return;
        }
        VkPipelineInfoKHR pi{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
        pi.pipeline = pipeline;
        std::uint32_t executables = 0;
        properties(d, &pi, &executables, nullptr);
        if (executables == 0) std::fprintf(stderr, "rill vulkan: '%s': the driver reports no pipeline executables\n", kernel.c_str());
        for (std::uint32_t e = 0; e < executables; ++e) {
            VkPipelineExecutableInfoKHR ei{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
            ei.pipeline = pipeline;
            ei.executableIndex = e;
            std::uint32_t count = 0;
            statistics(d, &ei, &count, nullptr);
            std::vector<VkPipelineExecutableStatisticKHR> stats(count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
            statistics(d, &ei, &count, stats.data());
            std::string line = "rill vulkan: pipeline statistics of '" + kernel + "':";
            for (const auto& st : stats) {
                line += std::string(" ") + st.name + " = ";
                switch (st.format) {
                    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: line += st.value.b32 ? "true" : "false"; break;
                    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: line += std::to_string(st.value.i64); break;
                    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: line += std::to_string(st.value.u64); break;
                    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: line += std::to_string(st.value.f64); break;
                    default: line += "?"; break;
                }
                line += ";";
            }
            std::fprintf(stderr, "%s\n", line.c_str());
        }
    }

    /// The entry of a kernel by its IR: the shader's bindings, then its SPIR-V
    /// (checked before it was stored). Empty where there is none or it does
    /// not parse.
    std::vector<std::uint32_t> compiled_by_ir(const char* name, std::uint64_t key) {
        const auto bytes = disk_cache::load(name, key);
        if (!bytes || bytes->size() % 4 != 0) return {};
        const std::size_t at = glsl::read_bindings(*bytes, shader);
        if (at == 0 || at >= bytes->size()) return {};
        std::vector<std::uint32_t> spirv((bytes->size() - at) / 4);
        std::memcpy(spirv.data(), bytes->data() + at, bytes->size() - at);
        if (spirv[0] != 0x07230203u) return {};  // the SPIR-V magic number
        return spirv;
    }
    void store_by_ir(const char* name, std::uint64_t key, const std::vector<std::uint32_t>& spirv) const {
        std::vector<std::uint32_t> words = glsl::binding_words(shader);
        words.insert(words.end(), spirv.begin(), spirv.end());
        disk_cache::store(name, key, std::span(reinterpret_cast<const std::uint8_t*>(words.data()), words.size() * 4));
    }

    /// SPIR-V from the disk cache, or compiled on a miss, checked by `check`
    /// (SPIRV-Cross reflection) and only then stored. The key covers the
    /// generated code, the device and driver, and the compile options, and the
    /// entry is checksummed, so a module loaded from the cache is one that
    /// passed the check: a warm start does not reflect it again (it was a third
    /// of the warm start's host time).
    template <class Check>
    std::vector<std::uint32_t> spirv_for(const std::string& kernel, const std::string& source, bool optimize, bool& from_disk,
                                         Check&& check) {
        static constexpr char kOptions[] = "vulkan1.2 -O shaderc-2023.2 rill-codegen-1";
        std::uint64_t key = disk_cache::hash_bytes(source.data(), source.size(), dev_->device_key());
        key = disk_cache::hash_bytes(kOptions, sizeof kOptions, key);
        if (!optimize) key = disk_cache::hash_bytes("no spirv-opt", 12, key);
        char name[48];
        std::snprintf(name, sizeof name, "vulkan-%016llx.spv", static_cast<unsigned long long>(key));
        if (auto bytes = disk_cache::load(name, key); bytes && bytes->size() % 4 == 0 && !bytes->empty()) {
            std::vector<std::uint32_t> words(bytes->size() / 4);
            std::memcpy(words.data(), bytes->data(), bytes->size());
            from_disk = words[0] == 0x07230203u;  // the SPIR-V magic number
            if (from_disk) return words;
        }
        std::vector<std::uint32_t> words = compile_glsl(kernel, source, optimize);
        check(words);
        {
            std::lock_guard lock(dev_->mutex);
            ++dev_->shader_compiles;
        }
        disk_cache::store(name, key, std::span(reinterpret_cast<const std::uint8_t*>(words.data()), words.size() * 4));
        return words;
    }
    ~VkProgram() override {
        VkDevice d = dev_->ctx.device;
        {
            std::lock_guard lock(dev_->mutex);
            try {
                dev_->finish();
            } catch (...) {
            }
        }
        vkDestroyPipeline(d, pipeline, nullptr);
        vkDestroyPipelineLayout(d, layout, nullptr);
        vkDestroyDescriptorSetLayout(d, set_layout, nullptr);
        vkDestroyShaderModule(d, module, nullptr);
    }

    glsl::Shader shader;
    VkShaderModule module = VK_NULL_HANDLE;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;

private:
    std::shared_ptr<Device> dev_;
};

VkBuffer handle(Buffer* b) { return static_cast<VkStreamBuffer*>(b)->buffer(); }

class VulkanBackend final : public Backend {
public:
    VulkanBackend() : dev_(make_device()) {
        const Context& c = dev_->ctx;
        info_.name = "vulkan";
        info_.device = std::string(c.properties.deviceName) + " (Vulkan " +
                       std::to_string(VK_API_VERSION_MAJOR(c.properties.apiVersion)) + "." +
                       std::to_string(VK_API_VERSION_MINOR(c.properties.apiVersion)) + "." +
                       std::to_string(VK_API_VERSION_PATCH(c.properties.apiVersion)) + ")";
        info_.limits.subgroup_size = c.native_subgroups ? c.subgroup_size : 1u;
        info_.limits.subgroup_ops = kAllSubgroupOps | (c.subgroup_partitioned ? kSubgroupMatch : 0u);
        info_.limits.min_subgroup_size = c.min_subgroup_size;
        info_.limits.max_subgroup_size = c.max_subgroup_size;
        info_.limits.max_workgroup_size = c.properties.limits.maxComputeWorkGroupInvocations;
        info_.limits.shared_memory_bytes = c.properties.limits.maxComputeSharedMemorySize;
        info_.limits.max_buffer_bytes = c.properties.limits.maxStorageBufferRange;
        if (c.llvmpipe) info_.limits.loop_iterations = kLlvmpipeLoopIterations;
        info_.persistent_cache = true;
        info_.details.emplace_back("driver version", std::to_string(c.properties.driverVersion));
        info_.details.emplace_back("max storage buffer", std::to_string(c.properties.limits.maxStorageBufferRange) + " bytes");
        info_.details.emplace_back("workgroups a dispatch", std::to_string(c.properties.limits.maxComputeWorkGroupCount[0]) + " x " +
                                                                std::to_string(c.properties.limits.maxComputeWorkGroupCount[1]) +
                                                                " (more than the first spread over the second)");
        info_.details.emplace_back("spirv-opt", c.driver_optimizes_spirv
                                                    ? "kernels of SpirvOpt::Always only (this driver optimizes SPIR-V as well itself)"
                                                    : "every kernel but those of SpirvOpt::Never");
        info_.details.emplace_back("float atomic add", c.float_atomic_add ? "native (VK_EXT_shader_atomic_float)"
                                                                          : "compare-exchange loop");
        info_.details.emplace_back("subgroup match", c.subgroup_partitioned ? "native (VK_NV_shader_subgroup_partitioned)"
                                                                            : "a loop of shuffles");
        info_.details.emplace_back("bounds checks", c.unchecked_buffers ? "rill's only (driver's off by VK_EXT_pipeline_robustness; RILL_VK_DRIVER_CHECKS=1 keeps them)"
                                                                        : "rill's, and the driver's where it makes them");
        info_.details.emplace_back("validation layer", c.validation ? "on" : "off (RILL_VULKAN_VALIDATION=1)");
        std::string all;
        for (const auto& d : c.device_names()) all += (all.empty() ? "" : "; ") + d;
        info_.details.emplace_back("devices (RILL_DEVICE)", all);
    }

    /// The device, with the compiler's warm-up running beside its creation.
    static std::shared_ptr<Device> make_device() {
        start_compiler_warm_up();
        return std::make_shared<Device>();
    }

    ~VulkanBackend() override {
        std::lock_guard lock(dev_->mutex);
        try {
            dev_->finish();
        } catch (...) {
        }
        if (profiling_from_env()) std::fputs(dev_->times.summary("vulkan").c_str(), stderr);
        if (dev_->host_times.on) std::fputs(dev_->host_times.summary().c_str(), stderr);
    }

    const BackendInfo& info() const override { return info_; }

    std::shared_ptr<Buffer> allocate(std::size_t bytes, BufferContents contents) override {
        std::lock_guard lock(dev_->mutex);
        const HostTimes::Scope timed(dev_->host_times, HostTime::StreamAllocate);
        auto buf = std::make_shared<VkStreamBuffer>(dev_, bytes);
        // Zero, where asked: a pooled buffer holds what it held.
        if (contents == BufferContents::Zero && bytes)
            dev_->transfer("fill", {}, {buf->buffer()}, [&](VkCommandBuffer c) {
                vkCmdFillBuffer(c, buf->buffer(), 0, (bytes + 3) & ~std::size_t{3}, 0);
            });
        return buf;
    }

    void upload(Buffer& dst, std::size_t offset, const void* src, std::size_t bytes) override {
        std::lock_guard lock(dev_->mutex);
        const HostTimes::Scope timed(dev_->host_times, HostTime::Upload);
        // Large uploads go in pieces that fit a staging buffer.
        const std::size_t piece = 64u << 20;
        for (std::size_t done = 0; done < bytes; done += piece) {
            const std::size_t n = std::min(piece, bytes - done);
            auto [staging, at] = dev_->stage(static_cast<const char*>(src) + done, n);
            dev_->hazard({staging}, {handle(&dst)});
            VkBufferCopy region{at, offset + done, n};
            vkCmdCopyBuffer(dev_->cmd(), staging, handle(&dst), 1, &region);
        }
    }

    void download(Buffer& src, std::size_t offset, void* dst, std::size_t bytes) override {
        std::lock_guard lock(dev_->mutex);
        const HostTimes::Scope timed(dev_->host_times, HostTime::Download);
        const std::size_t piece = 64u << 20;
        for (std::size_t done = 0; done < bytes; done += piece) {
            const std::size_t n = std::min(piece, bytes - done);
            dev_->read(handle(&src), offset + done, static_cast<char*>(dst) + done, n);
        }
        dev_->check_validation();
    }

    void copy(Buffer& src, std::size_t src_offset, Buffer& dst, std::size_t dst_offset, std::size_t bytes) override {
        std::lock_guard lock(dev_->mutex);
        const VkBufferCopy region{src_offset, dst_offset, bytes};
        dev_->transfer("copy", {handle(&src)}, {handle(&dst)},
                       [&](VkCommandBuffer c) { vkCmdCopyBuffer(c, handle(&src), handle(&dst), 1, &region); });
    }

    std::unique_ptr<Program> compile(const ir::Kernel& k, const Signature& sig) override {
        const HostTimes::Scope timed(dev_->host_times, HostTime::Compile);
        return std::make_unique<VkProgram>(dev_, k, sig);
    }

    void dispatch(Program& program, const ir::Kernel& k, const Dispatch& d) override {
        auto& p = static_cast<VkProgram&>(program);
        std::lock_guard lock(dev_->mutex);
        const HostTimes::Scope timed(dev_->host_times, HostTime::Dispatch);
        glsl::pack_info(k, d, info_words_);
        dev_->reserve(info_words_.size());
        const std::uint32_t base = dev_->info(info_words_);
        const bool push = dev_->ctx.push_descriptor_set != nullptr;
        VkDescriptorSet set = push ? VK_NULL_HANDLE : dev_->descriptor_set(p.set_layout);

        std::vector<VkDescriptorBufferInfo> infos(p.shader.info_binding + 1);
        std::vector<VkBuffer> reads, writes;
        for (std::uint32_t i = 0; i < k.params.size(); ++i) {
            const std::uint32_t b = p.shader.stream_binding[i];
            if (b == ir::kNone) continue;
            VkBuffer buf = handle(d.streams[i].buffer);
            infos[b] = VkDescriptorBufferInfo{buf, 0, VK_WHOLE_SIZE};
            const bool written = k.params[i].kind == ir::ParamKind::Output || k.params[i].kind == ir::ParamKind::Array;
            (written ? writes : reads).push_back(buf);
        }
        infos[p.shader.info_binding] = VkDescriptorBufferInfo{dev_->info_buffer(), 0, VK_WHOLE_SIZE};
        std::vector<VkWriteDescriptorSet> ws(infos.size());
        for (std::uint32_t i = 0; i < infos.size(); ++i) {
            ws[i] = VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            ws[i].dstSet = set;
            ws[i].dstBinding = i;
            ws[i].descriptorCount = 1;
            ws[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            ws[i].pBufferInfo = &infos[i];
        }
        if (!push) vkUpdateDescriptorSets(dev_->ctx.device, static_cast<std::uint32_t>(ws.size()), ws.data(), 0, nullptr);

        dev_->hazard(reads, writes, true);
        VkCommandBuffer cmd = dev_->cmd();
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
        if (push)
            dev_->ctx.push_descriptor_set(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0,
                                          static_cast<std::uint32_t>(ws.size()), ws.data());
        else
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set, 0, nullptr);
        vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &base);
        const glsl::Grid grid =
            glsl::dispatch_grid(k, static_cast<std::uint64_t>(d.domain.size()),
                                dev_->ctx.properties.limits.maxComputeWorkGroupCount[0],
                                dev_->ctx.properties.limits.maxComputeWorkGroupCount[1]);
        dev_->begin_timing(k.name);
        vkCmdDispatch(dev_->cmd(), grid.x, grid.y, 1);
        dev_->end_timing();
        dev_->dispatched();
    }

    void finish() override {
        std::lock_guard lock(dev_->mutex);
        dev_->finish();
    }

    std::uint64_t shader_compiles() const override {
        std::lock_guard lock(dev_->mutex);
        return dev_->shader_compiles;
    }

    void set_profiling(bool on) override {
        std::lock_guard lock(dev_->mutex);
        dev_->finish();
        dev_->profiling = on;
    }
    std::vector<KernelTime> kernel_times() override {
        std::lock_guard lock(dev_->mutex);
        dev_->finish();
        return dev_->times.list();
    }
    void reset_kernel_times() override {
        std::lock_guard lock(dev_->mutex);
        dev_->finish();
        dev_->times.reset();
    }

private:
    std::shared_ptr<Device> dev_;
    BackendInfo info_;
    std::vector<std::uint32_t> info_words_;
};

}  // namespace

// Ahead of the CPU backend: a GPU is the better default when one works.
RILL_REGISTER_BACKEND("vulkan", 20, [] { return std::make_unique<VulkanBackend>(); });

}  // namespace rill::vk
