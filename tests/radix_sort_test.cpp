// Radix sort against std::stable_sort: random, sorted, reversed, all-equal,
// few-distinct and top-byte-only keys; every size up to 1000, sizes around
// powers of two up to 2^24 + 1, primes, and workgroups taking runs of tiles;
// float keys with NaN, infinities, -0 and denormals; stability through
// key-value pairs.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include <rill/algorithms/radix_sort.h>

#include "backend_fixture.h"
#include "filter_then_sort.h"
#include "sort_order.h"

struct Mote {
    rill::float2 position;
    std::uint32_t id;
};
RILL_STRUCT(Mote, position, id);

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
void check_distributions(Runtime& rt, std::int64_t n, std::mt19937& gen, bool pairs,
                         RadixAlgorithm algorithm = RadixAlgorithm::Auto) {
    std::uniform_int_distribution<std::uint32_t> any;
    std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
    auto check = [&](RadixSortOptions opt, const char* what) {
        opt.algorithm = algorithm;
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
    for (std::int64_t n : {2, 3, 255, 256, 257, 4095, 4096, 4097, 6143, 6144, 6145, 8191, 12289, 65521, 65537}) {
        check_distributions(rt(), n, rng(), false);
        if (HasFatalFailure()) return;
        check_distributions(rt(), n, rng(), true);
        if (HasFatalFailure()) return;
    }
}

/// Random keys (and, below 2^24, descending pairs) of each size in `sizes`.
void check_large(Runtime& rt, std::initializer_list<std::int64_t> sizes) {
    std::uniform_int_distribution<std::uint32_t> any;
    for (std::int64_t n : sizes) {
        std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
        for (auto& x : k) x = any(rng());
        check_keys<std::uint32_t>(rt, k, {}, "random");
        if (::testing::Test::HasFatalFailure()) return;
        if (n < (1 << 24)) check_pairs<std::uint32_t>(rt, k, {.descending = true}, "random");
        if (::testing::Test::HasFatalFailure()) return;
    }
}

// 2^k +- 1 and a prime (runs of several tiles per workgroup: the next test).
// Then 2^K - 1 and 2^K + 1 keys, K = largest_power_of_two (2^24 where large
// arrays are cheap), a test each, so that a configuration can leave out one
// size by name (cpu_auto_builds_mid_dispatch runs 2^24 + 1 alone).
TEST_P(RadixSort, LargeSizes) { check_large(rt(), {(1 << 16) - 1, (1 << 20) + 1, 1000003}); }
TEST_P(RadixSort, LargeSizes2ToKMinus1) { check_large(rt(), {(std::int64_t{1} << largest_power_of_two(rt())) - 1}); }
TEST_P(RadixSort, LargeSizes2ToKPlus1) { check_large(rt(), {(std::int64_t{1} << largest_power_of_two(rt())) + 1}); }

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

TEST_P(RadixSort, Uint64KeysAsTwoWords) {
    std::uniform_int_distribution<std::uint64_t> any;
    // 1000003 keys (245 tiles) run the kernels of 65537 (16 tiles) once more:
    // only where large arrays are cheap (largest_power_of_two).
    std::vector<std::int64_t> sizes{0, 1, 2, 1000, 4097, 65537};
    if (largest_power_of_two(rt()) >= 22) sizes.push_back(1000003);
    for (std::int64_t n : sizes) {
        SCOPED_TRACE(n);
        // Few distinct high words, so that the low words decide often.
        std::vector<std::uint64_t> k(static_cast<std::size_t>(n));
        for (auto& x : k) x = (any(rng()) % 7) << 32 | (any(rng()) & (n % 2 ? 0xffffffffu : 0xffu));
        for (const RadixSortOptions& opt : {RadixSortOptions{}, RadixSortOptions{.descending = true},
                                           RadixSortOptions{.bits = 40}, RadixSortOptions{.bits = 20}}) {
            const std::uint64_t mask = opt.bits == 64 || opt.bits == 32 ? ~std::uint64_t{0} : (std::uint64_t{1} << opt.bits) - 1;
            std::vector<std::int32_t> want(k.size());
            for (std::int64_t i = 0; i < n; ++i) want[i] = static_cast<std::int32_t>(i);
            std::stable_sort(want.begin(), want.end(), [&](std::int32_t a, std::int32_t b) {
                return opt.descending ? (k[b] & mask) < (k[a] & mask) : (k[a] & mask) < (k[b] & mask);
            });
            std::vector<uint2> words(k.size());
            for (std::int64_t i = 0; i < n; ++i) words[i] = uint2{std::uint32_t(k[i]), std::uint32_t(k[i] >> 32)};
            auto ks = rt().stream<uint2>({n}, words);
            auto vs = rt().stream<std::int32_t>({n}, want);  // overwritten below with positions
            std::vector<std::int32_t> pos(k.size());
            for (std::int64_t i = 0; i < n; ++i) pos[i] = static_cast<std::int32_t>(i);
            vs.upload(pos);
            RadixSortOptions o = opt;
            if (o.bits == 32) o.bits = 64;  // every bit of a uint64 key
            radix_sort(ks, vs, o);
            ASSERT_EQ(vs.download(), want) << "bits " << o.bits << (o.descending ? ", descending" : "");
            const std::vector<uint2> got = ks.download();
            for (std::int64_t i = 0; i < n; ++i)
                ASSERT_EQ(std::uint64_t(got[i][1]) << 32 | got[i][0], k[want[i]]) << "key at " << i;
        }
    }
    auto ks = rt().stream<uint2>({3});
    EXPECT_NE(error_message([&] { radix_sort(ks, {.bits = 65}); }).find("give 1 to 64 key bits"), std::string::npos);
}

TEST_P(RadixSort, ByAKeyComputedInTheDsl) {
    // Particles by grid cell (a 64 x 64 grid over [0, 1)^2), stable, as UberFlow sorts them.
    SortBy<Mote, std::uint32_t> by_cell("by_cell", [](const Var<Mote>& m) {
        Expr<uint2> c = cast<uint2>(clamp(m.position * 64.0f, 0.0f, 63.0f));
        return c.y() * 64u + c.x();
    });
    SortBy<Mote, float> by_height("by_height", [](const Var<Mote>& m) { return m.position.y(); });
    for (std::int64_t n : {0, 1, 2, 999, 4097, 100003}) {
        SCOPED_TRACE(n);
        std::vector<float> c = random_floats(static_cast<std::size_t>(2 * n), 0.0f, 1.0f);
        std::vector<Mote> ms(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) ms[i] = Mote{float2{c[2 * i], c[2 * i + 1]}, std::uint32_t(i)};
        auto cell = [](const Mote& m) {
            auto q = [](float v) { return std::uint32_t(std::clamp(v * 64.0f, 0.0f, 63.0f)); };
            return q(m.position[1]) * 64u + q(m.position[0]);
        };
        std::vector<Mote> want = ms;
        std::stable_sort(want.begin(), want.end(), [&](const Mote& a, const Mote& b) { return cell(a) < cell(b); });
        auto s = rt().stream<Mote>({n}, ms);
        by_cell(s);
        std::vector<Mote> got = s.download();
        for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i].id, want[i].id) << "by cell, position " << i;
        std::stable_sort(want.begin(), want.end(), [](const Mote& a, const Mote& b) { return a.position[1] > b.position[1]; });
        by_height(s, {.descending = true});
        got = s.download();
        for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i].id, want[i].id) << "by height, position " << i;
    }
}

