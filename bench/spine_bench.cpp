// The spine's figures, each beside its peer in the same binary:
//   SAXPY on 2^26 floats        vs a plain TBB copy (bandwidth roof)
//   64 x sin/cos/fma per element vs the same loop hand-written with TBB
//   a repeated kernel call       host time per call (trace is cached)
// Correctness is checked once before timing: a fast wrong answer is no figure.
#include <benchmark/benchmark.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <xmmintrin.h>
#include <memory>

#include <cblas.h>
#include <tbb/parallel_scan.h>

#include <tbb/parallel_sort.h>

#include <rill/algorithms/compact.h>
#include <rill/algorithms/radix_sort.h>
#include <rill/algorithms/reduce.h>
#include <rill/algorithms/scatter_op.h>
#include <rill/algorithms/scan.h>
#include <rill/rill.h>

namespace {

constexpr std::int64_t kBig = std::int64_t{1} << 26;

std::string bench_backend() {
    const char* b = std::getenv("RILL_BACKEND");
    return b && *b ? b : "cpu";
}

rill::Runtime& runtime() {
    static rill::Runtime rt(bench_backend());
    return rt;
}

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "benchmark check failed: %s\n", what);
        std::abort();
    }
}

// --- bandwidth: SAXPY vs copy --------------------------------------------------

struct HostArrays {
    std::unique_ptr<float[]> x{new float[kBig]}, y{new float[kBig]}, r{new float[kBig]};
    HostArrays() {
        tbb::parallel_for(std::int64_t{0}, kBig, [&](std::int64_t i) {
            x[i] = float(i % 1000);
            y[i] = 1.0f;
            r[i] = 0.0f;
        });
    }
};

HostArrays& host_arrays() {
    static HostArrays h;
    return h;
}

void tbb_copy(HostArrays& h) {
    tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, kBig, 1 << 16), [&](const auto& rg) {
        std::memcpy(h.r.get() + rg.begin(), h.x.get() + rg.begin(), sizeof(float) * rg.size());
    });
    benchmark::ClobberMemory();
}

void BM_TbbCopy(benchmark::State& state) {
    HostArrays& h = host_arrays();
    for (auto _ : state) tbb_copy(h);
    state.SetBytesProcessed(state.iterations() * kBig * 2 * sizeof(float));
}

// SAXPY at 2^26 floats is bound by memory; at kInCache floats (768 KiB in all)
// it fits in the caches, and what is left is the executor's own work per block.
constexpr std::int64_t kInCache = std::int64_t{1} << 16;

void BM_TbbSaxpy(benchmark::State& state) {
    HostArrays& h = host_arrays();
    const std::int64_t n = state.range(0);
    for (auto _ : state) {
        tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n, 1 << 14), [&](const auto& rg) {
            for (std::int64_t i = rg.begin(); i < rg.end(); ++i) h.r[i] = 2.0f * h.x[i] + h.y[i];
        });
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * n * 3 * sizeof(float));
}

// The loop the CPU executor runs for SAXPY, written by hand: blocks of 2048
// lanes, a * x + y into a 64-float L1 buffer, flushed with non-temporal stores.
// The gap between this and rill is the executor's own cost.
void tbb_saxpy_streaming(HostArrays& h, std::int64_t n) {
    const float* x = h.x.get();
    const float* y = h.y.get();
    float* r = h.r.get();
    constexpr std::int64_t kBlock = 2048, kChunk = 64;
    tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n / kBlock, 4), [&](const auto& rg) {
        for (std::int64_t b = rg.begin(); b < rg.end(); ++b)
            for (std::int64_t o = b * kBlock; o < (b + 1) * kBlock; o += kChunk) {
                alignas(64) float buf[kChunk];
                for (std::int64_t i = 0; i < kChunk; ++i) buf[i] = 2.0f * x[o + i] + y[o + i];
                for (std::int64_t i = 0; i < kChunk; i += 4) _mm_stream_ps(r + o + i, _mm_load_ps(buf + i));
            }
        _mm_sfence();
    });
    benchmark::ClobberMemory();
}

