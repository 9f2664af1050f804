// Brook's ScatterOp and GatherOp against a sequential host application of the
// same updates (int64 / float64), with many updates per element and indices
// outside the target (skipped).
#include <algorithm>
#include <array>
#include <map>

#include <rill/algorithms/scatter_op.h>

#include "backend_fixture.h"

namespace rill::test {

/// An element no device updates atomically: the sorted path's test struct.
struct Best {
    float score;
    std::int32_t id;
};

}  // namespace rill::test
RILL_STRUCT(rill::test::Best, score, id);

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

/// Vector elements: Add (and Min / Max of int vectors) one atomic per component,
/// the rest by the sorted path; each against a sequential application in float64.
template <class V>
void check_vector_builtins(Runtime& rt, const std::vector<std::int64_t>& sizes) {
    constexpr int w = dsl::type_v<V>.width;
    using S = std::remove_cvref_t<decltype(V{}[0])>;
    for (std::int64_t n : sizes) {
        for (std::int32_t size : {1, 64, 1009}) {
            SCOPED_TRACE("n = " + std::to_string(n) + ", size = " + std::to_string(size));
            std::vector<std::int32_t> idx = random_indices(static_cast<std::size_t>(n), size);
            std::vector<std::int32_t> raw = random_ints(static_cast<std::size_t>(w * n), -1000, 1000);
            std::vector<V> values(static_cast<std::size_t>(n));
            for (std::int64_t i = 0; i < n; ++i)  // small integers: float sums are exact in any order
                for (int c = 0; c < w; ++c) values[i][c] = static_cast<S>(raw[w * i + c]);
            std::vector<V> init(static_cast<std::size_t>(size));
            for (std::int32_t e = 0; e < size; ++e)
                for (int c = 0; c < w; ++c) init[e][c] = static_cast<S>(c == 0 ? e % 7 : c == 1 ? -1 : e + c);
            auto vs = rt.stream<V>({n}, values);
            auto is = rt.stream<std::int32_t>({n}, idx);
            for (Combine how : {Combine::Add, Combine::Min, Combine::Max, Combine::Replace}) {
                SCOPED_TRACE(static_cast<int>(how));
                auto target = rt.stream<V>({size}, init);
                scatter_op(vs, is, target, how);
                std::vector<V> got = target.download();
                std::vector<std::array<double, 4>> want(static_cast<std::size_t>(size));
                std::vector<std::vector<std::int64_t>> hits(static_cast<std::size_t>(size));
                for (std::int32_t e = 0; e < size; ++e)
                    for (int c = 0; c < w; ++c) want[e][c] = init[e][c];
                for (std::int64_t i = 0; i < n; ++i) {
                    if (idx[i] < 0 || idx[i] >= size) continue;
                    hits[idx[i]].push_back(i);
                    for (int c = 0; c < w; ++c) {
                        double& x = want[idx[i]][c];
                        const double v = values[i][c];
                        if (how == Combine::Add) x += v;
                        if (how == Combine::Min) x = std::min(x, v);
                        if (how == Combine::Max) x = std::max(x, v);
                    }
                }
                auto same = [&](const V& a, const V& b) {
                    for (int c = 0; c < w; ++c)
                        if (a[c] != b[c]) return false;
                    return true;
                };
                for (std::int32_t e = 0; e < size; ++e) {
                    if (how == Combine::Replace) {
                        // Some update's whole value, or the initial one when none came.
                        bool found = hits[e].empty() && same(got[e], init[e]);
                        for (std::int64_t i : hits[e]) found = found || same(got[e], values[i]);
                        ASSERT_TRUE(found) << e;
                    } else {
                        for (int c = 0; c < w; ++c)  // uint wraps as the device does
                            ASSERT_EQ(got[e][c], static_cast<S>(static_cast<std::int64_t>(want[e][c]))) << e << "." << c;
                    }
                }
            }
        }
    }
}