/// Values of every word type come out with their bits: float NaN payloads,
/// -0, denormals and infinities included, in stable order.
/// The positions 0 .. n - 1 in the stable ascending order of `keys`.
std::vector<std::int64_t> stable_key_order(const std::vector<std::uint32_t>& keys) {
    std::vector<std::int64_t> by_key(keys.size());
    std::iota(by_key.begin(), by_key.end(), std::int64_t{0});
    std::stable_sort(by_key.begin(), by_key.end(), [&](std::int64_t a, std::int64_t b) { return keys[a] < keys[b]; });
    return by_key;
}

/// `values` moved as a stable ascending sort of `keys` moves them.
std::vector<std::uint32_t> in_stable_key_order(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values) {
    std::vector<std::uint32_t> out;
    for (std::int64_t i : stable_key_order(keys)) out.push_back(values[i]);
    return out;
}

TEST_P(RadixSort, WordValuesKeepTheirBits) {
    std::mt19937 gen(11);
    for (std::int64_t n : {1, 4095, 4097, 100003}) {
        std::vector<std::uint32_t> keys(n), bits(n);
        for (std::int64_t i = 0; i < n; ++i) {
            keys[i] = gen() % 997;  // many equal keys: stability shows
            bits[i] = gen();
        }
        for (std::uint32_t special : {0x7fc00001u, 0xffa00000u, 0x80000000u, 0x00000001u, 0x7f800000u})
            bits[gen() % n] = special;
        const std::vector<std::uint32_t> want = in_stable_key_order(keys, bits);
        auto as_bits = [](const auto& values) {
            std::vector<std::uint32_t> out(values.size());
            std::memcpy(out.data(), values.data(), values.size() * 4);
            return out;
        };
        std::vector<float> f(n);
        std::vector<std::int32_t> s(n);
        std::memcpy(f.data(), bits.data(), n * 4);
        std::memcpy(s.data(), bits.data(), n * 4);
        auto k1 = rt().stream<std::uint32_t>({n}, keys), k2 = rt().stream<std::uint32_t>({n}, keys),
             k3 = rt().stream<std::uint32_t>({n}, keys);
        auto vf = rt().stream<float>({n}, f);
        auto vs = rt().stream<std::int32_t>({n}, s);
        auto vu = rt().stream<std::uint32_t>({n}, bits);
        radix_sort(k1, vf);
        radix_sort(k2, vs);
        radix_sort(k3, vu);
        EXPECT_EQ(as_bits(vf.download()), want) << "float values, n = " << n;
        EXPECT_EQ(as_bits(vs.download()), want) << "int32 values, n = " << n;
        EXPECT_EQ(vu.download(), want) << "uint32 values, n = " << n;
    }
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

/// A sort of the first `count` elements, the count given on the device: the
/// prefix against std::stable_sort of it, everything past it unchanged.
template <class K>
void check_counted(Runtime& rt, const std::vector<K>& keys, std::int64_t count, RadixSortOptions opt, bool pairs) {
    const auto n = static_cast<std::int64_t>(keys.size());
    const std::int64_t c = std::min(count, n);
    std::vector<std::int32_t> idx(keys.size());
    for (std::int64_t i = 0; i < n; ++i) idx[i] = static_cast<std::int32_t>(i);
    std::vector<std::int32_t> want = idx;
    std::stable_sort(want.begin(), want.begin() + c, [&](std::int32_t a, std::int32_t b) { return before(keys[a], keys[b], opt); });
    auto ks = rt.stream<K>({n}, keys);
    auto vs = rt.stream<std::int32_t>({n}, idx);
    opt.count = rt.stream<std::uint32_t>({1}, std::vector<std::uint32_t>{static_cast<std::uint32_t>(count)});
    if (pairs) radix_sort(ks, vs, opt);
    else radix_sort(ks, opt);
    const std::vector<K> got_keys = ks.download();
    const std::vector<std::int32_t> got = vs.download();
    for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(order(got_keys[i]), order(keys[want[i]]))
            << "key at " << i << " of " << n << ", count " << count << ", bits " << opt.bits << (pairs ? ", pairs" : "");
        if (pairs) {
            ASSERT_EQ(got[i], want[i]) << "value at " << i << " of " << n << ", count " << count;
        }
    }
}

