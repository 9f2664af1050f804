// What a sort's device count is for: a compaction's count, which never leaves
// the device, sorts what the compaction kept. Shared by the radix and bitonic
// sort tests.
#pragma once

#include <algorithm>
#include <iterator>
#include <random>

#include <gtest/gtest.h>
#include <rill/algorithms/compact.h>

namespace rill::test {

/// Keeps the odd ones of 100003 random keys with a Filter, then calls
/// sort(kept, count) with the Filter's count stream; the kept keys must come
/// back sorted and the count untouched.
template <class Sort>
void check_sorts_what_a_filter_kept(Runtime& rt, Sort sort) {
    const std::int64_t n = 100003;
    std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
    std::mt19937 gen(11);
    for (auto& x : k) x = gen();
    const Filter<std::uint32_t> odd("odd", [](Expr<std::uint32_t> x) { return (x & 1u) != 0u; });
    auto in = rt.stream<std::uint32_t>({n}, k);
    auto kept = rt.stream<std::uint32_t>({n});
    auto count = rt.stream<std::uint32_t>({1});
    odd(in, kept, count);
    sort(kept, count);
    std::vector<std::uint32_t> want;
    std::copy_if(k.begin(), k.end(), std::back_inserter(want), [](std::uint32_t x) { return x & 1u; });
    std::sort(want.begin(), want.end());
    std::vector<std::uint32_t> got = kept.download();
    got.resize(want.size());
    EXPECT_EQ(got, want);
    EXPECT_EQ(count.download()[0], want.size());
}

}  // namespace rill::test
