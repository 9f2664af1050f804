// Compaction and stable partition against std::copy_if / std::stable_partition,
// on scalars and structs, at small sizes exhaustively and around tile sizes.
#include <algorithm>
#include <bit>

#include <rill/algorithms/compact.h>

#include "backend_fixture.h"

struct Particle {
    rill::float3 position;
    std::int32_t id;
};
RILL_STRUCT(Particle, position, id);

// Eight words, as a BVH's cluster (box corners, an id in lo.w).
struct WideRecord {
    rill::float4 lo, hi;
};
RILL_STRUCT(WideRecord, lo, hi);

namespace rill::test {
namespace {

class Compaction : public BackendTest {};

/// Every way to compact (Horn's with his Hillis-Steele scan too), and the
/// largest size each is tested at (the bitonic sort is O(n log^2 n)).
struct Way {
    CompactOptions options;
    std::int64_t max_n;
    const char* name;
};
const Way kWays[] = {
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::Auto}, std::int64_t{1} << 30, "scan/scatter in tiles"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::Auto, {128, 8}}, 1000003, "scan/scatter in tiles of 128 x 8"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::Auto, {128, 16}}, 1000003, "scan/scatter in tiles of 128 x 16"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::Auto, {256, 8}}, 1000003, "scan/scatter in tiles of 256 x 8"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::Auto, {256, 16}}, 1000003, "scan/scatter in tiles of 256 x 16"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::SinglePass}, std::int64_t{1} << 30, "single pass"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::SinglePass, {128, 8}}, 1000003, "single pass in tiles of 128 x 8"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::SinglePass, {256, 16}}, 1000003, "single pass in tiles of 256 x 16"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::SinglePass, {128, 16, TileLoad::Vectors}}, 1000003,
     "single pass in tiles of 128 x 16 in vectors"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::SinglePass, {256, 8, TileLoad::Vectors}}, 1000003,
     "single pass in tiles of 256 x 8 in vectors"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::SinglePass, {128, 8, TileLoad::Ballots}}, 1000003,
     "single pass in tiles of 128 x 8 ranked by ballots"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::SinglePass, {256, 16, TileLoad::Ballots}}, 1000003,
     "single pass in tiles of 256 x 16 ranked by ballots"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::ReduceThenScan}, std::int64_t{1} << 30, "two passes"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::Auto, {128, 16, TileLoad::Vectors}}, 1000003,
     "scan/scatter in tiles of 128 x 16 in vectors"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::ReduceThenScan, {256, 8, TileLoad::Vectors}}, 1000003,
     "two passes in tiles of 256 x 8 in vectors"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::ReduceThenScan, {128, 8, TileLoad::Vectors}}, 1000003,
     "two passes in tiles of 128 x 8 in vectors"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::ReduceThenScan, {256, 16, TileLoad::Vectors}}, 1000003,
     "two passes in tiles of 256 x 16 in vectors"},
    {{CompactAlgorithm::ScanScatter, ScanAlgorithm::Blelloch}, std::int64_t{1} << 30, "flags, Blelloch scan, scatter"},
    {{CompactAlgorithm::SearchGather, ScanAlgorithm::Auto}, std::int64_t{1} << 30, "search/gather"},
    {{CompactAlgorithm::SearchGather, ScanAlgorithm::HillisSteele}, 70001, "search/gather, Hillis-Steele"},
    {{CompactAlgorithm::BitonicSort, ScanAlgorithm::Auto}, 70001, "bitonic sort"},
};

bool single_pass(const Way& way) {
    return way.options.algorithm == CompactAlgorithm::ScanScatter && way.options.scan == ScanAlgorithm::SinglePass;
}

/// Whether this device runs the way on n elements: tiles ranked by ballots
/// need subgroup ballots; where the driver ends long loops, the single pass
/// runs only as long as its look-back surely ends in time (about n / S
/// iterations, S the subgroup's size, plus a tile's: half of that budget
/// here). Both are refused otherwise (ClearErrors checks the messages).
bool runs_here(Runtime& rt, const Way& way, std::int64_t n) {
    if (way.options.tile.load == TileLoad::Ballots && !detail::ballot_subgroup(rt.info().limits).size) return false;
    const std::uint64_t limit = rt.info().limits.loop_iterations;
    if (!single_pass(way) || limit == 0) return true;
    const DeviceLimits& l = rt.info().limits;
    const std::int64_t S = std::max<std::uint32_t>(1, l.min_subgroup_size ? l.min_subgroup_size : l.subgroup_size);
    return n <= (static_cast<std::int64_t>(limit) - 2 * 4096) * S / 2;
}

