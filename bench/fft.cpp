// rill's FFT on any backend, with FFTW (single precision, FFTW_MEASURE, the
// machine's threads) on this machine's CPU in the same run:
//
//   RILL_BACKEND=vulkan rill-bench-fft [--elements-log2 26] [--peer-threads N] [--no-fftw] [output.json]
//
// Workloads: Brook's 2D FFT (4 x 1024^2 complex, forward), 2D 4096^2, 1D
// 2^24, a real-to-complex 2D 1024^2, and batched 1D complex transforms of
// lengths 2 .. 4096 with about 2^elements-log2 elements per batch. Each plan
// runs its specialized kernels (Plan::specialize), and each result is checked
// against FFTW before it is timed; times are the kernels' device times,
// medians of 5 batches after a warm-up (bench/timing.h). Also the plan cost:
// the first transform of the process (the generic kernel traced and compiled,
// or loaded from the disk cache), a new shape's plan after it, and that
// plan's specialized kernels. Transforms of several dimensions or of lines
// longer than 1000 print where one call goes, kernel by kernel.
// MFLOPS count 5 N log2 N per complex transform of N, as Brook's paper and
// FFTW do. GPU peers: bench/gpu/torch_fft.py (cuFFT) with the same JSON keys
// (--no-fftw leaves FFTW out there: its FFTW_MEASURE planning of 2^26
// elements takes minutes).
#include <fftw3.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <rill/algorithms/fft.h>
#include <rill/rill.h>

#include "timing.h"

namespace {

namespace fft = rill::fft;

std::vector<rill::float2> random_complex(std::size_t n, std::uint64_t seed) {
    std::vector<rill::float2> v(n);
    std::uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    auto next = [&] {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<float>(static_cast<std::int32_t>(s >> 32)) * 0x1p-31f;
    };
    for (auto& x : v) x = rill::float2{next(), next()};
    return v;
}

struct Row {
    std::string key, label;
    double rill_ms = 0, fftw_ms = 0, flops = 0;
};

/// FFTW's single-precision plan for the same batched transform, measured.
struct FftwPeer {
    std::vector<std::complex<float>> in, out;
    fftwf_plan plan = nullptr;
    FftwPeer(const rill::Shape& shape, int dims, bool real, unsigned flags = FFTW_MEASURE) : in(shape.size()), out(shape.size()) {
        std::vector<int> n;
        int per = 1;
        for (int i = shape.rank - dims; i < shape.rank; ++i) n.push_back(static_cast<int>(shape[i])), per *= n.back();
        const int batch = static_cast<int>(shape.size() / per);
        if (real) {
            const int half = per / n.back() * (n.back() / 2 + 1);
            plan = fftwf_plan_many_dft_r2c(dims, n.data(), batch, reinterpret_cast<float*>(in.data()), nullptr, 1, per,
                                           reinterpret_cast<fftwf_complex*>(out.data()), nullptr, 1, half, flags);
        } else {
            plan = fftwf_plan_many_dft(dims, n.data(), batch, reinterpret_cast<fftwf_complex*>(in.data()), nullptr, 1, per,
                                       reinterpret_cast<fftwf_complex*>(out.data()), nullptr, 1, per, FFTW_FORWARD,
                                       flags);
        }
    }
    ~FftwPeer() { fftwf_destroy_plan(plan); }
    double time() {
        return rill::bench::host_median_ms([&] { fftwf_execute(plan); });
    }
};

/// Checks rill's transform of x against FFTW in single precision (whose error is about rill's).
void check(const std::vector<rill::float2>& got, const std::vector<rill::float2>& x, const rill::Shape& shape, int dims,
           const std::string& what) {
    FftwPeer peer(shape, dims, false, FFTW_ESTIMATE);
    for (std::size_t i = 0; i < x.size(); ++i) peer.in[i] = {x[i].x, x[i].y};
    fftwf_execute(peer.plan);
    double err = 0, norm = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        err += std::norm(std::complex<double>(got[i].x, got[i].y) - std::complex<double>(peer.out[i]));
        norm += std::norm(std::complex<double>(peer.out[i]));
    }
    if (!(std::sqrt(err / norm) < 1e-5)) rill::bench::fail(what + ": relative L2 error " + std::to_string(std::sqrt(err / norm)));
}

}  // namespace

