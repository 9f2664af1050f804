// Brook's ScatterOp and GatherOp against a sequential host application of the
// same updates (int64 / float64), with many updates per element and indices
// outside the target (skipped).
#include <algorithm>
#include <map>

#include "backend_fixture.h"

namespace rill::test {
namespace {

class ScatterOps : public BackendTest {};

/// Random indices into [0, size), with about 1% outside it (-1 and size).
std::vector<std::int32_t> random_indices(std::size_t n, std::int32_t size) {
    std::vector<std::int32_t> idx = random_ints(n, 0, std::max(size - 1, 0));
    for (std::size_t i = 0; i < n; i += 97) idx[i] = (i / 97) % 2 ? -1 : size;
    return idx;
}

template <class T>
void check_builtins(Runtime& rt, std::int64_t n, std::int32_t size, Shape target_shape) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", target " + target_shape.str());
    std::vector<std::int32_t> idx = random_indices(static_cast<std::size_t>(n), size);
    std::vector<std::int32_t> raw = random_ints(static_cast<std::size_t>(n), -1000, 1000);
    std::vector<T> values(raw.begin(), raw.end());  // small integers: float sums are exact
    std::vector<T> init(static_cast<std::size_t>(size));
    for (std::int32_t i = 0; i < size; ++i) init[i] = static_cast<T>(i % 13);
    auto vs = rt.stream<T>({n}, values);
    auto is = rt.stream<std::int32_t>({n}, idx);
    for (Combine how : {Combine::Add, Combine::Min, Combine::Max, Combine::Replace}) {
        SCOPED_TRACE(static_cast<int>(how));
        auto target = rt.stream<T>(target_shape, init);
        scatter_op(vs, is, target, how);
        std::vector<T> got = target.download();
        // Sequential reference; for Replace, the set of values each element may end with.
        std::vector<double> want(init.begin(), init.end());
        std::vector<std::vector<T>> candidates(static_cast<std::size_t>(size));
        for (std::int64_t i = 0; i < n; ++i) {
            if (idx[i] < 0 || idx[i] >= size) continue;
            double& w = want[idx[i]];
            const double v = static_cast<double>(values[i]);
            if (how == Combine::Add) w += v;
            if (how == Combine::Min) w = std::min(w, v);
            if (how == Combine::Max) w = std::max(w, v);
            if (how == Combine::Replace) candidates[idx[i]].push_back(values[i]);
        }
        for (std::int32_t e = 0; e < size; ++e) {
            if (how == Combine::Replace) {
                const auto& c = candidates[e];
                if (c.empty()) ASSERT_EQ(got[e], init[e]) << e;
                else ASSERT_NE(std::find(c.begin(), c.end(), got[e]), c.end()) << e << ": " << got[e];
            } else {
                ASSERT_EQ(got[e], static_cast<T>(static_cast<std::int64_t>(want[e]))) << e;  // uint wraps as the device does
            }
        }
    }
}

TEST_P(ScatterOps, BuiltinCombinersMatchSequentialApplication) {
    for (std::int64_t n : edge_sizes()) {
        check_builtins<std::int32_t>(rt(), n, 1000, Shape{1000});
        check_builtins<float>(rt(), n, 7, Shape{7});
    }
    check_builtins<std::uint32_t>(rt(), 100003, 1, Shape{1});             // everything on one element
    check_builtins<std::int32_t>(rt(), 1 << 20, 33 * 31, Shape{33, 31});  // a 2D target, indexed flat
    check_builtins<float>(rt(), 65537, 2 * 3 * 5 * 7, Shape{2, 3, 5, 7});
}

