// The released-buffer pool every backend keeps (rill/core/buffer_pool.h): what
// it hands back, and who stays when it is full. Host logic only, no backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "rill/core/buffer_pool.h"

namespace {

using rill::BufferPool;

struct Freed {
    std::vector<int> handles;
    auto fn() {
        return [this](int h) { handles.push_back(h); };
    }
};

TEST(BufferPool, SizeClassesHoldTheirRequest) {
    for (std::size_t bytes : {std::size_t{1}, std::size_t{255}, std::size_t{256}, std::size_t{257}, std::size_t{1025},
                              std::size_t{3000}, std::size_t{1} << 20, (std::size_t{1} << 20) + 1, std::size_t{123456789}}) {
        const std::size_t c = rill::pool_size_class(bytes);
        EXPECT_GE(c, bytes);
        const double most = bytes > 1024 ? 1.25 * static_cast<double>(bytes) : std::max(256.0, 2.0 * static_cast<double>(bytes));
        EXPECT_LE(static_cast<double>(c), most) << bytes;
        EXPECT_EQ(rill::pool_size_class(c), c) << "a capacity is its own class";
    }
}

TEST(BufferPool, TakesByCapacityOldestFirst) {
    BufferPool<int> pool(1000, 8);
    Freed freed;
    EXPECT_FALSE(pool.take(100).has_value());
    pool.give(1, 100, freed.fn());
    pool.give(2, 100, freed.fn());
    pool.give(3, 200, freed.fn());
    EXPECT_EQ(pool.bytes(), 400u);
    EXPECT_FALSE(pool.take(300).has_value());
    EXPECT_EQ(pool.take(100), 1);
    EXPECT_EQ(pool.take(100), 2);
    EXPECT_FALSE(pool.take(100).has_value());
    EXPECT_EQ(pool.take(200), 3);
    EXPECT_TRUE(pool.empty());
    EXPECT_EQ(pool.bytes(), 0u);
    EXPECT_TRUE(freed.handles.empty());
}

TEST(BufferPool, AFullPoolKeepsWhatIsInUseAndFreesTheNewcomer) {
    // A working set a little larger than the pool, taken and given back in turns:
    // the pool keeps its first part (nothing there goes unused for 8 requests).
    BufferPool<int> pool(300, 8);
    Freed freed;
    for (int round = 0; round < 5; ++round) {
        std::vector<int> held;
        for (int i = 0; i < 4; ++i) held.push_back(pool.take(100).value_or(10 * round + i));
        for (int h : held) pool.give(h, 100, freed.fn());
        EXPECT_EQ(pool.size(), 3u);
    }
    // Rounds 1-4 each made one buffer and freed one; the first three stayed.
    EXPECT_EQ(freed.handles, (std::vector<int>{3, 13, 23, 33, 43}));
}

TEST(BufferPool, StaleBuffersMakeRoomOldestFirst) {
    BufferPool<int> pool(300, 4);
    Freed freed;
    pool.give(1, 100, freed.fn());
    pool.give(2, 100, freed.fn());
    pool.give(3, 100, freed.fn());
    pool.give(4, 100, freed.fn());  // full, nothing stale yet: the newcomer goes
    EXPECT_EQ(freed.handles, (std::vector<int>{4}));
    for (int i = 0; i < 4; ++i) EXPECT_FALSE(pool.take(50).has_value());  // 4 requests that took none of them
    pool.give(5, 200, freed.fn());  // two of the three leave, oldest first
    EXPECT_EQ(freed.handles, (std::vector<int>{4, 1, 2}));
    EXPECT_EQ(pool.bytes(), 300u);
    EXPECT_EQ(pool.take(100), 3);
    EXPECT_EQ(pool.take(200), 5);
}

TEST(BufferPool, ABufferTakenAgainIsNotStale) {
    BufferPool<int> pool(200, 3);
    Freed freed;
    pool.give(1, 100, freed.fn());
    pool.give(2, 100, freed.fn());
    for (int i = 0; i < 3; ++i) {
        const int h = pool.take(100).value();  // 1, then 2, then 1 ...: each given back at once
        pool.give(h, 100, freed.fn());
    }
    pool.give(9, 100, freed.fn());  // 1 and 2 were pooled within the last 3 requests
    EXPECT_EQ(freed.handles, (std::vector<int>{9}));
}

TEST(BufferPool, NeverEvictsWithoutAStaleBoundAndNeverForWhatCannotFit) {
    BufferPool<int> keep(200, 0);
    Freed freed;
    keep.give(1, 200, freed.fn());
    for (int i = 0; i < 100; ++i) (void)keep.take(7);
    keep.give(2, 100, freed.fn());
    EXPECT_EQ(freed.handles, (std::vector<int>{2}));

    BufferPool<int> pool(200, 1);
    pool.give(3, 200, freed.fn());
    for (int i = 0; i < 10; ++i) (void)pool.take(7);
    pool.give(4, 300, freed.fn());  // larger than the whole pool: the stale buffer stays
    EXPECT_EQ(freed.handles, (std::vector<int>{2, 4}));
    EXPECT_EQ(pool.take(200), 3);
}

TEST(BufferPool, DrainFreesEverything) {
    BufferPool<int> pool(1000, 8);
    Freed freed;
    for (int i = 1; i <= 3; ++i) pool.give(i, 100 * static_cast<std::size_t>(i), freed.fn());
    pool.drain(freed.fn());
    std::sort(freed.handles.begin(), freed.handles.end());
    EXPECT_EQ(freed.handles, (std::vector<int>{1, 2, 3}));
    EXPECT_TRUE(pool.empty());
    EXPECT_EQ(pool.bytes(), 0u);
    EXPECT_FALSE(pool.take(100).has_value());
}

}  // namespace
