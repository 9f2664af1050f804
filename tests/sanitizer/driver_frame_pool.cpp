// Linked into the test programs of the sanitizer build only (tests/CMakeLists.txt),
// and compiled without instrumentation: free() runs while ASan itself starts.
//
// Mesa's lavapipe and llvmpipe run a workgroup's invocations as coroutines
// whose frames (every value live across a barrier) they allocate with
// posix_memalign(4096) when the workgroup starts and free when it ends: for
// the radix sort's tile kernels 750 KB to 1 MB per workgroup, thousands per
// test. Under ASan a block above 128 KiB bypasses its size classes: it is
// mapped, faulted in page by page, given shadow and unmapped every time (no
// ASan option caches such blocks). Pooled here, the radix sort's and the
// scan's heaviest Vulkan and OpenGL tests took 32 s instead of 71, and the
// ASan/UBSan suite's Vulkan and OpenGL tests 852 s summed instead of 1,130
// (docs/TESTING.md#time). Only those blocks are pooled: page-aligned, at
// least 128 KiB, asked for by a Mesa driver, whose code is not instrumented
// and so loses no check. Every other allocation, the drivers' buffers
// (64-byte aligned) and rill's own memory among them, still goes to ASan,
// redzones and all.
//
// The program's own posix_memalign and free take precedence over libasan's
// (the executable comes first in symbol lookup); what is not pooled goes on
// to libasan's interceptors, which GCC's libasan exports by these names.
#include <dlfcn.h>
#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>

extern "C" int __interceptor_posix_memalign(void** out, std::size_t alignment, std::size_t size);
extern "C" void __interceptor_free(void* p);

namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kSmallest = std::size_t{128} << 10;  // ASan's largest size class
constexpr int kClasses = 16;                               // 128 KiB .. 4 GiB, powers of two
constexpr std::size_t kReserved = std::size_t{64} << 30;   // address space only (MAP_NORESERVE)

/// Blocks of a power-of-two size each, carved from one reserved range, so
/// that free() tells a pooled block by its address alone; a freed block goes
/// on its size's list and serves the next request of that size, already
/// faulted in. A page before each block holds its size class. Everything is
/// constant-initialized and the range reserved at the first pooled request:
/// free() runs while ASan itself starts, before any constructor.
std::atomic<char*> g_base{nullptr};
std::mutex g_mutex;
std::size_t g_used = 0;
void* g_free[kClasses] = {};

bool pooled(const void* p) {
    const auto a = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(g_base.load(std::memory_order_acquire));
    return b && a >= b && a < b + kReserved;
}

void* take(std::size_t size) {
    int c = 0;
    while (c < kClasses && (kSmallest << c) < size) ++c;
    if (c == kClasses) return nullptr;
    std::lock_guard<std::mutex> lock(g_mutex);
    if (void* block = g_free[c]) {
        g_free[c] = *static_cast<void**>(block);
        return block;
    }
    char* base = g_base.load(std::memory_order_relaxed);
    if (!base) {
        void* p = mmap(nullptr, kReserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) return nullptr;
        g_base.store(base = static_cast<char*>(p), std::memory_order_release);
    }
    const std::size_t bytes = kPage + (kSmallest << c);
    if (g_used + bytes > kReserved) return nullptr;
    char* header = base + g_used;
    g_used += bytes;
    std::memcpy(header, &c, sizeof c);
    return header + kPage;
}

void give(void* block) {
    int c;
    std::memcpy(&c, static_cast<char*>(block) - kPage, sizeof c);
    std::lock_guard<std::mutex> lock(g_mutex);
    *static_cast<void**>(block) = g_free[c];
    g_free[c] = block;
}

bool called_by_mesa(const void* return_address) {
    Dl_info info{};
    if (!dladdr(return_address, &info) || !info.dli_fname) return false;
    const char* f = info.dli_fname;
    return std::strstr(f, "libvulkan_lvp") || std::strstr(f, "swrast_dri") || std::strstr(f, "libgallium");
}

}  // namespace

extern "C" int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
    if (alignment == kPage && size >= kSmallest && called_by_mesa(__builtin_return_address(0)))
        if (void* block = take(size)) {
            *out = block;
            return 0;
        }
    return __interceptor_posix_memalign(out, alignment, size);
}

extern "C" void free(void* p) {
    if (p && pooled(p)) return give(p);
    __interceptor_free(p);
}
