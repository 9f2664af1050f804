// Bitonic sort against std::sort / std::stable_sort: every size up to 1000,
// sizes around the tile and powers of two, primes; random, sorted, reversed,
// all-equal and few-distinct keys; float keys with NaN, infinities, -0 and
// denormals; stability through key-value pairs; orders written in the DSL on
// struct keys; runs (rows) sorted on their own.
#include <algorithm>

#include <rill/algorithms/bitonic_sort.h>

#include "backend_fixture.h"
#include "filter_then_sort.h"
#include "sort_order.h"

struct Spark {
    float depth;
    std::uint32_t id;
};
RILL_STRUCT(Spark, depth, id);

namespace rill::test {
namespace {

class BitonicSorting : public BackendTest {};

/// The stream's keys sorted run by run (segment 0: one run), by the host.
template <class K>
std::vector<K> sorted_runs(std::vector<K> k, std::int64_t segment, bool descending) {
    const auto n = static_cast<std::int64_t>(k.size());
    const std::int64_t seg = segment == 0 ? std::max<std::int64_t>(n, 1) : segment;
    for (std::int64_t s = 0; s < n; s += seg)
        std::stable_sort(k.begin() + s, k.begin() + std::min(n, s + seg), [&](K a, K b) {
            return descending ? order(b) < order(a) : order(a) < order(b);
        });
    return k;
}

template <class K>
void check_keys(Runtime& rt, const std::vector<K>& keys, const BitonicSortOptions& opt, const char* what) {
    const std::vector<K> want = sorted_runs(keys, opt.segment, opt.descending);
    auto ks = rt.stream<K>({static_cast<std::int64_t>(keys.size())}, keys);
    bitonic_sort(ks, opt);
    const std::vector<K> got = ks.download();
    for (std::size_t i = 0; i < keys.size(); ++i)
        ASSERT_EQ(order(got[i]), order(want[i])) << what << ": position " << i << " of " << keys.size()
                                                 << (opt.descending ? ", descending" : "") << ", segment " << opt.segment;
}

/// Key-value: the values (input positions) against std::stable_sort's, run by run.
template <class K>
void check_pairs(Runtime& rt, const std::vector<K>& keys, const BitonicSortOptions& opt, const char* what) {
    const auto n = static_cast<std::int64_t>(keys.size());
    std::vector<std::int64_t> idx(keys.size());
    for (std::int64_t i = 0; i < n; ++i) idx[i] = i;
    std::vector<std::int64_t> want = idx;
    const std::int64_t seg = opt.segment == 0 ? std::max<std::int64_t>(n, 1) : opt.segment;
    for (std::int64_t s = 0; s < n; s += seg)
        std::stable_sort(want.begin() + s, want.begin() + std::min(n, s + seg), [&](std::int64_t a, std::int64_t b) {
            return opt.descending ? order(keys[b]) < order(keys[a]) : order(keys[a]) < order(keys[b]);
        });
    std::vector<std::uint32_t> values(idx.begin(), idx.end());
    auto ks = rt.stream<K>({n}, keys);
    auto vs = rt.stream<std::uint32_t>({n}, values);
    bitonic_sort(ks, vs, opt);
    const std::vector<K> got_keys = ks.download();
    const std::vector<std::uint32_t> got = vs.download();
    for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(got[i], want[i]) << what << ": position " << i << " of " << n << (opt.descending ? ", descending" : "")
                                   << ", segment " << opt.segment;
        ASSERT_EQ(order(got_keys[i]), order(keys[want[i]])) << what << ": key at " << i;
    }
}

std::vector<std::uint32_t> random_keys(std::int64_t n, std::uint32_t modulo = 0) {
    std::uniform_int_distribution<std::uint32_t> any;
    std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
    for (auto& x : k) x = modulo ? any(rng()) % modulo : any(rng());
    return k;
}

TEST_P(BitonicSorting, EverySizeUpTo1000) {
    for (std::int64_t n = 0; n <= 1000; ++n) {
        const std::vector<std::uint32_t> k = random_keys(n);
        check_keys(rt(), k, {}, "random");
        if (n % 7 == 0) check_pairs(rt(), random_keys(n, 10), {.descending = n % 2 == 0}, "few distinct");
        if (HasFatalFailure()) return;
    }
}

TEST_P(BitonicSorting, DistributionsAroundTilesAndPowersOfTwo) {
    // Tiles hold 2048 uint32 keys: sizes below, at and past one and several tiles, and primes.
    for (std::int64_t n : {2047, 2048, 2049, 4095, 4097, 8191, 65521, 65537, (1 << 18) + 1}) {
        if (past_largest(rt(), n)) continue;
        SCOPED_TRACE(n);
        std::vector<std::uint32_t> k = random_keys(n);
        check_keys(rt(), k, {}, "random");
        check_pairs(rt(), k, {.descending = true}, "random");
        k = random_keys(n, 5);
        check_pairs(rt(), k, {}, "few distinct");
        std::sort(k.begin(), k.end());
        check_keys(rt(), k, {}, "sorted");
        std::reverse(k.begin(), k.end());
        check_pairs(rt(), k, {}, "reversed");
        std::fill(k.begin(), k.end(), 7u);
        check_pairs(rt(), k, {.descending = true}, "all equal");
        if (HasFatalFailure()) return;
    }
}

// Two tests, as the radix sort's large sizes: the sanitizer suite leaves out
// both by name (tests/CMakeLists.txt, sanitizer_filter_tail).
TEST_P(BitonicSorting, LargeSizes) {
    for (std::int64_t n : {1000003, (1 << 20) + 1}) {
        SCOPED_TRACE(n);
        check_keys(rt(), random_keys(n), {}, "random");
        check_pairs(rt(), random_keys(n, 1000), {.descending = true}, "few distinct");
        if (HasFatalFailure()) return;
    }
}

// 2^22 - 1 where large arrays are cheap (largest_power_of_two), else 2^18 - 1.
TEST_P(BitonicSorting, LargeSizes2ToKMinus1) {
    const std::int64_t n = (std::int64_t{1} << (largest_power_of_two(rt()) - 2)) - 1;
    check_keys(rt(), random_keys(n), {}, "random");
    check_pairs(rt(), random_keys(n, 1000), {.descending = true}, "few distinct");
}

TEST_P(BitonicSorting, SignedAndFloatKeysInTheRadixOrder) {
    const float nan = std::nanf("");
    const float specials[] = {INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, -1e-40f, nan, -nan, 3.0f, -3.0f};
    for (std::int64_t n : {1, 2, 3, 100, 4097, 10007}) {
        SCOPED_TRACE(n);
        check_pairs(rt(), random_ints(static_cast<std::size_t>(n), INT32_MIN, INT32_MAX), {.descending = n % 2 == 1}, "int32");
        std::vector<float> f = random_floats(static_cast<std::size_t>(n), -1e6f, 1e6f);
        for (std::int64_t i = 0; i < n; i += 3) f[i] = specials[(i / 3) % 10];
        check_pairs(rt(), f, {}, "float");
        check_keys(rt(), f, {.descending = true}, "float");
        if (HasFatalFailure()) return;
    }
}

TEST_P(BitonicSorting, RunsAndRowsSortOnTheirOwn) {
    // Rows of 2D streams (UberFlow's row-wise sort), runs that are not powers
    // of two, a last run shorter than the others, runs wider than a tile.
    for (auto [n, seg] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {128 * 128, 128}, {1000, 1}, {1000, 3}, {1000, 1000}, {1000, 5000}, {10007, 100}, {3 * 5000 + 17, 5000}}) {
        SCOPED_TRACE("n = " + std::to_string(n) + ", runs of " + std::to_string(seg));
        std::vector<std::uint32_t> k = random_keys(n);
        check_keys(rt(), k, {.segment = seg}, "random");
        check_pairs(rt(), random_keys(n, 4), {.descending = true, .segment = seg}, "few distinct");
        if (HasFatalFailure()) return;
    }
    // A 2D stream sorts in row-major order by default.
    std::vector<std::uint32_t> k = random_keys(64 * 96);
    auto grid = rt().stream<std::uint32_t>({64, 96}, k);
    bitonic_sort(grid);
    std::sort(k.begin(), k.end());
    EXPECT_EQ(grid.download(), k);
}

