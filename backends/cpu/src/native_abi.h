// What the CPU backend and the C++ it generates for group kernels share: the
// arguments of a compiled workgroup, and the one definition of atomic
// read-modify-writes. This header is compiled into rill and also copied, with
// the core headers it includes, next to each generated source (native.cpp),
// so both sides read the same text. It may include only standard headers and
// core headers without out-of-line functions.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "rill/core/ir_kinds.h"

namespace rill::cpu::native {

using u32 = std::uint32_t;

/// An Array param's elements for one dispatch.
struct Memory {
    u32* words = nullptr;     // element 0, word 0
    std::int64_t count = 0;   // elements
    /// Large enough (RILL_CPU_STREAMING_BYTES) that what a loop writes in
    /// order goes past the caches (store_streamed).
    bool streamed = false;
    /// A Gather parameter's shape and element strides, for its edge clamp.
    std::int64_t dims[4]{};
    std::int64_t strides[4]{};
};

/// The element a Gather reads at index (i...), each clamped to the stream's edge.
template <class... I>
inline std::int64_t gather_at(const Memory& m, I... i) {
    const std::int64_t index[] = {static_cast<std::int64_t>(i)...};
    std::int64_t e = 0;
    for (std::size_t d = 0; d < sizeof...(I); ++d) {
        const std::int64_t hi = m.dims[d] - 1;
        e += (index[d] < 0 ? 0 : index[d] > hi ? hi : index[d]) * m.strides[d];
    }
    return e;
}

/// Everything a compiled workgroup reads besides its own code. The generated
/// function is `extern "C" int rill_workgroup(const Args*, std::int64_t group,
/// u32* scratch, u32* shared)`; it returns 0, or kBarrierDiverged.
struct Args {
    const u32* uniforms = nullptr;
    const Memory* arrays = nullptr;  // indexed by param
    std::int64_t num_groups = 0;
    /// Subgroup operation `node` of the program's kernel over the workgroup's
    /// lanes (the interpreter's own, group_ops.h); columns are component-major.
    void (*subgroup)(const void* program, u32 node, const u32* value, const u32* arg, const u32* mask,
                     u32* out) = nullptr;
    const void* program = nullptr;
};

using WorkgroupFn = int (*)(const Args*, std::int64_t group, u32* scratch, u32* shared);
constexpr int kBarrierDiverged = 1;

template <class T>
inline u32 to_bits(T v) {
    if constexpr (std::is_same_v<T, float>) return std::bit_cast<u32>(v);
    else return static_cast<u32>(v);
}
template <class T>
inline T from_bits(u32 b) {
    if constexpr (std::is_same_v<T, float>) return std::bit_cast<float>(b);
    else return static_cast<T>(b);
}

/// Four floats as one SIMD value: compiled kernels compute float4 sums,
/// differences, products and quotients with it, and load and store float4
/// elements whole (native_codegen.cpp), lane for lane the same IEEE
/// operations as four scalar ones, so results stay bit for bit the lane
/// executor's. GCC's and Clang's vector extension.
typedef float f4 __attribute__((vector_size(16)));
inline f4 load_f4(const u32* at) {
    f4 v;
    __builtin_memcpy(&v, at, sizeof v);
    return v;
}
inline void store_f4(u32* at, f4 v) { __builtin_memcpy(at, &v, sizeof v); }

/// A store that skips the caches: the line is not read first, and a
/// large output does not evict what is still to be read. Consecutive ones
/// combine into whole lines; fence_streamed orders them. The compilers'
/// builtins behind _mm_stream_si32 and _mm_sfence (GCC's and Clang's alike):
/// <immintrin.h> with -march=native was a third of the precompiled prelude
/// every generated kernel loads (77 MB; 54 MB without it).
inline void store_streamed(u32* at, u32 v) {
#if defined(__SSE2__)
    __builtin_ia32_movnti(reinterpret_cast<int*>(at), static_cast<int>(v));
#else
    *at = v;
#endif
}
inline void fence_streamed() {
#if defined(__SSE2__)
    __builtin_ia32_sfence();
#endif
}

/// std::atomic_ref<u32>'s interface over the builtins it is made of in GCC and
/// Clang, sequentially consistent like its defaults: <atomic> would be a third
/// of each generated kernel's build time.
struct AtomicCell {
    u32& w;
    u32 load() const { return __atomic_load_n(&w, __ATOMIC_SEQ_CST); }
    bool compare_exchange_weak(u32& expected, u32 desired) {
        return __atomic_compare_exchange_n(&w, &expected, desired, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
    bool compare_exchange_strong(u32& expected, u32 desired) {
        return __atomic_compare_exchange_n(&w, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
    u32 fetch_add(u32 v) { return __atomic_fetch_add(&w, v, __ATOMIC_SEQ_CST); }
    u32 fetch_and(u32 v) { return __atomic_fetch_and(&w, v, __ATOMIC_SEQ_CST); }
    u32 fetch_or(u32 v) { return __atomic_fetch_or(&w, v, __ATOMIC_SEQ_CST); }
    u32 fetch_xor(u32 v) { return __atomic_fetch_xor(&w, v, __ATOMIC_SEQ_CST); }
    u32 exchange(u32 v) { return __atomic_exchange_n(&w, v, __ATOMIC_SEQ_CST); }
};
/// Orders every memory access of this thread (std::atomic_thread_fence(seq_cst)).
inline void fence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/// The same interface over a plain word, for shared memory (a workgroup runs
/// on one thread).
struct PlainCell {
    u32& w;
    u32 load() const { return w; }
    bool compare_exchange_weak(u32& expected, u32 desired) { return compare_exchange_strong(expected, desired); }
    bool compare_exchange_strong(u32& expected, u32 desired) {
        if (w == expected) {
            w = desired;
            return true;
        }
        expected = w;
        return false;
    }
    u32 fetch_add(u32 v) { return std::exchange(w, w + v); }
    u32 fetch_and(u32 v) { return std::exchange(w, w & v); }
    u32 fetch_or(u32 v) { return std::exchange(w, w | v); }
    u32 fetch_xor(u32 v) { return std::exchange(w, w ^ v); }
    u32 exchange(u32 v) { return std::exchange(w, v); }
};

/// One read-modify-write (ir::AtomicOp) on a word holding a scalar of kind
/// `s`; returns the old bits.
template <class Cell>
inline u32 rmw(Cell& cell, ir::AtomicOp op, Scalar s, u32 v, u32 compare) {
    switch (op) {
        case ir::AtomicOp::Add:
            if (s == Scalar::Float) {
                u32 old = cell.load();
                while (!cell.compare_exchange_weak(old, std::bit_cast<u32>(std::bit_cast<float>(old) + std::bit_cast<float>(v)))) {
                }
                return old;
            }
            return cell.fetch_add(v);
        case ir::AtomicOp::Min: case ir::AtomicOp::Max: {
            const bool is_min = op == ir::AtomicOp::Min;
            u32 old = cell.load();
            for (;;) {
                const bool less = s == Scalar::Int ? static_cast<std::int32_t>(v) < static_cast<std::int32_t>(old) : v < old;
                const bool greater = s == Scalar::Int ? static_cast<std::int32_t>(v) > static_cast<std::int32_t>(old) : v > old;
                if (is_min ? !less : !greater) return old;
                if (cell.compare_exchange_weak(old, v)) return old;
            }
        }
        case ir::AtomicOp::And: return cell.fetch_and(v);
        case ir::AtomicOp::Or: return cell.fetch_or(v);
        case ir::AtomicOp::Xor: return cell.fetch_xor(v);
        case ir::AtomicOp::Exchange: return cell.exchange(v);
        case ir::AtomicOp::CompareExchange: {
            u32 expected = compare;
            cell.compare_exchange_strong(expected, v);
            return expected;
        }
        case ir::AtomicOp::Load: return cell.load();
    }
    return 0;  // not reached: every AtomicOp is handled above
}

/// An atomic on word `w` of global memory (other workgroups run on other threads).
inline u32 atomic_global(u32& w, ir::AtomicOp op, Scalar s, u32 v, u32 compare) {
    AtomicCell cell{w};
    return rmw(cell, op, s, v, compare);
}
/// An atomic on word `w` of shared memory.
inline u32 atomic_shared(u32& w, ir::AtomicOp op, Scalar s, u32 v, u32 compare) {
    PlainCell cell{w};
    return rmw(cell, op, s, v, compare);
}

}  // namespace rill::cpu::native
