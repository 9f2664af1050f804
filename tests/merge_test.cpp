// Merge of sorted streams against std::merge (stable: a's elements first among
// equals): sizes 0, 1, 2, primes and around powers of two on either side,
// many ties, descending order, float keys with NaN/inf/-0, an order written in
// the DSL on struct keys, and the errors.
#include <algorithm>

#include <rill/algorithms/merge.h>

#include "backend_fixture.h"
#include "sort_order.h"

// Named apart from streams_test.cpp's Hit: two global structs of one name break
// the one-definition rule, and the linker kept one Var<Hit> for both at -Og.
struct TimedHit {
    float t;
    std::int32_t prim;
};
RILL_STRUCT(TimedHit, t, prim);

namespace rill::test {
namespace {

class Merging : public BackendTest {};

/// Sorted keys (in the documented order, or its reverse) with many ties.
template <class K>
std::vector<K> sorted(std::vector<K> k, bool descending) {
    std::stable_sort(k.begin(), k.end(), [&](K x, K y) { return descending ? order(y) < order(x) : order(x) < order(y); });
    return k;
}

/// Merges a and b on the device, keys and values (the elements' tags: a's
/// index, or a.size() + b's index), and compares with std::merge.
template <class K>
void check(Runtime& rt, const std::vector<K>& a, const std::vector<K>& b, bool descending, const char* what) {
    const auto na = static_cast<std::int64_t>(a.size()), nb = static_cast<std::int64_t>(b.size());
    std::vector<std::pair<K, std::int32_t>> ta, tb, want;
    for (std::int64_t i = 0; i < na; ++i) ta.emplace_back(a[i], static_cast<std::int32_t>(i));
    for (std::int64_t j = 0; j < nb; ++j) tb.emplace_back(b[j], static_cast<std::int32_t>(na + j));
    std::merge(ta.begin(), ta.end(), tb.begin(), tb.end(), std::back_inserter(want), [&](const auto& x, const auto& y) {
        return descending ? order(y.first) < order(x.first) : order(x.first) < order(y.first);
    });
    std::vector<std::int32_t> av(na), bv(nb);
    for (std::int64_t i = 0; i < na; ++i) av[i] = ta[i].second;
    for (std::int64_t j = 0; j < nb; ++j) bv[j] = tb[j].second;
    auto sa = rt.stream<K>({na}, a), sb = rt.stream<K>({nb}, b), out = rt.stream<K>({na + nb});
    auto sav = rt.stream<std::int32_t>({na}, av), sbv = rt.stream<std::int32_t>({nb}, bv);
    auto outv = rt.stream<std::int32_t>({na + nb});
    merge(sa, sav, sb, sbv, out, outv, {.descending = descending});
    const std::vector<K> keys = out.download();
    const std::vector<std::int32_t> tags = outv.download();
    for (std::int64_t i = 0; i < na + nb; ++i) {
        ASSERT_EQ(tags[i], want[i].second) << what << ": position " << i << " of " << na << " + " << nb;
        ASSERT_EQ(order(keys[i]), order(want[i].first)) << what << ": key at " << i;
    }
    auto keys_only = rt.stream<K>({na + nb});
    merge(sa, sb, keys_only, {.descending = descending});
    const std::vector<K> got = keys_only.download();
    for (std::int64_t i = 0; i < na + nb; ++i) ASSERT_EQ(order(got[i]), order(want[i].first)) << what << ", keys only: " << i;
}

TEST_P(Merging, SizesOnEitherSide) {
    const std::int64_t sizes[] = {0, 1, 2, 7, 255, 256, 257, 1009, 4097, 65537};
    for (std::int64_t na : sizes)
        for (std::int64_t nb : sizes) {
            if (na * nb > 65537 * 257) continue;
            SCOPED_TRACE("a " + std::to_string(na) + ", b " + std::to_string(nb));
            const bool descending = (na + nb) % 2 == 1;
            std::vector<std::int32_t> a = random_ints(static_cast<std::size_t>(na), -20, 20);  // many ties
            std::vector<std::int32_t> b = random_ints(static_cast<std::size_t>(nb), -20, 20);
            check(rt(), sorted(a, descending), sorted(b, descending), descending, "int32, ties");
            if (HasFatalFailure()) return;
        }
    // All of b before all of a, and the reverse; a prime against a large power of two plus one.
    std::vector<std::uint32_t> low(1000, 3u), high(3000, 9u);
    check(rt(), high, low, false, "b before a");
    check(rt(), low, high, false, "a before b");
    std::uniform_int_distribution<std::uint32_t> any;
    std::vector<std::uint32_t> a(1000003), b((1 << 20) + 1);
    for (auto& x : a) x = any(rng());
    for (auto& x : b) x = any(rng());
    check(rt(), sorted(a, false), sorted(b, false), false, "large");
}

TEST_P(Merging, FloatKeysInTheSortOrder) {
    const float nan = std::nanf("");
    std::vector<float> a = random_floats(500, -10, 10), b = random_floats(777, -10, 10);
    const float specials[] = {INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, nan, -nan, 2.5f};
    for (std::size_t i = 0; i < a.size(); i += 5) a[i] = specials[i % 8];
    for (std::size_t i = 0; i < b.size(); i += 3) b[i] = specials[(i + 1) % 8];
    check(rt(), sorted(a, false), sorted(b, false), false, "float");
    check(rt(), sorted(a, true), sorted(b, true), true, "float, descending");
}

TEST_P(Merging, OrderWrittenInTheDslAndErrors) {
    Merge<TimedHit> nearest("nearest", [](const Var<TimedHit>& x, const Var<TimedHit>& y) { return x.t < y.t; });
    auto hits = [&](std::size_t n) {
        std::vector<TimedHit> h(n);
        for (auto& x : h) x = TimedHit{static_cast<float>(rng()() % 30), static_cast<std::int32_t>(rng()() % 1000)};
        std::stable_sort(h.begin(), h.end(), [](const TimedHit& x, const TimedHit& y) { return x.t < y.t; });
        return h;
    };
    const std::vector<TimedHit> a = hits(3001), b = hits(2000);
    std::vector<TimedHit> want;
    std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(want), [](const TimedHit& x, const TimedHit& y) { return x.t < y.t; });
    auto sa = rt().stream<TimedHit>({3001}, a), sb = rt().stream<TimedHit>({2000}, b), out = rt().stream<TimedHit>({5001});
    nearest(sa, sb, out);
    const std::vector<TimedHit> got = out.download();
    for (std::size_t i = 0; i < want.size(); ++i)
        ASSERT_TRUE(got[i].t == want[i].t && got[i].prim == want[i].prim) << "position " << i;

    auto small = rt().stream<TimedHit>({5000});
    EXPECT_NE(error_message([&] { nearest(sa, sb, small); }).find("give an output of 5001"), std::string::npos);
    auto both = rt().stream<TimedHit>({6002});
    EXPECT_NE(error_message([&] { nearest(sa, sa, both); }).find(kNoError), std::string::npos);  // merging a with itself is fine
    auto ka = rt().stream<std::uint32_t>({4}, std::vector<std::uint32_t>{1, 2, 3, 4});
    auto ab = rt().stream<std::uint32_t>({8});
    EXPECT_NE(error_message([&] { merge(ka, ab.domain({0}, {4}), ab); }).find("Merge into another stream"), std::string::npos);
}

}  // namespace

RILL_INSTANTIATE_FOR_BACKENDS(Merging);

}  // namespace rill::test
