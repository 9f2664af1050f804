// Group kernels: ids, Array<T> and Shared<T> memory, barriers, subgroup
// operations and atomics, each against a host reference computed here with
// the subgroup size the backend reports.
#include <algorithm>
#include <array>
#include <numeric>
#include <random>

#include "backend_fixture.h"

/// 32 bytes with a float3 across its two 16-byte halves: GPUs move arrays of
/// such elements a 16-byte vector at a time (docs/DESIGN.md, GLSL).
struct Straddle {
    float a, b;
    rill::float3 v;
    std::int32_t k;
    std::uint32_t u, w;
};
RILL_STRUCT(Straddle, a, b, v, k, u, w);

namespace rill::test {
namespace {

class GroupKernels : public BackendTest {
protected:
    int subgroup_size() { return static_cast<int>(rt().info().limits.subgroup_size); }
};

constexpr int kWg = 64;
constexpr int kOut = 24;  // results per invocation in SubgroupOperationsMatchHostReference

TEST_P(GroupKernels, IdsCoverEveryInvocation) {
    auto ids = group_kernel<kWg>("ids(out)", [](Array<int4> out) {
        out.store(global_id(), Int4(group_id(), local_id(), num_groups(), workgroup_size()));
    });
    for (std::int64_t groups : {1, 2, 7, 1000}) {
        auto out = rt().stream<int4>({groups * kWg});
        ids(Groups{groups}, out);
        std::vector<int4> got = out.download();
        for (std::int64_t i = 0; i < groups * kWg; ++i) {
            const int4 want{std::int32_t(i / kWg), std::int32_t(i % kWg), std::int32_t(groups), kWg};
            ASSERT_EQ(got[i], want) << "invocation " << i << " of " << groups << " groups";
        }
    }
    auto empty = rt().stream<int4>({0});
    ids(Groups{0}, empty);  // no workgroups: nothing runs, nothing fails
}

TEST_P(GroupKernels, WorkgroupSizeGivenAtRunTime) {
    // One traced body, several sizes (as the algorithms pick tile shapes): each
    // kernel's ids and shared memory follow its own size, odd sizes too.
    for (std::uint32_t wg : {1u, 3u, 64u, 96u, 256u}) {
        SCOPED_TRACE(wg);
        auto reversed = group_kernel(wg, "reversed(out)", [wg](Array<int2> out) {
            Shared<std::int32_t> ids(static_cast<std::int64_t>(wg));
            ids.store(local_id(), local_id());
            barrier();
            out.store(global_id(), Int2(ids.load(workgroup_size() - 1 - local_id()), workgroup_size()));
        });
        const std::int64_t groups = 5;
        auto out = rt().stream<int2>({groups * wg});
        reversed(Groups{groups}, out);
        std::vector<int2> got = out.download();
        for (std::int64_t i = 0; i < groups * wg; ++i)
            ASSERT_EQ(got[i], (int2{std::int32_t(wg - 1 - i % wg), std::int32_t(wg)})) << "invocation " << i;
    }
    for (std::uint32_t wg : {0u, 1025u})
        EXPECT_NE(error_message([&] { group_kernel(wg, "none(out)", [](Array<int>) {}); }).find("give 1 to 1024"),
                  std::string::npos)
            << wg;
}

TEST_P(GroupKernels, ArraysIgnoreAccessesOutOfRange) {
    // Every invocation reads its element and the one past the end, and writes
    // past both ends: out of range reads give zero, writes go nowhere.
    auto k = group_kernel<kWg>("edges(src, dst)", [](Array<float> src, Array<float> dst) {
        Int i = global_id();
        Float past = src.load(src.size() + i);
        Float before = src.load(-1 - i);
        dst.store(i, src.load(i) + past + before);
        dst.store(dst.size() + i, 1.0f);
        dst.store(-1 - i, 1.0f);
    });
    for (std::int64_t n : {kWg, 3 * kWg}) {
        std::vector<float> x = random_floats(static_cast<std::size_t>(n), -10, 10);
        auto big = rt().stream<float>({n + 2 * kWg}, std::vector<float>(static_cast<std::size_t>(n + 2 * kWg), 7.0f));
        auto dst = big.domain({kWg}, {kWg + n});  // a view with guards on both sides
        auto src = rt().stream<float>({n}, x);
        k(Groups{n / kWg}, src, dst);
        std::vector<float> got = big.download();
        for (std::int64_t i = 0; i < n + 2 * kWg; ++i) {
            const bool inside = i >= kWg && i < kWg + n;
            ASSERT_EQ(got[i], inside ? x[i - kWg] : 7.0f) << i;
        }
    }
}

/// Arrays moved as vectors of 2 or 4 elements (one access each on GPUs):
/// every size around the vectors and the workgroup, views with guards on both
/// sides, vector indices before and past the stream (reads give zero, writes go
/// nowhere), and scalar accesses to the same stream in the same kernel.
template <class T, int N>
void check_vector_accesses(Runtime& rt, std::int64_t n) {
    using V = vec<T, N>;
    auto k = group_kernel<kWg>("vectors(src, dst, guard)", [](Array<T> src, Array<T> dst, Array<T> guard) {
        Int i = global_id();
        Var<V> v = src.template load_vector<N>(i);
        Var<V> outside = src.template load_vector<N>(-1 - i) + src.template load_vector<N>(src.size() / N + 1 + i);
        dst.template store_vector<N>(i, v * T(3) + outside + Var<V>(cast<T>(i)));
        dst.template store_vector<N>(-1 - i, Var<V>(T(1)));
        dst.template store_vector<N>(dst.size() / N + 1 + i, Var<V>(T(1)));
        guard.store(i, dst.load(N * i));  // scalar accesses to a stream also moved as vectors
        guard.atomic_add(i, T(1));
        guard.template store_vector<N>(i + guard.size(), Var<V>(T(2)));
    });
    std::vector<T> x(static_cast<std::size_t>(n));
    for (std::size_t e = 0; e < x.size(); ++e) x[e] = static_cast<T>((e * 2654435761u) % 1000);
    const std::int64_t vectors = (n + N - 1) / N;
    const std::int64_t groups = vectors / kWg + 1;  // and invocations past the last vector
    const T fill = T(7);
    auto big = rt.stream<T>({n + 2 * N}, std::vector<T>(static_cast<std::size_t>(n + 2 * N), fill));
    auto dst = big.domain({N}, {N + n});  // a view with guards on both sides, aligned
    auto src = rt.stream<T>({n}, x);
    auto guard = rt.stream<T>({groups * kWg});
    k(Groups{groups}, src, dst, guard);
    const std::vector<T> got = big.download(), g = guard.download();
    for (std::int64_t e = 0; e < n + 2 * N; ++e) {
        const bool inside = e >= N && e < N + n;
        const T want = inside ? T(x[e - N] * T(3) + T((e - N) / N)) : fill;
        ASSERT_EQ(got[e], want) << "element " << e - N << " of " << n << ", vectors of " << N;
    }
    for (std::int64_t i = 0; i < groups * kWg; ++i)
        ASSERT_EQ(g[i], (N * i < n ? got[N + N * i] : T(0)) + T(1)) << "invocation " << i << " of " << n << ", vectors of " << N;
}

TEST_P(GroupKernels, VectorAccessesMoveRunsOfElements) {
    for (std::int64_t n : {0, 1, 2, 3, 4, 5, 7, 63, 64, 65, 255, 257, 4099, 65537}) {
        check_vector_accesses<std::uint32_t, 4>(rt(), n);
        check_vector_accesses<float, 4>(rt(), n);
        check_vector_accesses<std::int32_t, 2>(rt(), n);
    }
    auto k = group_kernel<kWg>("vectors_of(v)", [](Array<float> v) { v.store_vector<4>(global_id(), Float4(1.0f)); });
    auto s = rt().stream<float>({64});
    k(Groups{1}, s.domain({8}, {40}));  // starts at a multiple of 4: fine
    const std::string error = error_message([&] { k(Groups{1}, s.domain({2}, {40})); });
    EXPECT_NE(error.find("kernel 'vectors_of': argument 'v' (array of float) is a view that starts at element 2 of its "
                         "buffer, but the kernel moves it 4 elements at a time"),
              std::string::npos)
        << error;
}

/// Loops over a row indexed by their counter (the CPU backend checks such a
/// loop's range once and runs it unchecked when it fits): rows inside the
/// arrays, and rows that start before or end past them, whose accesses out of
/// range read zero and write nothing.
constexpr std::int32_t kRow = 37;  // elements per invocation in RowLoopsInAndOutOfRange

TEST_P(GroupKernels, RowLoopsInAndOutOfRange) {
    auto k = group_kernel<kWg>("row_loops(src, dst, from)", [](Array<std::uint32_t> src, Array<std::uint32_t> dst, Int from) {
        Int first = from + global_id() * kRow;
        Var<std::uint32_t> acc = 0u;
        For(first, first + kRow, [&](Int i) {
            acc = acc * 3u + src.load(i);
            dst.store(i, acc);
        });
    });
    const std::int64_t n = 2 * kWg * kRow;
    std::vector<std::uint32_t> x;
    for (std::int32_t v : random_ints(static_cast<std::size_t>(n), 0, 1 << 30)) x.push_back(static_cast<std::uint32_t>(v));
    for (std::int32_t from : {0, -5, 11, -kRow * kWg, kRow * kWg + 3}) {
        for (std::int64_t groups : {1, 2, 3}) {
            SCOPED_TRACE("from " + std::to_string(from) + ", " + std::to_string(groups) + " groups");
            auto src = rt().stream<std::uint32_t>({n}, x);
            auto dst = rt().stream<std::uint32_t>({n}, std::vector<std::uint32_t>(static_cast<std::size_t>(n), 7u));
            k(Groups{groups}, src, dst, from);
            std::vector<std::uint32_t> want(static_cast<std::size_t>(n), 7u);
            for (std::int64_t g = 0; g < groups * kWg; ++g) {
                std::uint32_t acc = 0;
                for (std::int64_t i = from + g * kRow; i < from + (g + 1) * kRow; ++i) {
                    const bool inside = i >= 0 && i < n;
                    acc = acc * 3u + (inside ? x[static_cast<std::size_t>(i)] : 0u);
                    if (inside) want[static_cast<std::size_t>(i)] = acc;
                }
            }
            EXPECT_EQ(dst.download(), want);
        }
    }
}

TEST_P(GroupKernels, ElementsOfWholeSixteenByteVectors) {
    // Whole elements and single fields read at indices in and out of range
    // (zero outside), a struct stored whole, one with two fields changed, a
    // float4 stored past both ends (nowhere); views at odd element offsets.
    auto k = group_kernel<kWg>("quads(src, dst, wide, partial)",
                               [](Array<Straddle> src, Array<Straddle> dst, Array<float4> wide, Array<Straddle> partial) {
        Int i = global_id();
        Var<Straddle> s = src.load(i);
        Var<Straddle> far = src.load(src.size() + i);
        Var<Straddle> t = s;
        t.a = s.a + far.a + src.load(-1 - i).b;
        t.v = s.v * 2.0f + far.v;
        t.k = s.k + 1 + far.k;
        t.u = s.u ^ src.load(i / 2).u;
        dst.store(i, t);
        Float4 f = wide.load(i);
        wide.store(i, Float4(f.w(), f.z(), f.y(), f.x()) + Float4(s.v, s.a));
        wide.store(wide.size() + i, Float4(9.0f));
        wide.store(-1 - i, Float4(9.0f));
        Var<Straddle> p = partial.load(i);
        p.v = Float3(s.b, s.a, 1.0f);
        p.w = cast<std::uint32_t>(i);
        partial.store(i, p);
    });
    std::mt19937 gen(31);
    std::uniform_real_distribution<float> r(-4, 4);
    for (std::int64_t n : {1, 5, 63, 64, 65, 1000}) {
        SCOPED_TRACE("n " + std::to_string(n));
        auto straddles = [&](std::int64_t count) {
            std::vector<Straddle> x(static_cast<std::size_t>(count));
            for (Straddle& e : x) e = {r(gen), r(gen), {r(gen), r(gen), r(gen)}, static_cast<std::int32_t>(gen() % 1000) - 500,
                                   static_cast<std::uint32_t>(gen()), static_cast<std::uint32_t>(gen())};
            return x;
        };
        const std::vector<Straddle> x = straddles(n), y = straddles(n + 3);
        std::vector<float4> z(static_cast<std::size_t>(n + 3));
        for (float4& e : z) e = {r(gen), r(gen), r(gen), r(gen)};
        auto src = rt().stream<Straddle>({n}, x);
        auto dst = rt().stream<Straddle>({n});
        auto wide_all = rt().stream<float4>({n + 3}, z);
        auto partial_all = rt().stream<Straddle>({n + 3}, y);
        const std::int64_t groups = (n + kWg - 1) / kWg;
        auto wide = wide_all.domain({1}, {1 + n});
        auto partial = partial_all.domain({3}, {3 + n});
        k(Groups{groups}, src, dst.domain({0}, {n}), wide, partial);
        const std::vector<Straddle> got = dst.download(), got_partial = partial_all.download();
        const std::vector<float4> got_wide = wide_all.download();
        for (std::int64_t i = 0; i < n; ++i) {
            const Straddle& s = x[static_cast<std::size_t>(i)];
            Straddle t = s;
            t.a = s.a;  // far and before are out of range: zero
            t.v = {s.v.x * 2, s.v.y * 2, s.v.z * 2};
            t.k = s.k + 1;
            t.u = s.u ^ x[static_cast<std::size_t>(i / 2)].u;
            ASSERT_EQ(got[i].a, t.a) << i;
            ASSERT_EQ(got[i].b, t.b) << i;
            ASSERT_EQ(got[i].v, t.v) << i;
            ASSERT_EQ(got[i].k, t.k) << i;
            ASSERT_EQ(got[i].u, t.u) << i;
            ASSERT_EQ(got[i].w, t.w) << i;
            const float4 f = z[static_cast<std::size_t>(1 + i)];
            ASSERT_EQ(got_wide[1 + i], (float4{f.w + s.v.x, f.z + s.v.y, f.y + s.v.z, f.x + s.a})) << i;
            Straddle p = y[static_cast<std::size_t>(3 + i)];
            p.v = {s.b, s.a, 1.0f};
            p.w = static_cast<std::uint32_t>(i);
            const Straddle& q = got_partial[static_cast<std::size_t>(3 + i)];
            ASSERT_TRUE(q.a == p.a && q.b == p.b && q.v == p.v && q.k == p.k && q.u == p.u && q.w == p.w) << i;
        }
        ASSERT_EQ(got_wide[0], z[0]);  // before the view: untouched
        for (std::int64_t e = 1 + n; e < n + 3; ++e) ASSERT_EQ(got_wide[e], z[e]) << "past the view, " << e;
        for (std::int64_t e = 0; e < 3; ++e) ASSERT_EQ(got_partial[e].u, y[e].u) << "before the view, " << e;
    }
}

TEST_P(GroupKernels, StructElementsThroughArraysAndShared) {
    auto k = group_kernel<kWg>("swap_halves(v)", [](Array<float3> v) {
        Shared<float3> tile(kWg);
        tile.store(local_id(), v.load(global_id()));
        barrier();
        v.store(global_id(), tile.load((local_id() + kWg / 2) % kWg) * 2.0f);
    });
    const std::int64_t n = 5 * kWg;
    std::vector<float3> x(n);
    for (std::int64_t i = 0; i < n; ++i) x[i] = float3{float(i), float(-i), 0.5f};
    auto s = rt().stream<float3>({n}, x);
    k(Groups{5}, s);
    std::vector<float3> got = s.download();
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t src = i / kWg * kWg + (i % kWg + kWg / 2) % kWg;
        ASSERT_EQ(got[i], (float3{2.0f * x[src][0], 2.0f * x[src][1], 1.0f})) << i;
    }
}

// Shared memory marked dsl::Unchecked (rill's own algorithms: indices in range
// by construction) is accessed without bounds checks on GPUs; loads, stores and
// atomics must give what the checked ones give, on every backend.
TEST_P(GroupKernels, UncheckedSharedMemoryMatchesTheHost) {
    static constexpr std::uint32_t kBins = 16;
    auto k = group_kernel<kWg>("unchecked_shared(in, out, bins)", [](Array<std::uint32_t> in, Array<std::uint32_t> out,
                                                                    Array<std::uint32_t> bins) {
        Shared<std::uint32_t> tile(kWg, dsl::Unchecked{});
        Shared<std::uint32_t> hist(kBins, dsl::Unchecked{});
        If(local_id() < static_cast<std::int32_t>(kBins), [&] { hist.store(local_id(), 0u); });
        UInt x = in.load(global_id());
        tile.store(kWg - 1 - local_id(), x);
        barrier();
        hist.atomic_add(x % kBins, 1u);
        out.store(global_id(), tile.load(local_id()) * 3u);
        barrier();
        If(local_id() < static_cast<std::int32_t>(kBins),
           [&] { bins.store(group_id() * static_cast<std::int32_t>(kBins) + local_id(), hist.load(local_id())); });
    });
    const std::int64_t groups = 7, n = groups * kWg;
    std::mt19937 rng(23);
    std::vector<std::uint32_t> x(n);
    for (auto& v : x) v = rng();
    auto in = rt().stream<std::uint32_t>({n}, x);
    auto out = rt().stream<std::uint32_t>({n});
    auto bins = rt().stream<std::uint32_t>({groups * kBins});
    k(Groups{groups}, in, out, bins);
    std::vector<std::uint32_t> want(n), want_bins(groups * kBins, 0u);
    for (std::int64_t i = 0; i < n; ++i) {
        want[i] = x[i / kWg * kWg + kWg - 1 - i % kWg] * 3u;
        ++want_bins[i / kWg * kBins + x[i] % kBins];
    }
    EXPECT_EQ(out.download(), want);
    EXPECT_EQ(bins.download(), want_bins);
}

// GroupOptions::unchecked_arrays (rill's own algorithms: Array indices in
// range by construction) drops the bounds checks of Array loads, stores and
// atomics on GPUs; they must give what the checked ones give, on every backend.
TEST_P(GroupKernels, UncheckedArraysMatchTheHost) {
    static constexpr std::int32_t kBins = 16;
    auto make = [](bool unchecked) {
        return group_kernel<kWg>("unchecked_arrays(in, out, bins, state)", GroupOptions{.unchecked_arrays = unchecked},
                                 [](Array<std::uint32_t> in, Array<std::uint32_t> out, Array<std::uint32_t> bins,
                                    Array<std::uint32_t> state) {
            Int mirrored = group_id() * kWg + (kWg - 1 - local_id());
            UInt x = in.load(mirrored);
            out.store(global_id(), x * 3u + state.atomic_load(group_id()));
            bins.atomic_add(cast<std::int32_t>(x % static_cast<std::uint32_t>(kBins)), 1u);
            If(local_id() == 0, [&] { state.atomic_store(num_groups() + group_id(), x); });
        });
    };
    auto k = make(true);
    EXPECT_NE(k.ir().hash(), make(false).ir().hash()) << "unchecked and checked kernels must not share a cache entry";
    const std::int64_t groups = 7, n = groups * kWg;
    std::mt19937 rng(29);
    std::vector<std::uint32_t> x(n), st(2 * groups, 0u);
    for (auto& v : x) v = rng();
    for (std::int64_t g = 0; g < groups; ++g) st[g] = static_cast<std::uint32_t>(g * 1000 + 1);
    auto in = rt().stream<std::uint32_t>({n}, x);
    auto out = rt().stream<std::uint32_t>({n});
    auto bins = rt().stream<std::uint32_t>({kBins});
    auto state = rt().stream<std::uint32_t>({2 * groups}, st);
    k(Groups{groups}, in, out, bins, state);
    std::vector<std::uint32_t> want(n), want_bins(kBins, 0u), want_state = st;
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t g = i / kWg, mirrored = g * kWg + kWg - 1 - i % kWg;
        want[i] = x[mirrored] * 3u + st[g];
        ++want_bins[x[i] % kBins];
        if (i % kWg == 0) want_state[groups + g] = x[mirrored];
    }
    EXPECT_EQ(out.download(), want);
    EXPECT_EQ(bins.download(), want_bins);
    EXPECT_EQ(state.download(), want_state);
}

