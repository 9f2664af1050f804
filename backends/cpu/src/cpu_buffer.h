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
        // calloc: large zeroed allocations come straight from fresh pages.
        data_ = static_cast<std::uint32_t*>(std::calloc((nbytes + 3) / 4, 4));
        if (!data_) throw std::bad_alloc();
    }
    ~CpuBuffer() override { std::free(data_); }
    CpuBuffer(const CpuBuffer&) = delete;
    CpuBuffer& operator=(const CpuBuffer&) = delete;

    std::uint32_t* words() { return data_; }
    const std::uint32_t* words() const { return data_; }
    std::byte* bytes_ptr() { return reinterpret_cast<std::byte*>(data_); }

private:
    std::uint32_t* data_;
};

}  // namespace rill::cpu