void check_saxpy(const float* r, const HostArrays& h, std::int64_t n, const char* what) {
    for (std::int64_t i = 0; i < n; i += 4099) check(r[i] == 2.0f * h.x[i] + h.y[i], what);
}

void BM_TbbSaxpyStreaming(benchmark::State& state) {
    HostArrays& h = host_arrays();
    const std::int64_t n = state.range(0);
    for (auto _ : state) tbb_saxpy_streaming(h, n);
    check_saxpy(h.r.get(), h, n, "hand-written streaming SAXPY result");
    state.SetBytesProcessed(state.iterations() * n * 3 * sizeof(float));
}

const auto& saxpy_kernel() {
    static auto saxpy = rill::kernel("saxpy(a, x, y, r)", [](rill::Float a, rill::In<float> x, rill::In<float> y,
                                                           rill::Out<float> r) { r = a * x + y; });
    return saxpy;
}

void BM_RillSaxpy(benchmark::State& state) {
    rill::Runtime& rt = runtime();
    const auto& saxpy = saxpy_kernel();
    HostArrays& h = host_arrays();
    const std::int64_t n = state.range(0);
    auto x = rt.stream<float>({n}, std::span<const float>(h.x.get(), n));
    auto y = rt.stream<float>({n}, std::span<const float>(h.y.get(), n));
    auto r = rt.stream<float>({n});
    saxpy(2.0f, x, y, r);
    check_saxpy(r.download().data(), h, n, "rill SAXPY result");
    for (auto _ : state) {
        saxpy(2.0f, x, y, r);
        rt.finish();
    }
    state.SetBytesProcessed(state.iterations() * n * 3 * sizeof(float));
}

// The CPU SAXPY figure on a machine shared with other tenants: the TBB copy,
// rill SAXPY and the hand-written SAXPY take turns iteration by iteration, so
// that all three see the same machine, and the counters are ratios of median
// bandwidths (SAXPY moves 3 floats an element, copy 2).
void BM_SaxpyOverCopy(benchmark::State& state) {
    rill::Runtime& rt = runtime();
    const auto& saxpy = saxpy_kernel();
    HostArrays& h = host_arrays();
    auto x = rt.stream<float>({kBig}, std::span<const float>(h.x.get(), kBig));
    auto y = rt.stream<float>({kBig}, std::span<const float>(h.y.get(), kBig));
    auto r = rt.stream<float>({kBig});
    saxpy(2.0f, x, y, r);
    check_saxpy(r.download().data(), h, kBig, "rill SAXPY result");
    std::vector<double> copy, rill, hand;
    using Clock = std::chrono::steady_clock;
    auto timed = [](std::vector<double>& into, auto&& f) {
        const auto t0 = Clock::now();
        f();
        into.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    };
    for (auto _ : state) {
        timed(copy, [&] { tbb_copy(h); });
        timed(rill, [&] {
            saxpy(2.0f, x, y, r);
            rt.finish();
        });
        timed(hand, [&] { tbb_saxpy_streaming(h, kBig); });
    }
    check_saxpy(h.r.get(), h, kBig, "hand-written streaming SAXPY result");
    auto median = [](std::vector<double> v) {
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        return v[v.size() / 2];
    };
    state.counters["rill_over_copy"] = 1.5 * median(copy) / median(rill);
    state.counters["hand_over_copy"] = 1.5 * median(copy) / median(hand);
    state.counters["copy_GBps"] = 2.0 * kBig * sizeof(float) / median(copy) / 1e9;
}

// --- compute: 64 iterations of sin/cos/fma ------------------------------------

constexpr std::int64_t kCompute = 1 << 20;

float heavy_ref(float x) {
    float a = x, b = 0.5f;
    for (int i = 0; i < 64; ++i) {
        a = std::fma(std::sin(a), 0.9f, b);
        b = std::fma(std::cos(b), 0.8f, a * 0.01f);
    }
    return a + b;
}