// GroupOptions::parameters_at_start (rill's blocked stencil): scalar parameters
// of each type, read once at the start, where the loop that uses them stores
// first, give what reads at each use give, on every backend.
TEST_P(GroupKernels, ParametersAtStartMatchTheHost) {
    auto make = [](bool at_start) {
        return group_kernel<kWg>("parameters_at_start(out, n, rounds, scale, offset, seed)", GroupOptions{.parameters_at_start = at_start},
                                 [](Array<float> out, Int n, Int rounds, Float scale, Float2 offset, UInt seed) {
            Int i = global_id();
            If(i < n, [&] {
                Var<float> x = cast<float>(cast<std::int32_t>((cast<std::uint32_t>(i) ^ seed) % 1000u));
                For(0, rounds, [&](Int r) {
                    out.store(r * n + i, x);
                    x = x * scale + offset.x() - offset.y() * cast<float>(r);
                });
            });
        });
    };
    EXPECT_NE(make(true).ir().hash(), make(false).ir().hash()) << "the two kernels must not share a cache entry";
    auto k = make(true);
    for (std::int32_t n : {1, kWg - 1, 3 * kWg + 5}) {
        const std::int32_t rounds = 3;
        const float scale = 0.5f, ox = 3.0f, oy = 0.25f;
        const std::uint32_t seed = 0x9e3779b9u;
        auto out = rt().stream<float>({static_cast<std::int64_t>(rounds) * n});
        k(Groups{(n + kWg - 1) / kWg}, out, n, rounds, scale, float2{ox, oy}, seed);
        std::vector<float> want(static_cast<std::size_t>(rounds) * n);
        for (std::int32_t i = 0; i < n; ++i) {
            float x = static_cast<float>((static_cast<std::uint32_t>(i) ^ seed) % 1000u);
            for (std::int32_t r = 0; r < rounds; ++r) {
                want[static_cast<std::size_t>(r) * n + i] = x;
                x = x * scale + ox - oy * static_cast<float>(r);
            }
        }
        EXPECT_EQ(out.download(), want) << "n = " << n;
    }
}