TEST_P(BitonicSorting, OrderWrittenInTheDslOnStructKeys) {
    // Far first by depth, ties by id descending: a strict weak order on two fields.
    BitonicSort<Spark> far_first("far_first", [](const Var<Spark>& a, const Var<Spark>& b) {
        return a.depth > b.depth || (a.depth == b.depth && a.id > b.id);
    });
    BitonicSort<Spark> by_depth("by_depth", [](const Var<Spark>& a, const Var<Spark>& b) { return a.depth < b.depth; });
    for (std::int64_t n : {0, 1, 2, 999, 4097, 20011}) {
        SCOPED_TRACE(n);
        std::vector<Spark> s(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i)
            s[i] = Spark{static_cast<float>(rng()() % 50) * 0.5f, static_cast<std::uint32_t>(rng()() % 1000)};
        std::vector<Spark> want = s;
        std::sort(want.begin(), want.end(),
                  [](const Spark& a, const Spark& b) { return a.depth > b.depth || (a.depth == b.depth && a.id > b.id); });
        auto st = rt().stream<Spark>({n}, s);
        far_first(st);
        const std::vector<Spark> got = st.download();
        for (std::int64_t i = 0; i < n; ++i)
            ASSERT_TRUE(got[i].depth == want[i].depth && got[i].id == want[i].id) << "position " << i;
        // Key-value under an order with ties: stable, values as std::stable_sort moves them.
        std::vector<std::int32_t> pos(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) pos[i] = static_cast<std::int32_t>(i);
        std::vector<std::int32_t> want_pos = pos;
        std::stable_sort(want_pos.begin(), want_pos.end(), [&](std::int32_t a, std::int32_t b) { return s[a].depth < s[b].depth; });
        auto keys = rt().stream<Spark>({n}, s);
        auto values = rt().stream<std::int32_t>({n}, pos);
        by_depth(keys, values, {.descending = false});
        EXPECT_EQ(values.download(), want_pos);
    }
}