void BM_TbbHeavy(benchmark::State& state) {
    std::vector<float> x(kCompute), r(kCompute);
    for (std::int64_t i = 0; i < kCompute; ++i) x[i] = float(i) * 1e-5f;
    for (auto _ : state) {
        tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, kCompute), [&](const auto& rg) {
            for (std::int64_t i = rg.begin(); i < rg.end(); ++i) r[i] = heavy_ref(x[i]);
        });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * kCompute);
}

void BM_RillHeavy(benchmark::State& state) {
    rill::Runtime& rt = runtime();
    auto heavy = rill::kernel("heavy(x, r)", [](rill::In<float> x, rill::Out<float> r) {
        rill::Float a = x, b = 0.5f;
        rill::For(0, 64, [&](rill::Int) {
            a = rill::fma(rill::sin(a), 0.9f, b);
            b = rill::fma(rill::cos(b), 0.8f, a * 0.01f);
        });
        r = a + b;
    });
    std::vector<float> hx(kCompute);
    for (std::int64_t i = 0; i < kCompute; ++i) hx[i] = float(i) * 1e-5f;
    auto x = rt.stream<float>({kCompute}, hx);
    auto r = rt.stream<float>({kCompute});
    heavy(x, r);
    std::vector<float> out = r.download();
    for (std::int64_t i = 0; i < kCompute; i += 997)
        check(std::fabs(out[i] - heavy_ref(hx[i])) <= 1e-3f * (1 + std::fabs(heavy_ref(hx[i]))), "rill heavy result");
    for (auto _ : state) {
        heavy(x, r);
        rt.finish();
    }
    state.SetItemsProcessed(state.iterations() * kCompute);
}

// --- Brook's reduction: sum of 2^20 float4 -------------------------------------

constexpr std::int64_t kSum4 = std::int64_t{1} << 20;

void BM_TbbSumFloat4(benchmark::State& state) {
    std::vector<rill::float4> v(kSum4, rill::float4{1.0f, 0.5f, 0.25f, 2.0f});
    for (auto _ : state) {
        auto total = tbb::parallel_reduce(
            tbb::blocked_range<std::int64_t>(0, kSum4), rill::float4{},
            [&](const auto& r, rill::float4 acc) {
                for (std::int64_t i = r.begin(); i < r.end(); ++i)
                    for (int c = 0; c < 4; ++c) acc[c] += v[i][c];
                return acc;
            },
            [](rill::float4 a, const rill::float4& b) {
                for (int c = 0; c < 4; ++c) a[c] += b[c];
                return a;
            });
        benchmark::DoNotOptimize(total);
    }
}

void BM_RillSumFloat4(benchmark::State& state) {
    rill::Runtime& rt = runtime();
    auto s = rt.stream<rill::float4>({kSum4}, std::vector<rill::float4>(kSum4, rill::float4{1.0f, 0.5f, 0.25f, 2.0f}));
    auto out = rt.stream<rill::float4>({1});
    check(rill::reductions::sum<rill::float4>().value(s).w == 2.0f * float(kSum4), "rill sum of float4");
    for (auto _ : state) {
        rill::reductions::sum<rill::float4>()(s, out);
        rt.finish();
    }
}

// --- SGEMV 1024^2: Brook's mul + sum against OpenBLAS ------------------------------

constexpr std::int64_t kGemv = 1024;

struct GemvData {
    std::vector<float> a, x;
    GemvData() : a(kGemv * kGemv), x(kGemv) {
        for (std::int64_t i = 0; i < kGemv * kGemv; ++i) a[i] = float(i % 17) * 0.25f;
        for (std::int64_t j = 0; j < kGemv; ++j) x[j] = float(j % 5);
    }
};

void BM_OpenBlasSgemv(benchmark::State& state) {
    static GemvData d;
    std::vector<float> y(kGemv);
    for (auto _ : state) {
        cblas_sgemv(CblasRowMajor, CblasNoTrans, kGemv, kGemv, 1.0f, d.a.data(), kGemv, d.x.data(), 1, 0.0f, y.data(), 1);
        benchmark::DoNotOptimize(y.data());
    }
}