std::vector<std::int64_t> compaction_sizes(Runtime& rt) {
    std::vector<std::int64_t> sizes;
    for (std::int64_t n = 0; n <= 300; ++n) sizes.push_back(n);
    for (std::int64_t n : {1023, 1025, 4095, 4097, 16383, 16384, 16385, 65537, 1000003, (1 << 22) + 1})
        if (!past_largest(rt, n)) sizes.push_back(n);
    return sizes;
}

/// Keeps odd ints.
Filter<std::int32_t> odd_filter() { return Filter<std::int32_t>("odd", [](Expr<std::int32_t> x) { return (x & 1) == 1; }); }

/// The odd ones of n random ints through `way` (odd: odd_filter()), against
/// std::copy_if: the count, the kept elements in order, and the rest of the
/// output untouched.
void check_odd_filter(Runtime& rt, const Filter<std::int32_t>& odd, const Way& way, std::int64_t n) {
    std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), -1000, 1000);
    std::vector<std::int32_t> want;
    std::copy_if(x.begin(), x.end(), std::back_inserter(want), [](std::int32_t v) { return (v & 1) == 1; });
    auto in = rt.stream<std::int32_t>({n}, x);
    auto out = rt.stream<std::int32_t>({n}, std::vector<std::int32_t>(static_cast<std::size_t>(n), -7));
    const std::int64_t kept = odd(in, out, way.options);
    ASSERT_EQ(kept, static_cast<std::int64_t>(want.size())) << "n = " << n;
    std::vector<std::int32_t> got = out.download();
    for (std::int64_t i = 0; i < n; ++i)
        ASSERT_EQ(got[i], i < kept ? want[i] : -7) << "element " << i << " of " << n;
}

TEST_P(Compaction, FilterKeepsOrderAndCount) {
    const Filter<std::int32_t> odd = odd_filter();
    for (const Way& way : kWays)
    for (std::int64_t n : compaction_sizes(rt())) {
        if (n > way.max_n || !runs_here(rt(), way, n)) continue;
        SCOPED_TRACE(way.name);
        check_odd_filter(rt(), odd, way, n);
        if (HasFatalFailure()) return;
    }
}

TEST_P(Compaction, DegenerateSelections) {
    Filter<float> all("all", [](Expr<float>) { return Expr<bool>(true); });
    Filter<float> none("none", [](Expr<float>) { return Expr<bool>(false); });
    for (const Way& way : kWays)
    for (std::int64_t n : {1, 4096, 4097, 70001}) {
        if (!runs_here(rt(), way, n)) continue;
        SCOPED_TRACE(way.name);
        std::vector<float> x = random_floats(static_cast<std::size_t>(n), -1, 1);
        auto in = rt().stream<float>({n}, x);
        auto out = rt().stream<float>({n});
        auto count = rt().stream<std::uint32_t>({1});
        all(in, out, count, way.options);
        EXPECT_EQ(count.download()[0], static_cast<std::uint32_t>(n));
        EXPECT_EQ(out.download(), x);
        EXPECT_EQ(none(in, out, way.options), 0);
        if (single_pass(way)) continue;  // no partition (ClearErrors)
        none.partition(in, out, count, way.options);
        EXPECT_EQ(count.download()[0], 0u);
        EXPECT_EQ(out.download(), x);
    }
}

// The single pass numbers tiles by group_id, and counts a tile before that
// has not started itself: with the CPU backend's workgroups started last
// first, every look-back meets such tiles. GPUs run the same in their order.
TEST_P(Compaction, SinglePassWhateverOrderWorkgroupsStart) {
    const WorkgroupsInReverse reverse;
    const Filter<std::int32_t> odd = odd_filter();
    for (const Way& way : kWays)
    for (std::int64_t n : {4097, 16385, 40009}) {
        if (!single_pass(way) || !runs_here(rt(), way, n)) continue;
        SCOPED_TRACE(way.name);
        check_odd_filter(rt(), odd, way, n);
        if (HasFatalFailure()) return;
    }
}