TEST_P(RadixSort, CountOnTheDevice) {
    std::mt19937 gen(7);
    std::uniform_int_distribution<std::uint32_t> any;
    for (const std::int64_t n : {2, 3, 1000, 4097, 70001}) {
        std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
        for (auto& x : k) x = any(gen) % 1000;  // few distinct: stability shows in the pairs
        for (const std::int64_t count : {std::int64_t{0}, std::int64_t{1}, n / 2 + 1, n - 1, n, n + 10}) {
            for (const int bits : {32, 8, 24})  // 1 and 3 passes: the odd ones end in the scratch streams
                for (const bool pairs : {false, true}) {
                    check_counted<std::uint32_t>(rt(), k, count, {.descending = count % 2 == 1, .bits = bits}, pairs);
                    if (HasFatalFailure()) return;
                }
        }
        std::vector<float> f = random_floats(static_cast<std::size_t>(n), -5, 5);
        std::vector<std::int32_t> si = random_ints(static_cast<std::size_t>(n), -100, 100);
        check_counted<float>(rt(), f, n / 3 + 1, {}, true);
        check_counted<std::int32_t>(rt(), si, n - 1, {.descending = true}, false);
        if (HasFatalFailure()) return;
    }
}

TEST_P(RadixSort, SortsWhatAFilterKeptWithoutTheHost) {
    check_sorts_what_a_filter_kept(rt(), [](const Stream<std::uint32_t>& kept, const Stream<std::uint32_t>& count) {
        radix_sort(kept, {.count = count});
    });
}

