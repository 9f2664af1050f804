// GPU bandwidth and dispatch cost of a rill backend (default: the best one).
//
//   rill-bench-bandwidth [log2 n = 28] [output.json]
//
// Copy and SAXPY over n floats, timed over batches of back-to-back calls
// (host wall time around a batch, after a warm-up, divided by the count);
// and the cost per kernel of 1000 small dependent dispatches. Every result is
// checked against the host before it is timed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <rill/algorithms/compact.h>
#include <rill/algorithms/radix_sort.h>
#include <rill/algorithms/reduce.h>
#include <rill/algorithms/scan.h>
#include <rill/algorithms/scatter_op.h>
#include <rill/rill.h>

#include "../timing.h"
#include "vector_scan_probe.h"

namespace {

using rill::bench::Clock;
using rill::bench::Timing;
using rill::bench::fail;
using rill::bench::median_ms;
using rill::bench::section;

// Where a scan tile's time goes: three tile kernels of 256
// invocations x 16 uint32, no look-back, each checked once: a striped copy
// (the access pattern alone), the scan's tile as it is (transpose through
// shared memory, then scan 16 consecutive elements per invocation), and a
// subgroup-striped tile (each subgroup scans its own 16 S-wide rows with
// subgroup operations; no transpose).
constexpr int kWg = 256, kItems = 16, kTile = kWg * kItems;

void scan_tile_probes(rill::Runtime& rt, std::int64_t n, std::vector<std::pair<std::string, double>>& results) {
    using namespace rill;
    auto striped_copy = group_kernel<kWg>("probe_striped_copy(in, out)", [](Array<std::uint32_t> in, Array<std::uint32_t> out) {
        Int base = group_id() * kTile;
        std::vector<Var<std::uint32_t>> v;
        for (int j = 0; j < kItems; ++j) v.emplace_back(in.load(base + j * kWg + local_id()));
        for (int j = 0; j < kItems; ++j) out.store(base + j * kWg + local_id(), v[j]);
    });
    auto warp_tile = group_kernel<kWg>("probe_subgroup_tile(in, out)", [](Array<std::uint32_t> in, Array<std::uint32_t> out) {
        Int S = subgroup_size();
        Int lane = subgroup_invocation();
        Int w = local_id() / S;
        Int chunk = group_id() * kTile + w * S * kItems;
        std::vector<Var<std::uint32_t>> v;
        Var<std::uint32_t> carry = 0u;
        for (int j = 0; j < kItems; ++j) {
            UInt x = in.load(chunk + j * S + lane);
            v.emplace_back(carry + subgroup_exclusive_add(x));
            carry = carry + subgroup_add(x);
        }
        Shared<std::uint32_t> totals(kWg);
        If(lane == 0, [&] { totals.store(w, carry); });
        barrier();
        Var<std::uint32_t> before = 0u;
        Int i = 0;
        While([&] { return i < w; }, [&] {
            before = before + totals.load(i);
            i = i + 1;
        });
        for (int j = 0; j < kItems; ++j) out.store(chunk + j * S + lane, before + v[j]);
    });
    std::vector<std::uint32_t> h(n);
    for (std::int64_t i = 0; i < n; ++i) h[i] = static_cast<std::uint32_t>((i * 2654435761u) >> 24);
    auto in = rt.stream<std::uint32_t>({n}, h);
    auto out = rt.stream<std::uint32_t>({n});
    const std::int64_t tiles = n / kTile;
    striped_copy(Groups{tiles}, in, out);
    if (out.download() != h) fail("probe_striped_copy");
    results.emplace_back("probe_striped_copy_ms", median_ms(10, 5, [&] { striped_copy(Groups{tiles}, in, out); }, rt).device_ms);
    warp_tile(Groups{tiles}, in, out);
    {
        const std::vector<std::uint32_t> got = out.download();
        for (std::int64_t t = 0; t < tiles; t += 97) {
            std::uint32_t acc = 0;
            for (std::int64_t i = t * kTile; i < (t + 1) * kTile; ++i) {
                if (got[i] != acc) fail("probe_subgroup_tile at " + std::to_string(i));
                acc += h[i];
            }
        }
    }
    results.emplace_back("probe_subgroup_tile_ms", median_ms(10, 5, [&] { warp_tile(Groups{tiles}, in, out); }, rt).device_ms);
}

}  // namespace