// One-word elements partition through every way, tiles of vectors included.
TEST_P(Compaction, StablePartitionOfScalars) {
    Filter<std::uint32_t> small("small", [](Expr<std::uint32_t> x) { return x < 300u; });
    std::vector<std::int64_t> sizes;
    for (std::int64_t n = 0; n <= 40; ++n) sizes.push_back(n);
    for (std::int64_t n : {1023, 2049, 4097, 65537, 1000003})
        if (!past_largest(rt(), n)) sizes.push_back(n);
    for (const Way& way : kWays)
    for (std::int64_t n : sizes) {
        if (single_pass(way) || n > way.max_n) continue;  // no partition in a single pass (ClearErrors)
        SCOPED_TRACE(way.name);
        const std::vector<std::int32_t> r = random_ints(static_cast<std::size_t>(n), 0, 999);
        const std::vector<std::uint32_t> x(r.begin(), r.end());
        std::vector<std::uint32_t> want = x;
        const auto mid = std::stable_partition(want.begin(), want.end(), [](std::uint32_t v) { return v < 300u; });
        auto in = rt().stream<std::uint32_t>({n}, x);
        auto out = rt().stream<std::uint32_t>({n});
        auto count = rt().stream<std::uint32_t>({1});
        small.partition(in, out, count, way.options);
        ASSERT_EQ(count.download()[0], static_cast<std::uint32_t>(mid - want.begin())) << "n = " << n;
        ASSERT_EQ(out.download(), want) << "n = " << n;
    }
}

// Filters of an eight-word struct in every way that moves structs (through
// shared memory), default options first: what rill::bvh's PLOC compacts.
TEST_P(Compaction, FilterOfWideStructs) {
    Filter<WideRecord> kept("kept", [](const Var<WideRecord>& r) { return float_bits_to_int(r.lo.w()) >= 0; });
    for (std::int64_t n : {1, 255, 4099, 70001}) {
        std::vector<WideRecord> rs(static_cast<std::size_t>(n));
        std::vector<std::int32_t> ids = random_ints(static_cast<std::size_t>(n), -1000, 3000);
        for (std::int64_t i = 0; i < n; ++i)
            rs[i] = WideRecord{{float(i), 1, 2, std::bit_cast<float>(ids[i] < 0 ? -1 : std::int32_t(i))}, {3, 4, 5, float(-i)}};
        std::vector<WideRecord> want;
        std::copy_if(rs.begin(), rs.end(), std::back_inserter(want), [](const WideRecord& r) { return std::bit_cast<std::int32_t>(r.lo.w) >= 0; });
        auto in = rt().stream<WideRecord>({n}, rs);
        for (int w = -1; w < static_cast<int>(std::size(kWays)); ++w) {
            const Way way = w < 0 ? Way{CompactOptions{}, std::int64_t{1} << 30, "default"} : kWays[w];
            if (!runs_here(rt(), way, n) || way.options.tile.load != TileLoad::Transposed || n > way.max_n) continue;
            SCOPED_TRACE(std::string(way.name) + ", n = " + std::to_string(n));
            auto out = rt().stream<WideRecord>({n});
            if (single_pass(way) && rt().backend_name() == "vulkan") {  // refused there: NVIDIA's driver miscounted
                EXPECT_NE(error_message([&] { kept(in, out, way.options); }).find("through Vulkan the single pass moves "
                                                                                 "elements of one word, not WideRecord"),
                          std::string::npos);
                continue;
            }
            // Every way is tried, so that a failure names all the ways that fail.
            const std::int64_t count = kept(in, out, way.options);
            EXPECT_EQ(count, static_cast<std::int64_t>(want.size()));
            if (count != static_cast<std::int64_t>(want.size())) continue;
            std::vector<WideRecord> got = out.download();
            for (std::size_t i = 0; i < want.size(); ++i)
                if (got[i].lo.x != want[i].lo.x || got[i].hi.w != want[i].hi.w) {
                    ADD_FAILURE() << "element " << i << " is record " << got[i].lo.x << ", not " << want[i].lo.x;
                    break;
                }
        }
    }
}