TEST_P(RadixSort, CountErrors) {
    auto ks = rt().stream<std::uint32_t>({10});
    auto two = rt().stream<std::uint32_t>({2});
    EXPECT_EQ(error_message([&] { radix_sort(ks, {.count = two}); }),
              "rill::radix_sort: the count stream has 2 elements; give a stream of one element (how many leading keys to sort)");
    auto k64 = rt().stream<uint2>({10});
    EXPECT_NE(error_message([&] { radix_sort(k64, {.count = rt().stream<std::uint32_t>({1})}); }).find("not uint64 ones yet"),
              std::string::npos);
}

/// OneSweep where the device's look-back is exact (the CPU backend, GPU
/// drivers that do not end long loops), else its refusal.
bool one_sweep_runs(Runtime& rt) {
    if (rt.info().limits.loop_iterations == 0) return true;
    auto ks = rt.stream<std::uint32_t>({10});
    const std::string refused = error_message([&] { radix_sort(ks, {.algorithm = RadixAlgorithm::OneSweep}); });
    EXPECT_NE(refused.find("cannot be exact"), std::string::npos) << refused;
    EXPECT_NE(refused.find("use RadixAlgorithm::Auto"), std::string::npos) << refused;
    return false;
}

TEST_P(RadixSort, OneSweepAgainstStableSort) {
    if (!one_sweep_runs(rt())) return;
    for (std::int64_t n : {2, 3, 255, 4095, 4096, 4097, 6143, 6144, 6145, 3 * 4096 + 1, 65537}) {
        check_distributions(rt(), n, rng(), false, RadixAlgorithm::OneSweep);
        if (HasFatalFailure()) return;
        check_distributions(rt(), n, rng(), true, RadixAlgorithm::OneSweep);
        if (HasFatalFailure()) return;
    }
    std::uniform_int_distribution<std::uint32_t> any;
    for (std::int64_t n = 0; n <= 300; ++n) {
        std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
        for (auto& x : k) x = any(rng());
        check_pairs<std::uint32_t>(rt(), k, {.descending = n % 2 == 1, .algorithm = RadixAlgorithm::OneSweep}, "random");
        if (HasFatalFailure()) return;
    }
}

