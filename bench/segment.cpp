// Brook's Segment on any backend (rill/algorithms/segment.h), with the
// figures of its issue side by side:
//
//   RILL_BACKEND=vulkan rill-bench-segment [--size-log2 11] [--iterations 200] [--threads N] [output.json]
//
// - one diffusion iteration on a 2^k square float image (the mean of a call
//   of 8, so that passes of several iterations, rill::StencilOptions, count
//   as they run) against a copy of the same image (the bytes an iteration
//   must move: one read, one write), device times, medians of 5 after a
//   warm-up; beside it the same dispatches with a linear 5-point body (what the
//   tiles, halos and barriers cost without the exp);
// - one iteration of a 3D stencil (the 7-point heat equation) on a cube of
//   about as many elements, against a copy of the cube;
// - the whole segmentation (iterations + growth) of a noisy test image, and
//   the same scheme written in plain C++ over TBB (float, the same order of
//   operations) on the host in the same run (--threads, default all cores);
// - growth from one seed over a disc of 1% of a 2^(k+1) square image, against
//   the diffusion of the same iterations on an image of the region's tiles alone
//   (what the region costs to diffuse), host wall, the median of 5 each right
//   after that diffusion (the clock it is timed at), the median of 5 after a
//   second of growths alone, and one more growth with each
//   kernel's device time, their sum and span beside its wall time (where
//   the growth's time goes).
// Brook's MFLOPS (32 flops per pixel and iteration) beside each diffusion time.
// Every result is checked before it is timed.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <rill/algorithms/segment.h>
#include <rill/rill.h>

#include "segment_bench.h"
#include "timing.h"

namespace {

namespace seg = rill::segment;
using rill::bench::Clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

/// The diffusion of segment.h, written out in C++ over TBB rows (float throughout, as rill computes).
void host_diffusion(std::vector<float>& u, std::vector<float>& tmp, std::int64_t n, const seg::Diffusion& d) {
    const float dt = d.time_step, inv_k = 1.0f / d.contrast;
    const bool exponential = d.conductance == seg::Conductance::Exponential;
    for (int it = 0; it < d.iterations; ++it) {
        tbb::parallel_for(std::int64_t{0}, n, [&](std::int64_t y) {
            const float* up = &u[static_cast<std::size_t>(std::max<std::int64_t>(y - 1, 0) * n)];
            const float* row = &u[static_cast<std::size_t>(y * n)];
            const float* down = &u[static_cast<std::size_t>(std::min(y + 1, n - 1) * n)];
            float* out = &tmp[static_cast<std::size_t>(y * n)];
            for (std::int64_t x = 0; x < n; ++x) {
                const float c = row[x];
                auto flux = [&](float v) {
                    const float diff = v - c, s = diff * inv_k * (diff * inv_k);
                    return (exponential ? std::exp(-s) : 1.0f / (1.0f + s)) * diff;
                };
                out[x] = c + dt * (flux(up[x]) + flux(down[x]) + flux(row[std::min(x + 1, n - 1)]) + flux(row[std::max<std::int64_t>(x - 1, 0)]));
            }
        });
        std::swap(u, tmp);
    }
}

}  // namespace