TEST_P(BitonicSorting, StructValuesAndErrors) {
    const std::int64_t n = 3000;
    std::vector<std::uint32_t> k(n);
    std::vector<float3> v(n);
    for (std::int64_t i = 0; i < n; ++i) {
        k[i] = static_cast<std::uint32_t>((i * 7919) % n);
        v[i] = float3{float(i), float(k[i]), -1.0f};
    }
    auto ks = rt().stream<std::uint32_t>({n}, k);
    auto vs = rt().stream<float3>({n}, v);
    bitonic_sort(ks, vs);
    const std::vector<float3> got = vs.download();
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i][1], float(i)) << i;  // keys are a permutation of 0..n-1

    auto short_values = rt().stream<float3>({n - 1});
    EXPECT_NE(error_message([&] { bitonic_sort(ks, short_values); }).find("give one value per key"), std::string::npos);
    EXPECT_NE(error_message([&] { bitonic_sort(ks, {.segment = -1}); }).find("or 0 to sort the whole stream"),
              std::string::npos);
}

}  // namespace

/// Sorts the first `count` of `keys` (key-value when `pairs`) by a count
/// stream: those against std::stable_sort run by run, the rest unchanged.
template <class K>
void check_counted(Runtime& rt, const std::vector<K>& keys, std::int64_t count, BitonicSortOptions opt, bool pairs) {
    const auto n = static_cast<std::int64_t>(keys.size());
    const std::int64_t c = std::min(count, n);
    std::vector<K> head(keys.begin(), keys.begin() + c);
    std::vector<std::int64_t> want(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) want[i] = i;
    const std::int64_t seg = opt.segment == 0 ? std::max<std::int64_t>(c, 1) : opt.segment;
    for (std::int64_t s = 0; s < c; s += seg)
        std::stable_sort(want.begin() + s, want.begin() + std::min(c, s + seg), [&](std::int64_t a, std::int64_t b) {
            return opt.descending ? order(keys[b]) < order(keys[a]) : order(keys[a]) < order(keys[b]);
        });
    auto ks = rt.stream<K>({n}, keys);
    auto vs = rt.stream<std::uint32_t>({n}, std::vector<std::uint32_t>(want.size()));
    {
        std::vector<std::uint32_t> idx(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) idx[i] = static_cast<std::uint32_t>(i);
        vs.upload(idx);
    }
    opt.count = rt.stream<std::uint32_t>({1}, std::vector<std::uint32_t>{static_cast<std::uint32_t>(count)});
    if (pairs) bitonic_sort(ks, vs, opt);
    else bitonic_sort(ks, opt);
    const std::vector<K> got = ks.download();
    const std::vector<std::uint32_t> got_v = vs.download();
    for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(order(got[i]), order(keys[want[i]]))
            << "key at " << i << " of " << n << ", count " << count << (pairs ? ", pairs" : ", keys") << ", segment " << opt.segment;
        if (pairs) {
            ASSERT_EQ(got_v[i], want[i]) << "value at " << i << " of " << n << ", count " << count;
        }
    }
}

TEST_P(BitonicSorting, CountOnTheDevice) {
    for (const std::int64_t n : {2, 3, 1000, 4097, 70001}) {
        const std::vector<std::uint32_t> k = random_keys(n, 100);  // few distinct: stability shows in the pairs
        for (const std::int64_t count : {std::int64_t{0}, std::int64_t{1}, n / 2 + 1, n - 1, n, n + 10})
            for (const bool pairs : {false, true}) {
                check_counted<std::uint32_t>(rt(), k, count, {.descending = count % 2 == 1}, pairs);
                if (HasFatalFailure()) return;
            }
        // Runs sorted on their own, the last one cut short by the count.
        check_counted<std::uint32_t>(rt(), k, n - n / 3, {.segment = 7}, true);
        check_counted<float>(rt(), random_floats(static_cast<std::size_t>(n), -5, 5), n / 3 + 1, {}, true);
        if (HasFatalFailure()) return;
    }
}

/// A compaction's count, which never leaves the device, sorts what it kept.
TEST_P(BitonicSorting, SortsWhatAFilterKeptWithoutTheHost) {
    check_sorts_what_a_filter_kept(rt(), [](const Stream<std::uint32_t>& kept, const Stream<std::uint32_t>& count) {
        bitonic_sort(kept, {.count = count});
    });
}

TEST_P(BitonicSorting, CountErrors) {
    auto ks = rt().stream<std::uint32_t>({10});
    EXPECT_EQ(error_message([&] { bitonic_sort(ks, {.count = rt().stream<std::uint32_t>({2})}); }),
              "rill::BitonicSort bitonic_sort: the count stream has 2 elements; pass a Stream<uint32_t> of one element "
              "(e.g. a Filter's count)");
}

RILL_INSTANTIATE_FOR_BACKENDS(BitonicSorting);

}  // namespace rill::test
