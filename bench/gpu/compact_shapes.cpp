// The single-pass compactions that NVIDIA's Vulkan driver got wrong, run and
// checked against std::copy_if, for the test of a cause
// (docs/PERFORMANCE.md#compaction): tiles ranked by ballots beyond the listed
// ones (256 x 24, 512 x 16), beside the listed ones, and an 8-word struct in
// transposed tiles. rill refuses the unlisted shapes; RILL_COMPACT_REFUSED_SHAPES=1
// lets them run. With RILL_VK_SUBGROUP_UNIFORM_CONTROL_FLOW=1 the kernels declare
// main [[subgroup_uniform_control_flow]] (the lead: subgroup operations after
// lane-divergent branches in the look-back):
//
//   RILL_COMPACT_REFUSED_SHAPES=1 [RILL_VK_SUBGROUP_UNIFORM_CONTROL_FLOW=1] RILL_BACKEND=vulkan rill-compact-shapes
//
// Prints a line per shape and size, "right" or what went wrong; exits 1 if any went wrong.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <rill/rill.h>
#include <rill/algorithms/compact.h>

#include "../timing.h"

struct WideRecord {
    rill::float4 lo, hi;
};
RILL_STRUCT(WideRecord, lo, hi);

namespace {

using namespace rill;

int wrong = 0;

template <class T>
void report(const std::string& shape, std::int64_t n, std::int64_t count, const std::vector<T>& got, const std::vector<T>& want,
            bool (*same)(const T&, const T&)) {
    std::string verdict = "right";
    if (count != static_cast<std::int64_t>(want.size())) {
        verdict = "WRONG: kept " + std::to_string(count) + " of " + std::to_string(want.size());
    } else {
        for (std::size_t i = 0; i < want.size(); ++i)
            if (!same(got[i], want[i])) {
                verdict = "WRONG: element " + std::to_string(i) + " differs";
                break;
            }
    }
    if (verdict != "right") ++wrong;
    std::printf("%-44s n = %8lld: %s\n", shape.c_str(), static_cast<long long>(n), verdict.c_str());
}

void words(Runtime& rt, std::int64_t n, const ScanTile& tile, std::mt19937& rng) {
    static Filter<std::uint32_t> odd("odd", [](const Var<std::uint32_t>& x) { return (x & 1u) == 1u; });
    std::vector<std::uint32_t> xs(static_cast<std::size_t>(n));
    for (auto& x : xs) x = static_cast<std::uint32_t>(rng());
    std::vector<std::uint32_t> want;
    std::copy_if(xs.begin(), xs.end(), std::back_inserter(want), [](std::uint32_t x) { return (x & 1u) == 1u; });
    auto in = rt.stream<std::uint32_t>({n}, xs);
    auto out = rt.stream<std::uint32_t>({n});
    const std::string shape = "uint32, " + std::to_string(tile.workgroup) + " x " + std::to_string(tile.items) + " by ballots";
    try {
        const std::int64_t count = odd(in, out, CompactOptions{.scan = ScanAlgorithm::SinglePass, .tile = tile});
        report<std::uint32_t>(shape, n, count, out.download(), want, [](const auto& a, const auto& b) { return a == b; });
    } catch (const Error& e) {
        std::printf("%-44s n = %8lld: refused: %s\n", shape.c_str(), static_cast<long long>(n), e.what());
    }
}

void records(Runtime& rt, std::int64_t n, std::mt19937& rng) {
    static Filter<WideRecord> kept("kept", [](const Var<WideRecord>& r) { return float_bits_to_int(r.lo.w()) >= 0; });
    std::vector<WideRecord> rs(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        const bool keep = rng() % 4 != 0;
        rs[static_cast<std::size_t>(i)] = WideRecord{{float(i), 1, 2, std::bit_cast<float>(keep ? std::int32_t(i) : -1)}, {3, 4, 5, float(-i)}};
    }
    std::vector<WideRecord> want;
    std::copy_if(rs.begin(), rs.end(), std::back_inserter(want), [](const WideRecord& r) { return std::bit_cast<std::int32_t>(r.lo.w) >= 0; });
    auto in = rt.stream<WideRecord>({n}, rs);
    auto out = rt.stream<WideRecord>({n});
    const std::string shape = "8-word struct, single pass, transposed tiles";
    try {
        const std::int64_t count = kept(in, out, CompactOptions{.scan = ScanAlgorithm::SinglePass, .tile = {256, 16, TileLoad::Transposed}});
        report<WideRecord>(shape, n, count, out.download(), want,
                           [](const WideRecord& a, const WideRecord& b) { return a.lo.x == b.lo.x && a.hi.w == b.hi.w; });
    } catch (const Error& e) {
        std::printf("%-44s n = %8lld: refused: %s\n", shape.c_str(), static_cast<long long>(n), e.what());
    }
}

}  // namespace

int main(int argc, char** argv) {
    rill::bench::exit_on_options(argc, argv,
                                 "RILL_COMPACT_REFUSED_SHAPES=1 [RILL_VK_SUBGROUP_UNIFORM_CONTROL_FLOW=1] [RILL_BACKEND=vulkan] rill-compact-shapes");
    Runtime rt;
    std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
    std::mt19937 rng(7);
    for (std::int64_t n : {1025, 4097, 70001, 1000003}) {
        for (ScanTile tile : {ScanTile{128, 8, TileLoad::Ballots}, ScanTile{128, 16, TileLoad::Ballots}, ScanTile{256, 16, TileLoad::Ballots},
                              ScanTile{256, 24, TileLoad::Ballots}, ScanTile{512, 16, TileLoad::Ballots}})
            words(rt, n, tile, rng);
        records(rt, n, rng);
    }
    std::printf("%d wrong\n", wrong);
    return wrong ? 1 : 0;
}
