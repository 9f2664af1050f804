// Scans against std::exclusive_scan / std::inclusive_scan (int64 / float64 for
// float sums, with a tolerance derived from n), at every size up to 1000, around
// powers of two up to 2^24, and at primes; in place and out of place.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include <rill/algorithms/reduce.h>
#include <rill/algorithms/detail/look_back.h>
#include <rill/algorithms/scan.h>

#include "backend_fixture.h"

namespace rill::test {
namespace {

class Scans : public BackendTest {};

template <class T>
T host_combine(ScanOp op, T a, T b) {
    switch (op) {
        // Integers wrap as on the device (computed unsigned: signed overflow is UB in C++).
        case ScanOp::Add:
            if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
            else return a + b;
        case ScanOp::Mul:
            if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
            else return a * b;
        case ScanOp::Min: return std::min(a, b);
        case ScanOp::Max: return std::max(a, b);
        case ScanOp::And: if constexpr (std::is_integral_v<T>) return a & b; break;
        case ScanOp::Or: if constexpr (std::is_integral_v<T>) return a | b; break;
        case ScanOp::Xor: if constexpr (std::is_integral_v<T>) return a ^ b; break;
    }
    return a;
}

/// Integer scans are exact: compare with the sequential scan (wrapping as uint32).
/// The algorithms the backend runs: SinglePass only where loops have no limit
/// (elsewhere it is refused, see ClearErrors).
std::vector<ScanAlgorithm> algorithms(Runtime& rt) {
    std::vector<ScanAlgorithm> all = {ScanAlgorithm::ReduceThenScan, ScanAlgorithm::HillisSteele, ScanAlgorithm::Blelloch};
    if (!rt.info().limits.loop_iterations) all.push_back(ScanAlgorithm::SinglePass);
    return all;
}

template <class T>
void check_exact(Runtime& rt, const std::vector<T>& x, ScanOp op, bool inclusive, bool in_place, T init,
                 ScanAlgorithm algorithm, ScanTile tile = {}) {
    const auto n = static_cast<std::int64_t>(x.size());
    std::vector<T> want(x.size());
    T acc = init;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (!inclusive) want[i] = acc;
        acc = host_combine(op, acc, x[i]);
        if (inclusive) want[i] = acc;
    }
    auto in = rt.stream<T>({n}, x);
    auto out = in_place ? in : rt.stream<T>({n});
    if (inclusive) inclusive_scan(in, out, op, {algorithm, tile});
    else exclusive_scan(in, out, op, init, {algorithm, tile});
    const std::vector<T> got = out.download();
    for (std::int64_t i = 0; i < n; ++i)
        ASSERT_EQ(got[i], want[i]) << "element " << i << " of " << n << (inclusive ? ", inclusive" : ", exclusive")
                                   << (in_place ? ", in place" : "") << ", op " << static_cast<int>(op)
                                   << ", algorithm " << static_cast<int>(algorithm) << ", tile " << tile.workgroup
                                   << " x " << tile.items << (tile.load == TileLoad::Vectors ? " in vectors" : "");
}

std::vector<std::int64_t> scan_sizes(Runtime& rt) {
    std::vector<std::int64_t> sizes;
    for (std::int64_t n = 0; n <= 1000; ++n) sizes.push_back(n);
    for (int k = 10; k <= largest_power_of_two(rt); k += 2)
        for (std::int64_t d : {-1, 0, 1}) sizes.push_back((std::int64_t{1} << k) + d);
    for (std::int64_t p : {4093, 4099, 65521, 1000003})
        if (!past_largest(rt, p)) sizes.push_back(p);
    return sizes;
}

TEST_P(Scans, IntegerAddAtEverySize) {
    for (ScanAlgorithm algorithm : algorithms(rt()))
        for (std::int64_t n : scan_sizes(rt())) {
            // The textbook scans make log2(n) passes: up to 2^22 + 1 is enough for them.
            const bool classic = algorithm == ScanAlgorithm::HillisSteele || algorithm == ScanAlgorithm::Blelloch;
            if (classic && n > (1 << 22) + 1) continue;
            std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), -1000000, 1000000);
            check_exact<std::int32_t>(rt(), x, ScanOp::Add, n % 2 == 0, n % 3 == 0, 0, algorithm);
            if (HasFatalFailure()) return;
        }
}

