// CUB peers for rill's primitives, timed with CUDA events, for the GPU machine
// (built there: nvcc -O3 -arch=sm_90 bench/gpu/cub_peers.cu). Bench code only:
// nothing in rill depends on CUDA. Prints one JSON object.
//
//   cub_peers [log2 n = 28]
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA(call)                                                                  \
    do {                                                                            \
        cudaError_t e_ = (call);                                                    \
        if (e_ != cudaSuccess) {                                                    \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));       \
            std::exit(1);                                                           \
        }                                                                           \
    } while (0)

struct IsEven {
    __device__ bool operator()(unsigned v) const { return (v & 1u) == 0; }
};

__global__ void fill(unsigned* p, size_t n, unsigned seed) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) {
        unsigned x = unsigned(i) * 2654435761u ^ seed;
        x ^= x >> 13;
        x *= 0x5bd1e995u;
        p[i] = x ^ (x >> 15);
    }
}

template <class F>
float median_ms(F&& f) {
    cudaEvent_t a, b;
    CUDA(cudaEventCreate(&a));
    CUDA(cudaEventCreate(&b));
    f();
    CUDA(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int r = 0; r < 7; ++r) {
        CUDA(cudaEventRecord(a));
        f();
        CUDA(cudaEventRecord(b));
        CUDA(cudaEventSynchronize(b));
        float ms = 0;
        CUDA(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char** argv) {
    const int log2n = argc > 1 ? std::atoi(argv[1]) : 28;
    const size_t n = size_t(1) << log2n;
    unsigned *keys, *keys2, *vals, *vals2, *out;
    int* count;
    CUDA(cudaMalloc(&keys, n * 4));
    CUDA(cudaMalloc(&keys2, n * 4));
    CUDA(cudaMalloc(&vals, n * 4));
    CUDA(cudaMalloc(&vals2, n * 4));
    CUDA(cudaMalloc(&out, n * 4));
    CUDA(cudaMalloc(&count, 4));
    fill<<<unsigned((n + 255) / 256), 256>>>(keys, n, 1u);
    fill<<<unsigned((n + 255) / 256), 256>>>(vals, n, 2u);
    CUDA(cudaDeviceSynchronize());

    size_t tmp_bytes = 0, need = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, need, keys, out, n);
    tmp_bytes = std::max(tmp_bytes, need);
    cub::DeviceSelect::If(nullptr, need, keys, out, count, n, IsEven{});
    tmp_bytes = std::max(tmp_bytes, need);
    cub::DeviceReduce::Sum(nullptr, need, keys, out, n);
    tmp_bytes = std::max(tmp_bytes, need);
    cub::DeviceRadixSort::SortKeys(nullptr, need, keys, keys2, n);
    tmp_bytes = std::max(tmp_bytes, need);
    cub::DeviceRadixSort::SortPairs(nullptr, need, keys, keys2, vals, vals2, n);
    tmp_bytes = std::max(tmp_bytes, need);
    void* tmp;
    CUDA(cudaMalloc(&tmp, tmp_bytes));

    const float scan = median_ms([&] { cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, keys, out, n); });
    const float select = median_ms([&] { cub::DeviceSelect::If(tmp, tmp_bytes, keys, out, count, n, IsEven{}); });
    const float reduce = median_ms([&] { cub::DeviceReduce::Sum(tmp, tmp_bytes, keys, out, n); });
    const float sort_keys = median_ms([&] { cub::DeviceRadixSort::SortKeys(tmp, tmp_bytes, keys, keys2, n); });
    const float sort_pairs = median_ms([&] { cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, keys, keys2, vals, vals2, n); });
    const float copy = median_ms([&] { CUDA(cudaMemcpyAsync(out, keys, n * 4, cudaMemcpyDeviceToDevice)); });
    cudaDeviceProp prop;
    CUDA(cudaGetDeviceProperties(&prop, 0));
    auto g = [&](float ms) { return double(n) / ms / 1e6; };  // G elements per second
    std::printf("{\"peer\":\"CUB (CUDA %d.%d)\",\"device\":\"%s\",\"log2n\":%d,"
                "\"copy_ms\":%.4f,\"copy_gbs\":%.1f,\"scan_ms\":%.4f,\"scan_gelems\":%.1f,"
                "\"select_ms\":%.4f,\"select_gelems\":%.1f,\"reduce_ms\":%.4f,\"reduce_gelems\":%.1f,"
                "\"sort_keys_ms\":%.4f,\"sort_keys_gkeys\":%.2f,\"sort_pairs_ms\":%.4f,\"sort_pairs_gpairs\":%.2f}\n",
                CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10, prop.name, log2n, copy, 2.0 * n * 4 / copy / 1e6, scan,
                g(scan), select, g(select), reduce, g(reduce), sort_keys, g(sort_keys), sort_pairs, g(sort_pairs));
    return 0;
}
