// Segmented sort against std::stable_sort run by run: random, sparse, dense,
// no and every-position heads; sizes 0 to 70001; uint32, int32 and float keys
// (NaN and -0 included); keys-only and key-value (stability), both orders.
#include <algorithm>

#include <rill/algorithms/segmented_sort.h>

#include "backend_fixture.h"
#include "sort_order.h"

namespace rill::test {
namespace {

class SegmentedSort : public BackendTest {};

/// Head flags of n positions, each set with probability p (random values, not
/// only 1: any nonzero flag starts a run).
std::vector<std::uint32_t> random_heads(std::int64_t n, double p, std::mt19937& gen) {
    std::bernoulli_distribution set(p);
    std::vector<std::uint32_t> h(static_cast<std::size_t>(n));
    for (auto& x : h) x = set(gen) ? 1u + gen() % 7u : 0u;
    return h;
}

template <class K>
void check(Runtime& rt, const std::vector<K>& keys, const std::vector<std::uint32_t>& heads, bool descending, bool pairs,
           const char* what) {
    const auto n = static_cast<std::int64_t>(keys.size());
    std::vector<std::uint32_t> want(keys.size());
    for (std::int64_t i = 0; i < n; ++i) want[i] = static_cast<std::uint32_t>(i);
    for (std::int64_t s = 0; s < n;) {
        std::int64_t e = s + 1;
        while (e < n && heads[e] == 0) ++e;
        std::stable_sort(want.begin() + s, want.begin() + e, [&](std::uint32_t a, std::uint32_t b) {
            return descending ? order(keys[b]) < order(keys[a]) : order(keys[a]) < order(keys[b]);
        });
        s = e;
    }
    auto ks = rt.stream<K>({n}, keys);
    auto hs = rt.stream<std::uint32_t>({n}, heads);
    std::vector<std::uint32_t> idx(keys.size());
    for (std::int64_t i = 0; i < n; ++i) idx[i] = static_cast<std::uint32_t>(i);
    auto vs = rt.stream<std::uint32_t>({n}, idx);
    if (pairs) segmented_sort(ks, vs, hs, {.descending = descending});
    else segmented_sort(ks, hs, {.descending = descending});
    const std::vector<K> got = ks.download();
    const std::vector<std::uint32_t> got_v = vs.download();
    for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(order(got[i]), order(keys[want[i]])) << what << ": key at " << i << " of " << n;
        if (pairs) {
            ASSERT_EQ(got_v[i], want[i]) << what << ": value at " << i << " of " << n;
        }
    }
}

TEST_P(SegmentedSort, RunsOfAnyLengthSortOnTheirOwn) {
    std::mt19937 gen(5);
    for (const std::int64_t n : {0, 1, 2, 3, 100, 1000, 4097, 70001}) {
        std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
        for (auto& x : k) x = gen() % 50;  // few distinct: stability shows in the pairs
        const std::vector<std::uint32_t> none(static_cast<std::size_t>(n), 0u), every(static_cast<std::size_t>(n), 1u);
        std::vector<std::uint32_t> first_only = none;
        if (n > 0) first_only[0] = 1;
        const std::pair<std::vector<std::uint32_t>, const char*> patterns[] = {
            {random_heads(n, 0.01, gen), "sparse heads"}, {random_heads(n, 0.3, gen), "dense heads"},
            {none, "no heads"}, {every, "a head everywhere"}, {first_only, "a head at 0 only"}};
        for (const auto& [heads, what] : patterns)
            for (const bool pairs : {false, true}) {
                check<std::uint32_t>(rt(), k, heads, pairs, pairs, what);
                if (HasFatalFailure()) return;
            }
    }
}

TEST_P(SegmentedSort, SignedAndFloatKeys) {
    std::mt19937 gen(9);
    for (const std::int64_t n : {2, 1000, 4099}) {
        const std::vector<std::uint32_t> heads = random_heads(n, 0.05, gen);
        std::vector<float> f = random_floats(static_cast<std::size_t>(n), -5, 5);
        const float specials[] = {INFINITY, -INFINITY, 0.0f, -0.0f, std::nanf(""), 1e-40f};
        for (std::int64_t i = 0; i < n; i += 5) f[i] = specials[(i / 5) % 6];
        check<float>(rt(), f, heads, false, true, "float");
        check<std::int32_t>(rt(), random_ints(static_cast<std::size_t>(n), -100, 100), heads, true, true, "int32");
        if (HasFatalFailure()) return;
    }
}

TEST_P(SegmentedSort, Errors) {
    auto ks = rt().stream<std::uint32_t>({10});
    auto vs = rt().stream<std::uint32_t>({9});
    auto hs = rt().stream<std::uint32_t>({10});
    EXPECT_EQ(error_message([&] { segmented_sort(ks, rt().stream<std::uint32_t>({11})); }),
              "rill::segmented_sort: 10 keys but 11 head flags; give one flag per key (nonzero where a run starts)");
    EXPECT_NE(error_message([&] { segmented_sort(ks, vs, hs); }).find("10 keys but 9 values"), std::string::npos);
    EXPECT_NE(error_message([&] { segmented_sort(ks, hs, {.count = rt().stream<std::uint32_t>({1})}); }).find("count"),
              std::string::npos);
}

RILL_INSTANTIATE_FOR_BACKENDS(SegmentedSort);

}  // namespace
}  // namespace rill::test
