// rill::workgroup_fold and rill::fold_runs: in-order combination inside
// group kernels, checked with a combiner that is associative but not
// commutative (composition of affine maps x -> a x + b), against the host;
// and rill::last_to_finish, against a host sum.
#include <rill/dsl/workgroup_fold.h>

#include "backend_fixture.h"

namespace rill::test {
namespace {

class WorkgroupFold : public BackendTest {};

/// f then g, as one affine map: x -> g.a (f.a x + f.b) + g.b.
Expr<float2> compose(const Expr<float2>& f, const Expr<float2>& g) { return Expr<float2>(Float2(g.x() * f.x(), g.x() * f.y() + g.y())); }

float2 host_compose(const std::vector<float2>& maps, std::size_t first, std::size_t last) {
    double a = 1, b = 0;
    for (std::size_t i = first; i < last; ++i) {
        a = maps[i].x * a;
        b = maps[i].x * b + maps[i].y;
    }
    return float2{float(a), float(b)};
}

TEST_P(WorkgroupFold, CombinesTheFirstCountInvocationsInOrder) {
    auto kernel = group_kernel<64>("fold_first(maps, out, count)", [](Array<float2> maps, Array<float2> out, Int count) {
        Var<float2> mine = maps.load(group_id() * 64 + local_id());
        Var<float2> total = workgroup_fold<float2>(64, mine, count, [](Var<float2>& acc, const Var<float2>& later) { acc = compose(acc, later); });
        If(local_id() == 0, [&] { out.store(group_id(), total); });
    });
    std::vector<float2> maps(64 * 3);
    for (auto& m : maps) m = float2{random_floats(1, 0.5f, 1.5f)[0], random_floats(1, -1, 1)[0]};
    auto s = rt().stream<float2>({64 * 3}, maps);
    auto out = rt().stream<float2>({3});
    for (int count : {1, 2, 3, 17, 63, 64}) {
        SCOPED_TRACE(count);
        kernel(Groups{3}, s, out, count);
        const auto got = out.download();
        for (std::size_t g = 0; g < 3; ++g) {
            const float2 want = host_compose(maps, g * 64, g * 64 + std::size_t(count));
            EXPECT_NEAR(got[g].x, want.x, 1e-5 * std::fabs(want.x)) << "group " << g;
            EXPECT_NEAR(got[g].y, want.y, 1e-4 * (std::fabs(want.y) + 1)) << "group " << g;
        }
    }
}

TEST_P(WorkgroupFold, FoldRunsCoversARangeInOrder) {
    // One element loaded at a time, and 4 loaded before any is combined.
    auto traced = [](int in_flight) {
        return group_kernel<32>("fold_range_" + std::to_string(in_flight) + "(maps, out, begin, end, per)",
                                [in_flight](Array<float2> maps, Array<float2> out, Int begin, Int end, Int per) {
            Var<float2> total = fold_runs<float2>(32, begin, end, per, [&](Expr<std::int32_t> e) { return maps.load(e); },
                                                  [](Var<float2>& acc, const Var<float2>& later) { acc = compose(acc, later); },
                                                  in_flight);
            If(local_id() == 0, [&] { out.store(0, total); });
        });
    };
    std::vector<float2> maps(300);
    for (auto& m : maps) m = float2{random_floats(1, 0.9f, 1.1f)[0], random_floats(1, -1, 1)[0]};
    auto s = rt().stream<float2>({300}, maps);
    auto out = rt().stream<float2>({1});
    struct Range {
        int begin, end, per;
    };
    for (int in_flight : {1, 4}) {
        auto kernel = traced(in_flight);
        // Runs that fill the workgroup, leave it part empty, or end mid-run;
        // runs shorter than, as long as and longer than the loads in flight.
        for (Range r : {Range{0, 300, 10}, Range{5, 6, 1}, Range{7, 100, 4}, Range{0, 32, 1}, Range{1, 299, 13}, Range{3, 50, 3}}) {
            SCOPED_TRACE(std::to_string(r.begin) + ".." + std::to_string(r.end) + " by " + std::to_string(r.per) + ", " +
                         std::to_string(in_flight) + " in flight");
            kernel(Groups{1}, s, out, r.begin, r.end, r.per);
            const float2 got = out.download()[0];
            const float2 want = host_compose(maps, std::size_t(r.begin), std::size_t(r.end));
            EXPECT_NEAR(got.x, want.x, 1e-5 * std::fabs(want.x));
            EXPECT_NEAR(got.y, want.y, 1e-4 * (std::fabs(want.y) + 1));
        }
    }
}

TEST_P(WorkgroupFold, TheLastWorkgroupToFinishSeesEveryOthersStores) {
    // Each workgroup of a group stores its 64 values, counts itself, and the
    // last of the group's workgroups to finish adds up all of the group's
    // values (every invocation stores, so every store must be fenced and
    // ordered before the count). Calls one after another find the counts back
    // at zero; a group of one workgroup is its own last.
    static constexpr int kWorkgroup = 64;
    auto kernel = group_kernel<kWorkgroup>("last_to_finish_sums(values, partial, out, finished, per_group)",
                                           [](Array<float> values, Array<float> partial, Array<float> out,
                                              Array<std::uint32_t> finished, Int per_group) {
        Int group = group_id() / per_group;
        Int e = group_id() * kWorkgroup + local_id();
        partial.store(e, values.load(e) * 2.0f);
        memory_fence();
        If(last_to_finish(finished, group, per_group), [&] {
            memory_fence();
            Var<float> sum = 0.0f;
            For(0, per_group, [&](Expr<std::int32_t> g) { sum = sum + partial.load((group * per_group + g) * kWorkgroup + local_id()); });
            out.store(group * kWorkgroup + local_id(), sum);
            If(local_id() == 0, [&] { finished.store(group, 0u); });
        });
    });
    for (int per_group : {1, 3, 37}) {
        SCOPED_TRACE(per_group);
        const int groups = 5;
        const auto values = random_floats(std::size_t(groups * per_group * kWorkgroup), -1, 1);
        auto v = rt().stream<float>({groups * per_group * kWorkgroup}, values);
        auto partial = rt().stream<float>({groups * per_group * kWorkgroup});
        for (int call = 0; call < 3; ++call) {
            auto out = rt().stream<float>({groups * kWorkgroup});
            kernel(Groups{groups * per_group}, v, partial, out, rt().zeroed_words(groups), per_group);
            const auto got = out.download();
            for (int g = 0; g < groups; ++g)
                for (int i = 0; i < kWorkgroup; ++i) {
                    double want = 0;
                    for (int k = 0; k < per_group; ++k) want += 2.0 * values[std::size_t((g * per_group + k) * kWorkgroup + i)];
                    ASSERT_NEAR(got[std::size_t(g * kWorkgroup + i)], want, 1e-4) << "call " << call << ", group " << g << ", " << i;
                }
        }
        EXPECT_EQ(rt().zeroed_words(groups).download(), std::vector<std::uint32_t>(groups, 0u));
    }
}

RILL_INSTANTIATE_FOR_BACKENDS(WorkgroupFold);

}  // namespace
}  // namespace rill::test
