// Radix sort against std::stable_sort: random, sorted, reversed, all-equal and
// few-distinct keys; every size up to 300 and larger ones around powers of two;
// float keys with NaN, infinities, -0 and denormals; stability through
// key-value pairs.
#include <algorithm>
#include <cmath>
#include <cstring>

#include <rill/algorithms/radix_sort.h>

#include "backend_fixture.h"

namespace rill::test {
namespace {

class RadixSort : public BackendTest {};

/// The documented total order of keys, as an integer (independent of the device code).
template <class K>
std::int64_t order(K k) {
    if constexpr (std::is_same_v<K, float>) {
        if (std::isnan(k)) return std::int64_t{1} << 40;
        std::int32_t bits;
        std::memcpy(&bits, &k, 4);
        return bits < 0 ? -static_cast<std::int64_t>(bits & 0x7fffffff) - 1 : bits;  // -0 just below +0
    } else {
        return static_cast<std::int64_t>(k);
    }
}

template <class K>
void check_pairs(Runtime& rt, const std::vector<K>& keys, const RadixSortOptions& opt, const char* what) {
    const auto n = static_cast<std::int64_t>(keys.size());
    std::vector<std::int32_t> idx(keys.size());
    for (std::int64_t i = 0; i < n; ++i) idx[i] = static_cast<std::int32_t>(i);
    std::vector<std::int32_t> want = idx;
    std::stable_sort(want.begin(), want.end(),
                     [&](std::int32_t a, std::int32_t b) {
                         return opt.descending ? order(keys[b]) < order(keys[a]) : order(keys[a]) < order(keys[b]);
                     });
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

TEST_P(RadixSort, UnsignedKeysAgainstStableSort) {
    std::vector<std::int64_t> sizes;
    for (std::int64_t n = 0; n <= 300; n += 7) sizes.push_back(n);
    for (std::int64_t n : {1023, 1025, 4097, 65537}) sizes.push_back(n);
    std::uniform_int_distribution<std::uint32_t> any;
    for (std::int64_t n : sizes) {
        std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
        for (auto& x : k) x = any(rng());
        check_pairs<std::uint32_t>(rt(), k, {}, "random");
        if (HasFatalFailure()) return;
        for (auto& x : k) x %= 5;  // few distinct: stability shows
        check_pairs<std::uint32_t>(rt(), k, {.descending = n % 2 == 1}, "few distinct");
        check_pairs<std::uint32_t>(rt(), k, {.bits = 3}, "few distinct, 3 bits");
        std::sort(k.begin(), k.end());
        check_pairs<std::uint32_t>(rt(), k, {}, "sorted");
        std::reverse(k.begin(), k.end());
        check_pairs<std::uint32_t>(rt(), k, {}, "reversed");
        std::fill(k.begin(), k.end(), 42u);
        check_pairs<std::uint32_t>(rt(), k, {}, "all equal");
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
}

RILL_INSTANTIATE_FOR_BACKENDS(RadixSort);

}  // namespace
}  // namespace rill::test
