// How many workgroups of 256 invocations a backend keeps on one SM (compute
// unit) at once, by the shared memory each declares.
//
//   rill-bench-occupancy [SMs = 132] [output.json]
//
// The radix sort's tiles are sized for about 48 KB of shared memory per SM,
// which NVIDIA's Vulkan driver appeared to give
// (docs/PERFORMANCE.md#radix-sort), though an H100 SM has 228 KB. This measures it
// directly. Each workgroup declares `kb` KB of shared memory, touches it at
// a place it computes (so the compiler keeps all of it), then walks a chain
// of dependent coherent loads through a small buffer that L2 holds. The walk
// is latency-bound and issues little, so workgroups on one SM overlap
// without slowing each other. One wave of `SMs` workgroups takes T1; 32
// waves' worth (32 x SMs workgroups) take T32. About 32 T1 / T32 workgroups
// then ran at once per SM. Every workgroup's result is checked.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <rill/rill.h>

#include "../timing.h"

namespace {

constexpr int kWg = 256;
constexpr std::uint32_t kChain = 4096;  // words of the chain: 16 KB, held in L2
constexpr std::uint32_t kStride = 257;  // chain[i] = (i + kStride) % kChain

/// Words of `kb` KB of shared memory: whole rows of kWg, one per invocation.
constexpr std::int64_t shared_words(int kb) { return kb * 1024 / static_cast<std::int64_t>(sizeof(std::uint32_t)); }
static_assert(shared_words(1) % kWg == 0, "the probe fills its shared memory a row of kWg words at a time");

auto make_probe(int kb) {
    using namespace rill;
    const auto words = static_cast<std::int32_t>(shared_words(kb));
    return group_kernel<kWg>("probe_resident_" + std::to_string(kb) + "kb(chain, out, steps)",
                             [words](Array<std::uint32_t> chain, Array<std::uint32_t> out, Int steps) {
        Shared<std::uint32_t> sh(words, dsl::Unchecked{});
        Int lid = local_id();
        for (int j = 0; j < words / kWg; ++j) sh.store(j * kWg + lid, static_cast<std::uint32_t>(j));
        barrier();
        Var<std::uint32_t> x = cast<std::uint32_t>(lid);
        For(0, steps, [&](Int) { x = chain.atomic_load(cast<std::int32_t>(x)); });
        // A place in shared memory that depends on the walk: its whole size stays declared.
        UInt row = sh.load(cast<std::int32_t>(x % static_cast<std::uint32_t>(words)));
        out.store(group_id() * kWg + lid, x + (row << 16u));
    });
}

}  // namespace

int main(int argc, char** argv) {
    rill::bench::exit_on_options(argc, argv, "[RILL_BACKEND=cpu|vulkan|opengl] rill-bench-occupancy [SMs (132)] [output.json]");
    const std::int64_t sms = argc > 1 ? std::atoll(argv[1]) : 132;
    const std::string json = argc > 2 ? argv[2] : "";
    rill::Runtime rt;
    rt.set_profiling(true);
    std::printf("backend %s: %s; %lld SMs assumed\n", rt.backend_name().c_str(), rt.info().device.c_str(),
                static_cast<long long>(sms));
    const std::uint64_t loop_limit = rt.info().limits.loop_iterations;
    const std::int32_t steps = loop_limit ? static_cast<std::int32_t>(std::min<std::uint64_t>(loop_limit / 2, 2000)) : 2000;
    std::vector<std::uint32_t> chain(kChain);
    for (std::uint32_t i = 0; i < kChain; ++i) chain[i] = (i + kStride) % kChain;
    auto chain_stream = rt.stream<std::uint32_t>({static_cast<std::int64_t>(kChain)}, chain);
    const std::int64_t most_kb = static_cast<std::int64_t>(rt.info().limits.shared_memory_bytes) / 1024;
    std::printf("\n| shared memory per workgroup | one wave (%lld workgroups) | 32 waves' worth | workgroups at once per SM |\n"
                "|---|---|---|---|\n",
                static_cast<long long>(sms));
    std::ostringstream out;
    out << "{\"backend\":\"" << rt.backend_name() << "\",\"device\":\"" << rt.info().device << "\",\"sms\":" << sms
        << ",\"steps\":" << steps << ",\"occupancy\":[";
    bool first = true;
    for (int kb : {1, 4, 8, 12, 14, 16, 20, 22, 24, 28, 32, 40, 48}) {
        if (kb > most_kb) break;
        auto probe = make_probe(kb);
        const std::int64_t words = shared_words(kb);
        double ms[2];
        for (int w = 0; w < 2; ++w) {
            const std::int64_t groups = sms * (w == 0 ? 1 : 32);
            auto result = rt.stream<std::uint32_t>({groups * kWg});
            probe(rill::Groups{groups}, chain_stream, result, steps);
            const std::vector<std::uint32_t> got = result.download();
            for (std::int64_t i = 0; i < groups * kWg; ++i) {
                const std::uint32_t x = static_cast<std::uint32_t>((i % kWg + std::uint64_t{kStride} * steps) % kChain);
                const std::uint32_t row = static_cast<std::uint32_t>((x % words) / kWg);
                if (got[i] != x + (row << 16u)) rill::bench::fail("occupancy probe of " + std::to_string(kb) + " KB, invocation " + std::to_string(i));
            }
            ms[w] = rill::bench::median_ms(1, 5, [&] { probe(rill::Groups{groups}, chain_stream, result, steps); }, rt).device_ms;
        }
        const double at_once = 32.0 * ms[0] / ms[1];
        std::printf("| %d KB | %.4f ms | %.4f ms | %.2f |\n", kb, ms[0], ms[1], at_once);
        out << (first ? "" : ",") << "{\"kb\":" << kb << ",\"one_wave_ms\":" << ms[0] << ",\"waves32_ms\":" << ms[1]
            << ",\"at_once\":" << at_once << "}";
        first = false;
    }
    out << "]}\n";
    if (!json.empty()) std::ofstream(json) << out.str();
    return 0;
}