// Structs: partition where it can run, the filter in the single pass (which
// has no partition, ClearErrors).
TEST_P(Compaction, StablePartitionOfStructs) {
    Filter<Particle> inside("inside", [](const Var<Particle>& p) { return length(p.position) < 1.0f; });
    for (const Way& way : kWays)
    for (std::int64_t n : {0, 1, 2, 255, 4097, 70001}) {
        if (!runs_here(rt(), way, n)) continue;
        if (way.options.tile.load != TileLoad::Transposed) continue;  // vectors and ballots of one-word elements (ClearErrors)
        SCOPED_TRACE(n);
        SCOPED_TRACE(way.name);
        std::vector<float> c = random_floats(static_cast<std::size_t>(3 * n), -1, 1);
        std::vector<Particle> ps(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) ps[i] = Particle{float3{c[3 * i], c[3 * i + 1], c[3 * i + 2]}, std::int32_t(i)};
        auto inside_host = [](const Particle& p) {
            // float as on the device: length of the float3 (sqrt of a float sum), tested well away from 1
            const float l2 = p.position[0] * p.position[0] + p.position[1] * p.position[1] + p.position[2] * p.position[2];
            return l2 < 1.0f;
        };
        // Keep the test away from the boundary, where float rounding could decide either way.
        for (auto& p : ps) {
            const float l2 = p.position[0] * p.position[0] + p.position[1] * p.position[1] + p.position[2] * p.position[2];
            if (std::fabs(l2 - 1.0f) < 1e-3f) p.position = float3{0.1f, 0.1f, 0.1f};
        }
        std::vector<Particle> want = ps;
        const auto mid = std::stable_partition(want.begin(), want.end(), inside_host);
        auto in = rt().stream<Particle>({n}, ps);
        auto out = rt().stream<Particle>({n});
        auto count = rt().stream<std::uint32_t>({1});
        const bool filter_only = single_pass(way);
        if (filter_only && rt().backend_name() == "vulkan") {  // refused there (FilterOfWideStructs); 0 elements: nothing to refuse
            if (n > 0) {
                EXPECT_NE(error_message([&] { inside(in, out, count, way.options); }).find("moves elements of one word"),
                          std::string::npos);
            }
            continue;
        }
        if (filter_only) inside(in, out, count, way.options);
        else inside.partition(in, out, count, way.options);
        EXPECT_EQ(count.download()[0], static_cast<std::uint32_t>(mid - want.begin()));
        std::vector<Particle> got = out.download();
        const std::int64_t checked = filter_only ? mid - want.begin() : n;
        for (std::int64_t i = 0; i < checked; ++i) ASSERT_EQ(got[i].id, want[i].id) << i;
    }
}

