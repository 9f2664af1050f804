// VkFFT (Debian libvkfft-dev 1.2.26, its Vulkan backend, kernels compiled by
// glslang) on the workloads of rill-bench-fft and bench/gpu/torch_fft.py: the
// FFT module's Vulkan peer on the same device, written as a VkFFT user would.
// Shares no code with rill.
//
//   rill-vkfft-peer [log2 elements per batched workload = 26] [--small] [--check]
//
// Prints one JSON line with torch_fft.py's keys (milliseconds per transform:
// timestamps around 10 transforms recorded back to back, after a warm-up);
// --small leaves out the workloads of 2^24 elements and more (software
// devices); --check first compares small forward transforms (every batched
// length, 2D, R2C) with a double-precision DFT: a 2D or R2C transform off
// stops the program, a batched length off is left out and listed under
// "wrong_lengths".
#define VKFFT_BACKEND 0
#include <vkFFT.h>

#include "vulkan_peer.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

/// The peer's device (vulkan_peer.h: its command pool and fence are what VkFFT asks for).
struct Device : VulkanPeer {
    /// A storage buffer of `bytes` in memory with `flags` (host-visible ones are mapped to `mapped`).
    void buffer(VkDeviceSize bytes, VkMemoryPropertyFlags flags, VkBuffer& b, VkDeviceMemory& m, void** mapped = nullptr) const {
        VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bi.size = bytes;
        bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        VK(vkCreateBuffer(device, &bi, nullptr, &b));
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(device, b, &req);
        const std::uint32_t type = memory_type(req.memoryTypeBits, flags);
        if (type == memory.memoryTypeCount) {
            std::fprintf(stderr, "rill-vkfft-peer: no memory type for a buffer of %llu bytes\n", static_cast<unsigned long long>(bytes));
            std::exit(1);
        }
        VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.allocationSize = req.size;
        ai.memoryTypeIndex = type;
        VK(vkAllocateMemory(device, &ai, nullptr, &m));
        VK(vkBindBufferMemory(device, b, m, 0));
        if (mapped) VK(vkMapMemory(device, m, 0, VK_WHOLE_SIZE, 0, mapped));
    }
};

/// One VkFFT plan over its own buffer: C2C forward of `size` (x fastest) in
/// `batches`, or R2C in place (rows padded to n/2 + 1 complex).
struct Plan {
    Device& d;
    VkBuffer buffer{};
    VkDeviceMemory memory{};
    std::uint64_t bytes = 0;
    void* mapped = nullptr;
    VkFFTApplication app{};

    Plan(Device& dev, std::vector<std::uint64_t> size, std::uint64_t batches, bool r2c, bool host_visible) : d(dev) {
        std::uint64_t complex = batches * (r2c ? size[0] / 2 + 1 : size[0]);
        for (std::size_t i = 1; i < size.size(); ++i) complex *= size[i];
        bytes = complex * 8;
        d.buffer(bytes,
                 host_visible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                              : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                 buffer, memory, host_visible ? &mapped : nullptr);
        VkFFTConfiguration c{};
        c.FFTdim = size.size();
        for (std::size_t i = 0; i < size.size(); ++i) c.size[i] = size[i];
        c.numberBatches = batches;
        c.performR2C = r2c ? 1 : 0;
        // VkFFT keeps these pointers for the plan's life.
        c.physicalDevice = &d.physical;
        c.device = &d.device;
        c.queue = &d.queue;
        c.commandPool = &d.pool;
        c.fence = &d.fence;
        c.buffer = &buffer;
        c.bufferSize = &bytes;
        const VkFFTResult r = initializeVkFFT(&app, c);
        if (r != VKFFT_SUCCESS) {
            std::fprintf(stderr, "rill-vkfft-peer: initializeVkFFT failed with %d\n", static_cast<int>(r));
            std::exit(1);
        }
    }
    ~Plan() {
        deleteVkFFT(&app);
        if (mapped) vkUnmapMemory(d.device, memory);
        vkDestroyBuffer(d.device, buffer, nullptr);
        vkFreeMemory(d.device, memory, nullptr);
    }

