// Radix sort against std::stable_sort: random, sorted, reversed, all-equal,
// few-distinct and top-byte-only keys; every size up to 1000, sizes around
// powers of two up to 2^24 + 1, primes, and workgroups taking runs of tiles;
// float keys with NaN, infinities, -0 and denormals; stability through
// key-value pairs.
#include <algorithm>
#include <cmath>

#include <rill/algorithms/radix_sort.h>

#include "backend_fixture.h"
#include "sort_order.h"

namespace rill::test {
namespace {

class RadixSort : public BackendTest {};

/// The part of the order a sort with `opt` looks at: uint32 keys' low opt.bits.
template <class K>
std::int64_t sort_key(K k, const RadixSortOptions& opt) {
    if (opt.bits < 32) return order(k) & ((std::int64_t{1} << opt.bits) - 1);
    return order(k);
}

template <class K>
bool before(K a, K b, const RadixSortOptions& opt) {
    return opt.descending ? sort_key(b, opt) < sort_key(a, opt) : sort_key(a, opt) < sort_key(b, opt);
}

template <class K>
void check_pairs(Runtime& rt, const std::vector<K>& keys, const RadixSortOptions& opt, const char* what) {
    const auto n = static_cast<std::int64_t>(keys.size());
    std::vector<std::int32_t> idx(keys.size());
    for (std::int64_t i = 0; i < n; ++i) idx[i] = static_cast<std::int32_t>(i);
    std::vector<std::int32_t> want = idx;
    std::stable_sort(want.begin(), want.end(), [&](std::int32_t a, std::int32_t b) { return before(keys[a], keys[b], opt); });
    auto ks = rt.stream<K>({n}, keys);
    auto vs = rt.stream<std::int32_t>({n}, idx);
    radix_sort(ks, vs, opt);
    const std::vector<K> got_keys = ks.download();
    const std::vector<std::int32_t> got = vs.download();
    for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(got[i], want[i]) << what << ": position " << i << " of " << n << (opt.descending ? ", descending" : "");
        ASSERT_EQ(order(got_keys[i]), order(keys[want[i]])) << what << ": key at " << i;
    }
}

/// Keys only: the sorted keys against std::stable_sort's.
template <class K>
void check_keys(Runtime& rt, const std::vector<K>& keys, const RadixSortOptions& opt, const char* what) {
    std::vector<K> want = keys;
    std::stable_sort(want.begin(), want.end(), [&](K a, K b) { return before(a, b, opt); });
    auto ks = rt.stream<K>({static_cast<std::int64_t>(keys.size())}, keys);
    radix_sort(ks, opt);
    const std::vector<K> got = ks.download();
    for (std::size_t i = 0; i < keys.size(); ++i)
        ASSERT_EQ(order(got[i]), order(want[i])) << what << ": position " << i << " of " << keys.size()
                                                 << (opt.descending ? ", descending" : "");
}

/// Keys of the shapes that break sorts: random, few distinct (stability
/// shows), sorted, reversed, all equal, and keys that differ in the top byte only.
void check_distributions(Runtime& rt, std::int64_t n, std::mt19937& gen, bool pairs) {
    std::uniform_int_distribution<std::uint32_t> any;
    std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
    auto check = [&](const RadixSortOptions& opt, const char* what) {
        if (pairs) check_pairs<std::uint32_t>(rt, k, opt, what);
        else check_keys<std::uint32_t>(rt, k, opt, what);
    };
    for (auto& x : k) x = any(gen);
    check({}, "random");
    check({.descending = true}, "random");
    for (auto& x : k) x %= 5;
    check({.descending = n % 2 == 1}, "few distinct");
    check({.bits = 3}, "few distinct, 3 bits");
    for (auto& x : k) x = (x % 3) << 24 | (any(gen) % 4096);
    check({.bits = 12}, "12 of 32 bits (the rest ignored)");
    std::sort(k.begin(), k.end());
    check({}, "sorted");
    std::reverse(k.begin(), k.end());
    check({}, "reversed");
    std::fill(k.begin(), k.end(), 42u);
    check({.descending = true}, "all equal");
    for (auto& x : k) x = any(gen) & 0xff000000u;
    check({}, "top byte only");
}

TEST_P(RadixSort, EverySizeUpTo1000) {
    std::uniform_int_distribution<std::uint32_t> any;
    for (std::int64_t n = 0; n <= 1000; ++n) {
        std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
        for (auto& x : k) x = any(rng());
        check_keys<std::uint32_t>(rt(), k, {}, "random");
        if (n % 37 == 0) check_pairs<std::uint32_t>(rt(), k, {.descending = true}, "random");
        if (HasFatalFailure()) return;
    }
}

TEST_P(RadixSort, UnsignedKeysAgainstStableSort) {
    for (std::int64_t n : {2, 3, 255, 256, 257, 4095, 4096, 4097, 8191, 65521, 65537}) {
        check_distributions(rt(), n, rng(), false);
        if (HasFatalFailure()) return;
        check_distributions(rt(), n, rng(), true);
        if (HasFatalFailure()) return;
    }
}

TEST_P(RadixSort, LargeSizes) {
    // 2^k +- 1 and a prime (runs of several tiles per workgroup: the next test).
    std::uniform_int_distribution<std::uint32_t> any;
    for (std::int64_t n : {(1 << 16) - 1, (1 << 20) + 1, 1000003, (1 << 24) - 1, (1 << 24) + 1}) {
        std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
        for (auto& x : k) x = any(rng());
        check_keys<std::uint32_t>(rt(), k, {}, "random");
        if (HasFatalFailure()) return;
        if (n < (1 << 24)) check_pairs<std::uint32_t>(rt(), k, {.descending = true}, "random");
        if (HasFatalFailure()) return;
    }
}

TEST_P(RadixSort, WorkgroupsSortRunsOfTiles) {
    // However many tiles each workgroup takes in turn, the result is the same.
    const std::int64_t n = 9 * 4096 + 123;
    for (std::int64_t run : {1, 2, 3, 4, 7, 10, 100}) {
        std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
        for (auto& x : k) x = rng()() % 1000;
        check_pairs<std::uint32_t>(rt(), k, {.tiles_per_workgroup = run}, "tiles per workgroup");
        check_keys<std::uint32_t>(rt(), k, {.descending = true, .tiles_per_workgroup = run}, "tiles per workgroup");
        if (HasFatalFailure()) return;
    }
}

TEST_P(RadixSort, SignedAndFloatKeys) {
    for (std::int64_t n : {1, 2, 100, 4097}) {
        std::vector<std::int32_t> k = random_ints(static_cast<std::size_t>(n), INT32_MIN, INT32_MAX);
        check_pairs<std::int32_t>(rt(), k, {}, "int32");
        check_pairs<std::int32_t>(rt(), k, {.descending = true}, "int32");
        std::vector<float> f = random_floats(static_cast<std::size_t>(n), -1e6f, 1e6f);
        const float specials[] = {INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, -1e-40f, 3.0f, -3.0f};
        for (std::int64_t i = 0; i < n; i += 3) f[i] = specials[(i / 3) % 8];
        check_pairs<float>(rt(), f, {}, "float");
    }
}

TEST_P(RadixSort, FloatTotalOrderWithNaN) {
    // -inf < negatives < -0 < +0 < positives < +inf < NaN, stable among equals.
    const float nan = std::nanf(""), neg_nan = -std::nanf("");
    std::vector<float> f = {nan, 1.0f, -0.0f, INFINITY, neg_nan, 0.0f, -INFINITY, -1.0f, 1e-40f, -1e-40f, 0.0f};
    const auto n = static_cast<std::int64_t>(f.size());
    std::vector<std::int32_t> idx(f.size());
    for (std::int64_t i = 0; i < n; ++i) idx[i] = static_cast<std::int32_t>(i);
    auto ks = rt().stream<float>({n}, f);
    auto vs = rt().stream<std::int32_t>({n}, idx);
    radix_sort(ks, vs);
    EXPECT_EQ(vs.download(), (std::vector<std::int32_t>{6, 7, 9, 2, 5, 10, 8, 1, 3, 0, 4}));
    const std::vector<float> k = ks.download();
    EXPECT_TRUE(std::signbit(k[3]) && k[3] == 0.0f) << "-0 before +0";
    EXPECT_TRUE(std::isnan(k[9]) && std::isnan(k[10]));
}

TEST_P(RadixSort, StructValuesAndErrors) {
    const std::int64_t n = 1000;
    std::vector<std::uint32_t> k(n);
    std::vector<float3> v(n);
    for (std::int64_t i = 0; i < n; ++i) {
        k[i] = static_cast<std::uint32_t>((i * 7919) % 1000);
        v[i] = float3{float(i), float(k[i]), -1.0f};
    }
    auto ks = rt().stream<std::uint32_t>({n}, k);
    auto vs = rt().stream<float3>({n}, v);
    radix_sort(ks, vs);
    const std::vector<float3> got = vs.download();
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i][1], float(i)) << i;  // keys are a permutation of 0..999

    auto short_values = rt().stream<float3>({n - 1});
    EXPECT_THROW(radix_sort(ks, short_values), Error);
    EXPECT_THROW(radix_sort(ks, {.bits = 33}), Error);
    EXPECT_NE(error_message([&] { radix_sort(ks, {.tiles_per_workgroup = -1}); }).find("give a positive number"),
              std::string::npos);
    // A driver that ends long loops (llvmpipe) bounds the tiles a workgroup may take.
    const std::string too_many = error_message([&] { radix_sort(ks, {.tiles_per_workgroup = 1 << 20}); });
    if (rt().info().limits.loop_iterations)
        EXPECT_NE(too_many.find("give a smaller number or 0"), std::string::npos) << too_many;
    else
        EXPECT_EQ(too_many, kNoError);
}

RILL_INSTANTIATE_FOR_BACKENDS(RadixSort);

}  // namespace
}  // namespace rill::test