TEST_P(Compaction, ClearErrors) {
    Filter<float> any("any", [](Expr<float> x) { return x > 0.0f; });
    auto a = rt().stream<float>({10});
    auto b = rt().stream<float>({11});
    EXPECT_THROW(any(a, b), Error);
    EXPECT_THROW(any(a, a), Error);
    auto c = rt().stream<float>({10});
    EXPECT_EQ(error_message([&] { any(a, c, CompactOptions{.tile = {512, 8}}); }),
              "rill::Filter 'any': CompactOptions::tile is 512 invocations of 8 elements; use 128 or 256 invocations "
              "of 8 or 16 elements each (or leave the default)");
    auto parts = rt().stream<Particle>({8}), kept = rt().stream<Particle>({8});
    const Filter<Particle> first("first", [](const Var<Particle>& p) { return p.id == 0; });
    EXPECT_EQ(error_message([&] { first(parts, kept, CompactOptions{.tile = {128, 16, TileLoad::Vectors}}); })
                  .find("rill::Filter 'first': CompactOptions::tile moves vectors of 4 elements, which needs int32, "
                        "uint32 or float elements, not Particle; use TileLoad::Transposed"),
              0u);
    EXPECT_EQ(error_message([&] { first(parts, kept, CompactOptions{.tile = {128, 16, TileLoad::Ballots}}); })
                  .find("rill::Filter 'first': TileLoad::Ballots holds one-word elements (int32, uint32 or float), not "
                        "Particle; use TileLoad::Transposed"),
              0u);
    auto wide = rt().stream<float>({16});
    EXPECT_EQ(error_message([&] { any(wide.domain({1}, {11}), c, CompactOptions{.tile = {128, 16, TileLoad::Vectors}}); }),
              "rill::Filter 'any': CompactOptions::tile moves vectors of 4 elements, but the input is a view that starts "
              "at element 1 of its buffer; give views that start at a multiple of 4, or TileLoad::Transposed");
    const CompactOptions single{.scan = ScanAlgorithm::SinglePass};
    const CompactOptions ballots{.tile = {128, 16, TileLoad::Ballots}};
    const std::string ballots_fix = "TileLoad::Vectors or Transposed (TileLoad::Ballots is a tile of the single pass only)";
    auto count = rt().stream<std::uint32_t>({1});
    const std::string why = "rill::Filter 'any': partition cannot run in a single pass: the other elements go after "
                            "all kept ones, whose number is known only when every tile is done; use ";
    EXPECT_EQ(error_message([&] { any.partition(a, c, count, single); }), why + "ScanAlgorithm::Auto");
    EXPECT_EQ(error_message([&] { any.partition(a, c, count, ballots); }), why + ballots_fix);
    const bool has_ballots = detail::ballot_subgroup(rt().info().limits).size != 0;
    if (has_ballots) {
        EXPECT_EQ(error_message([&] { any(a, c, CompactOptions{.tile = {256, 24, TileLoad::Ballots}}); }),
                  "rill::Filter 'any': CompactOptions::tile is 256 invocations of 24 elements ranked by ballots; use "
                  "128 or 256 invocations of 8 or 16 elements each (or leave the default)");
    } else {
        EXPECT_EQ(error_message([&] { any(a, c, ballots); }),
                  "rill::Filter 'any': TileLoad::Ballots ranks elements by subgroup ballots, which " + rt().info().device +
                      " does not have (it needs subgroups of 8 to 128 invocations with ballots and shuffles); use "
                      "TileLoad::Vectors or Transposed");
    }
    // Where the driver ends long loops, a single pass too long for its look-back to end in time is refused.
    if (const std::uint64_t limit = rt().info().limits.loop_iterations) {
        const std::int64_t big = static_cast<std::int64_t>(limit) * 64;
        auto x = rt().stream<float>({big}), y = rt().stream<float>({big});
        const std::string why_long = "rill::Filter 'any': ScanAlgorithm::SinglePass of " + std::to_string(big) +
                                     " elements cannot be exact on " + rt().info().device + ": the driver ends every loop after " +
                                     std::to_string(limit) + " iterations, and the look-back may take ";
        const std::string refused = error_message([&] { any(x, y, single); });
        EXPECT_EQ(refused.find(why_long), 0u) << refused;
        EXPECT_NE(refused.find("; use ScanAlgorithm::Auto, or at most "), std::string::npos) << refused;
        if (has_ballots) {
            const std::string refused_ballots = error_message([&] { any(x, y, ballots); });
            EXPECT_EQ(refused_ballots.find(why_long), 0u) << refused_ballots;
            EXPECT_NE(refused_ballots.find("; use " + ballots_fix + ", or at most "), std::string::npos) << refused_ballots;
        }
    }
    EXPECT_EQ(error_message([&] {
                  any(a, c, CompactOptions{.scan = ScanAlgorithm::ReduceThenScan, .tile = {128, 16, TileLoad::Ballots}});
              }),
              "rill::Filter 'any': TileLoad::Ballots is a tile of the single pass only; use ScanAlgorithm::Auto or "
              "SinglePass with it, or TileLoad::Vectors or Transposed for two passes");
    EXPECT_EQ(error_message([&] { exclusive_scan(a, c, ScanOp::Add, ScanOptions{ScanAlgorithm::Auto, {128, 16, TileLoad::Ballots}}); }),
              "rill scan: ScanOptions::tile has TileLoad::Ballots, a tile of the compaction (CompactOptions); scans take "
              "TileLoad::Transposed or Vectors");
}

// Views off the vector grid compact the other way by default, with guards
// around the output untouched.
TEST_P(Compaction, ViewsOffTheVectorGrid) {
    Filter<std::uint32_t> even("even", [](Expr<std::uint32_t> x) { return (x & 1u) == 0u; });
    for (std::int64_t n : {1, 5, 4097, 100003})
        for (std::int64_t start : {1, 3, 4}) {
            std::vector<std::uint32_t> x(static_cast<std::size_t>(n));
            for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint32_t>(i * 2654435761u >> 7);
            std::vector<std::uint32_t> want;
            std::copy_if(x.begin(), x.end(), std::back_inserter(want), [](std::uint32_t v) { return v % 2 == 0; });
            auto big_in = rt().stream<std::uint32_t>({n + 8});
            auto big_out = rt().stream<std::uint32_t>({n + 8}, std::vector<std::uint32_t>(static_cast<std::size_t>(n + 8), 9u));
            auto in = big_in.domain({start}, {start + n});
            in.upload(x);
            const std::int64_t kept = even(in, big_out.domain({start}, {start + n}));
            ASSERT_EQ(kept, static_cast<std::int64_t>(want.size()));
            const std::vector<std::uint32_t> got = big_out.download();
            for (std::int64_t e = 0; e < n + 8; ++e) {
                const std::int64_t i = e - start;
                ASSERT_EQ(got[e], i >= 0 && i < kept ? want[i] : 9u) << "element " << i << " of " << n << ", start " << start;
            }
        }
}

RILL_INSTANTIATE_FOR_BACKENDS(Compaction);

}  // namespace
}  // namespace rill::test