// GroupOptions::quick_build (the FFT's generic kernel): a kernel that backends
// build for a short compile (their drivers' optimizers off where they can be)
// computes what the same kernel built for speed computes, on every backend.
// Integer arithmetic, so that no contraction or reassociation may differ.
TEST_P(GroupKernels, QuickBuildsComputeTheSame) {
    auto make = [](bool quick) {
        return group_kernel<kWg>("quick_build(x, out, rounds)", GroupOptions{.quick_build = quick},
                                 [](Array<std::uint32_t> x, Array<std::uint32_t> out, Int rounds) {
            Shared<std::uint32_t> tile(kWg);
            Int i = global_id();
            Var<std::uint32_t> h = x.load(min(i, x.size() - 1));
            For(0, rounds, [&](Int r) { h = (h ^ (h >> 7u)) * 0x9e3779b1u + cast<std::uint32_t>(r); });
            tile.store(local_id(), h);
            barrier();
            If(i < x.size(), [&] { out.store(i, tile.load(kWg - 1 - local_id()) + h); });
        });
    };
    EXPECT_NE(make(true).ir().hash(), make(false).ir().hash()) << "the two kernels must not share a cache entry";
    for (std::int64_t n : {std::int64_t{1}, std::int64_t{kWg} - 1, std::int64_t{5} * kWg + 3}) {
        std::vector<std::uint32_t> hx(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = static_cast<std::uint32_t>(i * 2654435761u + 12345u);
        auto x = rt().stream<std::uint32_t>({n}, hx);
        const std::int32_t rounds = 5;
        const std::int64_t groups = (n + kWg - 1) / kWg;
        auto quick = rt().stream<std::uint32_t>({n}), optimized = rt().stream<std::uint32_t>({n});
        make(true)(Groups{groups}, x, quick, rounds);
        make(false)(Groups{groups}, x, optimized, rounds);
        // The host: each element's hash, plus its mirror's in the workgroup
        // (past the end: the last element's, which out-of-range invocations load).
        auto hash = [&](std::int64_t i) {
            std::uint32_t h = hx[static_cast<std::size_t>(std::min(i, n - 1))];
            for (std::int32_t r = 0; r < rounds; ++r) h = (h ^ (h >> 7u)) * 0x9e3779b1u + static_cast<std::uint32_t>(r);
            return h;
        };
        std::vector<std::uint32_t> want(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = hash(i / kWg * kWg + kWg - 1 - i % kWg) + hash(i);
        EXPECT_EQ(quick.download(), want) << "n = " << n;
        EXPECT_EQ(optimized.download(), want) << "n = " << n;
    }
}

// Reverses each workgroup's elements through shared memory. Right with the
// barrier on every backend; without it a GPU reads slots that other subgroups
// have not written yet (the CPU backend runs a workgroup in lockstep, so the
// barrier-less version happens to work there).
template <bool WithBarrier>
auto reverse_kernel() {
    return group_kernel<1024>(WithBarrier ? "reverse" : "reverse_no_barrier", [](Array<std::int32_t> v) {
        Shared<std::int32_t> tile(1024);
        // Slow down the writers of the upper half, so that without a barrier
        // the readers of the lower half overtake them.
        Int x = v.load(global_id());
        If(local_id() >= 512, [&] { For(0, 64, [&](Int) { x = (x * 3 + 1) / 3; }); });
        tile.store(local_id(), x);
        if constexpr (WithBarrier) barrier();
        v.store(global_id(), tile.load(1023 - local_id()));
    });
}

TEST_P(GroupKernels, BarrierOrdersSharedMemory) {
    const std::int64_t groups = 256, n = groups * 1024;
    std::vector<std::int32_t> x(n);
    std::iota(x.begin(), x.end(), 0);
    auto want = [&](std::int64_t i) { return x[i / 1024 * 1024 + 1023 - i % 1024]; };
    auto s = rt().stream<std::int32_t>({n}, x);
    reverse_kernel<true>()(Groups{groups}, s);
    std::vector<std::int32_t> got = s.download();
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], want(i)) << i;

    if (rt().backend_name() == "cpu") return;  // lockstep: nothing to show
    auto t = rt().stream<std::int32_t>({n}, x);
    reverse_kernel<false>()(Groups{groups}, t);
    got = t.download();
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < n; ++i) wrong += got[i] != want(i);
    EXPECT_GT(wrong, 0) << "without barrier() every element came out right on " << rt().backend_name()
                        << "; this test no longer shows what the barrier is for";
}

/// Rounds of "store my element of the Array, barrier, load my mirror's, barrier":
/// the barrier orders buffer memory (the stores before it, and through the
/// loop's back edge the loads before the next round's stores), not only shared.
auto array_exchange_kernel() {
    return group_kernel<1024>("array_exchange(v, rounds)", [](Array<std::int32_t> v, Int rounds) {
        Int self = group_id() * 1024 + local_id(), mirror = group_id() * 1024 + 1023 - local_id();
        Var<std::int32_t> x = v.load(self);
        For(0, rounds, [&](Int) {
            // Slow down the writers of the upper half, as in reverse_kernel.
            If(local_id() >= 512, [&] { For(0, 64, [&](Int) { x = (x * 3 + 1) / 3; }); });
            v.store(self, x);
            barrier();
            x = (x * 7 + v.load(mirror)) % 1000003;
            barrier();
        });
        v.store(self, x);
    });
}

/// The host's answer to `rounds` rounds of "x = (x * 7 + my mirror's x) % 1000003"
/// in workgroups of 1024 (the kernels' slow-down, (3x + 1) / 3, leaves x as it is):
/// every round's values, one after the other.
std::vector<std::int32_t> mirror_rounds(const std::vector<std::int32_t>& x, std::int32_t rounds) {
    const std::size_t n = x.size();
    std::vector<std::int32_t> all, now = x;
    for (std::int32_t r = 0; r < rounds; ++r) {
        const std::vector<std::int32_t> stored = now;
        for (std::size_t i = 0; i < n; ++i) now[i] = (now[i] * 7 + stored[i / 1024 * 1024 + 1023 - i % 1024]) % 1000003;
        all.insert(all.end(), now.begin(), now.end());
    }
    return all;
}

TEST_P(GroupKernels, BarrierOrdersArrayMemory) {
    const std::int64_t groups = 64, n = groups * 1024;
    const std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), 0, 1000002);
    for (std::int32_t rounds : {1, 2, 5}) {
        const std::vector<std::int32_t> every_round = mirror_rounds(x, rounds);
        const std::vector<std::int32_t> want(every_round.end() - n, every_round.end());
        auto s = rt().stream<std::int32_t>({n}, x);
        array_exchange_kernel()(Groups{groups}, s, rounds);
        EXPECT_EQ(s.download(), want) << rounds << " rounds";
    }
}

// GroupOptions::shared_only_barriers (rill's radix sweeps): barriers that order
// shared memory only must still hand shared data between invocations, in a
// kernel whose barriers would otherwise order buffers too (it writes global
// memory before them, and reads and writes an Array through atomics, as the
// sweeps' look-back does).
TEST_P(GroupKernels, SharedOnlyBarriersOrderSharedMemory) {
    static constexpr std::int32_t kTile = 1024;
    auto make = [](bool shared_only) {
        return group_kernel<kTile>("shared_only_barriers(v, out, state, rounds)", GroupOptions{.shared_only_barriers = shared_only},
                                   [](Array<std::int32_t> v, Array<std::int32_t> out, Array<std::uint32_t> state, Int rounds) {
            Shared<std::int32_t> tile(kTile);
            Var<std::int32_t> x = v.load(global_id());
            For(0, rounds, [&](Int r) {
                // Slow down the writers of the upper half, as in reverse_kernel.
                If(local_id() >= 512, [&] { For(0, 64, [&](Int) { x = (x * 3 + 1) / 3; }); });
                tile.store(local_id(), x);
                barrier();
                x = (x * 7 + tile.load(kTile - 1 - local_id())) % 1000003;
                out.store(r * num_groups() * kTile + global_id(), x);
                state.atomic_add(group_id(), 1u);
                barrier();
            });
        });
    };
    EXPECT_NE(make(true).ir().hash(), make(false).ir().hash()) << "the two kinds of barrier must not share a cache entry";
    auto k = make(true);
    const std::int64_t groups = 64, n = groups * kTile;
    const std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), 0, 1000002);
    for (std::int32_t rounds : {1, 3}) {
        const std::vector<std::int32_t> want = mirror_rounds(x, rounds);
        auto v = rt().stream<std::int32_t>({n}, x);
        auto out = rt().stream<std::int32_t>({rounds * n});
        auto state = rt().stream<std::uint32_t>({groups});
        k(Groups{groups}, v, out, state, rounds);
        EXPECT_EQ(out.download(), want) << rounds << " rounds";
        EXPECT_EQ(state.download(), std::vector<std::uint32_t>(groups, static_cast<std::uint32_t>(rounds * kTile))) << rounds << " rounds";
    }
}