// Hundreds of tiles to look back over. (A test of its own, named as the other
// large sizes, so that the CPU's subgroup-width runs leave it out with them:
// the look-back is the same at every width, and at each width it took a
// quarter of the run.)
TEST_P(RadixSort, OneSweepLargeSizes) {
    if (!one_sweep_runs(rt())) return;
    std::uniform_int_distribution<std::uint32_t> any;
    for (std::int64_t n : {(1 << 20) + 1, 1000003}) {
        std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
        for (auto& x : k) x = any(rng());
        check_keys<std::uint32_t>(rt(), k, {.algorithm = RadixAlgorithm::OneSweep}, "random");
        for (auto& x : k) x %= 3000;
        check_pairs<std::uint32_t>(rt(), k, {.descending = true, .algorithm = RadixAlgorithm::OneSweep}, "few distinct");
        if (HasFatalFailure()) return;
    }
}

// A pass's workgroup g sorts tile g, and the tiles before it need not have
// started: with the CPU backend's workgroups started last first, every
// look-back meets tiles that have not, and counts their keys itself (the
// fallback), down to tile 0. On GPUs the same sorts in whatever order they run.
void check_one_sweep_with_workgroups_in_reverse(Runtime& rt) {
    const WorkgroupsInReverse reverse;
    std::uniform_int_distribution<std::uint32_t> any;
    for (std::int64_t n : {4097, 3 * 4096 + 1, 6145, 20011}) {
        std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
        for (auto& x : k) x = any(rng());
        check_keys<std::uint32_t>(rt, k, {.algorithm = RadixAlgorithm::OneSweep}, "random");
        for (auto& x : k) x %= 300;
        check_pairs<std::uint32_t>(rt, k, {.descending = true, .algorithm = RadixAlgorithm::OneSweep}, "few distinct");
        check_keys<std::uint32_t>(rt, k, {.bits = 12, .algorithm = RadixAlgorithm::OneSweep}, "few distinct, 12 bits");
        if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST_P(RadixSort, OneSweepWhateverOrderWorkgroupsStart) {
    if (one_sweep_runs(rt())) check_one_sweep_with_workgroups_in_reverse(rt());
}

// Past 2^24 keys OneSweep's counting kernel gives each workgroup a run of
// tiles (radix::kCountGroups workgroups at most), the last run ending in a
// part tile; 24 key bits, descending: three passes, digits flipped.
TEST_P(RadixSort, LargeSizes2To24Plus1OneSweep) {
    if (!one_sweep_runs(rt())) return;
    std::uniform_int_distribution<std::uint32_t> any;
    std::vector<std::uint32_t> k(static_cast<std::size_t>((1 << 24) + 1));
    for (auto& x : k) x = any(rng());
    check_keys<std::uint32_t>(rt(), k, {.descending = true, .bits = 24, .algorithm = RadixAlgorithm::OneSweep}, "random");
}

void check_one_sweep_values_of_every_kind_and_counts(Runtime& rt) {
    const RadixSortOptions sweep{.algorithm = RadixAlgorithm::OneSweep};
    std::mt19937 gen(5);
    for (std::int64_t n : {1, 4097, 100003}) {
        if (past_largest(rt, n)) continue;
        std::vector<std::uint32_t> keys(n), bits(n);
        for (std::int64_t i = 0; i < n; ++i) keys[i] = gen() % 997, bits[i] = gen();
        bits[gen() % n] = 0x7fc00001u;  // a NaN with a payload keeps it
        const std::vector<std::int64_t> by_key = stable_key_order(keys);
        const std::vector<std::uint32_t> want = in_stable_key_order(keys, bits);
        // float values go through shared memory with their keys; uint3 ones are fetched by their place
        std::vector<float> f(n);
        std::memcpy(f.data(), bits.data(), n * 4);
        std::vector<uint3> wide(n);
        for (std::int64_t i = 0; i < n; ++i) wide[i] = uint3{bits[i], static_cast<std::uint32_t>(i), ~bits[i]};
        auto k1 = rt.stream<std::uint32_t>({n}, keys), k2 = rt.stream<std::uint32_t>({n}, keys);
        auto vf = rt.stream<float>({n}, f);
        auto vw = rt.stream<uint3>({n}, wide);
        radix_sort(k1, vf, sweep);
        radix_sort(k2, vw, sweep);
        std::vector<std::uint32_t> got(n);
        const std::vector<float> gf = vf.download();
        std::memcpy(got.data(), gf.data(), n * 4);
        EXPECT_EQ(got, want) << "float values, n = " << n;
        const std::vector<uint3> gw = vw.download();
        for (std::int64_t i = 0; i < n; ++i) {
            ASSERT_EQ(gw[i][0], want[i]) << "uint3 values, n = " << n << ", at " << i;
            ASSERT_EQ(gw[i][1], static_cast<std::uint32_t>(by_key[i])) << "uint3 values, n = " << n << ", at " << i;
        }
        for (const std::int64_t count : {std::int64_t{0}, n / 2 + 1, n + 10})
            for (const int b : {32, 8, 24}) {
                const RadixSortOptions opt{.descending = count % 2 == 1, .bits = b, .algorithm = RadixAlgorithm::OneSweep};
                check_counted<std::uint32_t>(rt, keys, count, opt, true);
                // Keys only by every bit: the first pass's tiles claim their places.
                if (b == 32) check_counted<std::uint32_t>(rt, keys, count, opt, false);
                if (::testing::Test::HasFatalFailure()) return;
            }
    }
    std::vector<float> fk = random_floats(5000, -5, 5);
    fk[17] = std::numeric_limits<float>::quiet_NaN(), fk[18] = -0.0f, fk[19] = -std::numeric_limits<float>::infinity();
    check_keys<float>(rt, fk, sweep, "float keys");
    auto ks = rt.stream<std::uint32_t>({10});
    EXPECT_NE(error_message([&] { radix_sort(ks, {.tiles_per_workgroup = 2, .algorithm = RadixAlgorithm::OneSweep}); })
                  .find("is for RadixAlgorithm::CountThenScatter"),
              std::string::npos);
}

TEST_P(RadixSort, OneSweepValuesOfEveryKindAndCounts) {
    if (one_sweep_runs(rt())) check_one_sweep_values_of_every_kind_and_counts(rt());
}

// Vulkan's OneSweep tiles (radix::kSweepKeysTile, kSweepPairsTile) run code keyed on them alone
// (radix_onesweep.h: digits recomputed after the scan, the look-back's window of 2 added up
// with selects, the pairs' write-out two rows at a time between barriers). CI's Vulkan
// (lavapipe) refuses OneSweep, so RILL_RADIX_TILES=vulkan runs those tiles here on every
// backend that takes OneSweep: the CPU backend's too, in both workgroup orders.
TEST_P(RadixSort, OneSweepInVulkansTiles) {
    auto ks = rt().stream<std::uint32_t>({10});
    {
        const ScopedEnv misspelt("RILL_RADIX_TILES", "vulcan");
        EXPECT_EQ(error_message([&] { radix_sort(ks); }),
                  "RILL_RADIX_TILES=vulcan is not a choice; use vulkan (every backend sorts in Vulkan's tiles) or leave it unset");
    }
    if (!one_sweep_runs(rt())) return;
    const ScopedEnv tiles("RILL_RADIX_TILES", "vulkan");
    // About one tile of keys and of pairs, and a few: sizes from the tiles, which retuning moves.
    const std::int64_t keys_tile = detail::radix::kSweepKeysTile.size(), pairs_tile = detail::radix::kSweepPairsTile.size();
    for (std::int64_t n : {pairs_tile - 1, pairs_tile, pairs_tile + 1, keys_tile - 1, keys_tile, keys_tile + 1, 3 * keys_tile + 1}) {
        check_distributions(rt(), n, rng(), false, RadixAlgorithm::OneSweep);
        check_distributions(rt(), n, rng(), true, RadixAlgorithm::OneSweep);
        if (HasFatalFailure()) return;
    }
    check_one_sweep_with_workgroups_in_reverse(rt());
    if (HasFatalFailure()) return;
    check_one_sweep_values_of_every_kind_and_counts(rt());
}

RILL_INSTANTIATE_FOR_BACKENDS(RadixSort);

}  // namespace
}  // namespace rill::test
