// rill's BLAS over a sweep of sizes and shapes, on any backend, with OpenBLAS
// on this machine's CPU in the same run (the CPU backend's peer):
//
//   RILL_BACKEND=vulkan rill-bench-blas [--max-log2 28] [output.json]
//
// Level 1 at 2^20 .. 2^max elements, SGEMV with op(A) = A and A^T on square,
// short-and-wide and tall-and-narrow matrices, SGEMM on cubes. Each result is
// checked against a float64 host computation (sampled for large products)
// before it is timed; times are the kernels' device times, medians of 5
// batches after a warm-up (bench/timing.h). The GPU peers (cuBLAS through
// PyTorch) come from bench/gpu/torch_blas.py with the same JSON keys;
// bench/table.py prints the ratios.
#include <cblas.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <rill/algorithms/blas.h>
#include <rill/rill.h>

#include "timing.h"

namespace {

using rill::blas::Op;

/// Uniform floats in [-1, 1) from a fast generator (gigabytes of inputs).
std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
    std::vector<float> v(n);
    std::uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    for (auto& x : v) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x = static_cast<float>(static_cast<std::int32_t>(s >> 32)) * 0x1p-31f;
    }
    return v;
}

struct Row {
    std::string key, label;
    double rill_ms = 0, openblas_ms = 0, bytes = 0, flops = 0;
};

void check(bool ok, const std::string& what) {
    if (!ok) rill::bench::fail(what);
}

std::string log2_name(int l) { return "2e" + std::to_string(l); }

}  // namespace