// Single passes whose states fit look_back::kClearedStateWords keep them in the
// runtime's zeroed words and leave them zero (the next pass reads them as no tile
// published, no ticket taken); larger ones take a zero-filled stream of their own.
TEST_P(Scans, SinglePassLeavesTheZeroedWordsZero) {
    if (rt().info().limits.loop_iterations != 0) {  // refused here (ClearErrors checks the message)
        auto a = rt().stream<std::uint32_t>({5000});
        EXPECT_THROW(inclusive_scan(a, a, ScanOp::Add, {ScanAlgorithm::SinglePass}), Error);
        return;
    }
    const ScanTile small{64, 4};  // 256 elements a tile: 1,025 tiles need more words than are cleared
    for (std::int64_t n : {std::int64_t{1}, std::int64_t{5000}, std::int64_t{1023} * 256, std::int64_t{1025} * 256 + 7}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), -1000, 1000);
        check_exact<std::int32_t>(rt(), x, ScanOp::Add, true, false, 0, ScanAlgorithm::SinglePass, small);
        check_exact<std::int32_t>(rt(), x, ScanOp::Max, false, true, -5, ScanAlgorithm::SinglePass);
        if (HasFatalFailure()) return;
        ASSERT_TRUE(zeroed_words_are_zero(rt()));
    }
}

TEST_P(Scans, EveryOperatorAndType) {
    for (ScanAlgorithm a : algorithms(rt()))
    for (std::int64_t n : {1, 2, 255, 4096, 4097, 70001}) {
        SCOPED_TRACE(n);
        std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), -1000000, 1000000);
        for (ScanOp op : {ScanOp::Add, ScanOp::Min, ScanOp::Max, ScanOp::And, ScanOp::Or, ScanOp::Xor}) {
            check_exact<std::int32_t>(rt(), x, op, true, false, scan_identity<std::int32_t>(op), a);
            check_exact<std::int32_t>(rt(), x, op, false, true, scan_identity<std::int32_t>(op), a);
        }
        std::vector<std::int32_t> signs = random_ints(static_cast<std::size_t>(n), 0, 1);
        for (auto& s : signs) s = s ? 1 : -1;
        check_exact<std::int32_t>(rt(), signs, ScanOp::Mul, true, false, 1, a);
        std::vector<std::uint32_t> u(x.begin(), x.end());  // large values: sums wrap
        check_exact<std::uint32_t>(rt(), u, ScanOp::Add, false, false, 7u, a);
        check_exact<std::uint32_t>(rt(), u, ScanOp::Max, true, false, 0u, a);
        check_exact<std::uint32_t>(rt(), u, ScanOp::Min, false, false, 4000000000u, a);
        std::vector<float> f = random_floats(static_cast<std::size_t>(n), -100, 100);
        check_exact<float>(rt(), f, ScanOp::Max, true, false, -INFINITY, a);
        check_exact<float>(rt(), f, ScanOp::Min, false, false, INFINITY, a);
    }
}

/// Whether this run builds every CPU group kernel with the host compiler
/// before its first call (cpu_native_Scans: RILL_CPU_COMPILE=always).
bool compiles_every_kernel(Runtime& rt) {
    const char* mode = std::getenv("RILL_CPU_COMPILE");
    return rt.backend_name() == "cpu" && mode && std::strcmp(mode, "always") == 0;
}

