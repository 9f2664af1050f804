// Host memory behind a CPU-backend stream: 32-bit words, zero-filled where the
// stream asks for zeros, from a pool of released blocks where one fits.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>

#include "rill/core/backend.h"
#include "rill/core/buffer_pool.h"

namespace rill::cpu {

/// Released stream memory kept for later streams of about the same size
/// (pool_size_class), up to `limit` bytes. A fresh large calloc comes from new
/// pages, and their first touch in a kernel, a page fault each, cost more than
/// the kernels did (docs/PERFORMANCE.md#the-cpu-backend). The GPU backends pool
/// their buffers likewise. Builds with AddressSanitizer keep no pool, so that a
/// use of a released stream's memory stays a reported error.
struct HostPool {
    std::mutex mutex;
    BufferPool<void*> blocks;  // calloc'ed blocks

    HostPool(const HostPool&) = delete;
    HostPool& operator=(const HostPool&) = delete;
    explicit HostPool(std::size_t bytes) : blocks(bytes) {}
    ~HostPool() {
        blocks.drain([](void* raw) { std::free(raw); });
    }
    /// A block of `capacity` bytes from the pool, or nullptr.
    void* take(std::size_t capacity) {
        std::lock_guard lock(mutex);
        return blocks.take(capacity).value_or(nullptr);
    }
    /// Keeps the block, or frees it (or older ones) where the pool is full.
    void give(void* raw, std::size_t capacity) {
        std::lock_guard lock(mutex);
        blocks.give(raw, capacity, [](void* r) { std::free(r); });
    }
};

class CpuBuffer final : public Buffer {
public:
    CpuBuffer(std::size_t nbytes, BufferContents contents, std::shared_ptr<HostPool> pool)
        : pool_(std::move(pool)), capacity_(pool_size_class(nbytes)) {
        bytes = nbytes;
        // The words start on a cache line, so that a block of lanes covers whole lines.
        const std::size_t block = capacity_ + kLine;
        raw_ = pool_ ? pool_->take(capacity_) : nullptr;
        if (raw_) {
            if (contents == BufferContents::Zero) std::memset(aligned(raw_), 0, capacity_);
        } else {
            // calloc: large zeroed allocations come straight from fresh pages.
            raw_ = std::calloc(block / 4, 4);
            if (!raw_) throw std::bad_alloc();
        }
        data_ = static_cast<std::uint32_t*>(aligned(raw_));
    }
    ~CpuBuffer() override {
        if (pool_) pool_->give(raw_, capacity_);
        else std::free(raw_);
    }
    CpuBuffer(const CpuBuffer&) = delete;
    CpuBuffer& operator=(const CpuBuffer&) = delete;

    std::uint32_t* words() { return data_; }
    const std::uint32_t* words() const { return data_; }
    std::byte* bytes_ptr() { return reinterpret_cast<std::byte*>(data_); }

private:
    static constexpr std::uintptr_t kLine = 64;
    static void* aligned(void* raw) {
        return reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(raw) + kLine - 1) / kLine * kLine);
    }
    std::shared_ptr<HostPool> pool_;
    std::size_t capacity_;
    void* raw_;
    std::uint32_t* data_;
};

}  // namespace rill::cpu