/// Control flow that is the same for a whole workgroup around barriers: an
/// early Return of some workgroups, loops with Break and Continue on
/// conditions of the group and the round, a nested loop, and a variable every
/// invocation holds the same value of. With `lanes_leave`, some invocations
/// also return on their own after the last barrier.
template <bool LanesLeave>
auto workgroup_control_kernel() {
    return group_kernel<kWg>(LanesLeave ? "workgroup_control_lanes_leave(in, out, rounds)" : "workgroup_control(in, out, rounds)",
                             [](Array<std::uint32_t> in, Array<std::uint32_t> out, Int rounds) {
        Shared<std::uint32_t> s(kWg);
        If(group_id() % 3 == 2, [] { Return(); });
        Var<std::uint32_t> acc = in.load(global_id());
        Var<std::int32_t> step = 0;
        For(0, rounds, [&](Int r) {
            If(r % 4 == 1, [&] {
                step = step + 1;
                Continue();
            });
            s.store(local_id(), acc);
            barrier();
            acc = acc * 3u + s.load((local_id() + r + step) % kWg);
            barrier();
            For(0, 2, [&](Int q) {
                s.store(local_id(), acc);
                barrier();
                acc = acc + s.load((local_id() + q + 1) % kWg);
                barrier();
            });
            If(r == rounds - 2 && group_id() % 3 == 1, [] { Break(); });
        });
        if constexpr (LanesLeave)
            If(local_id() % 5 == 0, [&] {
                out.store(global_id(), 7u);
                Return();
            });
        out.store(global_id(), acc + cast<std::uint32_t>(step));
    });
}

template <bool LanesLeave>
std::vector<std::uint32_t> workgroup_control_reference(const std::vector<std::uint32_t>& in, std::int64_t groups,
                                                       std::int32_t rounds, std::uint32_t untouched) {
    std::vector<std::uint32_t> out(in.size(), untouched);
    for (std::int64_t g = 0; g < groups; ++g) {
        if (g % 3 == 2) continue;
        std::vector<std::uint32_t> acc(in.begin() + g * kWg, in.begin() + (g + 1) * kWg), s(kWg);
        std::int32_t step = 0;
        for (std::int32_t r = 0; r < rounds; ++r) {
            if (r % 4 == 1) {
                ++step;
                continue;
            }
            s = acc;
            for (int l = 0; l < kWg; ++l) acc[l] = acc[l] * 3u + s[(l + r + step) % kWg];
            for (int q = 0; q < 2; ++q) {
                s = acc;
                for (int l = 0; l < kWg; ++l) acc[l] += s[(l + q + 1) % kWg];
            }
            if (r == rounds - 2 && g % 3 == 1) break;
        }
        for (int l = 0; l < kWg; ++l)
            out[g * kWg + l] = LanesLeave && l % 5 == 0 ? 7u : acc[l] + static_cast<std::uint32_t>(step);
    }
    return out;
}

TEST_P(GroupKernels, WorkgroupUniformControlFlowAroundBarriers) {
    const std::uint32_t untouched = 0xdeadbeefu;
    for (std::int64_t groups : {1, 3, 7}) {
        const std::int64_t n = groups * kWg;
        std::vector<std::uint32_t> in;
        for (std::int32_t v : random_ints(static_cast<std::size_t>(n), 0, 1 << 30)) in.push_back(static_cast<std::uint32_t>(v));
        for (std::int32_t rounds : {0, 1, 2, 3, 6, 9}) {
            SCOPED_TRACE("groups " + std::to_string(groups) + ", rounds " + std::to_string(rounds));
            auto src = rt().stream<std::uint32_t>({n}, in);
            auto out = rt().stream<std::uint32_t>({n}, std::vector<std::uint32_t>(static_cast<std::size_t>(n), untouched));
            workgroup_control_kernel<false>()(Groups{groups}, src, out, rounds);
            EXPECT_EQ(out.download(), workgroup_control_reference<false>(in, groups, rounds, untouched));
            auto out2 = rt().stream<std::uint32_t>({n}, std::vector<std::uint32_t>(static_cast<std::size_t>(n), untouched));
            workgroup_control_kernel<true>()(Groups{groups}, src, out2, rounds);
            EXPECT_EQ(out2.download(), workgroup_control_reference<true>(in, groups, rounds, untouched));
        }
    }
}

// Match masks built with shared atomics, as the radix ranking builds them:
// each invocation sets its bit in its subgroup's word for its value, and
// after subgroup_barrier() reads back which lanes share the value. Rows
// alternate between two sets of words, and each invocation clears its bit of
// the row before after the barrier (one barrier per row).
TEST_P(GroupKernels, SubgroupBarrierOrdersSharedMemoryOfTheSubgroup) {
    const int S = std::min(subgroup_size(), kWg);  // a workgroup is one subgroup where subgroups are wider
    constexpr int kRows = 8;
    const std::int64_t groups = 5, n = groups * kWg;
    for (std::int32_t distinct : {1, 3, 16}) {
        SCOPED_TRACE("values below " + std::to_string(distinct) + ", subgroup size " + std::to_string(S));
        auto k = group_kernel<kWg>("match_masks(values, out)", [S, distinct](Array<std::uint32_t> values, Array<uint2> out) {
            const int words = 2 * (kWg / S) * distinct * 2;  // sets, subgroups, values, 2 words of 32 lanes
            Shared<std::uint32_t> masks(words);
            For(0, (words + kWg - 1) / kWg, [&](Int k) { masks.store(k * kWg + local_id(), 0u); });
            barrier();
            Int lane = subgroup_invocation();
            Var<std::int32_t> previous_word = 0;
            Var<std::uint32_t> previous_bit = 0u;
            for (int row = 0; row < kRows; ++row) {
                Int v = cast<std::int32_t>(values.load(row * n + global_id()));
                Int first = (((row % 2) * (kWg / S) + local_id() / S) * distinct + v) * 2;
                UInt bit = 1u << cast<std::uint32_t>(lane % 32);
                (void)masks.atomic_or(first + lane / 32, bit);
                subgroup_barrier();
                out.store(row * n + global_id(), Expr<uint2>(masks.load(first), masks.load(first + 1)));
                if (row > 0) (void)masks.atomic_and(previous_word, ~previous_bit);
                previous_word = first + lane / 32;
                previous_bit = bit;
            }
        });
        std::vector<std::uint32_t> x;
        for (std::int32_t v : random_ints(static_cast<std::size_t>(kRows * n), 0, distinct - 1)) x.push_back(static_cast<std::uint32_t>(v));
        auto values = rt().stream<std::uint32_t>({kRows * n}, x);
        auto out = rt().stream<uint2>({kRows * n});
        k(Groups{groups}, values, out);
        const std::vector<uint2> got = out.download();
        for (std::int64_t r = 0; r < kRows; ++r)
            for (std::int64_t i = 0; i < n; ++i) {
                uint2 want{0u, 0u};
                const std::int64_t first = i / S * S;
                for (std::int64_t m = first; m < first + S; ++m)
                    if (x[r * n + m] == x[r * n + i]) want[static_cast<int>((m - first) / 32)] |= 1u << ((m - first) % 32);
                ASSERT_EQ(got[r * n + i], want) << "row " << r << ", invocation " << i;
            }
    }
}