// Every tile shape ScanTile allows, both ways of loading a tile, where the
// device has the shared memory for it (elsewhere the scan says so), at sizes
// around the tile. Where every CPU kernel is compiled to C++, the corner
// shapes and one in between: the generated code of two shapes differs in
// constants and unrolled counts only, and every shape's 360 kernels took
// 90-135 s to build there on the CI machine kind; the lane executor's CPU run, Vulkan
// and OpenGL take every shape.
TEST_P(Scans, EveryTileShape) {
    const bool corners_only = compiles_every_kernel(rt());
    for (ScanAlgorithm a : algorithms(rt())) {
        if (a == ScanAlgorithm::HillisSteele || a == ScanAlgorithm::Blelloch) continue;  // no tiles
        for (TileLoad load : {TileLoad::Transposed, TileLoad::Vectors})
        for (int wg : {64, 128, 256, 512})
            for (int items : {4, 8, 12, 16, 24}) {
                if (load == TileLoad::Vectors && items == 24) continue;
                const int largest_items = load == TileLoad::Vectors ? 16 : 24;
                const bool corner = (wg == 64 && items == 4) || (wg == 128 && items == 12) ||
                                    (wg == 512 && items == largest_items);
                if (corners_only && !corner) continue;
                const ScanTile shape{wg, items, load};
                const std::int64_t tile = std::int64_t{wg} * items;
                if (static_cast<std::uint64_t>(tile_shared_bytes<std::int32_t>(shape)) > rt().info().limits.shared_memory_bytes) {
                    auto s = rt().stream<std::int32_t>({tile});
                    const std::string message = error_message([&] { inclusive_scan(s, s, ScanOp::Add, {a, shape}); });
                    EXPECT_NE(message.find("bytes of shared memory per workgroup; use a smaller ScanOptions::tile"),
                              std::string::npos) << message;
                    continue;
                }
                for (std::int64_t n : {std::int64_t{1}, tile - 1, tile, tile + 1, 3 * tile + 5, std::int64_t{100003}}) {
                    if (past_largest(rt(), n)) continue;
                    std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), -1000000, 1000000);
                    // Inclusive scans start from the identity; exclusive ones from a given value.
                    const bool inclusive = n % 2 == 0;
                    check_exact<std::int32_t>(rt(), x, ScanOp::Add, inclusive, n % 3 == 0, inclusive ? 0 : 5, a, shape);
                    check_exact<std::int32_t>(rt(), x, ScanOp::Max, !inclusive, false,
                                              !inclusive ? scan_identity<std::int32_t>(ScanOp::Max) : -7, a, shape);
                    if (HasFatalFailure()) return;
                }
            }
    }
}

// Views that start off a multiple of 4 elements cannot move as vectors: the
// default tile loads them the other way, and a tile that asks for vectors
// says so.
TEST_P(Scans, ViewsOffTheVectorGrid) {
    for (std::int64_t n : {1, 3, 4097, 100003}) {
        std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), -1000000, 1000000);
        for (std::int64_t start : {1, 2, 4}) {
            auto big_in = rt().stream<std::int32_t>({n + 8});
            auto big_out = rt().stream<std::int32_t>({n + 8}, std::vector<std::int32_t>(static_cast<std::size_t>(n + 8), -3));
            auto in = big_in.domain({start}, {start + n});
            auto out = big_out.domain({4 + start % 4}, {4 + start % 4 + n});
            in.upload(x);
            exclusive_scan(in, out, ScanOp::Add, 11);
            const std::vector<std::int32_t> got = big_out.download();
            std::int32_t acc = 11;
            for (std::int64_t e = 0; e < n + 8; ++e) {
                const std::int64_t i = e - (4 + start % 4);
                if (i < 0 || i >= n) {
                    ASSERT_EQ(got[e], -3) << "guard element " << e << ", start " << start;
                    continue;
                }
                ASSERT_EQ(got[e], acc) << "element " << i << " of " << n << ", views starting at " << start;
                acc = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc) + static_cast<std::uint32_t>(x[i]));
            }
        }
    }
    auto s = rt().stream<std::int32_t>({64});
    const std::string message = error_message([&] {
        exclusive_scan(s.domain({3}, {63}), s.domain({3}, {63}), ScanOp::Add, {ScanAlgorithm::Auto, {128, 16, TileLoad::Vectors}});
    });
    EXPECT_EQ(message, "rill scan: ScanOptions::tile moves vectors of 4 elements, but the input is a view that starts at "
                       "element 3 of its buffer; give views that start at a multiple of 4, or TileLoad::Transposed");
}

