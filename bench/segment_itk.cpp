// Segment's diffusion on the CPU backend against its CPU peer, ITK's
// GradientAnisotropicDiffusionImageFilter (Debian: libinsighttoolkit5-dev), in one
// process: the same image, iterations and time step, the same number of threads.
//
//   rill-bench-segment-itk [--size-log2 11] [--iterations 200] [--threads 2 (0: all cores)] [output.json]
//
// Both are Perona-Malik with exponential conductance; they are not the same
// arithmetic (ITK takes each flux's gradient with its cross-derivatives and scales
// its conductance parameter by the image's mean gradient every iteration), so the
// results are checked for what both must keep (the image's mean, by the
// zero-flux boundary) rather than against each other. A program of its own, so
// that rill-bench-segment, which the GPU runs carry, does not need ITK's libraries.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/info.h>

#include <itk_diffusion.h>
#include <rill/algorithms/segment.h>
#include <rill/rill.h>

#include "segment_bench.h"
#include "timing.h"

namespace {

double mean(const std::vector<float>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size()); }

void check_mean(const char* who, const std::vector<float>& before, const std::vector<float>& after) {
    if (!(std::fabs(mean(after) - mean(before)) < 1e-3))
        rill::bench::fail(std::string(who) + ": the mean moved from " + std::to_string(mean(before)) + " to " +
                          std::to_string(mean(after)));
}

}  // namespace

int main(int argc, char** argv) {
    rill::bench::SegmentOptions options;
    options.threads = 2;
    if (!rill::bench::parse_segment_options(argc, argv, "rill-bench-segment-itk", options)) return 2;
    if (options.threads == 0) options.threads = static_cast<int>(tbb::info::default_concurrency());
    const int log2 = options.log2, iterations = options.iterations, threads = options.threads;
    const std::string json = options.json;
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    rill::Runtime rt("cpu");
    const std::int64_t n = std::int64_t{1} << log2;
    const std::vector<float> f = rill::bench::segment_test_image(n);
    const rill::segment::Diffusion d{.iterations = iterations, .time_step = 0.2f, .contrast = 0.1f};
    constexpr float kItkConductance = 1.0f;  // ITK's parameter, relative to the mean gradient

    auto image = rt.stream<float>({n, n}, f);
    auto smooth = rt.stream<float>({n, n});
    rill::segment::diffuse(image, smooth, d);  // a first call builds the kernels
    check_mean("rill", f, smooth.download());
    const double rill_ms = rill::bench::host_median_ms([&] {
        rill::segment::diffuse(image, smooth, d);
        rt.finish();
    });
    std::vector<float> itk_out;
    rill::peers::itk_gradient_diffusion(f, itk_out, n, iterations, d.time_step, kItkConductance, threads);
    check_mean("ITK", f, itk_out);
    const double itk_ms = rill::bench::host_median_ms(
        [&] { rill::peers::itk_gradient_diffusion(f, itk_out, n, iterations, d.time_step, kItkConductance, threads); });

    std::printf("| %lld^2 float, %d iterations, time step %.2f, %d threads | rill (cpu backend) | ITK GradientAnisotropicDiffusionImageFilter | ITK / rill |\n|---|---|---|---|\n",
                static_cast<long long>(n), iterations, d.time_step, threads);
    std::printf("| diffusion (host wall) | %.1f ms | %.1f ms | %.2f |\n", rill_ms, itk_ms, itk_ms / rill_ms);
    if (!json.empty())
        std::ofstream(json) << "{\"side\":" << n << ",\"iterations\":" << iterations << ",\"threads\":" << threads
                            << ",\"rill_cpu_ms\":" << rill_ms << ",\"itk_ms\":" << itk_ms << "}\n";
}