int main(int argc, char** argv) {
    int max_log2 = 28;
    std::string json;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--max-log2") && i + 1 < argc) max_log2 = std::atoi(argv[++i]);
        else if (argv[i][0] != '-' && json.empty()) json = argv[i];
        else {
            std::fprintf(stderr, "usage: [RILL_BACKEND=cpu|vulkan|opengl] [RILL_BENCH_ONLY=level1|gemv|gemm] rill-bench-blas "
                                 "[--max-log2 N (28)] [output.json]\n");
            return std::strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    try {
        rill::Runtime rt;
        rt.set_profiling(true);
        const bool cpu = rt.backend_name() == "cpu";
        std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
        std::vector<Row> rows;
        auto time = [&](auto&& f) { return rill::bench::median_ms(10, 5, f, rt).device_ms; };
        auto time_host = [&](auto&& f) { return rill::bench::host_median_ms(f); };

        if (rill::bench::section("level1")) {
            for (int l = 20; l <= max_log2; l += 4) {
                const std::int64_t n = std::int64_t{1} << l;
                if (const std::uint64_t most = rt.info().limits.max_buffer_bytes; most && static_cast<std::uint64_t>(4 * n) > most) {
                    std::printf("level 1 at 2^%d skipped: x is larger than one stream may be on this device\n", l);
                    continue;
                }
                const auto hx = random_floats(static_cast<std::size_t>(n), 1), hy = random_floats(static_cast<std::size_t>(n), 2);
                auto x = rt.stream<float>({n}, hx), y = rt.stream<float>({n}, hy);
                double want = 0, mag = 0;
                for (std::int64_t i = 0; i < n; ++i) want += double(hx[i]) * hy[i], mag += std::fabs(double(hx[i]) * hy[i]);
                check(std::fabs(rill::blas::dot(x, y) - want) <= 1e-6 * mag + 1e-3, "dot of " + log2_name(l));
                auto r = rt.stream<float>({1});
                Row dot{"dot_" + log2_name(l) + "_ms", "SDOT 2^" + std::to_string(l)};
                dot.rill_ms = time([&] { rill::blas::dot(x, y, r); });
                dot.openblas_ms = time_host([&] { (void)cblas_sdot(blasint(n), hx.data(), 1, hy.data(), 1); });
                dot.bytes = 8.0 * n;
                rows.push_back(dot);
                Row axpy{"axpy_" + log2_name(l) + "_ms", "SAXPY 2^" + std::to_string(l)};
                axpy.rill_ms = time([&] { rill::blas::axpy(1e-3f, x, y); });
                std::vector<float> hy2 = hy;
                axpy.openblas_ms = time_host([&] { cblas_saxpy(blasint(n), 1e-3f, hx.data(), 1, hy2.data(), 1); });
                axpy.bytes = 12.0 * n;
                rows.push_back(axpy);
            }
        }

        if (rill::bench::section("gemv")) {
            struct Shape {
                std::int64_t m, n;
            };
            std::vector<Shape> shapes = {{1024, 1024}, {8192, 8192}, {16384, 16384}, {512, 1 << 20}, {1 << 20, 512}, {32, 1 << 22}, {1 << 22, 32}};
            if (cpu) shapes = {{1024, 1024}, {4096, 4096}, {64, 1 << 18}, {1 << 18, 64}};
            for (const Shape s : shapes) {
                const std::uint64_t most = rt.info().limits.max_buffer_bytes;
                if (most && static_cast<std::uint64_t>(4 * s.m * s.n) > most) {
                    std::printf("SGEMV %lldx%lld skipped: the matrix is larger than one stream may be on this device\n",
                                static_cast<long long>(s.m), static_cast<long long>(s.n));
                    continue;
                }
                const auto ha = random_floats(static_cast<std::size_t>(s.m * s.n), 3);
                auto A = rt.stream<float>({s.m, s.n}, ha);
                for (Op op : {Op::N, Op::T}) {
                    const bool t = op == Op::T;
                    const std::int64_t rows_out = t ? s.n : s.m, cols = t ? s.m : s.n;
                    const auto hx = random_floats(static_cast<std::size_t>(cols), 4);
                    auto x = rt.stream<float>({cols}, hx);
                    auto y = rt.stream<float>({rows_out});
                    rill::blas::gemv(op, 1.0f, A, x, 0.0f, y);
                    const auto got = y.download();
                    const std::int64_t step = std::max<std::int64_t>(1, rows_out / 256);
                    for (std::int64_t i = 0; i < rows_out; i += step) {
                        double want = 0, mag = 0;
                        for (std::int64_t j = 0; j < cols; ++j) {
                            const double a = t ? ha[j * s.n + i] : ha[i * s.n + j];
                            want += a * hx[j], mag += std::fabs(a * hx[j]);
                        }
                        check(std::fabs(got[i] - want) <= 1e-6 * mag + 1e-5, "gemv row " + std::to_string(i));
                    }
                    const std::string shape = std::to_string(s.m) + "x" + std::to_string(s.n);
                    Row row{std::string("gemv_") + (t ? "t" : "n") + "_" + shape + "_ms", std::string("SGEMV ") + (t ? "A^T x, A " : "A x, A ") + shape};
                    row.rill_ms = time([&] { rill::blas::gemv(op, 1.0f, A, x, 0.0f, y); });
                    std::vector<float> hy(static_cast<std::size_t>(rows_out));
                    row.openblas_ms = time_host([&] {
                        cblas_sgemv(CblasRowMajor, t ? CblasTrans : CblasNoTrans, blasint(s.m), blasint(s.n), 1.0f, ha.data(), blasint(s.n),
                                    hx.data(), 1, 0.0f, hy.data(), 1);
                    });
                    row.bytes = 4.0 * (s.m * s.n + s.m + s.n);
                    rows.push_back(row);
                }
            }
        }

        if (rill::bench::section("gemm")) {
            struct Case {
                std::int64_t size;
                Op a, b;
            };
            // 4000^3: a product whose tiles overrun C's edge (the clamped kernels, docs/PERFORMANCE.md#blas).
            std::vector<Case> cases = {{1024, Op::N, Op::N}, {4096, Op::N, Op::N}, {8192, Op::N, Op::N},
                                       {4096, Op::N, Op::T}, {4096, Op::T, Op::N}, {4000, Op::N, Op::N}};
            if (cpu) cases = {{512, Op::N, Op::N}, {1024, Op::N, Op::N}, {1024, Op::N, Op::T}, {1024, Op::T, Op::N}};
            for (const Case c : cases) {
                const std::int64_t n = c.size;
                const auto ha = random_floats(static_cast<std::size_t>(n * n), 5), hb = random_floats(static_cast<std::size_t>(n * n), 6);
                auto A = rt.stream<float>({n, n}, ha), B = rt.stream<float>({n, n}, hb), C = rt.stream<float>({n, n});
                const bool ta = c.a == Op::T, tb = c.b == Op::T;
                rill::blas::gemm(c.a, c.b, 1.0f, A, B, 0.0f, C);
                const auto got = C.download();
                for (int probe = 0; probe < 64; ++probe) {
                    const std::int64_t i = (probe * 7919) % n, j = (probe * 104729) % n;
                    double want = 0, mag = 0;
                    for (std::int64_t p = 0; p < n; ++p) {
                        const double a = ta ? ha[p * n + i] : ha[i * n + p], b = tb ? hb[j * n + p] : hb[p * n + j];
                        want += a * b, mag += std::fabs(a * b);
                    }
                    check(std::fabs(got[i * n + j] - want) <= 1e-5 * mag + 1e-5, "gemm element " + std::to_string(i) + ", " + std::to_string(j));
                }
                const std::string ops = std::string(ta ? "t" : "n") + (tb ? "t" : "n");
                Row row{"gemm_" + ops + "_" + std::to_string(n) + "_ms", "SGEMM " + ops + " " + std::to_string(n) + "^3"};
                row.rill_ms = time([&] { rill::blas::gemm(c.a, c.b, 1.0f, A, B, 0.0f, C); });
                std::vector<float> hc(static_cast<std::size_t>(n * n));
                row.openblas_ms = time_host([&] {
                    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, blasint(n), blasint(n), blasint(n),
                                1.0f, ha.data(), blasint(n), hb.data(), blasint(n), 0.0f, hc.data(), blasint(n));
                });
                row.flops = 2.0 * n * n * n;
                rows.push_back(row);
            }
        }

        std::printf("\n| workload | rill | rate | OpenBLAS on this host's CPU | rill / OpenBLAS (speed) |\n|---|---|---|---|---|\n");
        std::ostringstream out;
        out << "{\"backend\":\"" << rt.backend_name() << "\",\"device\":\"" << rt.info().device << "\"";
        for (const Row& r : rows) {
            const std::string rate = r.flops > 0 ? std::to_string(r.flops / r.rill_ms / 1e9).substr(0, 7) + " TFLOP/s"
                                                 : std::to_string(r.bytes / r.rill_ms / 1e6).substr(0, 7) + " GB/s";
            std::printf("| %s | %.4f ms | %s | %.4f ms | %.3f |\n", r.label.c_str(), r.rill_ms, rate.c_str(), r.openblas_ms,
                        r.openblas_ms / r.rill_ms);
            out << ",\"" << r.key << "\":" << r.rill_ms << ",\"openblas_" << r.key << "\":" << r.openblas_ms;
        }
        out << "}\n";
        if (!json.empty()) std::ofstream(json) << out.str();
    } catch (const rill::Error& e) {
        std::fprintf(stderr, "rill-bench-blas: %s\n", e.what());
        return 1;
    }
    return 0;
}