TEST_P(ScatterOps, UserCombinerThroughCompareExchange) {
    // Products of powers of two are exact in any order, as long as no partial
    // product leaves float's range: factors other than 1 are rare enough that no
    // target sees more than a few dozen, whichever order the updates take.
    // abs-max is exact.
    ScatterOp<float> mul("mul", [](Expr<float> old, Expr<float> v) { return old * v; });
    ScatterOp<std::int32_t> absmax("absmax", [](Expr<std::int32_t> old, Expr<std::int32_t> v) {
        return select(abs(v) > abs(old), v, old);
    });
    for (std::int64_t n : {0, 1, 257, 100003}) {
        SCOPED_TRACE(n);
        const std::int32_t size = 64;
        std::vector<std::int32_t> idx = random_indices(static_cast<std::size_t>(n), size);
        std::vector<std::int32_t> raw = random_ints(static_cast<std::size_t>(n), -40, 40);
        std::vector<float> factors(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) factors[i] = raw[i] == 40 ? 2.0f : raw[i] == -40 ? 0.5f : 1.0f;
        auto fs = rt().stream<float>({n}, factors);
        auto is = rt().stream<std::int32_t>({n}, idx);
        auto target = rt().stream<float>({size}, std::vector<float>(size, 1.0f));
        mul(fs, is, target);
        std::vector<double> want(size, 1.0);
        for (std::int64_t i = 0; i < n; ++i)
            if (idx[i] >= 0 && idx[i] < size) want[idx[i]] *= factors[i];
        std::vector<float> got = target.download();
        for (int e = 0; e < size; ++e) ASSERT_EQ(got[e], static_cast<float>(want[e])) << e;

        std::vector<std::int32_t> big = random_ints(static_cast<std::size_t>(n), -1000000, 1000000);
        auto bs = rt().stream<std::int32_t>({n}, big);
        auto t2 = rt().stream<std::int32_t>({size});
        absmax(bs, is, t2);
        std::vector<std::int32_t> want2(size, 0);
        for (std::int64_t i = 0; i < n; ++i)
            if (idx[i] >= 0 && idx[i] < size && std::abs(big[i]) > std::abs(want2[idx[i]])) want2[idx[i]] = big[i];
        std::vector<std::int32_t> got2 = t2.download();
        for (int e = 0; e < size; ++e) ASSERT_EQ(std::abs(got2[e]), std::abs(want2[e])) << e;
    }
}

TEST_P(ScatterOps, GatherOpFetchAndAdd) {
    // Every update adds 1: the old values the updates of one element get are
    // exactly initial + 0, 1, ..., k-1 in some order, and the element ends at
    // initial + k.
    for (std::int64_t n : {0, 1, 2, 1023, 65537}) {
        SCOPED_TRACE(n);
        const std::int32_t size = 31;
        std::vector<std::int32_t> idx = random_indices(static_cast<std::size_t>(n), size);
        std::vector<std::int32_t> init(size);
        for (int e = 0; e < size; ++e) init[e] = 100 * e;
        auto is = rt().stream<std::int32_t>({n}, idx);
        auto ones = rt().stream<std::int32_t>({n}, std::vector<std::int32_t>(static_cast<std::size_t>(n), 1));
        auto source = rt().stream<std::int32_t>({size}, init);
        auto old = rt().stream<std::int32_t>({n});
        gather_op(is, ones, source, old, Combine::Add);
        std::vector<std::int32_t> got = old.download();
        std::map<std::int32_t, std::vector<std::int32_t>> seen;
        for (std::int64_t i = 0; i < n; ++i) {
            if (idx[i] < 0 || idx[i] >= size) ASSERT_EQ(got[i], 0) << "an update outside the source returns 0";
            else seen[idx[i]].push_back(got[i]);
        }
        std::vector<std::int32_t> final_values = source.download();
        for (int e = 0; e < size; ++e) {
            std::vector<std::int32_t>& v = seen[e];
            std::sort(v.begin(), v.end());
            for (std::size_t j = 0; j < v.size(); ++j) ASSERT_EQ(v[j], init[e] + static_cast<std::int32_t>(j)) << e;
            ASSERT_EQ(final_values[e], init[e] + static_cast<std::int32_t>(v.size())) << e;
        }
    }
}

TEST_P(ScatterOps, MismatchedSizesAreAnError) {
    auto vs = rt().stream<float>({10});
    auto is = rt().stream<std::int32_t>({11});
    auto target = rt().stream<float>({4});
    try {
        scatter_op(vs, is, target, Combine::Add);
        FAIL() << "10 values with 11 indices were scattered";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "rill::scatter_op: the index stream has 11 elements but the value stream has 10; "
                               "give one index per value");
    }
}

RILL_INSTANTIATE_FOR_BACKENDS(ScatterOps);

}  // namespace
}  // namespace rill::test
