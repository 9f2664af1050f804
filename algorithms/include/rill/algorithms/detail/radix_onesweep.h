// The passes of rill::radix_sort in one sweep each (Adinets and Merrill 2022,
// "Onesweep"): one kernel counts the digits of every pass at once (one read
// of the keys), then each pass is one kernel that reads and writes the keys
// once. A pass's workgroup g takes tile g, sorts it by the digit in shared
// memory (sort_and_write_tile), and finds where each digit's keys go by a
// decoupled look-back per digit: invocation d publishes how many keys of
// digit d the tile has as soon as the tile's digits are counted (so that
// later tiles wait less), and once the tile is sorted in shared memory adds
// up those of the tiles before it (walking back until a tile that has
// published its inclusive count) and publishes its inclusive count. A tile
// before may not have started (nothing orders workgroups), so an invocation
// that waits too long for one counts that tile's keys of its digit itself
// (decoupled fallback, as the compaction's look_back::count_before). The
// first pass of a keys-only sort keeps no order among keys of one digit, so
// its tiles claim their places with an atomic per digit instead
// (claims_places). Against count-then-scatter (radix_digit_pass.h) it saves
// a read of the keys per pass, and needs a look-back that may wait (only
// where loops are not cut short: look_back::exact_on).
#pragma once

#include <rill/algorithms/detail/look_back.h>
#include <rill/algorithms/detail/radix_digit_pass.h>