TEST_P(ScatterOps, VectorElementsByComponentAtomicsOrSorted) {
    check_vector_builtins<float4>(rt(), edge_sizes());
    // The same kernels at other widths and scalar types: the sizes around a workgroup.
    check_vector_builtins<int3>(rt(), {0, 1, 255, 257, 65537});
    check_vector_builtins<uint2>(rt(), {0, 1, 255, 257, 65537});
    if (HasFatalFailure()) return;
    // Streams of other ranks are taken flat: values {4, 5}, a target {1, 1, 2, 3} of four dimensions.
    std::vector<std::int32_t> idx = random_indices(20, 6);
    std::vector<int2> values(20);
    for (int i = 0; i < 20; ++i) values[i] = {i, -3 * i};
    auto target = rt().stream<int2>({1, 1, 2, 3});
    scatter_op(rt().stream<int2>({4, 5}, values), rt().stream<std::int32_t>({4, 5}, idx), target, Combine::Add);
    std::vector<int2> want(6);
    for (int i = 0; i < 20; ++i)
        if (idx[i] >= 0 && idx[i] < 6) want[idx[i]] = {want[idx[i]].x + i, want[idx[i]].y - 3 * i};
    const std::vector<int2> got = target.download();
    for (int e = 0; e < 6; ++e) EXPECT_TRUE(got[e].x == want[e].x && got[e].y == want[e].y) << e;
}

TEST_P(ScatterOps, StructElementsWithAUserCombiner) {
    // Keep the best score per element, ties to the lower id: exact in any order.
    ScatterOp<Best> best("best", [](Var<Best> a, Var<Best> b) {
        Var<Best> r = a;
        If(b.score > a.score || (b.score == a.score && b.id < a.id), [&] { r = b; });
        return r;
    });
    for (std::int64_t n : {0, 1, 2, 255, 4099, 65537}) {
        SCOPED_TRACE(n);
        const std::int32_t size = 97;
        std::vector<std::int32_t> idx = random_indices(static_cast<std::size_t>(n), size);
        std::vector<std::int32_t> scores = random_ints(static_cast<std::size_t>(n), 0, 50);  // many ties
        std::vector<Best> values(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) values[i] = {float(scores[i]), static_cast<std::int32_t>(i)};
        auto vs = rt().stream<Best>({n}, values);
        auto is = rt().stream<std::int32_t>({n}, idx);
        auto target = rt().stream<Best>({size}, std::vector<Best>(size, Best{-1.0f, -1}));
        best(vs, is, target);
        std::vector<Best> want(size, Best{-1.0f, -1});
        for (std::int64_t i = 0; i < n; ++i) {
            if (idx[i] < 0 || idx[i] >= size) continue;
            Best& w = want[idx[i]];
            if (values[i].score > w.score || (values[i].score == w.score && values[i].id < w.id)) w = values[i];
        }
        std::vector<Best> got = target.download();
        for (std::int32_t e = 0; e < size; ++e) {
            ASSERT_EQ(got[e].score, want[e].score) << e;
            ASSERT_EQ(got[e].id, want[e].id) << e;
        }

        // GatherOp on the same path: each update sees the element as the updates
        // before it in some order left it; with distinct, increasing scores per
        // element that order is the order of the old scores.
        std::vector<Best> rising(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) rising[i] = {float(i), static_cast<std::int32_t>(i)};
        auto rs = rt().stream<Best>({n}, rising);
        auto source = rt().stream<Best>({size}, std::vector<Best>(size, Best{-1.0f, -1}));
        auto old = rt().stream<Best>({n});
        best.gather(is, rs, source, old);
        std::vector<Best> olds = old.download();
        std::vector<Best> final_values = source.download();
        std::map<std::int32_t, std::vector<float>> seen;
        for (std::int64_t i = 0; i < n; ++i) {
            if (idx[i] < 0 || idx[i] >= size) {
                ASSERT_EQ(olds[i].score, 0.0f) << "an update outside the source returns zero";
                continue;
            }
            seen[idx[i]].push_back(olds[i].score);
        }
        for (std::int32_t e = 0; e < size; ++e) {
            std::vector<float>& v = seen[e];
            std::vector<float> mine;  // the scores of e's updates, in index order
            for (std::int64_t i = 0; i < n; ++i)
                if (idx[i] == e) mine.push_back(rising[i].score);
            std::sort(v.begin(), v.end());
            // The best so far only grows, so each old value is the initial one or an
            // earlier update's score, and the last update's old value is the
            // second-best score (every update is applied once).
            if (mine.empty()) {
                ASSERT_EQ(final_values[e].score, -1.0f) << e;
                continue;
            }
            ASSERT_EQ(final_values[e].score, mine.back()) << e;
            ASSERT_EQ(v.front(), -1.0f) << e;
            for (std::size_t j = 1; j < v.size(); ++j) ASSERT_NE(std::find(mine.begin(), mine.end(), v[j]), mine.end()) << e;
        }
    }
}