void BM_RillSgemv(benchmark::State& state) {
    rill::Runtime& rt = runtime();
    static GemvData d;
    auto mul = rill::kernel("mul(a, b, c)", [](rill::In<float> a, rill::In<float> b, rill::Out<float> c) { c = a * b; });
    auto A = rt.stream<float>({kGemv, kGemv}, d.a);
    auto x = rt.stream<float>({1, kGemv}, d.x);
    auto T = rt.stream<float>({kGemv, kGemv});
    auto y = rt.stream<float>({kGemv, 1});
    mul(A, x, T);
    rill::reductions::sum<float>()(T, y);
    const std::vector<float> got = y.download();
    std::vector<float> want(kGemv);
    cblas_sgemv(CblasRowMajor, CblasNoTrans, kGemv, kGemv, 1.0f, d.a.data(), kGemv, d.x.data(), 1, 0.0f, want.data(), 1);
    for (std::int64_t i = 0; i < kGemv; ++i)
        check(std::fabs(got[i] - want[i]) <= 1e-4f * std::fabs(want[i]) + 1e-3f, "rill SGEMV against OpenBLAS");
    for (auto _ : state) {
        mul(A, x, T);
        rill::reductions::sum<float>()(T, y);
        rt.finish();
    }
}

// --- scan: exclusive sum of 2^24 uint32 -------------------------------------------

constexpr std::int64_t kScan = std::int64_t{1} << 24;

std::vector<std::uint32_t> scan_input() {
    std::vector<std::uint32_t> v(kScan);
    for (std::int64_t i = 0; i < kScan; ++i) v[i] = static_cast<std::uint32_t>((i * 2654435761u) >> 20);
    return v;
}

void BM_TbbScan(benchmark::State& state) {
    const std::vector<std::uint32_t> in = scan_input();
    std::vector<std::uint32_t> out(kScan);
    for (auto _ : state) {
        tbb::parallel_scan(
            tbb::blocked_range<std::int64_t>(0, kScan, 1 << 16), std::uint32_t{0},
            [&](const tbb::blocked_range<std::int64_t>& r, std::uint32_t acc, bool final) {
                for (std::int64_t i = r.begin(); i < r.end(); ++i) {
                    if (final) out[i] = acc;
                    acc += in[i];
                }
                return acc;
            },
            [](std::uint32_t a, std::uint32_t b) { return a + b; });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * kScan);
}

/// Arg: the rill::ScanAlgorithm (0 Auto, 1 SinglePass, 2 ReduceThenScan).
void BM_RillScan(benchmark::State& state) {
    rill::Runtime& rt = runtime();
    const std::vector<std::uint32_t> host = scan_input();
    auto in = rt.stream<std::uint32_t>({kScan}, host);
    auto out = rt.stream<std::uint32_t>({kScan});
    const rill::ScanOptions options{static_cast<rill::ScanAlgorithm>(state.range(0))};
    rill::exclusive_scan(in, out, rill::ScanOp::Add, options);
    const std::vector<std::uint32_t> got = out.download();
    std::uint32_t acc = 0;
    for (std::int64_t i = 0; i < kScan; ++i) {
        if (i % 4099 == 0) check(got[i] == acc, "rill exclusive scan");
        acc += host[i];
    }
    for (auto _ : state) {
        rill::exclusive_scan(in, out, rill::ScanOp::Add, options);
        rt.finish();
    }
    state.SetItemsProcessed(state.iterations() * kScan);
}

// Reduce and compaction (keep the even values) of the scan's input, beside
// tbb::parallel_reduce and a two-pass tbb::parallel_scan compaction.

void BM_TbbReduce(benchmark::State& state) {
    const std::vector<std::uint32_t> in = scan_input();
    for (auto _ : state) {
        std::uint32_t total = tbb::parallel_reduce(
            tbb::blocked_range<std::int64_t>(0, kScan, 1 << 16), std::uint32_t{0},
            [&](const tbb::blocked_range<std::int64_t>& r, std::uint32_t acc) {
                for (std::int64_t i = r.begin(); i < r.end(); ++i) acc += in[i];
                return acc;
            },
            [](std::uint32_t a, std::uint32_t b) { return a + b; });
        benchmark::DoNotOptimize(total);
    }
    state.SetItemsProcessed(state.iterations() * kScan);
}

