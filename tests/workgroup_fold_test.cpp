// rill::workgroup_fold and rill::fold_runs: in-order combination inside
// group kernels, checked with a combiner that is associative but not
// commutative (composition of affine maps x -> a x + b), against the host.
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

RILL_INSTANTIATE_FOR_BACKENDS(WorkgroupFold);

}  // namespace
}  // namespace rill::test