namespace rill::detail::radix {

/// Passes whose digits one counting kernel counts at once.
constexpr int kMostPasses = 4;

/// Tile states of a pass: one word per (tile, digit), a count state
/// (look_back::kOwnCount): read whole, so no fence is needed.
/// The passes of a sort take consecutive states of one stream, zeroed once.
using look_back::kCountBits;
using look_back::kInclusiveCount;
using look_back::kOwnCount;
/// Keys a sweep can count in 30 bits.
constexpr std::int64_t kMostSweepKeys = look_back::kMostCounted;
/// Words of the tile states of one pass (on the host, or in a kernel). A
/// tile's 256 words start a 1 KB block, so that a subgroup's read of its
/// digits' states is whole 128-byte lines: on the H100 through Vulkan, with
/// every state one word further on (where a ticket counter came first) the
/// pairs' sweep took 2.67 against 2.59 ms per pass, the keys' 1.80 against
/// 1.77 (docs/PERFORMANCE.md#radix-sort).
template <class N>
N sweep_state_words(const N& tiles) { return tiles * kBins; }
/// OneSweep's tile for a sort of n keys: where the backend's tile (tile_for)
/// would leave a short sort in a few workgroups, each ranking 16-30 keys an
/// invocation one after another, tiles of 4 or 8 keys an invocation, so that
/// more workgroups share a pass and each is done sooner (a pass of 17,568
/// pairs, three tiles of 256 x 24, took 15 us on an H100 whatever its size
/// below 2^18). RILL_RADIX_SMALL_TILES=0 keeps the backend's tile at every
/// size (docs/TUNING.md), and so does RILL_RADIX_TILES=vulkan, so that the
/// code keyed on Vulkan's tiles runs on the few tiles its test sorts.
inline Tile sweep_tile_for(Tile tile, std::int64_t n) {
    static const bool small = [] {
        const char* v = std::getenv("RILL_RADIX_SMALL_TILES");
        return !(v && std::string_view(v) == "0");
    }();
    if (!small || vulkan_tiles_everywhere()) return tile;
    for (const int items : {4, 8})
        if (items < tile.items && n <= std::int64_t{64} * kWg * items) return Tile{items};
    return tile;
}

/// Whether `tile` is the one Vulkan's sweeps take (tile_for), with values or
/// not: what was tuned for that tile alone (the look-back's window, digits
/// recomputed after the scan) is keyed on it.
constexpr bool vulkan_sweep_tile(bool values, Tile tile) { return tile.items == (values ? kSweepPairsTile : kSweepKeysTile).items; }
/// Tiles whose states a step of the look-back reads at once (in flight
/// together). Each tile more in a window made a step about 50 ns longer on the
/// H100 (pairs 370 / 512 / 714 / 1068 ns per step with 2 / 4 / 8 / 16), and
/// fewer steps pay for it up to 4: the keys' sweep was fastest with 4 (1.736
/// ms per pass against 1.750 with 2 and 1.799 with 8), Vulkan's pairs' tile
/// with 2 (on the H200 2.099-2.103 ms against 2.114-2.117 with 3 and
/// 2.154-2.157 with 4), OpenGL's pairs (256 x 16) with 4
/// (docs/PERFORMANCE.md#radix-sort).
constexpr int sweep_window(bool values, Tile tile) { return values && vulkan_sweep_tile(values, tile) ? 2 : 4; }
/// Whether a step adds up its window with selects rather than a branch per
/// tile: the keys' sweep took 1.736 against 1.758 ms per pass with them, and
/// Vulkan's pairs at 256 x 24 on the H200 2.077-2.078 against 2.099-2.103;
/// other pairs' tiles were slower with them (2.664 against 2.581 at 256 x 22),
/// so they keep branches.
constexpr bool look_back_selects(bool values, Tile tile) { return !values || vulkan_sweep_tile(values, tile); }
/// Steps of the look-back in a row that find the next tile unpublished,
/// before the invocation counts that tile's keys of its digit itself. On the
/// H100 the sort took as long with 8 as with 64 (docs/PERFORMANCE.md#radix-sort):
/// there the tiles before have nearly always started. Its code
/// still costs time there: checked at every step, the keys' sweep took 1.773
/// ms per pass against 1.736 without a fallback, the pairs' 2.578 against
/// 2.550; checked in a loop of its own around the steps, the keys'
/// sweep took 0.6% less than checked at every step.
constexpr std::uint32_t kSweepFallbackSteps = 64;

/// Whether pass `pass` of a sort claims its tiles' places instead of looking
/// back: a tile adds its count of each digit to the digit's start in `starts`
/// with one atomic each and writes its keys where the digit then started. Tiles
/// claim in no fixed order, so keys of one digit leave in no fixed order: that
/// is stable only where no order among them is kept, the first pass of a
/// keys-only sort by every key bit (keys of one digit there differ only in
/// bits that later passes sort, or are equal; sorted by fewer bits, keys
/// that differ in the others keep their order). On the H100 through Vulkan,
/// 2^28 keys (docs/PERFORMANCE.md#radix-sort): the first pass took
/// 1.280-1.286 ms so against 1.394-1.396 looking back, the sort 6.009 against
/// 6.104-6.114 ms.
constexpr bool claims_places(bool values, int key_bits, int pass) { return !values && key_bits == 32 && pass == 0; }
/// The first pass that looks back (and has look-back states).
constexpr int first_looked_back(bool values, int key_bits) { return claims_places(values, key_bits, 0) ? 1 : 0; }

/// The digit of key k in pass p of a sort by `key_bits` key bits: bits 8 p ..
/// up to 8 p + 7 (fewer in a last, narrower pass), flipped for descending
/// order (descending: all ones or zero): the digit the pass's scatter sees.
inline Expr<std::uint32_t> pass_digit(const Expr<std::uint32_t>& k, int p, const Int& key_bits, const UInt& descending) {
    UInt width = cast<std::uint32_t>(min(key_bits - kDigitBits * p, kDigitBits));
    UInt mask = (1u << width) - 1u;
    return digit_of(k, UInt(static_cast<std::uint32_t>(kDigitBits * p)), mask, descending & mask);
}

/// OneSweep's counting kernel takes tiles of kTile in at most this many
/// workgroups, each adding its counts to `counts` with 1024 global atomics on
/// the same 1024 words. On the H100 through Vulkan, 2^28 keys
/// (docs/PERFORMANCE.md#radix-sort): 0.78 ms in a workgroup per tile, 0.49 ms
/// in 4096 (0.50 in 1024, 0.49 in 16384).
constexpr std::int64_t kCountGroups = 4096;

/// counts[p * kBins + d] += keys of digit d in pass p, for every pass of a sort
/// by `key_bits` key bits, over this workgroup's run of tiles. counts starts at
/// zero. A full tile's keys are counted pass by pass (the digits of one pass
/// in a row), the last tile's key by key: on the H100 the kernel took 0.61
/// against 0.76 ms at 2^28 in tiles of 256 x 24. It also zeroes
/// the `state_words` look-back states of the sweeps that follow, each
/// workgroup its share, while its loads are in flight, so that they need no
/// fill of their own: on the H100 at 2^28 the kernel took
/// 0.516-0.526 ms so (0.520-0.528 in 4-byte stores) against 0.495-0.498,
/// where the fill took 0.05 ms and the scan kernel below 0.011; passes that
/// zero the next pass's states instead slowed the sweep by 0.015 ms.
/// The last workgroup to finish (by a ticket in counts[kCountsTicket]) turns
/// the counts into their exclusive sum scan, every pass's in turn (the starts
/// sweep_tile reads), so that no scan kernel follows (0.011 ms at 2^28).
constexpr int kCountsTicket = kMostPasses * kBins;
inline auto make_pass_counts_kernel(int items) {
    const Tile tile{items};
    return group_kernel<kWg>("radix_pass_counts(keys, counts, state, state_words, size, count, counted, tiles_per_group, key_bits, descending)",
                             [tile](Array<std::uint32_t> keys, Array<std::uint32_t> counts, Array<std::uint32_t> state, Int state_words,
                                Int size, Array<std::uint32_t> count, Int counted, Int tiles_per_group, Int key_bits, UInt descending) {
        Int n = elements_to_sort(count, size, counted);
        Int lid = local_id();
        // In 16-byte stores: state_words is a whole number of tiles' 256 words.
        Int vectors = state_words / 4, share = (vectors + num_groups() - 1) / num_groups();
        For(group_id() * share + lid, min(group_id() * share + share, vectors), kWg,
            [&](Int i) { state.store_vector<4>(i, Expr<uint4>(0u, 0u, 0u, 0u)); });
        Shared<std::uint32_t> hist(kMostPasses * kBins, dsl::Unchecked{});  // indexed by pass and digit
        for (int p = 0; p < kMostPasses; ++p) hist.store(p * kBins + lid, 0u);
        barrier();
        auto [first, last] = tile_run(n, tiles_per_group, tile);
        For(first, last, [&](Int t) {
            std::vector<Var<std::uint32_t>> key = load_tile_keys(keys, n, t, tile);
            auto add = [&](int p, const Expr<std::uint32_t>& k) {
                hist.atomic_add(p * kBins + cast<std::int32_t>(pass_digit(k, p, key_bits, descending)), 1u);
            };
            auto pass_runs = [&](int p) { return kDigitBits * p < key_bits; };
            If(t * tile.size() + tile.size() <= n, [&] {
                for (int p = 0; p < kMostPasses; ++p)
                    If(pass_runs(p), [&] { for (int j = 0; j < tile.items; ++j) add(p, key[j]); });
            }).Else([&] {
                for (int j = 0; j < tile.items; ++j)
                    If(tile_key_in(n, t, tile, j), [&] {
                        for (int p = 0; p < kMostPasses; ++p) If(pass_runs(p), [&] { add(p, key[j]); });
                    });
            });
        });
        barrier();
        for (int p = 0; p < kMostPasses; ++p) {
            UInt c = hist.load(p * kBins + lid);
            If(c != 0u, [&] { counts.atomic_add(p * kBins + lid, c); });
        }
        memory_fence();  // this invocation's counts before the workgroup's ticket
        barrier();
        Shared<std::uint32_t> ticket(1, dsl::Unchecked{});
        If(lid == 0, [&] { ticket.store(0, counts.atomic_add(kCountsTicket, 1u)); });
        barrier();
        If(ticket.load(0) == cast<std::uint32_t>(num_groups() - 1), [&] {  // every other workgroup has counted
            memory_fence();
            Var<std::uint32_t> carry = 0u;  // the keys of the earlier passes
            for (int p = 0; p < kMostPasses; ++p) {
                if (p > 0) barrier();  // before workgroup_exclusive's shared totals are reused
                auto [before, total] = workgroup_exclusive<std::uint32_t>(kWg, ScanOp::Add, counts.atomic_load(p * kBins + lid), 0u);
                counts.store(p * kBins + lid, carry + before);
                carry = carry + total;
            }
        });
    });
}

/// One pass: this workgroup's tile sorted by the digit and
/// written where the digit counts of the whole pass and the look-back over
/// the tiles before it say, or (`claim`, claims_places) where the tile's
/// claim on each digit's places lands. `starts`: the exclusive sum scan of
/// the counts of make_pass_counts_kernel (below 2^32: fewer than 2^30 keys, 4
/// passes). `state`: sweep_state_words(tiles) per pass that looks back, zero;
/// this pass's start at word `states`. n: the keys to sort
/// (elements_to_sort). `bits`: the digit's bits in this pass (for the
/// ranking by splits).
template <class V, bool WithValues>
void sweep_tile(int S, Tile tile, bool claim, const Array<std::uint32_t>& keys, const Array<V>* values, const Array<std::uint32_t>& starts,
                const Array<std::uint32_t>& state, const Array<std::uint32_t>& keys_out, const Array<V>* values_out,
                const Int& n, const Int& pass, const Int& states, const UInt& shift, const UInt& mask, const UInt& flip,
                const Int& bits) {
    // One tile per workgroup: the counters are zeroed once. They live apart from the exchange: in its first words
    // they cost a barrier before the exchange (the pairs' sweep at 256 x 22 took 2.465-2.482 ms per pass so against
    // 2.327-2.349 apart on the H100; docs/PERFORMANCE.md#radix-sort).
    ScatterShared sh(S, tile, true);
    // For Vulkan's OneSweep tiles only (docs/PERFORMANCE.md#radix-sort): keys-only at 256 x 24, and 28 in a trial build, 110
    // registers against 175 without (256 x 30 was timed with it only); pairs at 256 x 20, 2.407-2.419
    // ms per pass against 2.433-2.445, and at 256 x 22, 128 registers against 178. At 256 x 16 the pairs'
    // sweep took 111 registers against 127 and was slower; through OpenGL the sort's timings varied too
    // much to tell.
    sh.recompute_digits = vulkan_sweep_tile(WithValues, tile);
    sh.rows_first = WithValues;
    sh.highest_leads = WithValues;
    sh.late_places = WithValues;
    sh.rows_per_write = WithValues && vulkan_sweep_tile(WithValues, tile) ? 2 : 0;
    sh.begin();
    Int lid = local_id();
    // The state word of digit local_id() of tile k in this pass.
    auto digit_state = [&](const Int& k) { return states + k * kBins + lid; };
    // By group_id rather than by a ticket (which would promise that every tile
    // waited for has started; the fallback below stands in): on the H100
    // through Vulkan the ticket took the pairs' sweep from 2.67 to 2.75 ms per
    // pass, the keys' from 1.80 to 1.83 (docs/PERFORMANCE.md#radix-sort).
    Int t = group_id();
    // The keys of digit local_id() in tile k, counted by this invocation alone (the fallback).
    auto count_digit = [&](const Int& k) {
        Var<std::uint32_t> c = 0u;
        UInt d = cast<std::uint32_t>(lid);
        For(k * tile.size(), min(k * tile.size() + tile.size(), n), [&](Int i) {
            c = c + select(digit_of(keys.load(i), shift, mask, flip) == d, 1u, 0u);
        });
        return Expr<std::uint32_t>(c);
    };
    // Where each digit's keys start in the output: the keys of lower digits.
    // `starts` is the exclusive scan of every pass's counts in turn, so the
    // earlier passes' n keys each come off.
    UInt earlier_passes = cast<std::uint32_t>(pass) * cast<std::uint32_t>(n);
    UInt digit_start = claim ? UInt(0u) : UInt(starts.load(pass * kBins + lid) - earlier_passes);
    // The workgroups past the last tile (n may be a count on the device) do nothing.
    For(t, min(t + 1, tile.count(n)), [&](Int) {
        Int tile_base = t * tile.size();
        Int in_tile = min(n - tile_base, tile.size());
        Var<std::uint32_t> own = 0u, first_here = 0u, claimed = 0u;
        Int word = digit_state(t);
        sort_and_write_tile<V, WithValues>(S, sh, keys, values, keys_out, values_out, n, tile_base, in_tile, shift, mask, flip,
                                           bits, [&](const UInt& first, const UInt& total) {
            // Invocation d: digit d's count, published at once (or its places claimed, read
            // once the tile is in shared memory). Keys past n sort last, at places in_tile and on.
            own = cast<std::uint32_t>(min(cast<std::int32_t>(first + total), in_tile) - min(cast<std::int32_t>(first), in_tile));
            first_here = first;
            if (claim) claimed = starts.atomic_add(pass * kBins + lid, own) - earlier_passes;
            else state.atomic_store(word, select(t == 0, kInclusiveCount, kOwnCount) | own);
        }, [&] {
            // Invocation d: the keys of digit d that go before this tile's. Claimed: where the
            // claim landed (digit_start, 0, is in it). Else by the look-back of digit d, once the
            // tile is sorted in shared memory: the tiles before have had that long to publish,
            // so it waits less.
            Var<std::uint32_t> before = 0u;
            if (claim) before = claimed;
            else If(t != 0, [&] {
                // A step reads tiles k, k - 1, ... at once and adds their counts from k down
                // until one is inclusive (done) or not published yet (read again next step).
                // Tile 0 publishes an inclusive count, so indices clamped to it are never
                // added; if tile 0 is counted by the fallback instead, k goes below 0: done.
                Int k = t - 1;
                Bool done = false;
                Var<std::uint32_t> stuck = 0u;  // steps in a row that added nothing
                auto step = [&] {
                    std::vector<Var<std::uint32_t>> w;
                    const int window = sweep_window(WithValues, tile);
                    for (int i = 0; i < window; ++i) w.emplace_back(state.atomic_load(digit_state(max(k - i, 0))));
                    if (look_back_selects(WithValues, tile)) {
                        // Tiles from k down while each is published and the one before it was not inclusive.
                        std::vector<Expr<bool>> alive{Expr<bool>(true)}, inclusive{Expr<bool>(false)};
                        std::vector<Expr<std::uint32_t>> sum{Expr<std::uint32_t>(0u)}, added{Expr<std::uint32_t>(0u)};
                        for (int i = 0; i < window; ++i) {
                            Expr<bool> add = alive.back() && w[i] >= kOwnCount;
                            sum.push_back(sum.back() + select(add, w[i] & kCountBits, 0u));
                            added.push_back(added.back() + select(add, 1u, 0u));
                            inclusive.push_back(inclusive.back() || (add && w[i] >= kInclusiveCount));
                            alive.push_back(add && w[i] < kInclusiveCount);
                        }
                        before = before + sum.back();
                        k = k - cast<std::int32_t>(added.back());
                        done = done || inclusive.back();
                        stuck = select(added.back() != 0u, 0u, stuck + 1u);
                        return;
                    }
                    Bool adding = true;
                    stuck = stuck + 1u;
                    for (int i = 0; i < window; ++i)
                        If(adding, [&] {
                            If(w[i] >= kOwnCount, [&] {
                                before = before + (w[i] & kCountBits);
                                k = k - 1;
                                stuck = 0u;
                                If(w[i] >= kInclusiveCount, [&] { done = true; adding = false; });
                            }).Else([&] { adding = false; });
                        });
                };
                // The fallback outside the loop of steps, which stays as it would be without it.
                While([&] { return !done; }, [&] {
                    stuck = 0u;
                    While([&] { return !done && stuck <= kSweepFallbackSteps; }, step);
                    If(!done, [&] {
                        before = before + count_digit(k);
                        k = k - 1;
                        done = k < 0;
                    });
                });
                state.atomic_store(word, kInclusiveCount | (before + own));
            });
            sh.offset.store(lid, digit_start + before - first_here);
            barrier();
        });
    });
}

/// The options of OneSweep's pairs' sweep: without rill's Array bounds
/// checks, as the keys' (keys_pass_options; every index is in range by
/// construction, values' loads clamped to n as the keys'), and with spirv-opt.
/// On the H100 through Vulkan, with its rows read before they are stored
/// (ScatterShared::rows_first), the sweep took 2.332-2.337 ms per pass
/// against 2.364-2.370 checked; unchecked with the rows stored one by one,
/// 2.353 (docs/PERFORMANCE.md#radix-sort).
inline GroupOptions sweep_pairs_options(Ranking r) {
    GroupOptions o = ballot_options(r);
    o.unchecked_arrays = true;
    return o;
}

/// A sweep's options: its barriers order shared memory only. Its invocations
/// hand one another data through shared memory alone (keys, counters,
/// offsets); other workgroups read what it writes, through the look-back's
/// atomics; none reads an Array element that another invocation of its
/// workgroup wrote. Ordering buffers too, as barriers after the look-back's
/// atomic stores otherwise do, costs NVIDIA's Vulkan driver a fence after
/// every barrier (docs/PERFORMANCE.md#radix-sort).
inline GroupOptions sweep_options(GroupOptions o) {
    o.shared_only_barriers = true;
    return o;
}

/// The kernel of a pass (`claims`: one whose tiles claim their places, claims_places).
template <class V, bool WithValues>
auto make_sweep_kernel(PassKernel k) {
    if constexpr (WithValues)
        return group_kernel<kWg>(
            "radix_sweep_pairs(keys, values, starts, state, keys_out, values_out, size, count, counted, pass, states, shift, mask, flip, bits)",
            sweep_options(sweep_pairs_options(k.ranking)),
            [S = k.ranking.size, tile = Tile{k.items}](Array<std::uint32_t> keys, Array<V> values, Array<std::uint32_t> starts, Array<std::uint32_t> state,
                             Array<std::uint32_t> keys_out, Array<V> values_out, Int size, Array<std::uint32_t> count, Int counted,
                             Int pass, Int states, UInt shift, UInt mask, UInt flip, Int bits) {
                sweep_tile<V, true>(S, tile, false, keys, &values, starts, state, keys_out, &values_out,
                                    elements_to_sort(count, size, counted), pass, states, shift, mask, flip, bits);
            });
    else
        return group_kernel<kWg>(
            std::string(k.claims ? "radix_sweep_keys_claiming" : "radix_sweep_keys") +
                "(keys, starts, state, keys_out, size, count, counted, pass, states, shift, mask, flip, bits)",
            sweep_options(keys_pass_options(k.ranking)),
            [S = k.ranking.size, tile = Tile{k.items}, claims = k.claims](Array<std::uint32_t> keys, Array<std::uint32_t> starts, Array<std::uint32_t> state,
                             Array<std::uint32_t> keys_out, Int size, Array<std::uint32_t> count, Int counted, Int pass,
                             Int states, UInt shift, UInt mask, UInt flip, Int bits) {
                sweep_tile<std::uint32_t, false>(S, tile, claims, keys, nullptr, starts, state, keys_out, nullptr,
                                                 elements_to_sort(count, size, counted), pass, states, shift, mask, flip, bits);
            });
}

}  // namespace rill::detail::radix