TEST_P(ScatterOps, GatherOpOnVectorsSeesEachPrefix) {
    // Adds of positive x components: the old values of one element's updates,
    // ordered by x, must be initial, initial + u1, initial + u1 + u2, ... for
    // some order of its updates u (checked in all four components).
    for (std::int64_t n : {0, 1, 2, 1023, 65537}) {
        SCOPED_TRACE(n);
        const std::int32_t size = 31;
        std::vector<std::int32_t> idx = random_indices(static_cast<std::size_t>(n), size);
        std::vector<std::int32_t> raw = random_ints(static_cast<std::size_t>(2 * n), 1, 9);
        std::vector<int4> values(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) values[i] = {raw[2 * i], raw[2 * i + 1], -raw[2 * i], 1};
        std::vector<int4> init(size);
        for (int e = 0; e < size; ++e) init[e] = {100 * e, e, -e, 0};
        auto vs = rt().stream<int4>({n}, values);
        auto is = rt().stream<std::int32_t>({n}, idx);
        auto source = rt().stream<int4>({size}, init);
        auto old = rt().stream<int4>({n});
        gather_op(is, vs, source, old, Combine::Add);
        std::vector<int4> olds = old.download();
        std::vector<int4> final_values = source.download();
        std::map<std::int32_t, std::vector<std::int64_t>> updates;
        for (std::int64_t i = 0; i < n; ++i) {
            if (idx[i] < 0 || idx[i] >= size) {
                ASSERT_TRUE(olds[i].x == 0 && olds[i].y == 0 && olds[i].z == 0 && olds[i].w == 0) << i;
                continue;
            }
            updates[idx[i]].push_back(i);
        }
        for (int e = 0; e < size; ++e) {
            std::vector<std::int64_t>& u = updates[e];
            std::sort(u.begin(), u.end(), [&](std::int64_t a, std::int64_t b) { return olds[a].x < olds[b].x; });
            int4 at = init[e];
            for (std::int64_t i : u) {
                ASSERT_TRUE(olds[i].x == at.x && olds[i].y == at.y && olds[i].z == at.z && olds[i].w == at.w) << e;
                at = {at.x + values[i].x, at.y + values[i].y, at.z + values[i].z, at.w + values[i].w};
            }
            ASSERT_TRUE(final_values[e].x == at.x && final_values[e].y == at.y && final_values[e].z == at.z &&
                        final_values[e].w == at.w) << e;
        }
    }
}

TEST_P(ScatterOps, BuiltinCombinerAStructLacksIsAnError) {
    auto vs = rt().stream<Best>({3});
    auto is = rt().stream<std::int32_t>({3});
    auto target = rt().stream<Best>({4});
    EXPECT_EQ(error_message([&] { scatter_op(vs, is, target, Combine::Add); }),
              "rill::scatter_op: this combiner needs +, min or max on the element type, which it does not have; give "
              "a rill::ScatterOp with your own combiner");
}

TEST_P(ScatterOps, MismatchedSizesAreAnError) {
    auto vs = rt().stream<float>({10});
    auto is = rt().stream<std::int32_t>({11});
    auto target = rt().stream<float>({4});
    EXPECT_EQ(error_message([&] { scatter_op(vs, is, target, Combine::Add); }),
              "rill::scatter_op: the index stream has 11 elements but the value stream has 10; give one index per value");
}

RILL_INSTANTIATE_FOR_BACKENDS(ScatterOps);

}  // namespace
}  // namespace rill::test