TEST_P(Scans, FloatSumsWithinRounding) {
    const int k = largest_power_of_two(rt());  // 2^20 and 2^22 + 1 where large arrays are cheap
    for (ScanAlgorithm a : algorithms(rt()))
    for (std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{4097}, std::int64_t{1} << (k - 4),
                           (std::int64_t{1} << (k - 2)) + 1}) {
        SCOPED_TRACE(n);
        std::vector<float> x = random_floats(static_cast<std::size_t>(n), -1, 1);
        auto in = rt().stream<float>({n}, x);
        auto out = rt().stream<float>({n});
        exclusive_scan(in, out, ScanOp::Add, 0.5f, {a});
        const std::vector<float> got = out.download();
        double acc = 0.5, abs_acc = 0.5;
        for (std::int64_t i = 0; i < n; ++i) {
            // Any association of i additions is within i * eps * sum|x| of the exact sum.
            const double tol = 2.0 * (i + 1) * 1.2e-7 * abs_acc + 1e-6;
            ASSERT_NEAR(got[i], acc, tol) << i;
            acc += x[i];
            abs_acc += std::fabs(x[i]);
        }
    }
}

TEST_P(Scans, ClearErrors) {
    auto a = rt().stream<float>({10});
    auto b = rt().stream<float>({11});
    EXPECT_EQ(error_message([&] { inclusive_scan(a, b); }),
              "rill scan: the input has shape 10 but the output has shape 11; scan into a stream of the input's shape");
    EXPECT_THROW(inclusive_scan(a, a, ScanOp::Xor), Error);  // bit operators need integers
    EXPECT_EQ(error_message([&] { inclusive_scan(a, a, ScanOp::Add, {ScanAlgorithm::Auto, {256, 10}}); }),
              "rill scan: ScanOptions::tile is 256 invocations of 10 elements; use a workgroup of 64, 128, 256 or 512 "
              "invocations and 4, 8, 12, 16 or 24 elements each (or leave the default)");
    if (const std::uint64_t limit = rt().info().limits.loop_iterations) {
        const std::string message = error_message([&] { inclusive_scan(a, a, ScanOp::Add, {ScanAlgorithm::SinglePass}); });
        EXPECT_NE(message.find("ScanAlgorithm::SinglePass cannot be exact on " + rt().info().device +
                               ": the driver ends every loop after " + std::to_string(limit) + " iterations"),
                  std::string::npos)
            << message;
    }
}

// Whole-stream reduce, on the scan's tile pass: against std::accumulate with
// the same operator (integers wrap as uint32), at the scan's sizes, which
// include 2^24 + 1 (three passes) and the empty stream (the identity).
template <class T>
void check_reduce(Runtime& rt, const std::vector<T>& x, ScanOp op) {
    T want = scan_identity<T>(op);
    for (const T& v : x) want = host_combine(op, want, v);
    auto in = rt.stream<T>({static_cast<std::int64_t>(x.size())}, x);
    auto total = rt.stream<T>({1}, std::vector<T>{T(42)});  // overwritten, also for an empty input
    reduce(in, total, op);
    ASSERT_EQ(total.download()[0], want) << x.size() << " elements, op " << static_cast<int>(op);
    ASSERT_EQ(reduce(in, op), want) << x.size() << " elements, op " << static_cast<int>(op) << ", to the host";
}

TEST_P(Scans, ReduceAtEverySize) {
    for (std::int64_t n : scan_sizes(rt())) {
        check_reduce<std::int32_t>(rt(), random_ints(static_cast<std::size_t>(n), -1000000, 1000000), n % 2 ? ScanOp::Add : ScanOp::Max);
        if (HasFatalFailure()) return;
    }
}

TEST_P(Scans, ReduceEveryOperatorAndType) {
    for (std::int64_t n : {0, 1, 2, 4095, 4097, 70001, (1 << std::min(22, largest_power_of_two(rt()))) + 1}) {
        std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), -1000000, 1000000);
        for (ScanOp op : {ScanOp::Add, ScanOp::Min, ScanOp::Max, ScanOp::And, ScanOp::Or, ScanOp::Xor})
            check_reduce<std::int32_t>(rt(), x, op);
        std::vector<std::int32_t> signs = random_ints(static_cast<std::size_t>(n), 0, 1);
        for (auto& v : signs) v = v ? 1 : -1;
        check_reduce<std::int32_t>(rt(), signs, ScanOp::Mul);
        const std::vector<std::uint32_t> u(x.begin(), x.end());  // large values: sums wrap
        for (ScanOp op : {ScanOp::Add, ScanOp::Min, ScanOp::Max, ScanOp::Or}) check_reduce<std::uint32_t>(rt(), u, op);
        const std::vector<float> f = random_floats(static_cast<std::size_t>(n), -100, 100);
        check_reduce<float>(rt(), f, ScanOp::Min);
        check_reduce<float>(rt(), f, ScanOp::Max);
        if (HasFatalFailure()) return;
    }
}

