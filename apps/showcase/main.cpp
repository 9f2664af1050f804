// rill-showcase: a few Brook-paper kernels on the best backend, with timings.
//
//   rill-showcase [--mesh file.obj] [--size WxH] [--out image.png]
//
// SAXPY on 2^22 float4, SGEMV (1024 x 1024) through mul + sum, and primary
// rays against a triangle mesh (a procedural torus unless --mesh is given)
// through a BVH built on the device, written as a PNG.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "scene.h"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

int run(int argc, char** argv) {
    std::string mesh_path, out_path = "showcase.png";
    int width = 320, height = 240;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--mesh" && i + 1 < argc) mesh_path = argv[++i];
        else if (a == "--out" && i + 1 < argc) out_path = argv[++i];
        else if (a == "--size" && i + 1 < argc && std::sscanf(argv[++i], "%dx%d", &width, &height) == 2) {}
        else {
            std::fprintf(stderr, "usage: %s [--mesh file.obj] [--size WxH] [--out image.png]\n", argv[0]);
            return 2;
        }
    }

    rill::Runtime rt;
    std::printf("rill showcase on backend '%s' (%s)\n\n", rt.backend_name().c_str(), rt.info().device.c_str());

    // SAXPY (Brook section 3.2).
    auto saxpy = rill::kernel("saxpy(a, x, y, result)", [](rill::Float a, rill::In<rill::float4> x,
                                                         rill::In<rill::float4> y, rill::Out<rill::float4> result) {
        result = a * x + y;
    });
    const std::int64_t n = 1 << 22;
    std::vector<rill::float4> hx(n, rill::float4{1, 2, 3, 4}), hy(n, rill::float4{0.5f, 0.5f, 0.5f, 0.5f});
    auto x = rt.stream<rill::float4>({n}, hx);
    auto y = rt.stream<rill::float4>({n}, hy);
    auto r = rt.stream<rill::float4>({n});
    saxpy(2.0f, x, y, r);  // first call compiles
    rt.finish();
    auto t0 = Clock::now();
    const int reps = 10;
    for (int i = 0; i < reps; ++i) saxpy(2.0f, x, y, r);
    rt.finish();
    const double saxpy_ms = ms_since(t0) / reps;
    const rill::float4 s = r.download()[n / 2];
    std::printf("SAXPY   2^22 float4   %8.3f ms  %6.1f GB/s   r[n/2] = (%g, %g, %g, %g)\n", saxpy_ms,
                3.0 * n * sizeof(rill::float4) / saxpy_ms / 1e6, s.x, s.y, s.z, s.w);

    // SGEMV through mul + sum (Brook section 3.3): T = A * x, y = row sums of T.
    auto mul = rill::kernel("mul(a, b, c)", [](rill::In<float> a, rill::In<float> b, rill::Out<float> c) { c = a * b; });
    auto sum = rill::reduction("sum", [](rill::In<float> a, rill::Reduce<float> acc) { acc += a; });
    const std::int64_t m = 1024;
    std::vector<float> hA(m * m), hv(m);
    for (std::int64_t i = 0; i < m * m; ++i) hA[i] = static_cast<float>((i * 7919) % 101) / 101.0f - 0.5f;
    for (std::int64_t j = 0; j < m; ++j) hv[j] = static_cast<float>(j % 13) / 13.0f;
    auto A = rt.stream<float>({m, m}, hA);
    auto xv = rt.stream<float>({1, m}, hv);
    auto T = rt.stream<float>({m, m});
    auto yv = rt.stream<float>({m, 1});
    mul(A, xv, T);
    sum(T, yv);
    rt.finish();
    t0 = Clock::now();
    for (int i = 0; i < reps; ++i) {
        mul(A, xv, T);
        sum(T, yv);
    }
    rt.finish();
    const double gemv_ms = ms_since(t0) / reps;
    std::vector<float> got = yv.download();
    double err = 0;
    for (std::int64_t i = 0; i < m; ++i) {
        double want = 0;
        for (std::int64_t j = 0; j < m; ++j) want += double(hA[i * m + j]) * hv[j];
        err = std::max(err, std::fabs(want - got[i]));
    }
    std::printf("SGEMV   1024x1024     %8.3f ms  max error vs float64 %.2g\n", gemv_ms, err);

    // Primary rays against a mesh through a BVH built on the device (Brook
    // section 3.2 tested every ray against every triangle; that kernel is
    // trace_primary_rays, the tests' reference).
    std::vector<rill::showcase::Triangle> mesh =
        mesh_path.empty() ? rill::showcase::make_torus(48, 24, 0.9f, 0.35f) : rill::showcase::load_obj(mesh_path);
    t0 = Clock::now();
    rill::showcase::Image img = rill::showcase::trace_primary_rays_bvh(rt, mesh, width, height);
    const double trace_ms = ms_since(t0);
    std::size_t hits = 0;
    for (const auto& h : img.hits) hits += h.w >= 0;
    rill::showcase::write_png(out_path, width, height, rill::showcase::shade(img, mesh));
    std::printf("Rays    %dx%d vs %zu triangles  %8.1f ms (first call: tracing, compiling, the BVH build)  %.1f M rays/s\n",
                width, height, mesh.size(), trace_ms, double(width) * height / trace_ms / 1e3);
    std::printf("        %zu pixels hit the mesh; image written to %s\n", hits, out_path.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const rill::Error& e) {
        std::fprintf(stderr, "rill-showcase: %s\n", e.what());
        return 1;
    }
}
