// Bitonic sort against radix sort over n (where one overtakes the other), and
// UberFlow's Table 1 (Kipfer et al. 2004: a key-value sort of an n x n
// texture, 148 to 2 fps on a Radeon 9800 Pro), on any backend:
//
//   RILL_BACKEND=vulkan rill-bench-sorts [max log2 n = 24] [output.json]
//
// Then the radix sort's two algorithms against each other over n, keys and
// pairs, where OneSweep can run. RILL_BENCH_ONLY=crossover,uberflow,radix
// picks those tables (unset: all three).
//
// Both sorts run in the same process on the same keys, so the ratio is the
// figure; times are the kernels' own (GPU timestamps; host time per kernel on
// the CPU backend), medians of 5 after a warm-up. Every sort is checked
// against std::sort once before it is timed.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <rill/algorithms/bitonic_sort.h>
#include <rill/algorithms/radix_sort.h>
#include <rill/rill.h>

#include "timing.h"

namespace {

using rill::bench::fail;
using rill::bench::median_ms;
using rill::bench::section;

/// Times `sort`, each call on the same keys (restored from `pristine`, untimed).
template <class K, class F>
double time_sort(rill::Runtime& rt, const rill::Stream<K>& pristine, const rill::Stream<K>& keys, F&& sort) {
    static const auto restore = rill::group_kernel<256>("bench_restore(from, to, n)", [](rill::Array<K> from, rill::Array<K> to, rill::Int n) {
        rill::Int i = rill::global_id();
        rill::If(i < n, [&] { to.store(i, from.load(i)); });
    });
    const auto n = static_cast<std::int32_t>(keys.size());
    return median_ms(1, 5, [&] {
        sort();
        restore(rill::Groups{(n + 255) / 256}, pristine, keys, n);
    }, rt).device_ms;
}

template <class K>
void check_sorted(const rill::Stream<K>& keys, std::vector<K> want, const std::string& what) {
    std::sort(want.begin(), want.end());
    if (keys.download() != want) fail(what);
}

/// std::sort of (key, identifier) pairs on one host thread: median of 3.
double host_sort_ms(const std::vector<float>& keys) {
    std::vector<std::pair<float, std::uint32_t>> p(keys.size());
    return rill::bench::host_median_ms(
        [&] {
            for (std::size_t i = 0; i < keys.size(); ++i) p[i] = {keys[i], static_cast<std::uint32_t>(i)};
        },
        [&] { std::sort(p.begin(), p.end()); });
}

/// RadixAlgorithm::CountThenScatter against OneSweep over n, keys and
/// uint32 pairs: the figures that RadixAlgorithm::Auto's choice rests on.
/// OneSweep only where its look-back is exact (no driver loop limit).
void radix_algorithms(rill::Runtime& rt, std::mt19937& gen, int max_log2n, std::ostringstream& out) {
    if (rt.info().limits.loop_iterations) {
        std::printf("\nOneSweep is refused here (the driver ends long loops): no comparison of radix algorithms\n");
        return;
    }
    const rill::RadixSortOptions scatter{.algorithm = rill::RadixAlgorithm::CountThenScatter};
    const rill::RadixSortOptions sweep{.algorithm = rill::RadixAlgorithm::OneSweep};
    std::printf("\n| n | count-then-scatter keys | OneSweep keys | ratio | count-then-scatter pairs | OneSweep pairs | ratio |\n"
                "|---|---|---|---|---|---|---|\n");
    for (int log2n = 10; log2n <= max_log2n; log2n += 2) {
        const std::int64_t n = std::int64_t{1} << log2n;
        std::vector<std::uint32_t> h(n), ids(n);
        for (std::int64_t i = 0; i < n; ++i) h[i] = gen(), ids[i] = static_cast<std::uint32_t>(i);
        auto pristine = rt.stream<std::uint32_t>({n}, h);
        auto keys = rt.stream<std::uint32_t>({n}, h);
        auto values = rt.stream<std::uint32_t>({n}, ids);
        rill::radix_sort(keys, sweep);
        check_sorted(keys, h, "OneSweep radix sort of 2^" + std::to_string(log2n) + " keys");
        keys.upload(h);
        rill::radix_sort(keys, values, sweep);
        check_sorted(keys, h, "OneSweep radix sort of 2^" + std::to_string(log2n) + " pairs");
        const std::vector<std::uint32_t> moved = values.download(), sorted = keys.download();
        for (std::int64_t i = 0; i < n; ++i)
            if (h[moved[i]] != sorted[i]) fail("OneSweep radix sort: value at " + std::to_string(i));
        const double keys_scatter = time_sort(rt, pristine, keys, [&] { rill::radix_sort(keys, scatter); });
        const double keys_sweep = time_sort(rt, pristine, keys, [&] { rill::radix_sort(keys, sweep); });
        const double pairs_scatter = time_sort(rt, pristine, keys, [&] { rill::radix_sort(keys, values, scatter); });
        const double pairs_sweep = time_sort(rt, pristine, keys, [&] { rill::radix_sort(keys, values, sweep); });
        std::printf("| 2^%d | %.4f ms | %.4f ms | %.2f | %.4f ms | %.4f ms | %.2f |\n", log2n, keys_scatter, keys_sweep,
                    keys_scatter / keys_sweep, pairs_scatter, pairs_sweep, pairs_scatter / pairs_sweep);
        std::fflush(stdout);
        out << (log2n > 10 ? "," : "") << "{\"log2n\":" << log2n << ",\"scatter_keys_ms\":" << keys_scatter
            << ",\"onesweep_keys_ms\":" << keys_sweep << ",\"scatter_pairs_ms\":" << pairs_scatter
            << ",\"onesweep_pairs_ms\":" << pairs_sweep << "}";
    }
}

}  // namespace