int main(int argc, char** argv) {
    int elements_log2 = 26, threads = static_cast<int>(std::thread::hardware_concurrency());
    std::string json;
    bool fftw = true;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--elements-log2") && i + 1 < argc) elements_log2 = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--peer-threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--no-fftw")) fftw = false;
        else if (argv[i][0] != '-' && json.empty()) json = argv[i];
        else rill::bench::exit_with_usage(argv[i], "[RILL_BACKEND=cpu|vulkan|opengl] rill-bench-fft [--elements-log2 K (26)] "
                                                   "[--peer-threads N] [--no-fftw] [output.json]");
    }
    fftwf_init_threads();
    fftwf_plan_with_nthreads(threads);
    rill::Runtime rt;
    rt.set_profiling(true);
    std::printf("backend %s: %s; FFTW %s with %d threads\n", rt.backend_name().c_str(), rt.info().device.c_str(),
                fftwf_version, threads);
    std::vector<Row> rows;
    auto time = [&](auto&& f) { return rill::bench::median_ms(10, 5, f, rt).device_ms; };
    const std::int64_t budget = std::int64_t{1} << elements_log2;

    // Plan cost: the first transform of the process, then a new shape's plan.
    double first_ms = 0, new_shape_ms = 0, specialize_ms = 0;
    {
        auto x = rt.stream<rill::float2>({1000}, random_complex(1000, 9));
        auto t0 = rill::bench::Clock::now();
        fft::forward(x, x);
        x.download();
        first_ms = std::chrono::duration<double, std::milli>(rill::bench::Clock::now() - t0).count();
        t0 = rill::bench::Clock::now();
        auto plan = fft::Plan::c2c(rt, {3, 1536}, 1, fft::Direction::Forward);
        new_shape_ms = std::chrono::duration<double, std::milli>(rill::bench::Clock::now() - t0).count();
        auto x3 = rt.stream<rill::float2>({3, 1536}, random_complex(3 * 1536, 9)), y3 = rt.stream<rill::float2>({3, 1536});
        t0 = rill::bench::Clock::now();
        plan.specialize();  // traced here, compiled at their first call
        plan(x3, y3);
        y3.download();
        specialize_ms = std::chrono::duration<double, std::milli>(rill::bench::Clock::now() - t0).count();
    }

    auto c2c = [&](const rill::Shape& shape, int dims, const std::string& key, const std::string& label) {
        const std::uint64_t most = rt.info().limits.max_buffer_bytes;
        if (most && static_cast<std::uint64_t>(shape.size()) * 8 > most) {
            std::printf("%s skipped: larger than this device's streams\n", label.c_str());
            return;
        }
        const auto hx = random_complex(static_cast<std::size_t>(shape.size()), 1);
        auto x = rt.stream<rill::float2>(shape, hx), y = rt.stream<rill::float2>(shape);
        const auto plan = fft::Plan::c2c(rt, shape, dims, fft::Direction::Forward);
        plan.specialize();
        plan(x, y);
        check(y.download(), hx, shape, dims, label);
        Row r{key, label};
        r.rill_ms = time([&] { plan(x, y); });
        if (dims > 1 || shape[shape.rank - 1] > 1000) {
            // Where a transform of several passes or long lines goes, kernel by kernel.
            std::printf("%s: %s\n", label.c_str(), rill::bench::breakdown(rt, [&] { plan(x, y); }).c_str());
            rt.set_profiling(true);
        }
        if (fftw) r.fftw_ms = FftwPeer(shape, dims, false).time();
        std::int64_t per = 1;
        for (int i = shape.rank - dims; i < shape.rank; ++i) per *= shape[i];
        r.flops = 5.0 * static_cast<double>(shape.size()) * std::log2(static_cast<double>(per));
        rows.push_back(r);
    };

    if (rill::bench::section("2d")) {
        c2c({4, 1024, 1024}, 2, "fft2_4x1024x1024_ms", "2D C2C 4 x 1024^2 (Brook's FFT)");
        if (budget >= (std::int64_t{1} << 24)) c2c({4096, 4096}, 2, "fft2_4096x4096_ms", "2D C2C 4096^2");
        // Real-to-complex 2D 1024^2.
        const rill::Shape shape{1024, 1024};
        const auto hr = random_complex(shape.size() / 2, 3);
        std::vector<float> real(reinterpret_cast<const float*>(hr.data()), reinterpret_cast<const float*>(hr.data()) + shape.size());
        auto x = rt.stream<float>(shape, real);
        auto y = rt.stream<rill::float2>({1024, 513});
        const auto plan = fft::Plan::r2c(rt, shape, 2);
        plan.specialize();
        Row r{"rfft2_1024x1024_ms", "2D R2C 1024^2"};
        r.rill_ms = time([&] { plan(x, y); });
        std::printf("%s: %s\n", r.label.c_str(), rill::bench::breakdown(rt, [&] { plan(x, y); }).c_str());
        rt.set_profiling(true);
        if (fftw) r.fftw_ms = FftwPeer(shape, 2, true).time();
        r.flops = 2.5 * static_cast<double>(shape.size()) * std::log2(static_cast<double>(shape.size()));
        rows.push_back(r);
    }
    // RILL_BENCH_ONLY=2e24: the long 1D transform alone (its strided passes), without the batched lengths.
    if ((rill::bench::section("1d") || rill::bench::section("2e24")) && budget >= (std::int64_t{1} << 24))
        c2c({std::int64_t{1} << 24}, 1, "fft_2e24_ms", "1D C2C 2^24");
    if (rill::bench::section("1d")) {
        for (std::int64_t n : {2, 3, 5, 7, 8, 13, 16, 17, 60, 64, 100, 128, 243, 256, 625, 1000, 1009, 1024, 2048, 2187,
                               3125, 4096}) {
            const std::int64_t batch = std::max<std::int64_t>(1, budget / n);
            c2c({batch, n}, 1, "fft_batched_" + std::to_string(n) + "_ms",
                "1D C2C " + std::to_string(batch) + " x " + std::to_string(n));
        }
    }

    std::printf("\nplan cost: the process's first transform (trace + compile or disk cache) %.1f ms; a new shape's plan "
                "%.2f ms; its specialized kernels and a transform with them (trace + compile or disk cache) %.1f ms\n", first_ms, new_shape_ms,
                specialize_ms);
    std::printf("\n| workload | rill | MFLOPS (5 N log2 N) | FFTW on this host's CPU | rill / FFTW (speed) |\n|---|---|---|---|---|\n");
    std::ostringstream out;
    out << "{\"backend\":\"" << rt.backend_name() << "\",\"device\":\"" << rt.info().device << "\",\"first_transform_ms\":"
        << first_ms << ",\"new_plan_ms\":" << new_shape_ms << ",\"specialize_ms\":" << specialize_ms;
    for (const Row& r : rows) {
        std::printf("| %s | %.4f ms | %.0f | %.4f ms | %.3f |\n", r.label.c_str(), r.rill_ms, r.flops / r.rill_ms / 1e3,
                    r.fftw_ms, r.fftw_ms / r.rill_ms);
        out << ",\"" << r.key << "\":" << r.rill_ms << ",\"fftw_" << r.key << "\":" << r.fftw_ms;
    }
    out << "}\n";
    if (!json.empty()) std::ofstream(json) << out.str();
    return 0;
}