void BM_RillReduce(benchmark::State& state) {
    rill::Runtime& rt = runtime();
    const std::vector<std::uint32_t> host = scan_input();
    auto in = rt.stream<std::uint32_t>({kScan}, host);
    auto total = rt.stream<std::uint32_t>({1});
    std::uint32_t want = 0;
    for (std::uint32_t v : host) want += v;
    check(rill::reduce(in) == want, "rill reduce");
    for (auto _ : state) {
        rill::reduce(in, total);
        rt.finish();
    }
    state.SetItemsProcessed(state.iterations() * kScan);
}

bool even(std::uint32_t x) { return (x & 1u) == 0u; }

void BM_TbbCompact(benchmark::State& state) {
    const std::vector<std::uint32_t> in = scan_input();
    std::vector<std::uint32_t> out(kScan);
    for (auto _ : state) {
        tbb::parallel_scan(
            tbb::blocked_range<std::int64_t>(0, kScan, 1 << 16), std::int64_t{0},
            [&](const tbb::blocked_range<std::int64_t>& r, std::int64_t at, bool final) {
                for (std::int64_t i = r.begin(); i < r.end(); ++i)
                    if (even(in[i])) {
                        if (final) out[at] = in[i];
                        ++at;
                    }
                return at;
            },
            [](std::int64_t a, std::int64_t b) { return a + b; });
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * kScan);
}

void BM_RillCompact(benchmark::State& state) {
    rill::Runtime& rt = runtime();
    const std::vector<std::uint32_t> host = scan_input();
    auto in = rt.stream<std::uint32_t>({kScan}, host);
    auto out = rt.stream<std::uint32_t>({kScan});
    auto count = rt.stream<std::uint32_t>({1});
    const rill::Filter<std::uint32_t> keep("even", [](rill::Expr<std::uint32_t> x) { return (x & 1u) == 0u; });
    std::vector<std::uint32_t> want;
    std::copy_if(host.begin(), host.end(), std::back_inserter(want), even);
    const std::int64_t kept = keep(in, out);
    std::vector<std::uint32_t> got = out.download();
    got.resize(static_cast<std::size_t>(kept));
    check(got == want, "rill compaction");
    for (auto _ : state) {
        keep(in, out, count);
        rt.finish();
    }
    state.SetItemsProcessed(state.iterations() * kScan);
}

// --- sort: 2^24 random uint32 keys (the CPU figure's size) ----------------------------

constexpr std::int64_t kSort = std::int64_t{1} << 24;

std::vector<std::uint32_t> sort_input() {
    std::vector<std::uint32_t> v(kSort);
    std::uint32_t s = 987654321u;
    for (auto& x : v) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        x = s;
    }
    return v;
}

void BM_TbbSort(benchmark::State& state) {
    const std::vector<std::uint32_t> in = sort_input();
    std::vector<std::uint32_t> v;
    for (auto _ : state) {
        state.PauseTiming();
        v = in;
        state.ResumeTiming();
        tbb::parallel_sort(v.begin(), v.end());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * kSort);
}

void BM_RillRadixSort(benchmark::State& state) {
    rill::Runtime& rt = runtime();
    const std::vector<std::uint32_t> host = sort_input();
    auto keys = rt.stream<std::uint32_t>({kSort}, host);
    rill::radix_sort(keys);
    std::vector<std::uint32_t> want = host;
    std::sort(want.begin(), want.end());
    check(keys.download() == want, "rill radix sort");
    for (auto _ : state) {
        state.PauseTiming();
        keys.upload(host);
        rt.finish();
        state.ResumeTiming();
        rill::radix_sort(keys);
        rt.finish();
    }
    state.SetItemsProcessed(state.iterations() * kSort);
}

// --- host overhead --------------------------------------------------------------