int main(int argc, char** argv) {
    rill::bench::exit_on_options(argc, argv, "[RILL_BACKEND=cpu|vulkan|opengl] [RILL_BENCH_ONLY=crossover,uberflow,radix] rill-bench-sorts [max log2 n (24)] [output.json]");
    const int max_log2n = argc > 1 ? std::atoi(argv[1]) : 24;
    const std::string json = argc > 2 ? argv[2] : "";
    rill::Runtime rt;
    rt.set_profiling(true);
    std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
    std::mt19937 gen(20261122);
    std::ostringstream out;
    out << "{\"backend\":\"" << rt.backend_name() << "\",\"device\":\"" << rt.info().device << "\",\"crossover\":[";

    if (section("crossover")) {
        std::printf("\n| n | bitonic keys | radix keys | bitonic / radix time |\n|---|---|---|---|\n");
        for (int log2n = 10; log2n <= max_log2n; log2n += 2) {
            const std::int64_t n = std::int64_t{1} << log2n;
            std::vector<std::uint32_t> h(n);
            for (auto& x : h) x = gen();
            auto pristine = rt.stream<std::uint32_t>({n}, h);
            auto keys = rt.stream<std::uint32_t>({n}, h);
            rill::bitonic_sort(keys);
            check_sorted(keys, h, "bitonic sort of 2^" + std::to_string(log2n));
            keys.upload(h);
            rill::radix_sort(keys);
            check_sorted(keys, h, "radix sort of 2^" + std::to_string(log2n));
            const double bitonic = time_sort(rt, pristine, keys, [&] { rill::bitonic_sort(keys); });
            const double radix = time_sort(rt, pristine, keys, [&] { rill::radix_sort(keys); });
            std::printf("| 2^%d | %.4f ms | %.4f ms | %.2f |\n", log2n, bitonic, radix, bitonic / radix);
            std::fflush(stdout);
            out << (log2n > 10 ? "," : "") << "{\"log2n\":" << log2n << ",\"bitonic_ms\":" << bitonic << ",\"radix_ms\":" << radix << "}";
        }
    }
    out << "],\"uberflow_table1\":[";

    // UberFlow sorts (key, identifier) texels in row-major order; its fps
    // include computing the keys and moving the particles, which this does not.
    const int paper_fps[] = {148, 43, 10, 2};
    if (section("uberflow")) {
        std::printf("\n| texture | bitonic pairs | fps | rows only (bitonic, segment = side) | fps | radix pairs | fps | "
                    "std::sort pairs, one host thread | fps | UberFlow GP/FP packed, Radeon 9800 Pro |\n"
                    "|---|---|---|---|---|---|---|---|---|---|\n");
        for (int s = 0; s < 4; ++s) {
            const std::int64_t side = 128 << s, n = side * side;
            if (n > (std::int64_t{1} << max_log2n)) break;
            std::uniform_real_distribution<float> depth(0.0f, 100.0f);
            std::vector<float> hk(n);
            std::vector<std::uint32_t> ids(n);
            for (std::int64_t i = 0; i < n; ++i) hk[i] = depth(gen), ids[i] = static_cast<std::uint32_t>(i);
            auto pristine = rt.stream<float>({side, side}, hk);
            auto keys = rt.stream<float>({side, side}, hk);
            auto values = rt.stream<std::uint32_t>({side, side}, ids);
            rill::bitonic_sort(keys, values);
            check_sorted(keys, hk, "bitonic sort of a texture");
            const std::vector<std::uint32_t> moved = values.download();
            const std::vector<float> sorted = keys.download();
            for (std::int64_t i = 0; i < n; ++i)
                if (hk[moved[i]] != sorted[i]) fail("bitonic sort: identifier at " + std::to_string(i));
            const double full = time_sort(rt, pristine, keys, [&] { rill::bitonic_sort(keys, values); });
            const double rows = time_sort(rt, pristine, keys, [&] { rill::bitonic_sort(keys, values, {.segment = side}); });
            const double radix = time_sort(rt, pristine, keys, [&] { rill::radix_sort(keys, values); });
            const double host = host_sort_ms(hk);
            std::printf("| %lld^2 | %.3f ms | %.1f | %.3f ms | %.1f | %.3f ms | %.1f | %.3f ms | %.1f | %d |\n",
                        static_cast<long long>(side), full, 1000.0 / full, rows, 1000.0 / rows, radix, 1000.0 / radix, host,
                        1000.0 / host, paper_fps[s]);
            std::fflush(stdout);
            out << (s > 0 ? "," : "") << "{\"side\":" << side << ",\"bitonic_pairs_ms\":" << full << ",\"bitonic_rows_ms\":" << rows
                << ",\"radix_pairs_ms\":" << radix << ",\"host_std_sort_pairs_ms\":" << host << "}";
        }
    }
    out << "],\"radix_algorithms\":[";
    if (section("radix")) radix_algorithms(rt, gen, max_log2n, out);
    out << "]}\n";
    if (!json.empty()) std::ofstream(json) << out.str();
    return 0;
}