TEST_P(GroupKernels, SubgroupOperationsMatchHostReference) {
    const int S = subgroup_size();
    ASSERT_GE(S, 1);
    // Each invocation writes 24 results; the host recomputes them per subgroup.
    auto k = group_kernel<kWg>("subgroup_ops(xs, fs, out, fout)", [](Array<std::int32_t> xs, Array<float> fs,
                                                                   Array<std::int32_t> out, Array<float> fout) {
        Int g = global_id();
        Int x = xs.load(g);
        Float f = fs.load(g);
        Int sid = subgroup_invocation(), S = rill::subgroup_size();
        Int o = g * kOut;
        UInt4 ballot = subgroup_ballot(x > 0);
        out.store(o + 0, S);
        out.store(o + 1, sid);
        out.store(o + 2, select(subgroup_elect(), 1, 0));
        out.store(o + 3, select(subgroup_all(x > -1000), 1, 0) + 2 * select(subgroup_all(x > 0), 1, 0));
        out.store(o + 4, select(subgroup_any(x > 900), 1, 0) + 2 * select(subgroup_any(x > 2000), 1, 0));
        out.store(o + 5, cast<std::int32_t>(ballot.x()));
        out.store(o + 6, ballot_bit_count(ballot));
        out.store(o + 7, subgroup_broadcast(x, 0));
        out.store(o + 8, subgroup_broadcast_first(x));
        out.store(o + 9, subgroup_shuffle(x, (sid + 1) % S));
        out.store(o + 10, subgroup_shuffle_xor(x, select(S > 1, 1, 0)));
        out.store(o + 11, subgroup_shuffle_up(x, select(sid > 0, 1, 0)));
        out.store(o + 12, subgroup_shuffle_down(x, select(sid < S - 1, 1, 0)));
        out.store(o + 13, subgroup_add(x));
        out.store(o + 14, subgroup_min(x));
        out.store(o + 15, subgroup_max(x));
        out.store(o + 16, subgroup_and(x));
        out.store(o + 17, subgroup_or(x));
        out.store(o + 18, subgroup_xor(x));
        out.store(o + 19, subgroup_inclusive_add(x));
        out.store(o + 20, subgroup_exclusive_add(x));
        out.store(o + 21, subgroup_exclusive_min(x));
        out.store(o + 22, subgroup_inclusive_max(x));
        out.store(o + 23, subgroup_mul(select(x > 0, 1, -1)));
        fout.store(g * 4 + 0, subgroup_add(f));
        fout.store(g * 4 + 1, subgroup_inclusive_add(f));
        fout.store(g * 4 + 2, subgroup_exclusive_mul(select(f > 0.0f, 2.0f, 0.5f)));
        fout.store(g * 4 + 3, subgroup_max(f));
    });
    const std::int64_t groups = 3, n = groups * kWg;
    std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), -1000, 1000);
    std::vector<float> f(n);
    for (std::int64_t i = 0; i < n; ++i) f[i] = float(random_ints(1, -50, 50)[0]);  // exact in any order
    auto xs = rt().stream<std::int32_t>({n}, x);
    auto fs = rt().stream<float>({n}, f);
    auto out = rt().stream<std::int32_t>({n * kOut});
    auto fout = rt().stream<float>({n * 4});
    k(Groups{groups}, xs, fs, out, fout);
    std::vector<std::int32_t> got = out.download();
    std::vector<float> fgot = fout.download();

    for (std::int64_t first = 0; first < n; first += S) {
        const std::int64_t end = std::min<std::int64_t>(first + S, n);
        std::int64_t sum = 0, inclusive = 0, exclusive_min = INT32_MAX, running_max = INT32_MIN;
        std::int32_t mn = INT32_MAX, mx = INT32_MIN, all_and = ~0, all_or = 0, all_xor = 0, sign = 1;
        std::uint32_t ballot = 0;
        int positives = 0;
        bool all_pos = true, any_big = false;
        double fsum = 0, finc = 0, fmul = 1, fmax = -1e30;
        for (std::int64_t i = first; i < end; ++i) {
            sum += x[i];
            mn = std::min(mn, x[i]);
            mx = std::max(mx, x[i]);
            all_and &= x[i];
            all_or |= x[i];
            all_xor ^= x[i];
            sign *= x[i] > 0 ? 1 : -1;
            if (x[i] > 0) {
                positives++;
                if (i - first < 32) ballot |= 1u << (i - first);
            }
            all_pos = all_pos && x[i] > 0;
            any_big = any_big || x[i] > 900;
            fsum += f[i];
            fmax = std::max<double>(fmax, f[i]);
        }
        for (std::int64_t i = first; i < end; ++i) {
            const std::int32_t* o = got.data() + i * kOut;
            const std::int64_t sid = i - first;
            SCOPED_TRACE("invocation " + std::to_string(i) + ", subgroup size " + std::to_string(S));
            EXPECT_EQ(o[0], S);
            EXPECT_EQ(o[1], sid);
            EXPECT_EQ(o[2], sid == 0 ? 1 : 0);
            EXPECT_EQ(o[3], 1 + 2 * int(all_pos));
            EXPECT_EQ(o[4], int(any_big));
            EXPECT_EQ(static_cast<std::uint32_t>(o[5]), ballot);
            EXPECT_EQ(o[6], positives);
            EXPECT_EQ(o[7], x[first]);
            EXPECT_EQ(o[8], x[first]);
            EXPECT_EQ(o[9], x[first + (sid + 1) % S]);
            EXPECT_EQ(o[10], x[first + (S > 1 ? (sid ^ 1) : sid)]);
            EXPECT_EQ(o[11], x[sid > 0 ? i - 1 : i]);
            EXPECT_EQ(o[12], x[sid < S - 1 ? i + 1 : i]);
            EXPECT_EQ(o[13], static_cast<std::int32_t>(sum));
            EXPECT_EQ(o[14], mn);
            EXPECT_EQ(o[15], mx);
            EXPECT_EQ(o[16], all_and);
            EXPECT_EQ(o[17], all_or);
            EXPECT_EQ(o[18], all_xor);
            inclusive += x[i];
            EXPECT_EQ(o[19], inclusive);
            EXPECT_EQ(o[20], inclusive - x[i]);
            EXPECT_EQ(o[21], static_cast<std::int32_t>(exclusive_min));
            exclusive_min = std::min<std::int64_t>(exclusive_min, x[i]);
            running_max = std::max<std::int64_t>(running_max, x[i]);
            EXPECT_EQ(o[22], running_max);
            EXPECT_EQ(o[23], sign);
            finc += f[i];
            EXPECT_EQ(fgot[i * 4 + 0], fsum);
            EXPECT_EQ(fgot[i * 4 + 1], finc);
            EXPECT_EQ(fgot[i * 4 + 2], fmul);
            fmul *= f[i] > 0 ? 2.0 : 0.5;
            EXPECT_EQ(fgot[i * 4 + 3], fmax);
        }
    }
}

// subgroup_match against a brute-force match per subgroup: few distinct
// values (many peers), many (mostly alone), and a third of the invocations
// inactive, which must neither match nor be matched.
TEST_P(GroupKernels, SubgroupMatchFindsTheActiveInvocationsWithTheSameValue) {
    const int S = subgroup_size();
    const std::uint32_t untouched = 0xdeadbeefu;
    auto k = group_kernel<kWg>("match(xs, out)", [](Array<std::uint32_t> xs, Array<uint4> out) {
        Int g = global_id();
        UInt x = xs.load(g);
        If(g % 3 != 1, [&] { out.store(g, subgroup_match(x)); });
    });
    const std::int64_t groups = 3, n = groups * kWg;
    for (std::int32_t distinct : {1, 2, 5, 1000000}) {
        SCOPED_TRACE("values below " + std::to_string(distinct));
        std::vector<std::uint32_t> x;
        for (std::int32_t v : random_ints(static_cast<std::size_t>(n), 0, distinct - 1)) x.push_back(static_cast<std::uint32_t>(v));
        auto xs = rt().stream<std::uint32_t>({n}, x);
        auto out = rt().stream<uint4>({n}, std::vector<uint4>(static_cast<std::size_t>(n), uint4{untouched, untouched, untouched, untouched}));
        k(Groups{groups}, xs, out);
        const std::vector<uint4> got = out.download();
        for (std::int64_t i = 0; i < n; ++i) {
            uint4 want{untouched, untouched, untouched, untouched};
            if (i % 3 != 1) {
                want = uint4{0u, 0u, 0u, 0u};
                const std::int64_t first = i / S * S;
                for (std::int64_t m = first; m < first + S; ++m)
                    if (m % 3 != 1 && x[m] == x[i]) want[static_cast<int>((m - first) / 32)] |= 1u << ((m - first) % 32);
            }
            ASSERT_EQ(got[i], want) << "invocation " << i << ", subgroup size " << S;
        }
    }
}

// A kernel may require a subgroup size; a backend runs it when the size is in
// its range (the CPU any power of two; lavapipe 8; the H100 32) and refuses it
// with a clear error otherwise.
TEST_P(GroupKernels, RequiredSubgroupSize) {
    const DeviceLimits& l = rt().info().limits;
    for (std::uint32_t s : {1u, 2u, 4u, 8u, 16u, 32u, 64u}) {
        SCOPED_TRACE(s);
        auto k = group_kernel<64>("pinned(out)", GroupOptions{s}, [](Array<int4> out) {
            out.store(global_id(), Int4(rill::subgroup_size(), subgroup_invocation(), subgroup_add(Int(1)),
                                        subgroup_exclusive_add(local_id())));
        });
        auto out = rt().stream<int4>({128});
        if (s < l.min_subgroup_size || s > l.max_subgroup_size) {
            EXPECT_THROW(k(Groups{2}, out), Error);
            continue;
        }
        k(Groups{2}, out);
        const std::vector<int4> got = out.download();
        for (int i = 0; i < 128; ++i) {
            const int lid = i % 64, first = lid / int(s) * int(s);
            const int excl = (lid - first) * (first + lid - 1) / 2;  // first + ... + (lid - 1)
            ASSERT_EQ(got[i], (int4{int(s), lid % int(s), int(s), excl})) << i;
        }
    }
    EXPECT_THROW(group_kernel<64>("odd", GroupOptions{3}, [](Array<int>) {}), Error);
}

