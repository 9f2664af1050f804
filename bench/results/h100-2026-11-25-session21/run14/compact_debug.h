// TRIAL (session 21, not to be committed): the vector single-pass compaction
// with what each workgroup saw written out, run many times at small sizes.
#pragma once

#include <rill/algorithms/compact.h>
#include <rill/algorithms/scan.h>

#include <cstdio>
#include <string>
#include <vector>

namespace rill::probe {


/// look_back::prefix_before with what lane 0 saw in its last iteration written to dbg.
inline Expr<std::uint32_t> dbg_prefix_before(const Array<std::uint32_t>& state, const Int& tiles, const Int& t,
                                             const Array<std::uint32_t>& dbg) {
    namespace lb = rill::detail::look_back;
    Int S = min(subgroup_size(), Int(128));
    Int lane = subgroup_invocation();
    Var<std::uint32_t> acc = 0u;
    Int hi = t - 1;
    Bool done = false;
    Int iterations = 0;
    While([&] { return !done; }, [&] {
        Int j = hi - lane;
        Bool exists = j >= 0;
        Int tile = max(j, 0);
        Var<std::uint32_t> il = 0u, ih = 0u, al = 0u, ah = 0u;
        If(exists, [&] {
            il = state.atomic_load(lb::state_word(tiles, tile, lb::kInclusive));
            ih = state.atomic_load(lb::state_word(tiles, tile, lb::kInclusive + 1));
            al = state.atomic_load(lb::state_word(tiles, tile, lb::kAggregate));
            ah = state.atomic_load(lb::state_word(tiles, tile, lb::kAggregate + 1));
        });
        Bool inclusive = !exists || (il & ih & lb::kReady) != 0u;
        Bool aggregate = (al & ah & lb::kReady) != 0u;
        Int k = subgroup_min(select(inclusive, lane, S));
        Bool needed = lane <= k;
        iterations = iterations + 1;
        If(subgroup_all(!needed || inclusive || aggregate), [&] {
            Expr<std::uint32_t> lo = select(inclusive, Expr<std::uint32_t>(il), Expr<std::uint32_t>(al));
            Expr<std::uint32_t> hb = select(inclusive, Expr<std::uint32_t>(ih), Expr<std::uint32_t>(ah));
            Expr<std::uint32_t> value = select(exists, (lo & 0xffffu) | (hb << 16u), Expr<std::uint32_t>(0u));
            Expr<std::uint32_t> window = subgroup_add(select(needed, value, Expr<std::uint32_t>(0u)));
            acc = window + acc;
            done = k < S;
            hi = hi - S;
            If(lane == 0, [&] {
                Int b = group_id() * 32 + 16;
                dbg.store(b, il);
                dbg.store(b + 1, ih);
                dbg.store(b + 2, al);
                dbg.store(b + 3, ah);
                dbg.store(b + 4, cast<std::uint32_t>(k));
                dbg.store(b + 5, window);
                dbg.store(b + 6, cast<std::uint32_t>(iterations));
                dbg.store(b + 7, cast<std::uint32_t>(j));
                dbg.store(b + 8, cast<std::uint32_t>(subgroup_all(!needed || inclusive || aggregate)));
                dbg.store(b + 9, subgroup_ballot(Expr<bool>(true)).x());
            });
        });
    });
    return acc;
}

template <int V>
void compact_debug_v(Runtime& rt) {
    namespace lb = rill::detail::look_back;
    constexpr int kWg = 128;
    auto k = group_kernel<kWg>("dbg_compact(in, state, out, count, dbg, n)",
                               [](Array<std::uint32_t> in, Array<std::uint32_t> state, Array<std::uint32_t> out,
                                  Array<std::uint32_t> count, Array<std::uint32_t> dbg, Int n) {
        Int t = lb::ticket(state);
        Int S = min(subgroup_size(), Int(kWg));
        Int lane = subgroup_invocation();
        Int first = t * (kWg * V) + (local_id() / S) * (S * V) + lane;
        std::vector<Int> at;
        std::vector<Var<uint4>> x;
        for (int j = 0; j < V; ++j) at.push_back(first + j * S);
        for (int j = 0; j < V; ++j) x.emplace_back(in.load_vector<4>(at[j]));
        Var<std::uint32_t> total = 0u;
        std::vector<Var<std::uint32_t>> flags, before;
        for (int j = 0; j < V; ++j) {
            Int e = at[j] * 4;
            const bool constflags = std::getenv("DBG_CONSTFLAGS") != nullptr;
            auto bit = [&](int c, const Expr<std::uint32_t>& v) {
                if (constflags) return select(e + c < n, 1u << c, 0u);
                return select(e + c < n && (v & 1u) == 1u, 1u << c, 0u);
            };
            flags.emplace_back(bit(0, x[j].x()) | bit(1, x[j].y()) | bit(2, x[j].z()) | bit(3, x[j].w()));
            UInt kept = cast<std::uint32_t>(bit_count(flags[j]));
            UInt row = subgroup_inclusive_add(kept);
            before.emplace_back(total + row - kept);
            total = total + subgroup_shuffle(row, S - 1);
        }
        UInt own = select(lane == S - 1, Expr<std::uint32_t>(total), Expr<std::uint32_t>(0u));
        auto finish = [&](const Expr<std::uint32_t>& start) {
            If(lane == S - 1, [&] { dbg.store(group_id() * 32 + 2 + local_id() / S, start); });
            If(lane == S - 1, [&] { dbg.store(group_id() * 32 + 8 + local_id() / S, total); });
            If(local_id() == 0, [&] {
                dbg.store(group_id() * 32, cast<std::uint32_t>(t));
                dbg.store(group_id() * 32 + 1, cast<std::uint32_t>(num_groups()));
            });
            for (int j = 0; j < V; ++j) {
                Var<std::uint32_t> p = start + before[j];
                if (std::getenv("RILL_TRIAL_RELOAD")) x[j] = in.load_vector<4>(at[j]);
                for (int c = 0; c < 4; ++c) {
                    Expr<std::uint32_t> v = c == 0 ? Expr<std::uint32_t>(x[j].x()) : c == 1 ? Expr<std::uint32_t>(x[j].y()) : c == 2 ? Expr<std::uint32_t>(x[j].z()) : Expr<std::uint32_t>(x[j].w());
                    UInt kept = (flags[j] >> static_cast<std::uint32_t>(c)) & 1u;
                    if (!std::getenv("DBG_NOSTORE")) If(kept != 0u, [&] { out.store(p, v); });
                    p = p + kept;
                }
            }
            if (!std::getenv("DBG_NOCOUNT")) If(t == num_groups() - 1 && local_id() == kWg - 1, [&] { count.store(0, start + total); });
        };
        {
            Shared<std::uint32_t> prefix(1);
            Int tiles = num_groups();
            auto [exclusive, wtotal] = detail::workgroup_exclusive<std::uint32_t, kWg>(ScanOp::Add, own, 0u);
            If(local_id() < subgroup_size(), [&] {
                If(t == 0, [&] {
                    If(local_id() == 0, [&] {
                        lb::publish(state, tiles, t, lb::kInclusive, wtotal);
                        prefix.store(0, 0u);
                    });
                }).Else([&] {
                    If(local_id() == 0, [&] { lb::publish(state, tiles, t, lb::kAggregate, wtotal); });
                    UInt before_tile = dbg_prefix_before(state, tiles, t, dbg);
                    If(local_id() == 0, [&] {
                        lb::publish(state, tiles, t, lb::kInclusive, before_tile + wtotal);
                        prefix.store(0, before_tile);
                    });
                });
            });
            barrier();
            finish(prefix.load(0) + exclusive);
        }
    });
    {
        auto a = rt.stream<std::uint32_t>({5000}, std::vector<std::uint32_t>(5000, 1u));
        auto b = rt.stream<std::uint32_t>({5000});
        exclusive_scan(a, b, ScanOp::Add, ScanOptions{ScanAlgorithm::SinglePass});
        std::printf("dbg scan: %u\n", b.download()[4999]);
    }
    int failures = 0, scan_failures = 0, runs = 0, prefix_failures = 0;
    for (int rep = 0; rep < 60; ++rep)
        for (std::int64_t n : {4095, 4097, 8193, 70001, 1000003}) {
            ++runs;
            std::vector<std::uint32_t> h(n);
            for (std::int64_t i = 0; i < n; ++i) h[i] = static_cast<std::uint32_t>((i + rep) * 2654435761u) >> 5;
            std::vector<std::uint32_t> want;
            for (auto v : h)
                if (v & 1u) want.push_back(v);
            auto in = rt.stream<std::uint32_t>({n}, h);
            auto out = rt.stream<std::uint32_t>({n});
            auto count = rt.stream<std::uint32_t>({1});
            const std::int64_t tiles = (n + kWg * V * 4 - 1) / (kWg * V * 4);
            auto state = rt.stream<std::uint32_t>({lb::state_words(tiles)});
            auto dbg = rt.stream<std::uint32_t>({tiles * 32});
            k(Groups{tiles}, in, state, out, count, dbg, static_cast<std::int32_t>(n));
            std::vector<std::uint32_t> got = out.download();
            const std::uint32_t c = count.download()[0];
            got.resize(want.size());
            {
                // The prefix each tile got against the kept ones before it.
                const std::vector<std::uint32_t> d = dbg.download();
                std::vector<std::uint32_t> before_tile(tiles + 1, 0);
                for (std::int64_t t = 0; t < tiles; ++t) {
                    std::uint32_t k = 0;
                    for (std::int64_t i = t * kWg * V * 4; i < std::min<std::int64_t>(n, (t + 1) * kWg * V * 4); ++i) k += h[i] & 1u;
                    before_tile[t + 1] = before_tile[t] + k;
                }
                for (std::int64_t g = 0; g < tiles; ++g)
                    if (d[g * 32 + 2] != before_tile[d[g * 32]]) { ++prefix_failures; break; }
            }
            if (c != want.size() || got != want) {
                ++failures;
                if (failures <= 3) {
                    std::printf("dbg_compact n=%lld rep=%d: count %u want %zu; contents %s\n", static_cast<long long>(n), rep, c,
                                want.size(), got == want ? "right" : "wrong");
                    const std::vector<std::uint32_t> d = dbg.download(), st = state.download();
                    for (std::int64_t g = 0; g < std::min<std::int64_t>(tiles, 8); ++g) {
                        std::printf("  group %lld: ticket %u groups %u start", static_cast<long long>(g), d[g * 32], d[g * 32 + 1]);
                        for (int s = 0; s < 4; ++s) std::printf(" %u", d[g * 32 + 2 + s]);
                        std::printf(" totals");
                        for (int s = 0; s < 4; ++s) std::printf(" %u", d[g * 32 + 8 + s]);
                        std::printf(" | lane 0 last: il %x ih %x al %x ah %x k %u window %u iterations %u j %d all %u active %x\n",
                                    d[g * 32 + 16], d[g * 32 + 17], d[g * 32 + 18], d[g * 32 + 19], d[g * 32 + 20],
                                    d[g * 32 + 21], d[g * 32 + 22], static_cast<int>(d[g * 32 + 23]), d[g * 32 + 24], d[g * 32 + 25]);
                    }
                    std::printf("  state:");
                    for (std::size_t w = 0; w < std::min<std::size_t>(st.size(), 40); ++w) std::printf(" %x", st[w]);
                    std::printf("\n");
                }
            }
            // The library's compaction and scan on the same data.
            Filter<std::uint32_t> odd("odd", [](Expr<std::uint32_t> v) { return (v & 1u) == 1u; });
            auto out2 = rt.stream<std::uint32_t>({n});
            const std::int64_t kept = odd(in, out2);
            std::vector<std::uint32_t> got2 = out2.download();
            got2.resize(want.size());
            if (kept != static_cast<std::int64_t>(want.size()) || got2 != want) ++scan_failures;
        }
    std::printf("dbg_compact: %d of %d runs wrong (%d with a wrong tile prefix); rill::Filter (default) %d wrong\n", failures, runs,
                prefix_failures, scan_failures);
}

inline void compact_debug(Runtime& rt) {
    if (std::getenv("RILL_TRIAL_V1")) compact_debug_v<1>(rt);
    else compact_debug_v<4>(rt);
}

}  // namespace rill::probe
