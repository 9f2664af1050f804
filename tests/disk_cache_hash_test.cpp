// The disk cache's key hash (rill/core/disk_cache.h): a kernel's entry is
// found by the hash of its generated source, so two sources must not share
// one. Host logic only, no backend.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>

#include "rill/core/disk_cache.h"

namespace {

using rill::disk_cache::hash_bytes;

std::string random_text(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::string s(n, ' ');
    for (char& c : s) c = static_cast<char>('a' + rng() % 26);
    return s;
}

// Every prefix of a text to 300 bytes (the lanes' 32-byte steps, the 8-byte
// words and the tail bytes all taken) and every one-bit change of each: no two
// distinct inputs share a hash.
TEST(DiskCacheHash, NearbyInputsDiffer) {
    const std::string base = random_text(300, 1);
    std::unordered_map<std::uint64_t, std::string> seen;
    auto add = [&](const std::string& t) {
        const auto [at, fresh] = seen.emplace(hash_bytes(t.data(), t.size()), t);
        EXPECT_TRUE(fresh || at->second == t) << "length " << t.size();
    };
    for (std::size_t n = 0; n <= base.size(); ++n) {
        add(base.substr(0, n));
        for (std::size_t i = 0; i < n; ++i)
            for (int bit = 0; bit < 8; ++bit) {
                std::string t = base.substr(0, n);
                t[i] = static_cast<char>(t[i] ^ (1 << bit));
                add(t);
            }
    }
    EXPECT_GT(seen.size(), std::size_t{350000});
}

// A one-bit change flips about half of the hash's bits, and the seed matters.
TEST(DiskCacheHash, BitsAvalancheAndSeedsCount) {
    const std::string base = random_text(4096, 2);
    double flipped = 0;
    int trials = 0;
    for (std::size_t n : {1u, 7u, 8u, 31u, 32u, 33u, 100u, 4096u})
        for (std::size_t i = 0; i < n; i += 1 + n / 16) {
            std::string t = base.substr(0, n);
            const std::uint64_t before = hash_bytes(t.data(), t.size());
            t[i] = static_cast<char>(t[i] ^ 4);
            flipped += static_cast<double>(std::popcount(before ^ hash_bytes(t.data(), t.size())));
            ++trials;
        }
    EXPECT_NEAR(flipped / trials, 32.0, 4.0);
    EXPECT_NE(hash_bytes(base.data(), base.size(), 1), hash_bytes(base.data(), base.size(), 2));
    EXPECT_EQ(hash_bytes(base.data(), base.size(), 9), hash_bytes(base.data(), base.size(), 9));
}

}  // namespace