int main(int argc, char** argv) {
    rill::bench::exit_on_options(argc, argv, "[RILL_BACKEND=cpu|vulkan|opengl] [RILL_BENCH_ONLY=scan,probes,vecscan,sort,scatter] rill-bench-bandwidth [log2 n (28)] [output.json]");
    const int log2n = argc > 1 ? std::atoi(argv[1]) : 28;
    const std::string json = argc > 2 ? argv[2] : "";
    const std::int64_t n = std::int64_t{1} << log2n;
    rill::Runtime rt;
    std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());

    auto copy = rill::kernel("copy(x, r)", [](rill::In<float> x, rill::Out<float> r) { r = x; });
    auto saxpy = rill::kernel("saxpy(a, x, y, r)", [](rill::Float a, rill::In<float> x, rill::In<float> y,
                                                    rill::Out<float> r) { r = a * x + y; });
    std::vector<float> hx(n), hy(n);
    for (std::int64_t i = 0; i < n; ++i) {
        hx[i] = static_cast<float>(i % 1024);
        hy[i] = static_cast<float>(i % 7);
    }
    auto x = rt.stream<float>({n}, hx);
    auto y = rt.stream<float>({n}, hy);
    auto r = rt.stream<float>({n});

    // First call of a kernel that a previous process may have left in the disk
    // cache: run this program twice to see the cold and the warm start. On 1024
    // floats, after the runtime has done other work, so that the figure is the
    // kernel's own start-up (trace, code generation, cache or compiler, pipeline).
    auto small_x = rt.stream<float>({1024}, std::vector<float>(1024, 1.0f));
    auto small_r = rt.stream<float>({1024});
    rt.finish();
    auto first0 = Clock::now();
    copy(small_x, small_r);
    rt.finish();
    const double first_copy_ms = std::chrono::duration<double, std::milli>(Clock::now() - first0).count();
    const std::uint64_t compiles_before = rt.stats().shader_compiles;
    copy(x, r);
    std::vector<float> out = r.download();
    for (std::int64_t i = 0; i < n; i += 4097)
        if (out[i] != hx[i])
            fail("copy at " + std::to_string(i) + ": " + std::to_string(out[i]) + " instead of " + std::to_string(hx[i]));
    saxpy(2.0f, x, y, r);
    out = r.download();
    for (std::int64_t i = 0; i < n; i += 4097)
        if (out[i] != 2.0f * hx[i] + hy[i]) fail("saxpy at " + std::to_string(i));

    rt.set_profiling(true);
    // Warm up: GPUs raise their clocks only after some work.
    for (auto t0 = Clock::now(); Clock::now() - t0 < std::chrono::milliseconds(500);) {
        for (int i = 0; i < 10; ++i) saxpy(2.0f, x, y, r);
        rt.finish();
    }
    const Timing copy_t = median_ms(20, 5, [&] { copy(x, r); }, rt);
    const Timing saxpy_t = median_ms(20, 5, [&] { saxpy(2.0f, x, y, r); }, rt);
    // What Runtime::stream's zeroing costs (Runtime::scratch skips it): the fill of a new stream.
    const Timing fill_t = median_ms(5, 5, [&] { (void)rt.stream<float>({n}); }, rt);
    const double copy_ms = copy_t.device_ms, saxpy_ms = saxpy_t.device_ms;
    const double copy_gbs = 2.0 * n * 4 / copy_ms / 1e6, saxpy_gbs = 3.0 * n * 4 / saxpy_ms / 1e6;

    // 1000 small dependent kernels: each reads what the previous one wrote.
    auto inc = rill::kernel("inc(x, r)", [](rill::In<float> x, rill::Out<float> r) { r = x + 1.0f; });
    auto a = rt.stream<float>({1024}), b = rt.stream<float>({1024});
    int chains = 0;
    auto chain = [&] {
        ++chains;
        for (int i = 0; i < 500; ++i) {
            inc(a, b);
            inc(b, a);
        }
    };
    chain();
    rt.finish();
    const float before = a.download()[0];
    // Device time per kernel (timestamps around each dispatch), then the
    // figure that counts: wall time of the chain with profiling off, and the
    // host's share of it (issuing the 1000 calls, before finish()).
    const double chain_device_us = median_ms(1, 5, chain, rt).device_ms * 1000.0 / 1000.0;
    rt.set_profiling(false);
    const double per_kernel_us = median_ms(1, 5, chain, rt).host_ms * 1000.0 / 1000.0;
    std::vector<double> issue;
    for (int r = 0; r < 5; ++r) {
        auto t0 = Clock::now();
        chain();
        issue.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / 1000.0);
        rt.finish();
    }
    std::sort(issue.begin(), issue.end());
    const double chain_issue_us = issue[2];
    rt.set_profiling(true);
    const float after = a.download()[0];
    if (after != before + 1000.0f * static_cast<float>(chains - 1))  // every chain after the first adds 1000
        fail("dependent chain: " + std::to_string(after));

    // Brook's reductions (paper section 3.3): sum of 2^20 float4, and SGEMV
    // 1024 x 1024 through mul + sum. Device time is the sum of the kernels
    // each one runs (a reduction is several fold passes).
    const std::int64_t m4 = std::int64_t{1} << 20;
    std::vector<rill::float4> h4(m4, rill::float4{1.0f, 0.5f, 0.25f, 2.0f});
    auto s4 = rt.stream<rill::float4>({m4}, h4);
    const rill::float4 total4 = rill::reductions::sum<rill::float4>().value(s4);
    if (total4.x != float(m4) || total4.w != 2.0f * float(m4)) fail("sum of float4");
    auto sum4_out = rt.stream<rill::float4>({1});
    const Timing sum4_t = median_ms(20, 5, [&] { rill::reductions::sum<rill::float4>()(s4, sum4_out); }, rt);
    auto mul = rill::kernel("mul(a, b, c)", [](rill::In<float> a, rill::In<float> b, rill::Out<float> c) { c = a * b; });
    const std::int64_t g = 1024;
    std::vector<float> hA(g * g), hv(g);
    for (std::int64_t i = 0; i < g * g; ++i) hA[i] = float(i % 17) * 0.25f;
    for (std::int64_t j = 0; j < g; ++j) hv[j] = float(j % 5);
    auto A = rt.stream<float>({g, g}, hA);
    auto xv = rt.stream<float>({1, g}, hv);
    auto T = rt.stream<float>({g, g});
    auto yv = rt.stream<float>({g, 1});
    mul(A, xv, T);
    rill::reductions::sum<float>()(T, yv);
    const std::vector<float> yh = yv.download();
    for (std::int64_t i = 0; i < g; i += 97) {
        double want = 0;
        for (std::int64_t j = 0; j < g; ++j) want += double(hA[i * g + j]) * hv[j];
        if (std::fabs(yh[i] - want) > 1e-3 * std::fabs(want) + 1e-3) fail("sgemv row " + std::to_string(i));
    }
    const Timing gemv_t = median_ms(20, 5, [&] {
        mul(A, xv, T);
        rill::reductions::sum<float>()(T, yv);
    }, rt);

    // Exclusive sum scan of n uint32 (the peer is CUB's DeviceScan in the same run).
    double scan_ms = 0, scan_host_ms = 0, scan_single_pass_ms = 0, reduce_ms = 0, select_ms = 0;
    if (section("scan")) {
        std::vector<std::uint32_t> hs(n);
        for (std::int64_t i = 0; i < n; ++i) hs[i] = static_cast<std::uint32_t>((i * 2654435761u) >> 20);
        auto sin = rt.stream<std::uint32_t>({n}, hs);
        auto sout = rt.stream<std::uint32_t>({n});
        rill::exclusive_scan(sin, sout);
        const std::vector<std::uint32_t> got = sout.download();
        std::uint32_t acc = 0;
        for (std::int64_t i = 0; i < n; ++i) {
            if (got[i] != acc) fail("exclusive scan at " + std::to_string(i));
            acc += hs[i];
        }
        const Timing scan_t = median_ms(10, 5, [&] { rill::exclusive_scan(sin, sout); }, rt);
        scan_ms = scan_t.device_ms;
        scan_host_ms = scan_t.host_ms;
        if (!rt.info().limits.loop_iterations) {  // refused where the driver ends long loops
            // The single pass with decoupled look-back, for the record (not the default yet).
            const rill::ScanOptions single_pass{rill::ScanAlgorithm::SinglePass};
            auto sout2 = rt.stream<std::uint32_t>({n});
            rill::exclusive_scan(sin, sout2, rill::ScanOp::Add, single_pass);
            if (sout2.download() != got) fail("single-pass scan result differs from the default scan");
            scan_single_pass_ms = median_ms(10, 5, [&] { rill::exclusive_scan(sin, sout2, rill::ScanOp::Add, single_pass); }, rt).device_ms;
        }
        for (const auto& t : rt.kernel_times())  // where the scan's time goes, per kernel
            std::printf("  %-40s %6llu calls %9.4f ms per call\n", t.kernel.c_str(), static_cast<unsigned long long>(t.calls),
                        t.total_ms / static_cast<double>(t.calls));
        // The tuning knob, with RILL_BENCH_TILES set (it takes minutes, so bench/gpu/run.sh
        // leaves it out): every tile shape ScanTile allows that fits the device, both
        // algorithms; RILL_BENCH_TILES=single: the single pass only, without compaction;
        // RILL_BENCH_TILES=compact: compaction only.
        const char* tiles_env = std::getenv("RILL_BENCH_TILES");
        const bool sweep_tiles = tiles_env != nullptr;
        const bool single_only = sweep_tiles && std::string(tiles_env) == "single";
        const bool compact_only = sweep_tiles && std::string(tiles_env) == "compact";
        if (sweep_tiles && !compact_only)
        for (rill::TileLoad load : {rill::TileLoad::Vectors, rill::TileLoad::Transposed})
        for (int wg : {64, 128, 256, 512})
            for (int items : {4, 8, 12, 16, 24}) {
                if (load == rill::TileLoad::Vectors && items == 24) continue;
                const rill::ScanTile tile{wg, items, load};
                if (rill::tile_shared_bytes<std::uint32_t>(tile) > static_cast<std::int64_t>(rt.info().limits.shared_memory_bytes)) continue;
                std::printf("  scan tile %3d x %2d%s:", wg, items, load == rill::TileLoad::Vectors ? " in vectors" : "");
                for (auto algorithm : {rill::ScanAlgorithm::ReduceThenScan, rill::ScanAlgorithm::SinglePass}) {
                    if (algorithm == rill::ScanAlgorithm::SinglePass && rt.info().limits.loop_iterations) continue;
                    if (single_only && algorithm != rill::ScanAlgorithm::SinglePass) continue;
                    const rill::ScanOptions options{algorithm, tile};
                    auto tiled = rt.stream<std::uint32_t>({n});
                    rill::exclusive_scan(sin, tiled, rill::ScanOp::Add, options);
                    if (tiled.download() != got) fail("scan with tile " + std::to_string(wg) + " x " + std::to_string(items));
                    const double ms = median_ms(10, 5, [&] { rill::exclusive_scan(sin, tiled, rill::ScanOp::Add, options); }, rt).device_ms;
                    std::printf(" %s %.4f ms", algorithm == rill::ScanAlgorithm::SinglePass ? "single pass" : "reduce-then-scan", ms);
                }
                std::printf("\n");
            }

        // Reduce (peers: CUB DeviceReduce::Sum, and the copy roof) and compaction
        // keeping the even values (CUB DeviceSelect::If with the same predicate).
        auto total = rt.stream<std::uint32_t>({1});
        rill::reduce(sin, total);
        std::uint32_t want_total = 0;
        for (std::uint32_t v : hs) want_total += v;
        if (total.download()[0] != want_total) fail("reduce");
        reduce_ms = median_ms(10, 5, [&] { rill::reduce(sin, total); }, rt).device_ms;
        const rill::Filter<std::uint32_t> even("even", [](rill::Expr<std::uint32_t> x) { return (x & 1u) == 0u; });
        auto kept = rt.stream<std::uint32_t>({n});
        auto count = rt.stream<std::uint32_t>({1});
        std::vector<std::uint32_t> want_kept;
        std::copy_if(hs.begin(), hs.end(), std::back_inserter(want_kept), [](std::uint32_t x) { return x % 2 == 0; });
        even(sin, kept, count);
        std::vector<std::uint32_t> got_kept = kept.download();
        got_kept.resize(want_kept.size());
        if (count.download()[0] != want_kept.size() || got_kept != want_kept) fail("compaction");
        select_ms = median_ms(10, 5, [&] { even(sin, kept, count); }, rt).device_ms;
        // The tuning knobs: both ways of the default (single pass where the
        // look-back is exact, two passes), at the default tile and, with
        // RILL_BENCH_TILES, at every tile shape.
        for (auto algorithm : {rill::ScanAlgorithm::SinglePass, rill::ScanAlgorithm::ReduceThenScan}) {
            if (algorithm == rill::ScanAlgorithm::SinglePass && rt.info().limits.loop_iterations) continue;
            std::vector<rill::ScanTile> tiles{{}};
            if (sweep_tiles && !single_only) {
                tiles = {{128, 8, rill::TileLoad::Vectors}, {128, 16, rill::TileLoad::Vectors}, {256, 8, rill::TileLoad::Vectors},
                         {256, 16, rill::TileLoad::Vectors}, {128, 8}, {128, 16}, {256, 8}, {256, 16}};
                if (algorithm == rill::ScanAlgorithm::SinglePass && rill::detail::ballot_subgroup(rt.info().limits).size)
                    for (int wg : {128, 256})
                        for (int items : {8, 16}) tiles.push_back({wg, items, rill::TileLoad::Ballots});
            }
            for (const rill::ScanTile tile : tiles) {
                const rill::CompactOptions options{.scan = algorithm, .tile = tile};
                auto tiled = rt.stream<std::uint32_t>({n});
                even(sin, tiled, count, options);
                std::vector<std::uint32_t> got_tiled = tiled.download();
                got_tiled.resize(want_kept.size());
                const std::string name = std::string(algorithm == rill::ScanAlgorithm::SinglePass ? "single pass" : "two passes") +
                                         (tile.workgroup ? ", tile " + std::to_string(tile.workgroup) + " x " + std::to_string(tile.items) +
                                                               (tile.load == rill::TileLoad::Vectors   ? " in vectors"
                                                                : tile.load == rill::TileLoad::Ballots ? " ranked by ballots"
                                                                                                       : "")
                                                         : ", default tile");
                if (count.download()[0] != want_kept.size() || got_tiled != want_kept) fail("compaction, " + name);
                std::printf("  compaction %s: %.4f ms\n", name.c_str(),
                            median_ms(10, 5, [&] { even(sin, tiled, count, options); }, rt).device_ms);
            }
        }
    }

    std::vector<std::pair<std::string, double>> probes;
    if (section("probes")) scan_tile_probes(rt, n, probes);
    // The probe that led to TileLoad::Vectors: only when asked for by name.
    if (std::getenv("RILL_BENCH_ONLY") && section("vecscan") && !rt.info().limits.loop_iterations)
        rill::probe::vector_scan_probes(rt, n);
    for (const auto& [name, ms] : probes) std::printf("| %s | 2^%d | %.4f ms | | %.1f G elements/s |\n", name.c_str(), log2n, ms, n / ms / 1e6);

    // Radix sort of n random uint32 keys, keys only and with uint32 values
    // (peers: CUB DeviceRadixSort in the same run). One timed sort each: a
    // sort is long enough for the clock.
    double sort_keys_ms = 0, sort_pairs_ms = 0, sweep_keys_ms = 0, sweep_pairs_ms = 0;
    if (section("sort")) {
        std::vector<std::uint32_t> hk(n), hv(n);
        std::uint32_t st = 987654321u;
        for (std::int64_t i = 0; i < n; ++i) {
            st ^= st << 13, st ^= st >> 17, st ^= st << 5;
            hk[i] = st;
            hv[i] = static_cast<std::uint32_t>(i);
        }
        auto keys = rt.stream<std::uint32_t>({n}, hk);
        auto vals = rt.stream<std::uint32_t>({n}, hv);
        rill::radix_sort(keys, vals);
        const std::vector<std::uint32_t> sk = keys.download(), sv = vals.download();
        for (std::int64_t i = 0; i < n; ++i) {
            if (i > 0 && sk[i - 1] > sk[i]) fail("radix sort order at " + std::to_string(i));
            if (hk[sv[i]] != sk[i]) fail("radix sort value at " + std::to_string(i));
        }
        // Each timed sort starts from the same random keys, restored on the device (not timed).
        auto pristine = rt.stream<std::uint32_t>({n}, hk);
        auto restore = rill::kernel("bench_restore_keys(from, to)", [](rill::In<std::uint32_t> from, rill::Out<std::uint32_t> to) { to = from; });
        restore(pristine, keys);
        // Where each sort's time goes, per kernel (RILL_PROFILE=1 times every dispatch).
        auto kernel_profile = [&](const char* what) {
            std::printf("  per kernel, %s:\n", what);
            for (const auto& t : rt.kernel_times())
                std::printf("    %-38s %6llu calls %9.4f ms per call\n", t.kernel.c_str(), static_cast<unsigned long long>(t.calls),
                            t.total_ms / static_cast<double>(t.calls));
            rt.reset_kernel_times();
        };
        // The keys-only sorts are checked too, by both algorithms, before any is timed. That also
        // makes their scratch streams before timing, as the pairs' above: on a fresh H100 the first
        // timed keys-only sorts ran 1.7-5x slower on scratch memory first used inside the timing
        // (docs/PERFORMANCE.md#radix-sort). CUB's temporary storage is made before its timing too.
        {
            auto only = rt.stream<std::uint32_t>({n}, hk);
            rill::radix_sort(only);
            if (only.download() != sk) fail("radix sort of keys only differs from the sort of pairs");
            if (!rt.info().limits.loop_iterations) {
                restore(pristine, only);
                rill::radix_sort(only, rill::RadixSortOptions{.algorithm = rill::RadixAlgorithm::OneSweep});
                if (only.download() != sk) fail("OneSweep radix sort of keys only differs from the sort of pairs");
            }
        }
        // A sort's time is the span of its GPU commands, the gaps between them included, as
        // CUB's events time CUB's sort; the sum of its kernels' own times is printed beside it.
        auto sort_ms = [&](const char* what, auto sort) {
            const Timing t = median_ms(1, 5, [&] { sort(); restore(pristine, keys); }, rt);
            std::printf("  %s: span %.4f ms, kernels %.4f ms\n", what, t.span_ms, t.device_ms);
            kernel_profile(what);
            return t.span_ms > 0 ? t.span_ms : t.device_ms;
        };
        rt.reset_kernel_times();
        sort_keys_ms = sort_ms("radix sort keys", [&] { rill::radix_sort(keys); });
        sort_pairs_ms = sort_ms("radix sort pairs", [&] { rill::radix_sort(keys, vals); });
        if (!rt.info().limits.loop_iterations) {  // OneSweep: refused where the driver ends long loops
            const rill::RadixSortOptions sweep{.algorithm = rill::RadixAlgorithm::OneSweep};
            auto swept = rt.stream<std::uint32_t>({n}, hk);
            auto swept_values = rt.stream<std::uint32_t>({n}, hv);
            rill::radix_sort(swept, swept_values, sweep);
            if (swept.download() != sk || swept_values.download() != sv) fail("OneSweep radix sort differs from the default");
            rt.reset_kernel_times();
            sweep_keys_ms = sort_ms("OneSweep keys", [&] { rill::radix_sort(keys, sweep); });
            sweep_pairs_ms = sort_ms("OneSweep pairs", [&] { rill::radix_sort(keys, vals, sweep); });
            std::printf("  radix sort, OneSweep: keys %.3f ms, pairs %.3f ms\n", sweep_keys_ms, sweep_pairs_ms);
        }
        // CountThenScatter (what Auto takes where OneSweep is not measured faster) and
        // its tuning knob: tiles each workgroup sorts in turn (0 = rill's choice).
        // RILL_BENCH_SORT_RUNS=0,2 (say) times those runs only; empty: none.
        std::vector<std::int64_t> runs{0, 1, 2, 4, 16, 128};
        if (const char* only_runs = std::getenv("RILL_BENCH_SORT_RUNS")) {
            runs.clear();
            for (const char* c = only_runs; *c;) {
                char* end = nullptr;
                const long long run = std::strtoll(c, &end, 10);
                if (end == c) {
                    std::fprintf(stderr, "RILL_BENCH_SORT_RUNS='%s' is not a comma-separated list of tile runs; give say 0,2\n", only_runs);
                    return 2;
                }
                runs.push_back(run);
                c = *end == ',' ? end + 1 : end;
            }
        }
        for (std::int64_t run : runs) {
            const rill::RadixSortOptions opt{.tiles_per_workgroup = run, .algorithm = rill::RadixAlgorithm::CountThenScatter};
            const auto loop_limit = static_cast<std::int64_t>(rt.info().limits.loop_iterations);
            if (loop_limit && run * rill::detail::radix::kLoopsPerTile > loop_limit) continue;  // refused there
            const double keys_ms = median_ms(1, 3, [&] { rill::radix_sort(keys, opt); restore(pristine, keys); }, rt).device_ms;
            const double pairs_ms = median_ms(1, 3, [&] { rill::radix_sort(keys, vals, opt); restore(pristine, keys); }, rt).device_ms;
            std::printf("  radix sort, count-then-scatter, %lld tiles per workgroup: keys %.3f ms (%.2f G/s), pairs %.3f ms (%.2f G/s)\n",
                        static_cast<long long>(run), keys_ms, n / keys_ms / 1e6, pairs_ms, n / pairs_ms / 1e6);
        }
    }

    double scatter_ms[2][3] = {};
    if (section("scatter")) {
        // Brook's ScatterOp (paper section 3.4): 2^24 adds into 2^10 and 2^20 bins,
        // uint32, float and float4 (the device's atomics; float add through its float
        // atomic add where it has one, else compare-exchange). Checked against the host first.
        const std::int64_t ns = std::min(n, std::int64_t{1} << 24);  // smaller only in quick local runs
        std::vector<std::int32_t> hidx(ns);
        std::vector<std::uint32_t> hval(ns);
        std::vector<float> hfval(ns);
        std::uint32_t state = 12345;
        for (std::int64_t i = 0; i < ns; ++i) {
            state = state * 1664525u + 1013904223u;
            hidx[i] = static_cast<std::int32_t>(state >> 8);
            hval[i] = state % 7;
            hfval[i] = static_cast<float>(state % 5);
        }
        auto vals = rt.stream<std::uint32_t>({ns}, hval);
        auto fvals = rt.stream<float>({ns}, hfval);
        for (int b = 0; b < 2; ++b) {
            const std::int64_t bins = std::int64_t{1} << (b == 0 ? 10 : 20);
            std::vector<std::int32_t> bidx(ns);
            for (std::int64_t i = 0; i < ns; ++i) bidx[i] = hidx[i] % static_cast<std::int32_t>(bins);
            auto idx = rt.stream<std::int32_t>({ns}, bidx);
            auto target = rt.stream<std::uint32_t>({bins});
            auto ftarget = rt.stream<float>({bins});
            rill::scatter_op(vals, idx, target, rill::Combine::Add);
            rill::scatter_op(fvals, idx, ftarget, rill::Combine::Add);
            std::vector<std::uint64_t> want(bins, 0), fwant(bins, 0);
            for (std::int64_t i = 0; i < ns; ++i) {
                want[bidx[i]] += hval[i];
                fwant[bidx[i]] += static_cast<std::uint64_t>(hfval[i]);
            }
            const std::vector<std::uint32_t> got = target.download();
            const std::vector<float> fgot = ftarget.download();
            for (std::int64_t e = 0; e < bins; ++e) {
                if (got[e] != want[e]) fail("scatter_op add (uint) bin " + std::to_string(e));
                if (fgot[e] != static_cast<float>(fwant[e])) fail("scatter_op add (float) bin " + std::to_string(e));
            }
            scatter_ms[b][0] = median_ms(5, 5, [&] { rill::scatter_op(vals, idx, target, rill::Combine::Add); }, rt).device_ms;
            scatter_ms[b][1] = median_ms(5, 5, [&] { rill::scatter_op(fvals, idx, ftarget, rill::Combine::Add); }, rt).device_ms;

            // float4 elements: one atomic add per component.
            std::vector<rill::float4> hv4(ns);
            for (std::int64_t i = 0; i < ns; ++i) hv4[i] = {hfval[i], 1.0f, 0.0f, 2.0f};
            auto v4 = rt.stream<rill::float4>({ns}, hv4);
            auto t4 = rt.stream<rill::float4>({bins});
            rill::scatter_op(v4, idx, t4, rill::Combine::Add);
            std::vector<std::uint64_t> count(bins, 0);
            for (std::int64_t i = 0; i < ns; ++i) ++count[bidx[i]];
            const std::vector<rill::float4> g4 = t4.download();
            for (std::int64_t e = 0; e < bins; ++e)
                if (g4[e].x != static_cast<float>(fwant[e]) || g4[e].y != static_cast<float>(count[e]) || g4[e].z != 0.0f)
                    fail("scatter_op add (float4) bin " + std::to_string(e));
            scatter_ms[b][2] = median_ms(1, 3, [&] { rill::scatter_op(v4, idx, t4, rill::Combine::Add); }, rt).device_ms;
        }
    }

    // First compile of a new kernel (a fresh constant makes the IR new).
    const float salt = static_cast<float>(Clock::now().time_since_epoch().count() % 100000);
    auto fresh = rill::kernel("fresh(x, r)", [salt](rill::In<float> x, rill::Out<float> r) { r = x * salt; });
    auto t0 = Clock::now();
    fresh(a, b);
    rt.finish();
    const double first_call_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

    std::printf("\n| workload | size | device time | host time | bandwidth (device time) |\n|---|---|---|---|---|\n");
    std::printf("| copy  | 2^%d floats | %.3f ms | %.3f ms | %.1f GB/s |\n", log2n, copy_ms, copy_t.host_ms, copy_gbs);
    std::printf("| saxpy | 2^%d floats | %.3f ms | %.3f ms | %.1f GB/s |\n", log2n, saxpy_ms, saxpy_t.host_ms, saxpy_gbs);
    std::printf("| new stream (zero-filled) | 2^%d floats | %.3f ms | %.3f ms | %.1f GB/s |\n", log2n, fill_t.device_ms,
                fill_t.host_ms, fill_t.device_ms > 0 ? n * 4.0 / fill_t.device_ms / 1e6 : 0.0);
    std::printf("| 1000 dependent kernels | 1024 floats | %.3f us per kernel (host issue %.3f us, device %.3f us) | |\n",
                per_kernel_us, chain_issue_us, chain_device_us);
    std::printf("| sum of float4 (Brook: 2.4 ms GeForce 6800) | 2^20 float4 | %.4f ms | %.4f ms | |\n", sum4_t.device_ms,
                sum4_t.host_ms);
    std::printf("| SGEMV through mul + sum | 1024 x 1024 | %.4f ms | %.4f ms | |\n", gemv_t.device_ms, gemv_t.host_ms);
    // Parts left out by RILL_BENCH_ONLY measured nothing: no rows for them.
    if (scan_ms > 0) {
        std::printf("| exclusive sum scan, uint32 | 2^%d | %.4f ms | %.4f ms | %.1f G elements/s |\n", log2n, scan_ms,
                    scan_host_ms, n / scan_ms / 1e6);
        if (scan_single_pass_ms > 0)
            std::printf("| exclusive sum scan, single pass (decoupled look-back) | 2^%d | %.4f ms | | %.1f G elements/s |\n",
                        log2n, scan_single_pass_ms, n / scan_single_pass_ms / 1e6);
        std::printf("| reduce (sum), uint32 | 2^%d | %.4f ms | | %.1f G elements/s, %.1f GB/s read |\n", log2n, reduce_ms,
                    n / reduce_ms / 1e6, 4.0 * n / reduce_ms / 1e6);
        std::printf("| compaction keeping even values, uint32 | 2^%d | %.4f ms | | %.1f G elements/s |\n", log2n, select_ms,
                    n / select_ms / 1e6);
    }
    if (sort_keys_ms > 0) {
        std::printf("| radix sort, uint32 keys | 2^%d | %.3f ms | | %.2f G keys/s |\n", log2n, sort_keys_ms, n / sort_keys_ms / 1e6);
        std::printf("| radix sort, uint32 pairs | 2^%d | %.3f ms | | %.2f G pairs/s |\n", log2n, sort_pairs_ms,
                    n / sort_pairs_ms / 1e6);
        if (sweep_keys_ms > 0) {
            std::printf("| radix sort, uint32 keys, OneSweep | 2^%d | %.3f ms | | %.2f G keys/s |\n", log2n, sweep_keys_ms,
                        n / sweep_keys_ms / 1e6);
            std::printf("| radix sort, uint32 pairs, OneSweep | 2^%d | %.3f ms | | %.2f G pairs/s |\n", log2n, sweep_pairs_ms,
                        n / sweep_pairs_ms / 1e6);
        }
    }
    for (int b = 0; b < 2; ++b)
        if (scatter_ms[b][0] > 0)
            std::printf("| ScatterOp add, 2^24 values into 2^%d bins | uint32 %.4f ms | float %.4f ms | float4 %.3f ms |\n",
                        b == 0 ? 10 : 20, scatter_ms[b][0], scatter_ms[b][1], scatter_ms[b][2]);
    std::printf("| first call of a new kernel (trace excluded: compile + dispatch) | 1024 floats | %.2f ms | |\n",
                first_call_ms);
    std::printf("| first call of 'copy' (%s: %llu shader compile(s)) | 1024 floats | %.2f ms | |\n",
                compiles_before == 0 ? "warm, from the disk cache" : "cold", static_cast<unsigned long long>(compiles_before),
                first_copy_ms);
    if (!json.empty()) {
        // Per ms of a part: 0 for a part RILL_BENCH_ONLY left out (JSON has no inf).
        auto per_ms = [](double amount, double ms) { return ms > 0 ? amount / ms / 1e6 : 0.0; };
        std::ofstream f(json);
        f << "{\"backend\":\"" << rt.backend_name() << "\",\"device\":\"" << rt.info().device << "\",\"log2n\":" << log2n
          << ",\"copy_host_ms\":" << copy_t.host_ms << ",\"saxpy_host_ms\":" << saxpy_t.host_ms << ",\"copy_ms\":" << copy_ms << ",\"copy_gbs\":" << copy_gbs << ",\"saxpy_ms\":" << saxpy_ms
          << ",\"saxpy_gbs\":" << saxpy_gbs << ",\"zero_fill_ms\":" << fill_t.device_ms << ",\"dependent_kernel_us\":" << per_kernel_us << ",\"dependent_issue_us\":" << chain_issue_us
          << ",\"dependent_device_us\":" << chain_device_us
          << ",\"sum_float4_2e20_ms\":" << sum4_t.device_ms << ",\"sgemv_1024_ms\":" << gemv_t.device_ms
          << ",\"first_call_ms\":" << first_call_ms << ",\"first_copy_ms\":" << first_copy_ms
          << ",\"first_copy_compiles\":" << compiles_before << ",\"scatter_add_u32_2e24_into_2e10_ms\":" << scatter_ms[0][0]
          << ",\"scatter_add_f32_2e24_into_2e10_ms\":" << scatter_ms[0][1]
          << ",\"scatter_add_u32_2e24_into_2e20_ms\":" << scatter_ms[1][0]
          << ",\"scatter_add_f32_2e24_into_2e20_ms\":" << scatter_ms[1][1]
          << ",\"scatter_add_f32x4_2e24_into_2e10_ms\":" << scatter_ms[0][2]
          << ",\"scatter_add_f32x4_2e24_into_2e20_ms\":" << scatter_ms[1][2] << ",\"scan_ms\":" << scan_ms
          << ",\"scan_gelems\":" << per_ms(n, scan_ms) << ",\"reduce_ms\":" << reduce_ms
          << ",\"reduce_gelems\":" << per_ms(n, reduce_ms) << ",\"reduce_gbs\":" << per_ms(4.0 * n, reduce_ms)
          << ",\"select_ms\":" << select_ms << ",\"select_gelems\":" << per_ms(n, select_ms) << ",\"scan_single_pass_ms\":" << scan_single_pass_ms << ",\"sort_keys_gkeys\":" << per_ms(n, sort_keys_ms)
          << ",\"sort_pairs_gpairs\":" << per_ms(n, sort_pairs_ms);
        if (sweep_keys_ms > 0)
            f << ",\"sweep_keys_gkeys\":" << per_ms(n, sweep_keys_ms) << ",\"sweep_pairs_gpairs\":" << per_ms(n, sweep_pairs_ms);
        f << "}\n";
    }
    return 0;
}