// --- ScatterOp add: 2^24 values into 2^10 or 2^20 bins ---------------------------

constexpr std::int64_t kScatter = std::int64_t{1} << 24;

struct ScatterInput {
    std::vector<std::uint32_t> values;
    std::vector<std::int32_t> index;
    std::vector<std::uint32_t> want;
    explicit ScatterInput(int bins_log2) : values(kScatter), index(kScatter), want(std::size_t{1} << bins_log2) {
        std::uint32_t x = 12345u;
        for (std::int64_t i = 0; i < kScatter; ++i) {
            x = x * 1664525u + 1013904223u;
            index[i] = static_cast<std::int32_t>(x >> (32 - bins_log2));
            values[i] = x & 7u;
            want[index[i]] += values[i];
        }
    }
};

const ScatterInput& scatter_input(int bins_log2) {
    static const ScatterInput small(10), large(20);
    return bins_log2 == 10 ? small : large;
}

void BM_TbbScatterAdd(benchmark::State& state) {
    const ScatterInput& in = scatter_input(static_cast<int>(state.range(0)));
    std::vector<std::uint32_t> bins(in.want.size());
    for (auto _ : state) {
        state.PauseTiming();
        std::fill(bins.begin(), bins.end(), 0u);
        state.ResumeTiming();
        tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, kScatter, 1 << 14), [&](const auto& rg) {
            for (std::int64_t i = rg.begin(); i < rg.end(); ++i)
                std::atomic_ref<std::uint32_t>(bins[in.index[i]]).fetch_add(in.values[i], std::memory_order_relaxed);
        });
    }
    check(bins == in.want, "TBB scatter add result");
    state.SetItemsProcessed(state.iterations() * kScatter);
}

void BM_RillScatterAdd(benchmark::State& state) {
    rill::Runtime& rt = runtime();
    const ScatterInput& in = scatter_input(static_cast<int>(state.range(0)));
    auto values = rt.stream<std::uint32_t>({kScatter}, in.values);
    auto index = rt.stream<std::int32_t>({kScatter}, in.index);
    auto bins = rt.stream<std::uint32_t>({static_cast<std::int64_t>(in.want.size())});
    rill::scatter_op(values, index, bins, rill::Combine::Add);
    check(bins.download() == in.want, "rill scatter add result");
    for (auto _ : state) {
        rill::scatter_op(values, index, bins, rill::Combine::Add);
        rt.finish();
    }
    state.SetItemsProcessed(state.iterations() * kScatter);
}

void BM_RepeatCallHostTime(benchmark::State& state) {
    rill::Runtime& rt = runtime();
    auto k = rill::kernel("tiny(x, r)", [](rill::In<float> x, rill::Out<float> r) { r = x + 1.0f; });
    auto x = rt.stream<float>({1});
    auto r = rt.stream<float>({1});
    k(x, r);  // compile once
    for (auto _ : state) k(x, r);
    rt.finish();
}

void BM_TraceKernel(benchmark::State& state) {
    for (auto _ : state) {
        auto k = rill::kernel("saxpy(a, x, y, r)", [](rill::Float a, rill::In<rill::float4> x, rill::In<rill::float4> y,
                                                    rill::Out<rill::float4> r) { r = a * x + y; });
        benchmark::DoNotOptimize(k);
    }
}

}  // namespace

BENCHMARK(BM_TbbCopy)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TbbSaxpy)->Arg(kBig)->Arg(kInCache)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TbbSaxpyStreaming)->Arg(kBig)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RillSaxpy)->Arg(kBig)->Arg(kInCache)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SaxpyOverCopy)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TbbHeavy)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RillHeavy)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TbbSumFloat4)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RillSumFloat4)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_OpenBlasSgemv)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RillSgemv)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TbbScan)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RillScan)->ArgName("algorithm")->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TbbReduce)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RillReduce)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TbbCompact)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RillCompact)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TbbSort)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RillRadixSort)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TbbScatterAdd)->Arg(10)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RillScatterAdd)->Arg(10)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RepeatCallHostTime)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TraceKernel)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