// GroupOptions::spirv_opt changes how Vulkan compiles a kernel, never
// what it computes: the same body with and without spirv-opt matches the
// host on every backend (the others ignore the option).
TEST_P(GroupKernels, WithAndWithoutSpirvOptimizer) {
    auto body = [](Array<std::uint32_t> xs, Array<std::uint32_t> out) {
        Shared<std::uint32_t> tile(kWg);
        tile.store(local_id(), xs.load(global_id()));
        barrier();
        Var<std::uint32_t> acc = 0u;  // the workgroup's elements up to this one, each times 3 plus 1
        For(0, local_id() + 1, [&](Int i) { acc = acc + tile.load(i) * 3u + 1u; });
        out.store(global_id(), acc);
    };
    const std::int64_t groups = 5, n = groups * kWg;
    std::vector<std::uint32_t> x;
    for (std::int32_t v : random_ints(static_cast<std::size_t>(n), 0, 1 << 20)) x.push_back(static_cast<std::uint32_t>(v));
    std::vector<std::uint32_t> want(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        want[i] = (i % kWg == 0 ? 0u : want[i - 1]) + x[i] * 3u + 1u;
    auto xs = rt().stream<std::uint32_t>({n}, x);
    for (SpirvOpt opt : {SpirvOpt::Always, SpirvOpt::Never, SpirvOpt::UnlessTheDriverOptimizes}) {
        SCOPED_TRACE("spirv-opt " + std::to_string(static_cast<int>(opt)));
        auto k = group_kernel<kWg>("prefix3(xs, out)", GroupOptions{.spirv_opt = opt}, body);
        auto out = rt().stream<std::uint32_t>({n});
        k(Groups{groups}, xs, out);
        EXPECT_EQ(out.download(), want);
    }
}

// More workgroups than a dispatch's x count holds on many devices (65535:
// Mesa's lavapipe and llvmpipe): the backends spread them over y and the
// padding workgroups leave at once; every workgroup runs exactly once and
// sees its own group_id.
TEST_P(GroupKernels, MoreWorkgroupsThanOneDimensionHolds) {
    for (const std::int64_t groups : {65535, 65536, 80661, 131071}) {
        SCOPED_TRACE(std::to_string(groups) + " workgroups");
        auto k = group_kernel<32>("group_ids(out, hits)", [](Array<std::int32_t> out, Array<std::uint32_t> hits) {
            If(local_id() == 0, [&] {
                out.store(group_id(), group_id());
                hits.atomic_add(0, 1u);
            });
        });
        auto out = rt().stream<std::int32_t>({groups});
        auto hits = rt().stream<std::uint32_t>({1});
        k(Groups{groups}, out, hits);
        const auto got = out.download();
        std::int64_t wrong = 0;
        for (std::int64_t g = 0; g < groups; ++g) wrong += got[static_cast<std::size_t>(g)] != g;
        EXPECT_EQ(wrong, 0);
        EXPECT_EQ(hits.download()[0], static_cast<std::uint32_t>(groups));
    }
}

TEST_P(GroupKernels, SubgroupReductionsSeeOnlyActiveInvocations) {
    const int S = subgroup_size();
    auto k = group_kernel<kWg>("divergent(xs, out)", [](Array<std::int32_t> xs, Array<std::int32_t> out) {
        Int g = global_id();
        Int x = xs.load(g);
        out.store(g, -1);
        If(x % 3 != 0, [&] { out.store(g, subgroup_add(x) * 1000 + ballot_bit_count(subgroup_ballot(true))); });
    });
    const std::int64_t n = 4 * kWg;
    std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), 0, 100);
    auto xs = rt().stream<std::int32_t>({n}, x);
    auto out = rt().stream<std::int32_t>({n});
    k(Groups{4}, xs, out);
    std::vector<std::int32_t> got = out.download();
    for (std::int64_t first = 0; first < n; first += S) {
        std::int32_t sum = 0, active = 0;
        for (std::int64_t i = first; i < first + S; ++i)
            if (x[i] % 3 != 0) sum += x[i], ++active;
        for (std::int64_t i = first; i < first + S; ++i)
            ASSERT_EQ(got[i], x[i] % 3 != 0 ? sum * 1000 + active : -1) << i;
    }
}

TEST_P(GroupKernels, AtomicsUnderContention) {
    // Every invocation adds 1 to one counter: the old values it gets back are a
    // permutation of 0..n-1, and the counter ends at n.
    auto count = group_kernel<256>("count(counter, tickets)", [](Array<std::uint32_t> counter, Array<std::uint32_t> tickets) {
        tickets.store(global_id(), counter.atomic_add(0, 1u));
    });
    const std::int64_t groups = 97, n = groups * 256;
    auto counter = rt().stream<std::uint32_t>({1});
    auto tickets = rt().stream<std::uint32_t>({n});
    count(Groups{groups}, counter, tickets);
    std::vector<std::uint32_t> t = tickets.download();
    std::sort(t.begin(), t.end());
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(t[i], static_cast<std::uint32_t>(i));
    EXPECT_EQ(counter.download()[0], static_cast<std::uint32_t>(n));

    // min, max, and, or, xor of int and uint values into one element each,
    // float add (exact on small integers), and a compare-exchange loop.
    auto mix = group_kernel<256>("mix(xs, ints, uints, floats)", [](Array<std::int32_t> xs, Array<std::int32_t> ints,
                                                                Array<std::uint32_t> uints, Array<float> floats) {
        Int x = xs.load(global_id());
        UInt u = cast<std::uint32_t>(x);  // keeps the bits
        ints.atomic_min(0, x);
        ints.atomic_max(1, x);
        ints.atomic_and(2, x);
        ints.atomic_or(3, x);
        ints.atomic_xor(4, x);
        ints.atomic_add(5, x);
        uints.atomic_min(0, u);
        uints.atomic_max(1, u);
        floats.atomic_add(0, cast<float>(x % 100));
        // Increment through compare-exchange: retry until no one else came between.
        Int seen = ints.atomic_load(6);
        Bool done = false;
        While([&] { return !done; }, [&] {
            Int old = ints.atomic_compare_exchange(6, seen, seen + 1);
            done = old == seen;
            seen = old;
        });
        ints.atomic_exchange(7, 42);
    });
    std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), INT32_MIN, INT32_MAX);
    auto xs = rt().stream<std::int32_t>({n}, x);
    auto ints = rt().stream<std::int32_t>({8}, std::vector<std::int32_t>{INT32_MAX, INT32_MIN, -1, 0, 0, 0, 0, 0});
    auto uints = rt().stream<std::uint32_t>({2}, std::vector<std::uint32_t>{UINT32_MAX, 0});
    auto floats = rt().stream<float>({1});
    mix(Groups{groups}, xs, ints, uints, floats);
    std::int32_t mn = INT32_MAX, mx = INT32_MIN, a = -1, o = 0, xr = 0;
    std::uint32_t umn = UINT32_MAX, umx = 0, add = 0;
    double fsum = 0;
    for (std::int32_t v : x) {
        mn = std::min(mn, v), mx = std::max(mx, v), a &= v, o |= v, xr ^= v;
        add += static_cast<std::uint32_t>(v);
        umn = std::min(umn, static_cast<std::uint32_t>(v)), umx = std::max(umx, static_cast<std::uint32_t>(v));
        fsum += v % 100;
    }
    std::vector<std::int32_t> gi = ints.download();
    EXPECT_EQ(gi[0], mn);
    EXPECT_EQ(gi[1], mx);
    EXPECT_EQ(gi[2], a);
    EXPECT_EQ(gi[3], o);
    EXPECT_EQ(gi[4], xr);
    EXPECT_EQ(static_cast<std::uint32_t>(gi[5]), add);
    EXPECT_EQ(gi[6], n);
    EXPECT_EQ(gi[7], 42);
    EXPECT_EQ(uints.download(), (std::vector<std::uint32_t>{umn, umx}));
    EXPECT_EQ(floats.download()[0], fsum);
}

TEST_P(GroupKernels, AtomicsOnVectorComponents) {
    // One atomic per component, on Array and Shared vector elements: sums,
    // minima, maxima and bits per component equal the host's, and each
    // component's old values are the prefixes of its own order of updates.
    static constexpr std::int32_t kElements = 5, kShared = 3;
    auto k = group_kernel<256>(
        "vector_atomics(xs, sums, mins, maxs, bits, tickets, olds, group_sums)",
        [](Array<std::int32_t> xs, Array<float4> sums, Array<int3> mins, Array<int3> maxs, Array<uint2> bits,
           Array<uint2> tickets, Array<uint2> olds, Array<int2> group_sums) {
            Shared<int2> local(kShared);
            If(local_id() < kShared, [&] { local.store(local_id(), Int2(0, 0)); });
            barrier();
            Int i = global_id();
            Int x = xs.load(i);
            Int e = i % kElements;
            UInt u = cast<std::uint32_t>(x);
            sums.atomic_add(e, Float4(cast<float>(x % 100), 1.0f, cast<float>(-(x % 7)), 0.5f));
            mins.atomic_min(e, Int3(x, -x, x ^ 5));
            maxs.atomic_max(e, Int3(x, -x, x ^ 5));
            bits.atomic_or(e, UInt2(u, u << 3u));
            olds.store(i, tickets.atomic_add(e, UInt2(1u, 3u)));
            sums.atomic_add(kElements, Float4(1.0f));  // out of range: no effect
            local.atomic_add(local_id() % kShared, Int2(x, 1));
            barrier();
            If(local_id() < kShared, [&] { group_sums.store(group_id() * kShared + local_id(), local.load(local_id())); });
        });
    const std::int64_t groups = 13, n = groups * 256;
    std::vector<std::int32_t> x = random_ints(static_cast<std::size_t>(n), -100000, 100000);
    auto xs = rt().stream<std::int32_t>({n}, x);
    auto sums = rt().stream<float4>({kElements});
    auto mins = rt().stream<int3>({kElements}, std::vector<int3>(kElements, int3{INT32_MAX, INT32_MAX, INT32_MAX}));
    auto maxs = rt().stream<int3>({kElements}, std::vector<int3>(kElements, int3{INT32_MIN, INT32_MIN, INT32_MIN}));
    auto bits = rt().stream<uint2>({kElements});
    auto tickets = rt().stream<uint2>({kElements});
    auto olds = rt().stream<uint2>({n});
    auto group_sums = rt().stream<int2>({groups * kShared});
    k(Groups{groups}, xs, sums, mins, maxs, bits, tickets, olds, group_sums);

    std::vector<std::array<double, 4>> want_sum(kElements);
    std::vector<int3> want_min(kElements, int3{INT32_MAX, INT32_MAX, INT32_MAX}), want_max(kElements, int3{INT32_MIN, INT32_MIN, INT32_MIN});
    std::vector<uint2> want_bits(kElements);
    std::vector<std::int64_t> per_element(kElements);
    std::vector<std::array<std::int64_t, 2>> want_group(static_cast<std::size_t>(groups * kShared));
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int32_t v = x[i];
        const auto e = static_cast<std::size_t>(i % kElements);
        const std::uint32_t u = static_cast<std::uint32_t>(v);
        want_sum[e] = {want_sum[e][0] + v % 100, want_sum[e][1] + 1, want_sum[e][2] - v % 7, want_sum[e][3] + 0.5};
        const int3 c{v, -v, v ^ 5};
        want_min[e] = {std::min(want_min[e].x, c.x), std::min(want_min[e].y, c.y), std::min(want_min[e].z, c.z)};
        want_max[e] = {std::max(want_max[e].x, c.x), std::max(want_max[e].y, c.y), std::max(want_max[e].z, c.z)};
        want_bits[e] = {want_bits[e].x | u, want_bits[e].y | (u << 3)};
        ++per_element[e];
        auto& g = want_group[static_cast<std::size_t>((i / 256) * kShared + (i % 256) % kShared)];
        g = {g[0] + v, g[1] + 1};
    }
    const std::vector<float4> gs = sums.download();
    const std::vector<int3> gmin = mins.download(), gmax = maxs.download();
    const std::vector<uint2> gb = bits.download(), gt = tickets.download(), go = olds.download();
    for (std::int32_t e = 0; e < kElements; ++e) {
        SCOPED_TRACE(e);
        EXPECT_EQ(gs[e].x, want_sum[e][0]);
        EXPECT_EQ(gs[e].y, want_sum[e][1]);
        EXPECT_EQ(gs[e].z, want_sum[e][2]);
        EXPECT_EQ(gs[e].w, want_sum[e][3]);
        EXPECT_TRUE(gmin[e].x == want_min[e].x && gmin[e].y == want_min[e].y && gmin[e].z == want_min[e].z);
        EXPECT_TRUE(gmax[e].x == want_max[e].x && gmax[e].y == want_max[e].y && gmax[e].z == want_max[e].z);
        EXPECT_TRUE(gb[e].x == want_bits[e].x && gb[e].y == want_bits[e].y);
        EXPECT_EQ(gt[e].x, static_cast<std::uint32_t>(per_element[e]));
        EXPECT_EQ(gt[e].y, static_cast<std::uint32_t>(3 * per_element[e]));
        // Each component's tickets: 0, 1, 2, ... and 0, 3, 6, ..., each once.
        std::vector<std::uint32_t> tx, ty;
        for (std::int64_t i = e; i < n; i += kElements) tx.push_back(go[i].x), ty.push_back(go[i].y);
        std::sort(tx.begin(), tx.end());
        std::sort(ty.begin(), ty.end());
        for (std::size_t j = 0; j < tx.size(); ++j) {
            ASSERT_EQ(tx[j], j);
            ASSERT_EQ(ty[j], 3 * j);
        }
    }
    const std::vector<int2> gg = group_sums.download();
    for (std::size_t j = 0; j < gg.size(); ++j) {
        ASSERT_EQ(gg[j].x, want_group[j][0]) << j;
        ASSERT_EQ(gg[j].y, want_group[j][1]) << j;
    }
}

