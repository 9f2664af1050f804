// Summed-area tables at 512^2 and 1024^2 (GPU Gems 3 Table 39-1: 1.64 and
// 3.50 ms on a GeForce 8800 GTX for an RGB8 image), on any backend:
//
//   RILL_BACKEND=vulkan rill-bench-sat [output.json]
//
// The table of an RGBA8 image held as uint4 (exact), its kernels' device
// times (medians of 5 after a warm-up) split as Harris splits them, and a
// sequential table on one host thread in the same run. Checked against the
// host once before it is timed.
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <rill/algorithms/summed_area.h>
#include <rill/rill.h>

#include "timing.h"

namespace {

std::vector<rill::uint4> host_table(const std::vector<rill::uint4>& px, std::int64_t side) {
    std::vector<rill::uint4> t(px.size());
    for (std::int64_t y = 0; y < side; ++y) {
        rill::uint4 row{0u, 0u, 0u, 0u};
        for (std::int64_t x = 0; x < side; ++x) {
            const std::size_t i = static_cast<std::size_t>(y * side + x);
            for (int c = 0; c < 4; ++c) {
                row[c] += px[i][c];
                t[i][c] = row[c] + (y > 0 ? t[i - side][c] : 0u);
            }
        }
    }
    return t;
}

}  // namespace

int main(int argc, char** argv) {
    rill::bench::exit_on_options(argc, argv, "[RILL_BACKEND=cpu|vulkan|opengl] rill-bench-sat [output.json]");
    const std::string json = argc > 1 ? argv[1] : "";
    rill::Runtime rt;
    rt.set_profiling(true);
    std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
    std::printf("\n| image | rill total | transposes | scans (with row heads) | host, one thread | rill / host time | "
                "GeForce 8800 GTX (Harris 2007) |\n|---|---|---|---|---|---|---|\n");
    std::ostringstream out;
    out << "{\"backend\":\"" << rt.backend_name() << "\",\"device\":\"" << rt.info().device << "\",\"sat\":[";
    std::mt19937 gen(39);
    const double paper_ms[] = {1.64, 3.50};
    for (int s = 0; s < 2; ++s) {
        const std::int64_t side = 512 << s;
        std::vector<rill::uint4> px(static_cast<std::size_t>(side * side));
        for (auto& p : px) p = rill::uint4{std::uint32_t(gen() % 256), std::uint32_t(gen() % 256), std::uint32_t(gen() % 256), 255u};
        auto image = rt.stream<rill::uint4>({side, side}, px);
        auto sat = rt.stream<rill::uint4>({side, side});
        rill::summed_area_table(image, sat);
        const std::vector<rill::uint4> want = host_table(px, side);
        if (sat.download() != want) rill::bench::fail("summed-area table of " + std::to_string(side) + "^2");
        const double total = rill::bench::median_ms(1, 5, [&] { rill::summed_area_table(image, sat); }, rt).device_ms;
        double transpose = 0;  // of the last repetition, per table
        for (const auto& t : rt.kernel_times())
            if (t.kernel.rfind("sat_transpose", 0) == 0) transpose += t.total_ms / static_cast<double>(t.calls) * 2.0;
        std::vector<rill::uint4> h;
        const double host = rill::bench::host_median_ms([&] { h = host_table(px, side); });
        std::printf("| %lld^2 | %.3f ms | %.3f ms | %.3f ms | %.3f ms | %.3f | %.2f ms |\n", static_cast<long long>(side), total,
                    transpose, total - transpose, host, total / host, paper_ms[s]);
        out << (s ? "," : "") << "{\"side\":" << side << ",\"total_ms\":" << total << ",\"transpose_ms\":" << transpose
            << ",\"host_ms\":" << host << "}";
    }
    out << "]}\n";
    if (!json.empty()) std::ofstream(json) << out.str();
    return 0;
}