TEST_P(Scans, ReduceFloatSumsWithinRounding) {
    for (std::int64_t n : {1, 1000, 4097, 1 << 20, (1 << 24) + 1}) {
        const std::vector<float> x = random_floats(static_cast<std::size_t>(n), -1, 1);
        double want = 0, abs_sum = 0;
        for (float v : x) want += v, abs_sum += std::fabs(v);
        const float got = reduce(rt().stream<float>({n}, x));
        // Any association of n additions is within n * eps * sum|x| of the exact sum;
        // a tree of depth log2 n is much closer (so is the CPU backend's tree over runs of
        // 256 summed in order: random signs keep a run's error near 16 eps), so this bound
        // is loose but cannot pass by luck when an element is lost (|x| averages 0.5).
        EXPECT_NEAR(got, want, 2.0 * std::log2(double(n) + 1) * 1.2e-7 * abs_sum + 1e-6) << n;
    }
}

TEST_P(Scans, ReduceClearErrors) {
    auto a = rt().stream<float>({10});
    auto two = rt().stream<float>({2});
    EXPECT_EQ(error_message([&] { reduce(a, two); }),
              "rill reduce: the result stream has 2 elements; reduce into a stream of exactly one element");
    EXPECT_THROW(reduce(a, ScanOp::Xor), Error);  // bit operators need integers
}

RILL_INSTANTIATE_FOR_BACKENDS(Scans);

/// The CPU backend runs group kernels compiled to C++ or in its lane executor
/// (RILL_CPU_COMPILE). Compiled kernels are vectorized where the compiler may
/// (docs/DESIGN.md), which must never reorder float arithmetic: float scans and
/// reductions give the same bits both ways. ReduceThenScan only: SinglePass's
/// float sums depend on how far each look-back went, which on many cores
/// varies from run to run (the H100 machine's 16 showed it).
std::vector<std::vector<float>> float_results_with_compile_mode(const char* mode, const std::vector<std::vector<float>>& inputs) {
    Runtime rt = [&] {
        const ScopedEnv compile("RILL_CPU_COMPILE", mode);
        return Runtime("cpu");  // reads RILL_CPU_COMPILE when it starts
    }();
    std::vector<std::vector<float>> results;
    for (const std::vector<float>& x : inputs) {
        const auto n = static_cast<std::int64_t>(x.size());
        auto in = rt.stream<float>({n}, x);
        auto out = rt.stream<float>({n});
        const ScanOptions in_order{ScanAlgorithm::ReduceThenScan};
        exclusive_scan(in, out, ScanOp::Add, 0.5f, in_order);
        results.push_back(out.download());
        inclusive_scan(in, out, ScanOp::Add, in_order);
        results.push_back(out.download());
        results.push_back({reduce(in, ScanOp::Add)});
    }
    return results;
}

TEST(CpuExecutors, CompiledFloatScansAndReducesMatchTheLaneExecutorBitForBit) {
    std::vector<std::vector<float>> inputs;
    for (std::int64_t n : {1, 257, 16385, 100003, (1 << 18) + 1})
        inputs.push_back(random_floats(static_cast<std::size_t>(n), -1, 1));
    const auto lanes = float_results_with_compile_mode("off", inputs);
    const auto compiled = float_results_with_compile_mode("always", inputs);
    ASSERT_EQ(lanes.size(), compiled.size());
    for (std::size_t r = 0; r < lanes.size(); ++r) {
        SCOPED_TRACE(r);
        ASSERT_EQ(lanes[r].size(), compiled[r].size());
        EXPECT_EQ(std::memcmp(lanes[r].data(), compiled[r].data(), lanes[r].size() * sizeof(float)), 0);
    }
}

}  // namespace
}  // namespace rill::test