TEST_P(GroupKernels, HistogramOf16MValues) {
    // Per-workgroup histograms in shared memory (atomics there), merged into
    // the global one with atomics: 2^24 values into 256 bins.
    auto histogram = group_kernel<256>("histogram(keys, bins, per_invocation)",
                                       [](Array<std::uint32_t> keys, Array<std::uint32_t> bins, Int per_invocation) {
                                           Shared<std::uint32_t> local(256);
                                           local.store(local_id(), 0u);
                                           barrier();
                                           Int base = group_id() * 256 * per_invocation + local_id();
                                           For(0, per_invocation, [&](Int j) {
                                               UInt key = keys.load(base + j * 256);
                                               local.atomic_add(cast<std::int32_t>(key >> 24u), 1u);
                                           });
                                           barrier();
                                           bins.atomic_add(local_id(), local.load(local_id()));
                                       });
    const std::int64_t n = std::int64_t{1} << 24, per = 64, groups = n / (256 * per);
    std::vector<std::uint32_t> keys(n);
    std::uniform_int_distribution<std::uint32_t> d;
    for (auto& k : keys) k = d(rng());
    std::vector<std::uint32_t> want(256, 0);
    for (std::uint32_t k : keys) ++want[k >> 24];
    auto ks = rt().stream<std::uint32_t>({n}, keys);
    auto bins = rt().stream<std::uint32_t>({256});
    histogram(Groups{groups}, ks, bins, static_cast<std::int32_t>(per));
    EXPECT_EQ(bins.download(), want);
}

// The forward-progress rule of docs/SEMANTICS.md, in a decoupled look-back
// scan of workgroup totals (Merrill and Garland) with fallback: each workgroup
// takes its tile from an atomic ticket, publishes its own total at once, then
// looks back, adding totals until it finds an inclusive prefix. A tile that is
// not ready after 16 reads is summed from its inputs by the waiting workgroup
// instead, so no wait is unbounded (Mesa's llvmpipe ends any loop after 65535
// iterations, and its workgroups share two CPU cores here). Flag and value
// share one word (bits 31-30: 0 not ready, 1 total, 2 inclusive prefix).
// 20000 workgroups of 64 invocations: far more than any device runs at once.
TEST_P(GroupKernels, DecoupledLookBackAcrossWorkgroups) {
    auto look_back = group_kernel<64>("look_back(values, ticket, status, out)", [](Array<std::uint32_t> values,
                                                                                 Array<std::uint32_t> ticket,
                                                                                 Array<std::uint32_t> status,
                                                                                 Array<std::uint32_t> out) {
        Shared<std::uint32_t> tile(1), total(1), prefix(1);
        If(local_id() == 0, [&] {
            tile.store(0, ticket.atomic_add(0, 1u));
            total.store(0, 0u);
        });
        barrier();
        Int t = cast<std::int32_t>(tile.load(0));
        total.atomic_add(0, values.load(t * 64 + local_id()));
        barrier();
        If(local_id() == 0, [&] {
            UInt mine = total.load(0);
            status.atomic_store(t, mine | select(t == 0, 2u, 1u) << 30u);
            UInt before = 0u;
            Int j = t - 1;
            Int reads = 0;
            While([&] { return j >= 0; }, [&] {
                UInt s = status.atomic_load(j);
                UInt flag = s >> 30u;
                Bool ready = flag != 0u;
                Bool give_up = !ready && reads == 15;
                If(ready, [&] {
                    before = before + (s & 0x3fffffffu);
                    j = select(flag == 2u, -1, j - 1);
                });
                If(give_up, [&] {
                    UInt sum = 0u;
                    for (int l = 0; l < 64; ++l) sum = sum + values.load(j * 64 + l);  // unrolled: no loop to limit
                    before = before + sum;
                    j = j - 1;
                });
                reads = select(ready || give_up, 0, reads + 1);
            });
            status.atomic_store(t, (before + mine) | (2u << 30u));
            prefix.store(0, before);
        });
        barrier();
        out.store(t * 64 + local_id(), prefix.load(0));
    });
    const std::int64_t groups = 20000, n = groups * 64;
    std::vector<std::int32_t> raw = random_ints(static_cast<std::size_t>(n), 0, 3);
    std::vector<std::uint32_t> v(raw.begin(), raw.end());
    auto values = rt().stream<std::uint32_t>({n}, v);
    auto ticket = rt().stream<std::uint32_t>({1});
    auto status = rt().stream<std::uint32_t>({groups});
    auto out = rt().stream<std::uint32_t>({n});
    look_back(Groups{groups}, values, ticket, status, out);
    const std::vector<std::uint32_t> got = out.download();
    std::uint32_t before = 0;
    for (std::int64_t t = 0; t < groups; ++t) {
        for (std::int64_t l = 0; l < 64; ++l) ASSERT_EQ(got[t * 64 + l], before) << "tile " << t;
        for (std::int64_t l = 0; l < 64; ++l) before += v[t * 64 + l];
    }
}

// memory_fence() hands data that does not fit the flag's word from one
// workgroup to another: the same look-back as above, but each tile publishes
// a four-word record (sum, xor, count, tile + 1) in arrays apart from its
// flag, written before a fence and then flagged (1: the tile's own aggregate,
// 2: its inclusive prefix); a reader that sees the flag fences and then reads
// the record. A record read before its words arrived shows as a wrong tile
// number, counted in `torn`, or as a wrong prefix.
TEST_P(GroupKernels, MemoryFenceHandsRecordsBetweenWorkgroups) {
    auto look_back = group_kernel<64>(
        "fenced_look_back(values, ticket, flags, aggregates, prefixes, out, torn)",
        [](Array<std::uint32_t> values, Array<std::uint32_t> ticket, Array<std::uint32_t> flags,
           Array<uint4> aggregates, Array<uint4> prefixes, Array<uint4> out, Array<std::uint32_t> torn) {
            Shared<std::uint32_t> tile(1), sum(1), xors(1);
            If(local_id() == 0, [&] {
                tile.store(0, ticket.atomic_add(0, 1u));
                sum.store(0, 0u);
                xors.store(0, 0u);
            });
            barrier();
            Int t = cast<std::int32_t>(tile.load(0));
            UInt v = values.load(t * 64 + local_id());
            sum.atomic_add(0, v);
            xors.atomic_xor(0, v);
            barrier();
            If(local_id() == 0, [&] {
                UInt id = cast<std::uint32_t>(t) + 1u;
                UInt4 mine = UInt4(sum.load(0), xors.load(0), 64u, id);
                If(t == 0, [&] { prefixes.store(t, mine); }).Else([&] { aggregates.store(t, mine); });
                memory_fence();
                flags.atomic_store(t, select(t == 0, 2u, 1u));
                UInt4 before = UInt4(0u, 0u, 0u, 0u);
                Int j = t - 1;
                Int reads = 0;
                While([&] { return j >= 0; }, [&] {
                    UInt flag = flags.atomic_load(j);
                    Bool ready = flag != 0u;
                    Bool give_up = !ready && reads == 15;
                    If(ready, [&] {
                        memory_fence();
                        UInt4 r = UInt4(0u, 0u, 0u, 0u);
                        If(flag == 2u, [&] { r = prefixes.load(j); }).Else([&] { r = aggregates.load(j); });
                        If(r.w() != cast<std::uint32_t>(j) + 1u, [&] { (void)torn.atomic_add(0, 1u); });
                        before = UInt4(before.x() + r.x(), before.y() ^ r.y(), before.z() + r.z(), 0u);
                        j = select(flag == 2u, -1, j - 1);
                    });
                    If(give_up, [&] {
                        UInt s = 0u, x = 0u;
                        for (int l = 0; l < 64; ++l) {  // unrolled: no loop for llvmpipe to limit
                            UInt e = values.load(j * 64 + l);
                            s = s + e;
                            x = x ^ e;
                        }
                        before = UInt4(before.x() + s, before.y() ^ x, before.z() + 64u, 0u);
                        j = j - 1;
                    });
                    reads = select(ready || give_up, 0, reads + 1);
                });
                If(t > 0, [&] {
                    prefixes.store(t, UInt4(before.x() + mine.x(), before.y() ^ mine.y(), before.z() + 64u, id));
                    memory_fence();
                    flags.atomic_store(t, 2u);
                });
                out.store(t, before);
            });
        });
    const std::int64_t groups = 20000, n = groups * 64;
    std::vector<std::uint32_t> v(static_cast<std::size_t>(n));
    std::uniform_int_distribution<std::uint32_t> d;
    for (auto& x : v) x = d(rng());
    auto values = rt().stream<std::uint32_t>({n}, v);
    auto ticket = rt().stream<std::uint32_t>({1});
    auto flags = rt().stream<std::uint32_t>({groups});
    auto aggregates = rt().stream<uint4>({groups});
    auto prefixes = rt().stream<uint4>({groups});
    auto out = rt().stream<uint4>({groups});
    auto torn = rt().stream<std::uint32_t>({1});
    look_back(Groups{groups}, values, ticket, flags, aggregates, prefixes, out, torn);
    EXPECT_EQ(torn.download()[0], 0u);
    const std::vector<uint4> got = out.download();
    std::uint32_t sum = 0, xr = 0;
    for (std::int64_t t = 0; t < groups; ++t) {
        ASSERT_EQ(got[t].x, sum) << "tile " << t;
        ASSERT_EQ(got[t].y, xr) << "tile " << t;
        ASSERT_EQ(got[t].z, static_cast<std::uint32_t>(t * 64)) << "tile " << t;
        for (std::int64_t l = 0; l < 64; ++l) sum += v[t * 64 + l], xr ^= v[t * 64 + l];
    }
    const std::string error =
        error_message([] { kernel("fence(out)", [](Out<float> out) { memory_fence(); out = 1.0f; }); });
    EXPECT_NE(error.find("rill::memory_fence() exists only in group kernels"), std::string::npos) << error;
}