    /// Records `reps` forward transforms between two timestamps, runs them,
    /// waits: milliseconds per transform.
    double run(int reps) {
        VkQueryPoolCreateInfo qpi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qpi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qpi.queryCount = 2;
        VkQueryPool queries;
        VK(vkCreateQueryPool(d.device, &qpi, nullptr, &queries));
        VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        cai.commandPool = d.pool;
        cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        cai.commandBufferCount = 1;
        VkCommandBuffer cb;
        VK(vkAllocateCommandBuffers(d.device, &cai, &cb));
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VK(vkBeginCommandBuffer(cb, &bi));
        vkCmdResetQueryPool(cb, queries, 0, 2);
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, 0);
        VkMemoryBarrier between{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        between.srcAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        between.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        for (int r = 0; r < reps; ++r) {
            VkFFTLaunchParams launch{};
            launch.commandBuffer = &cb;
            const VkFFTResult res = VkFFTAppend(&app, -1, &launch);
            if (res != VKFFT_SUCCESS) {
                std::fprintf(stderr, "rill-vkfft-peer: VkFFTAppend failed with %d\n", static_cast<int>(res));
                std::exit(1);
            }
            vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &between, 0,
                                 nullptr, 0, nullptr);
        }
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 1);
        VK(vkEndCommandBuffer(cb));
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cb;
        VK(vkQueueSubmit(d.queue, 1, &si, d.fence));
        VK(vkWaitForFences(d.device, 1, &d.fence, VK_TRUE, ~0ull));
        VK(vkResetFences(d.device, 1, &d.fence));
        std::uint64_t stamps[2] = {0, 0};
        VK(vkGetQueryPoolResults(d.device, queries, 0, 2, sizeof stamps, stamps, 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        vkFreeCommandBuffers(d.device, d.pool, 1, &cb);
        vkDestroyQueryPool(d.device, queries, nullptr);
        return double(stamps[1] - stamps[0]) * d.props.limits.timestampPeriod * 1e-6 / reps;
    }
};

double timed(Device& d, std::vector<std::uint64_t> size, std::uint64_t batches, bool r2c = false) {
    Plan p(d, std::move(size), batches, r2c, false);
    p.run(2);  // warm-up
    return p.run(10);
}

using cd = std::complex<double>;

/// The forward DFT of `x` (length n, stride s) into `out`, in double.
void dft(const cd* x, std::size_t n, std::size_t s, cd* out, std::size_t out_stride) {
    for (std::size_t k = 0; k < n; ++k) {
        cd sum = 0;
        for (std::size_t j = 0; j < n; ++j) sum += x[j * s] * std::polar(1.0, -2 * M_PI * double(j * k % n) / double(n));
        out[k * out_stride] = sum;
    }
}

constexpr std::uint64_t kLengths[] = {2, 3, 5, 7, 8, 13, 16, 17, 60, 64, 100, 128, 243, 256, 625, 1000, 1009, 1024, 2048, 2187, 3125, 4096};

/// Relative L2 distance of VkFFT's output from `want`.
double off(const std::vector<cd>& want, const float* got) {
    double err = 0, norm = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        err += std::norm(want[i] - cd(got[2 * i], got[2 * i + 1]));
        norm += std::norm(want[i]);
    }
    return std::sqrt(err / norm);
}