int main(int argc, char** argv) {
    rill::bench::SegmentOptions args;
    if (!rill::bench::parse_segment_options(argc, argv, "rill-bench-segment", args)) return 2;
    const int log2 = args.log2, iterations = args.iterations, threads = args.threads;
    const std::string json = args.json;
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              threads > 0 ? static_cast<std::size_t>(threads) : tbb::info::default_concurrency());
    rill::Runtime rt;
    rt.set_profiling(true);
    std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
    const std::int64_t n = std::int64_t{1} << log2;
    const double pixels = double(n) * double(n);
    const seg::Diffusion d{.iterations = iterations, .time_step = 0.2f, .contrast = 0.1f};
    std::ostringstream out;
    out << "{\"backend\":\"" << rt.backend_name() << "\",\"device\":\"" << rt.info().device << "\",\"side\":" << n;

    // One iteration against a copy of the image.
    const std::vector<float> f = rill::bench::segment_test_image(n);
    auto image = rt.stream<float>({n, n}, f);
    auto smooth = rt.stream<float>({n, n});
    static const auto copy = rill::kernel("segment_copy_roof(x, y)", [](rill::In<float> x, rill::Out<float> y) { y = x; });
    constexpr int kMeanOf = 8;
    const seg::Diffusion several{.iterations = kMeanOf, .time_step = d.time_step, .contrast = d.contrast};
    const double iteration = rill::bench::median_ms(10, 5, [&] { seg::diffuse(image, smooth, several); }, rt).device_ms / kMeanOf;
    const double copied = rill::bench::median_ms(10, 5, [&] { copy(image, smooth); }, rt).device_ms;
    if (const char* steps = std::getenv("RILL_STENCIL_STEPS")) std::printf("RILL_STENCIL_STEPS=%s iterations per dispatch\n", steps);
    std::printf("\n| %lld^2 float | one iteration (mean of %d) | copy of the image | iteration / copy | MFLOPS (Brook's 32 per pixel) |\n|---|---|---|---|---|\n",
                static_cast<long long>(n), kMeanOf);
    std::printf("| diffusion | %.4f ms | %.4f ms | %.3f | %.0f |\n", iteration, copied, iteration / copied, 32.0 * pixels / (iteration * 1e3));
    out << ",\"iteration_ms\":" << iteration << ",\"copy_ms\":" << copied;

    // The same blocked dispatches with a linear 5-point body (no exp): what the
    // tiles, halos and barriers cost beside the diffusion's arithmetic;
    // checked at one element after one iteration.
    {
        static const rill::Stencil<float> linear("segment_bench_linear", 1, [](const rill::Neighbourhood<float>& v, const rill::Expr<rill::float4>& p) {
            return v(0, 0) + p.x() * (v(-1, 0) + v(1, 0) + v(0, -1) + v(0, 1) - 4.0f * v(0, 0));
        }, rill::Boundary::Clamp);
        linear(image, smooth, 1, rill::float4{0.2f, 0, 0, 0});
        const std::int64_t y = n / 3, x = n / 5;
        auto at = [&](std::int64_t j, std::int64_t i) { return f[static_cast<std::size_t>(j * n + i)]; };
        const float want = at(y, x) + 0.2f * (at(y - 1, x) + at(y + 1, x) + at(y, x - 1) + at(y, x + 1) - 4.0f * at(y, x));
        const float got = smooth.download()[static_cast<std::size_t>(y * n + x)];
        if (!(std::abs(got - want) <= 1e-5f)) rill::bench::fail("linear stencil element: " + std::to_string(got) + " against " + std::to_string(want));
        const double step = rill::bench::median_ms(10, 5, [&] { linear(image, smooth, kMeanOf, rill::float4{0.2f, 0, 0, 0}); }, rt).device_ms / kMeanOf;
        std::printf("| linear 5-point stencil (the same dispatches, no exp) | %.4f ms | %.4f ms | %.3f | |\n", step, copied, step / copied);
        out << ",\"linear_ms\":" << step;
    }

    // A 3D stencil (the 7-point heat equation) on a cube of as many elements,
    // one iteration per dispatch, against the same copy; checked at one element.
    {
        const std::int64_t side = std::int64_t(std::llround(std::cbrt(pixels)));
        static const rill::Stencil<float> heat("segment_bench_heat_3d", 1, [](const rill::Neighbourhood<float>& v, const rill::Expr<rill::float4>& p) {
            return v(0, 0, 0) + p.x() * (v(-1, 0, 0) + v(1, 0, 0) + v(0, -1, 0) + v(0, 1, 0) + v(0, 0, -1) + v(0, 0, 1) - 6.0f * v(0, 0, 0));
        }, rill::Boundary::Clamp, {.dimensions = 3});
        std::vector<float> c(static_cast<std::size_t>(side * side * side));
        for (std::size_t i = 0; i < c.size(); ++i) c[i] = f[i % f.size()];
        auto cube = rt.stream<float>({side, side, side}, c), next = rt.stream<float>({side, side, side});
        heat(cube, next, 1, rill::float4{0.1f, 0, 0, 0});
        const std::int64_t z = side / 2, y = side / 3, x = side / 5;
        auto at = [&](std::int64_t k, std::int64_t j, std::int64_t i) { return c[static_cast<std::size_t>((k * side + j) * side + i)]; };
        const float want = at(z, y, x) + 0.1f * (at(z - 1, y, x) + at(z + 1, y, x) + at(z, y - 1, x) + at(z, y + 1, x) + at(z, y, x - 1) +
                                                 at(z, y, x + 1) - 6.0f * at(z, y, x));
        const float got = next.download()[static_cast<std::size_t>((z * side + y) * side + x)];
        if (!(std::abs(got - want) <= 1e-5f)) rill::bench::fail("3D stencil element: " + std::to_string(got) + " against " + std::to_string(want));
        const double step = rill::bench::median_ms(10, 5, [&] { heat(cube, next, 1, rill::float4{0.1f, 0, 0, 0}); }, rt).device_ms;
        const double copied3 = rill::bench::median_ms(10, 5, [&] { copy(cube, next); }, rt).device_ms;
        std::printf("\n| %lld^3 float | 7-point 3D stencil, one iteration | copy | iteration / copy |\n|---|---|---|---|\n",
                    static_cast<long long>(side));
        std::printf("| heat equation | %.4f ms | %.4f ms | %.3f |\n", step, copied3, step / copied3);
        out << ",\"stencil3d_side\":" << side << ",\"stencil3d_ms\":" << step << ",\"stencil3d_copy_ms\":" << copied3;
    }

    // The whole segmentation, checked against the C++ loop, and that loop timed.
    std::vector<float> host = f, tmp(f.size());
    host_diffusion(host, tmp, n, d);
    auto mask = rt.stream<std::uint32_t>({n, n});
    const seg::Options options{.diffusion = d, .growth = {.low = 0.7f, .high = 1.0f}};
    const std::vector<rill::int2> seeds = {{static_cast<int>(0.45 * n), static_cast<int>(0.35 * n)}};
    seg::segment(image, seeds, smooth, mask, options);
    const std::vector<float> got = smooth.download();
    for (std::size_t i = 0; i < got.size(); ++i)
        if (!(std::abs(got[i] - host[i]) <= 1e-4f)) rill::bench::fail("diffused pixel " + std::to_string(i) + ": " + std::to_string(got[i]) + " against " + std::to_string(host[i]));
    std::vector<double> whole, diffusion, growth;
    seg::GrowthStats stats;
    rill::bench::warm_up([&] { seg::segment(image, seeds, smooth, mask, options); }, rt);
    for (int r = 0; r < 3; ++r) {
        seg::seed_mask(seeds, mask);
        rt.finish();
        const auto t0 = Clock::now();
        seg::diffuse(image, smooth, d);
        rt.finish();
        const auto t1 = Clock::now();
        stats = seg::grow(smooth, mask, options.growth);
        rt.finish();
        diffusion.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        growth.push_back(ms_since(t1));
        whole.push_back(diffusion.back() + growth.back());
    }
    for (auto* v : {&whole, &diffusion, &growth}) std::sort(v->begin(), v->end());
    const double peer = rill::bench::host_median_ms([&] { host = f; }, [&] { host_diffusion(host, tmp, n, d); });
    std::printf("\n| %lld^2, %d iterations + growth | rill (host wall) | diffusion | growth | C++ over TBB, diffusion only (%d threads) | peer / rill | growth passes |\n|---|---|---|---|---|---|---|\n",
                static_cast<long long>(n), iterations, static_cast<int>(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism)));
    std::printf("| segmentation | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f | %d |\n", whole[1], diffusion[1], growth[1], peer, peer / whole[1], stats.passes);
    out << ",\"segment_ms\":" << whole[1] << ",\"diffusion_ms\":" << diffusion[1] << ",\"growth_ms\":" << growth[1]
        << ",\"host_peer_ms\":" << peer << ",\"passes\":" << stats.passes;

    // Growth over 1% of a twice larger image, against diffusing the region's tiles alone.
    const std::int64_t big = 2 * n, radius = static_cast<std::int64_t>(std::sqrt(0.01 * double(big) * double(big) / M_PI));
    std::vector<float> disc(static_cast<std::size_t>(big * big), 0.0f);
    for (std::int64_t y = big / 2 - radius; y <= big / 2 + radius; ++y)
        for (std::int64_t x = big / 2 - radius; x <= big / 2 + radius; ++x)
            if ((y - big / 2) * (y - big / 2) + (x - big / 2) * (x - big / 2) <= radius * radius) disc[static_cast<std::size_t>(y * big + x)] = 1.0f;
    auto region_image = rt.stream<float>({big, big}, disc);
    auto region = rt.stream<std::uint32_t>({big, big});
    const std::vector<rill::int2> centre = {{static_cast<int>(big / 2), static_cast<int>(big / 2)}};
    const std::int64_t side = (2 * radius + 1 + 15) / 16 * 16 + 16;  // the disc's tiles and a ring of tiles around it
    auto tiles_image = rt.stream<float>({side, side});
    auto tiles_out = rt.stream<float>({side, side});
    auto timed_growth = [&] {
        seg::seed_mask(centre, region);
        rt.finish();
        const auto t0 = Clock::now();
        stats = seg::grow(region_image, region, {.low = 0.5f, .high = 1.5f});
        rt.finish();
        return ms_since(t0);
    };
    // Alone, growths leave an H100 at its lowest clock (nvidia-smi: 345 MHz,
    // against 1980 in the diffusions): each pass is a short dispatch and the
    // host reads counts between them. A second of them kept the growth over
    // 1% at 2.1-2.7 ms where a growth right after other work took 0.7
    // (docs/PERFORMANCE.md#segment). So the growths are timed
    // twice: after a second of growths, and each right after the diffusion
    // of the region's tiles (after a second of those), the clock at which
    // that diffusion is timed.
    std::vector<double> grown, grown_busy;
    rill::bench::warm_up([&] { timed_growth(); }, rt);
    for (int r = 0; r < 5; ++r) grown.push_back(timed_growth());
    rill::bench::warm_up([&] { seg::diffuse(tiles_image, tiles_out, d); }, rt);
    for (int r = 0; r < 5; ++r) {
        seg::diffuse(tiles_image, tiles_out, d);
        grown_busy.push_back(timed_growth());
    }
    std::int64_t area = 0;
    for (std::uint32_t m : region.download()) area += m;
    std::int64_t want = 0;
    for (float v : disc) want += v > 0.5f;
    if (area != want) rill::bench::fail("the grown region has " + std::to_string(area) + " pixels, the disc " + std::to_string(want));
    std::sort(grown.begin(), grown.end());
    std::sort(grown_busy.begin(), grown_busy.end());
    const double region_diffusion = rill::bench::median_ms(1, 5, [&] { seg::diffuse(tiles_image, tiles_out, d); }, rt).host_ms;
    std::printf("\n| growth over 1%% of %lld^2 | growth after the diffusion (host wall) | after growths alone | passes | tiles processed | %d iterations on the region's %lld^2 tiles | growth / that (alone) |\n|---|---|---|---|---|---|---|\n",
                static_cast<long long>(big), iterations, static_cast<long long>(side));
    std::printf("| one seed | %.2f ms | %.2f ms | %d | %lld | %.2f ms | %.2f (%.2f) |\n", grown_busy[2], grown[2], stats.passes,
                static_cast<long long>(stats.tiles_processed), region_diffusion, grown_busy[2] / region_diffusion,
                grown[2] / region_diffusion);
    // Where one growth goes: each kernel's device time (GPU timestamps; host
    // time on the CPU), their sum and their span beside the wall time.
    seg::seed_mask(centre, region);
    double wall = 0;
    const std::string kernels = rill::bench::breakdown(rt, [&] {
        const auto t0 = Clock::now();
        seg::grow(region_image, region, {.low = 0.5f, .high = 1.5f});
        rt.finish();
        wall = ms_since(t0);
    });
    std::printf("\none growth with device times: wall %.3f ms; %s\n", wall, kernels.c_str());
    out << ",\"region_growth_ms\":" << grown_busy[2] << ",\"region_growth_alone_ms\":" << grown[2] << ",\"region_growth_passes\":" << stats.passes << ",\"region_diffusion_ms\":" << region_diffusion << "}\n";
    if (!json.empty()) std::ofstream(json) << out.str();
    return 0;
}
