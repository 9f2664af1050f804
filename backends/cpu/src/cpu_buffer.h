// Host memory behind a CPU-backend stream: zero-filled 32-bit words.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <new>

#include "rill/core/backend.h"

namespace rill::cpu {

class CpuBuffer final : public Buffer {
public:
    explicit CpuBuffer(std::size_t nbytes) {
        bytes = nbytes;
        // calloc: large zeroed allocations come straight from fresh pages. The
        // words start on a cache line, so that a block of lanes covers whole lines.
        raw_ = std::calloc((nbytes + 3) / 4 + kLine / 4, 4);
        if (!raw_) throw std::bad_alloc();
        const auto at = (reinterpret_cast<std::uintptr_t>(raw_) + kLine - 1) / kLine * kLine;
        data_ = reinterpret_cast<std::uint32_t*>(at);
    }
    ~CpuBuffer() override { std::free(raw_); }
    CpuBuffer(const CpuBuffer&) = delete;
    CpuBuffer& operator=(const CpuBuffer&) = delete;

    std::uint32_t* words() { return data_; }
    const std::uint32_t* words() const { return data_; }
    std::byte* bytes_ptr() { return reinterpret_cast<std::byte*>(data_); }

private:
    static constexpr std::uintptr_t kLine = 64;
    void* raw_;
    std::uint32_t* data_;
};

}  // namespace rill::cpu