/// Forward transforms of random data against a double DFT, 1e-5 relative L2
/// at most: 2D (24 x 10) and 2D R2C (16 x 6), or the program stops; each
/// batched length (3 batches): the lengths off go in `wrong` (VkFFT 1.2.26's
/// Bluestein lengths gave zeros through lavapipe) and are not timed.
void check(Device& d, std::vector<std::uint64_t>& wrong) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1, 1);
    auto run_once = [&](Plan& p, const std::vector<float>& in) {
        std::memcpy(p.mapped, in.data(), in.size() * 4);
        p.run(1);
        return static_cast<const float*>(p.mapped);
    };
    auto must = [](const char* what, double e) {
        std::fprintf(stderr, "check %s: relative L2 error %.2e\n", what, e);
        if (!(e < 1e-5)) {
            std::fprintf(stderr, "rill-vkfft-peer: VkFFT's %s transform is off\n", what);
            std::exit(1);
        }
    };
    for (std::uint64_t n : kLengths) {
        const std::size_t batches = 3;
        Plan p(d, {n}, batches, false, true);
        std::vector<float> in(2 * n * batches);
        for (float& x : in) x = u(rng);
        std::vector<cd> x(n * batches), want(n * batches);
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = {in[2 * i], in[2 * i + 1]};
        for (std::size_t b = 0; b < batches; ++b) dft(&x[b * n], n, 1, &want[b * n], 1);
        const double e = off(want, run_once(p, in));
        if (!(e < 1e-5)) {
            std::fprintf(stderr, "check 1D %llu x 3: relative L2 error %.2e: off, not timed\n", static_cast<unsigned long long>(n), e);
            wrong.push_back(n);
        }
    }
    {
        const std::size_t nx = 24, ny = 10;
        Plan p(d, {nx, ny}, 1, false, true);
        std::vector<float> in(2 * nx * ny);
        for (float& x : in) x = u(rng);
        std::vector<cd> x(nx * ny), rows(nx * ny), want(nx * ny);
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = {in[2 * i], in[2 * i + 1]};
        for (std::size_t y = 0; y < ny; ++y) dft(&x[y * nx], nx, 1, &rows[y * nx], 1);
        for (std::size_t c = 0; c < nx; ++c) dft(&rows[c], ny, nx, &want[c], nx);
        must("2D 24 x 10", off(want, run_once(p, in)));
    }
    {  // in place, rows padded to 9 complex
        const std::size_t nx = 16, ny = 6, h = nx / 2 + 1;
        Plan p(d, {nx, ny}, 1, true, true);
        std::vector<float> in(2 * h * ny, 0.0f);
        std::vector<cd> x(nx * ny), rows(nx * ny), full(nx * ny), want(h * ny);
        for (std::size_t y = 0; y < ny; ++y)
            for (std::size_t i = 0; i < nx; ++i) {
                in[y * 2 * h + i] = u(rng);
                x[y * nx + i] = in[y * 2 * h + i];
            }
        for (std::size_t y = 0; y < ny; ++y) dft(&x[y * nx], nx, 1, &rows[y * nx], 1);
        for (std::size_t c = 0; c < nx; ++c) dft(&rows[c], ny, nx, &full[c], nx);
        for (std::size_t y = 0; y < ny; ++y)
            for (std::size_t i = 0; i < h; ++i) want[y * h + i] = full[y * nx + i];
        must("R2C 16 x 6", off(want, run_once(p, in)));
    }
}

}  // namespace

int main(int argc, char** argv) {
    int log2 = 26;
    bool small = false, checks = false;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        if (arg == "--small") small = true;
        else if (arg == "--check") checks = true;
        else if (std::isdigit(static_cast<unsigned char>(arg[0])) && std::atoi(arg.c_str()) >= 12 && std::atoi(arg.c_str()) <= 28)
            log2 = std::atoi(arg.c_str());
        else {
            std::fprintf(stderr, "usage: rill-vkfft-peer [log2 elements per batched workload, 12 to 28] [--small] [--check]\n");
            return 2;
        }
    }
    Device d;
    std::vector<std::uint64_t> wrong;
    if (checks) check(d, wrong);
    std::string json = "{\"peer\": \"VkFFT " + std::to_string(VkFFTGetVersion() / 10000) + "." +
                       std::to_string(VkFFTGetVersion() / 100 % 100) + "." + std::to_string(VkFFTGetVersion() % 100) +
                       "\", \"device\": \"" + d.props.deviceName + "\"";
    auto put = [&](const std::string& key, double ms) {
        char text[64];
        std::snprintf(text, sizeof text, "%.6f", ms);
        json += ", \"" + key + "\": " + text;
    };
    put("fft2_4x1024x1024_ms", timed(d, {1024, 1024}, 4));
    put("rfft2_1024x1024_ms", timed(d, {1024, 1024}, 1, true));
    if (!small) {
        put("fft2_4096x4096_ms", timed(d, {4096, 4096}, 1));
        put("fft_2e24_ms", timed(d, {std::uint64_t{1} << 24}, 1));
    }
    std::string off_lengths;
    for (std::uint64_t n : kLengths) {
        if (std::find(wrong.begin(), wrong.end(), n) != wrong.end()) {
            off_lengths += (off_lengths.empty() ? "" : ", ") + std::to_string(n);
            continue;
        }
        put("fft_batched_" + std::to_string(n) + "_ms", timed(d, {n}, std::max<std::uint64_t>(1, (std::uint64_t{1} << log2) / n)));
    }
    std::printf("%s, \"checked\": %s, \"wrong_lengths\": [%s]}\n", json.c_str(), checks ? "true" : "false", off_lengths.c_str());
    return 0;
}
