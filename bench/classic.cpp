// The textbook scans and compactions against rill's own and a host thread, to
// reproduce GPU Gems 3 Fig. 39-7 (Harris: work-efficient scan against a
// sequential CPU scan over n) and GPU Gems 2 Table 36-1 (Horn: time per record
// of scan / search compaction against bitonic-sort compaction over n), on any
// backend:
//
//   RILL_BACKEND=vulkan rill-bench-classic [max log2 n = 22] [output.json]
//
// Device times are the kernels' own (GPU timestamps; host time per kernel on
// the CPU backend), medians of 5 after a warm-up; the host peers run on one
// thread of the same machine in the same run (median of 3). Every result is
// checked against the host's once before it is timed.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <rill/algorithms/compact.h>
#include <rill/algorithms/scan.h>
#include <rill/rill.h>

#include "timing.h"

namespace {

using rill::bench::fail;
using rill::bench::host_median_ms;
using rill::bench::median_ms;

struct ScanWay {
    rill::ScanAlgorithm algorithm;
    const char* name;
};
const ScanWay kScans[] = {{rill::ScanAlgorithm::Auto, "rill (reduce-then-scan)"},
                          {rill::ScanAlgorithm::Blelloch, "Blelloch (work-efficient)"},
                          {rill::ScanAlgorithm::HillisSteele, "Hillis-Steele"}};

struct CompactWay {
    rill::CompactOptions options;
    const char* name;
};
const CompactWay kCompactions[] = {
    {{rill::CompactAlgorithm::SearchGather, rill::ScanAlgorithm::HillisSteele}, "Horn: Hillis-Steele scan + search/gather"},
    {{rill::CompactAlgorithm::SearchGather, rill::ScanAlgorithm::Auto}, "rill scan + search/gather"},
    {{rill::CompactAlgorithm::BitonicSort, rill::ScanAlgorithm::Auto}, "bitonic sort + gather"},
    {{rill::CompactAlgorithm::ScanScatter, rill::ScanAlgorithm::Auto}, "rill scan + scatter"},
};

}  // namespace

int main(int argc, char** argv) {
    rill::bench::exit_on_options(argc, argv, "[RILL_BACKEND=cpu|vulkan|opengl] rill-bench-classic [max log2 n (22)] [output.json]");
    const int max_log = argc > 1 ? std::atoi(argv[1]) : 22;
    const std::string json = argc > 2 ? argv[2] : "";
    rill::Runtime rt;
    rt.set_profiling(true);
    std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
    std::ostringstream out;
    out << "{\"backend\":\"" << rt.backend_name() << "\",\"device\":\"" << rt.info().device << "\",\"scan\":[";
    std::mt19937 gen(39);

    // Fig. 39-7: exclusive sum scans of uint32.
    std::printf("\n| n | host, one thread | ");
    for (const auto& w : kScans) std::printf("%s | ", w.name);
    std::printf("\n|---|---|---|---|---|\n");
    bool first = true;
    for (int lg = 10; lg <= max_log; lg += 2) {
        const std::int64_t n = std::int64_t{1} << lg;
        std::vector<std::uint32_t> x(static_cast<std::size_t>(n));
        for (auto& v : x) v = gen() % 1000;
        std::vector<std::uint32_t> want(x.size());
        const double host = host_median_ms([&] { std::exclusive_scan(x.begin(), x.end(), want.begin(), 0u); });
        auto in = rt.stream<std::uint32_t>({n}, x);
        auto res = rt.stream<std::uint32_t>({n});
        std::printf("| 2^%d | %.4f ms |", lg, host);
        out << (first ? "" : ",") << "{\"n\":" << n << ",\"host_ms\":" << host;
        first = false;
        for (const auto& w : kScans) {
            rill::exclusive_scan(in, res, rill::ScanOp::Add, rill::ScanOptions{w.algorithm});
            if (res.download() != want) fail(std::string(w.name) + " scan of 2^" + std::to_string(lg));
            const double ms =
                median_ms(1, 5, [&] { rill::exclusive_scan(in, res, rill::ScanOp::Add, rill::ScanOptions{w.algorithm}); }, rt)
                    .device_ms;
            std::printf(" %.3f ms (%.2fx host) |", ms, host / ms);
            out << ",\"" << w.name << "\":" << ms;
        }
        std::printf("\n");
        out << "}";
    }

    // Table 36-1: compaction of uint32 keeping the odd ones (half), time per record.
    out << "],\"compaction\":[";
    std::printf("\n| n | host std::copy_if, one thread | ");
    for (const auto& w : kCompactions) std::printf("%s | ", w.name);
    std::printf("(ns per record)\n|---|---|---|---|---|---|\n");
    rill::Filter<std::uint32_t> odd("odd", [](rill::Expr<std::uint32_t> v) { return (v & 1u) == 1u; });
    first = true;
    for (int lg = 10; lg <= max_log; lg += 2) {
        const std::int64_t n = std::int64_t{1} << lg;
        std::vector<std::uint32_t> x(static_cast<std::size_t>(n));
        for (auto& v : x) v = gen();
        std::vector<std::uint32_t> want;
        want.reserve(x.size());
        const double host = host_median_ms([&] {
            want.clear();
            std::copy_if(x.begin(), x.end(), std::back_inserter(want), [](std::uint32_t v) { return (v & 1u) == 1u; });
        });
        auto in = rt.stream<std::uint32_t>({n}, x);
        auto res = rt.stream<std::uint32_t>({n});
        auto count = rt.stream<std::uint32_t>({1});
        const double per = 1e6 / static_cast<double>(n);  // ms per call -> ns per record
        std::printf("| 2^%d | %.2f |", lg, host * per);
        out << (first ? "" : ",") << "{\"n\":" << n << ",\"host_ms\":" << host;
        first = false;
        for (const auto& w : kCompactions) {
            const std::int64_t kept = odd(in, res, w.options);
            std::vector<std::uint32_t> got = res.download();
            got.resize(static_cast<std::size_t>(kept));
            if (got != want) fail(std::string(w.name) + " compaction of 2^" + std::to_string(lg));
            const double ms = median_ms(1, 5, [&] { odd(in, res, count, w.options); }, rt).device_ms;
            std::printf(" %.2f |", ms * per);
            out << ",\"" << w.name << "\":" << ms;
        }
        std::printf("\n");
        out << "}";
    }
    out << "]}\n";
    if (!json.empty()) std::ofstream(json) << out.str();
    return 0;
}