TEST_P(GroupKernels, LocalArraysBelongToOneInvocation) {
    // Each invocation pushes a run of its own values on a Local stack (a
    // length that differs between invocations, so that lanes diverge), writes
    // out of range at both ends, then pops the run in reverse into a checksum:
    // sharing between invocations, or a write out of range that lands, shows.
    auto k = group_kernel<kWg>("local_stack(seeds, out)", [](Array<std::int32_t> seeds, Array<uint4> out) {
        constexpr int kDepth = 19;
        Local<std::uint32_t> stack(kDepth);
        Local<float2> pairs(3);
        Int i = global_id();
        Int seed = seeds.load(i);
        Int n = seed % (kDepth + 1);
        For(0, n, [&](Int j) { stack.store(j, cast<std::uint32_t>(seed * 32 + j)); });
        stack.store(-1, 12345u);
        stack.store(kDepth + seed % 3, 12345u);
        pairs.store(seed % 3, Float2(cast<float>(seed), 0.5f));
        UInt checksum = 0u;
        Int sp = n;
        While([&] { return sp > 0; }, [&] {
            sp = sp - 1;
            checksum = checksum * 31u + stack.load(sp);
        });
        Float2 p = pairs.load(seed % 3);
        out.store(i, UInt4(checksum, stack.load(-1) + stack.load(kDepth), cast<std::uint32_t>(p.x() + p.y() * 2.0f),
                           cast<std::uint32_t>(n)));
    });
    for (std::int64_t groups : {1, 5}) {
        const std::int64_t count = groups * kWg;
        std::vector<std::int32_t> seeds(static_cast<std::size_t>(count));
        std::mt19937 gen(static_cast<std::uint32_t>(groups));
        for (auto& s : seeds) s = static_cast<std::int32_t>(gen() % 100000);
        auto out = rt().stream<uint4>({count});
        k(Groups{groups}, rt().stream<std::int32_t>({count}, seeds), out);
        std::vector<uint4> got = out.download();
        for (std::int64_t i = 0; i < count; ++i) {
            const std::int32_t seed = seeds[i], n = seed % 20;
            std::uint32_t checksum = 0;
            for (std::int32_t j = n - 1; j >= 0; --j) checksum = checksum * 31u + std::uint32_t(seed * 32 + j);
            const uint4 want{checksum, 0u, std::uint32_t(seed + 1), std::uint32_t(n)};
            ASSERT_EQ(got[i], want) << "invocation " << i << " of " << groups << " groups";
        }
    }
    // It lives in shared memory: a Local too large for the device is refused at launch.
    auto too_deep = group_kernel<64>("too_deep(v)", [](Array<float> v) {
        Local<float> deep(std::int64_t{1} << 16);  // 64 invocations x 256 KiB
        deep.store(0, 1.0f);
        v.store(global_id(), deep.load(0));
    });
    auto v = rt().stream<float>({64});
    const std::string deep_error = error_message([&] { too_deep(Groups{1}, v); });
    EXPECT_NE(deep_error.find("too_deep': its Shared<T> and Local<T> arrays take 16777216 bytes"), std::string::npos) << deep_error;
    const std::string brook_error =
        error_message([] { kernel("k(out)", [](Out<float> out) { Local<float> l(4); out = l.load(0); }); });
    EXPECT_NE(brook_error.find("rill::Local<T> exists only in group kernels"), std::string::npos) << brook_error;
}

TEST_P(GroupKernels, ClearErrors) {
    auto too_much_shared = group_kernel<64>("too_much_shared(v)", [](Array<float> v) {
        Shared<float> big(std::int64_t{1} << 22);  // 16 MiB: more than any device's shared memory
        big.store(local_id(), 1.0f);
        v.store(global_id(), big.load(local_id()));
    });
    auto v = rt().stream<float>({64});
    const std::string shared_error = error_message([&] { too_much_shared(Groups{1}, v); });
    EXPECT_NE(shared_error.find("too_much_shared': its Shared<T> and Local<T> arrays take 16777216 bytes"), std::string::npos)
        << shared_error;

    auto wide = group_kernel<1024>("wide(v)", [](Array<float> v) { v.store(global_id(), 1.0f); });
    auto w = rt().stream<float>({1024});
    if (rt().info().limits.max_workgroup_size < 1024) {
        EXPECT_THROW(wide(Groups{1}, w), Error);
    } else {
        wide(Groups{1}, w);
        EXPECT_EQ(w.download(), std::vector<float>(1024, 1.0f));
    }

    EXPECT_THROW(wide(w), Error);                 // a group kernel needs Groups{n}
    EXPECT_THROW(wide(Groups{-3}, w), Error);     // negative counts are refused
    const std::string ids_error =
        error_message([] { kernel("ids(out)", [](Array<int> out) { out.store(local_id(), 1); }); });
    EXPECT_NE(ids_error.find("rill::local_id() exists only in group kernels"), std::string::npos) << ids_error;
    auto strided = group_kernel<64>("strided(v)", [](Array<float> v) { v.store(global_id(), 1.0f); });
    auto s = rt().stream<float>({128});
    const std::string strided_error = error_message([&] { strided(Groups{1}, s.stride({2})); });
    EXPECT_NE(strided_error.find("argument 'v' (array of float) is a strided view"), std::string::npos) << strided_error;
}

// GPUs hang or misbehave on a barrier that only some invocations reach, so
// tracing refuses it (the CPU backend also checks at run time).
std::string barrier_error(const std::function<void()>& body) {
    return error_message([&] {
        group_kernel<64>("k(v)", [&](Array<float> v) {
            body();
            v.store(global_id(), 1.0f);
        });
    });
}

TEST(GroupKernelTracing, BarrierInDivergentCodeIsAnError) {
    const std::string in_if = "kernel 'k': barrier() is inside an If whose condition can differ between invocations";
    EXPECT_EQ(barrier_error([] { If(local_id() < 10, [] { barrier(); }); }).substr(0, in_if.size()), in_if);
    const std::string subgroup_in_if = "kernel 'k': subgroup_barrier() is inside an If whose condition can differ";
    EXPECT_EQ(barrier_error([] { If(local_id() < 10, [] { subgroup_barrier(); }); }).substr(0, subgroup_in_if.size()),
              subgroup_in_if);
    // Divergence through a variable assigned under a divergent condition.
    EXPECT_EQ(barrier_error([] {
                  Int flag = 0;
                  If(subgroup_invocation() == 0, [&] { flag = 1; });
                  If(flag == 1, [] { barrier(); });
              }).substr(0, in_if.size()),
              in_if);
    EXPECT_NE(barrier_error([] {
                  While([] { return local_id() < 3; }, [] { barrier(); });
              }).find("inside a loop that invocations can leave at different times"),
              std::string::npos);
    EXPECT_NE(barrier_error([] {
                  If(local_id() == 5, [] { Return(); });
                  barrier();
              }).find("follows a Return() that only some invocations take"),
              std::string::npos);
    // Conditions every invocation of a workgroup agrees on are fine.
    EXPECT_EQ(barrier_error([] {
                  If(group_id() == 0, [] { barrier(); });
                  Int i = 0;
                  While([&] { return i < num_groups(); }, [&] {
                      barrier();
                      i = i + 1;
                  });
                  If(rill::subgroup_size() > 4, [] { barrier(); });
              }),
              kNoError);
}

// Kernels traced with and without spirv-opt are different kernels to every
// cache (the IR's hash), and the IR says which it is.
TEST(GroupKernelTracing, SpirvOptIsPartOfTheKernel) {
    auto make = [](SpirvOpt opt) {
        return group_kernel<64>("k(out)", GroupOptions{.spirv_opt = opt},
                                [](Array<std::int32_t> out) { out.store(global_id(), local_id()); });
    };
    const SpirvOpt always = SpirvOpt::Always, never = SpirvOpt::Never, unless = SpirvOpt::UnlessTheDriverOptimizes;
    EXPECT_NE(make(always).ir().hash(), make(never).ir().hash());
    EXPECT_NE(make(always).ir().hash(), make(unless).ir().hash());
    EXPECT_NE(make(never).ir().hash(), make(unless).ir().hash());
    EXPECT_EQ(make(never).ir().hash(), make(never).ir().hash());
    EXPECT_EQ(make(unless).ir().spirv_opt, unless);
    EXPECT_NE(ir::print(make(never).ir()).find("without spirv-opt"), std::string::npos);
    EXPECT_NE(ir::print(make(unless).ir()).find("spirv-opt unless the driver optimizes"), std::string::npos);
    EXPECT_EQ(ir::print(make(always).ir()).find("spirv-opt"), std::string::npos);
}

RILL_INSTANTIATE_FOR_BACKENDS(GroupKernels);

}  // namespace
}  // namespace rill::test
