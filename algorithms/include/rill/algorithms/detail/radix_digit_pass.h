// The passes of rill::radix_sort over uint32 keys: LSD radix sort by 8-bit
// digits (GPU Gems 3 ch. 39.3.3; Satish, Harris and Garland 2009). Each pass
// has three steps:
//   1. histogram: every workgroup counts the digits of its run of tiles into
//      counts[digit * groups + group];
//   2. an exclusive sum scan of counts: for each (digit, group), where the
//      group's keys with that digit start in the output;
//   3. scatter: every workgroup walks its tiles in order, sorts each tile of
//      6144 keys (4096 with values or off Vulkan: Tile) by the digit in shared memory (ranked by subgroup ballots,
//      or by one stable 1-bit split per digit bit where the device has no
//      subgroups to match in), and writes the sorted tile out: the keys of one
//      digit go to consecutive addresses, after those of the group's earlier
//      tiles.
// A workgroup takes a run of tiles rather than one so that the counts stay
// small (256 per workgroup) at any n. No workgroup ever waits for another.
#pragma once

#include <rill/algorithms/detail/ballot_rank.h>

#include <rill/algorithms/detail/device_count.h>
#include <rill/algorithms/detail/kernel_cache.h>
#include <rill/algorithms/detail/workgroup_scan.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>
#include <string_view>
#include <tuple>

namespace rill::detail::radix {

constexpr int kWg = 256;
constexpr int kDigitBits = 8;
constexpr std::int32_t kBins = 1 << kDigitBits;
static_assert(kBins == kWg, "the kernels give every invocation one bin");

/// The keys a workgroup sorts at once: kWg x items. The more, the less a
/// tile's fixed steps (counters, scans, barriers, look-back) cost per key, as
/// long as two workgroups still fit on an SM of NVIDIA's GPUs through Vulkan
/// (128 registers per invocation, about 48 KB of shared memory between them):
/// one more key per invocation past that takes one workgroup per SM and is
/// slower by a third or more. So each pass kind takes the largest tile that
/// fits: count-then-scatter's keys 256 x 24 (1.80 ms per pass on the H100
/// against 1.96 at 256 x 16), its pairs 256 x 20; OneSweep's keys 256 x 30
/// (their counters in halves), its pairs 256 x 24 with their digits computed
/// again after the scan (ScatterShared::recompute_digits) and their places
/// told after the ranking (ScatterShared::late_places), without which 256 x 24
/// took 171-176 registers. Three workgroups per SM in smaller tiles did not
/// pay, and OpenGL on the same GPU is fastest at 256 x 16. The figures and
/// what was tried: docs/PERFORMANCE.md#radix-sort and the commits it cites.
struct Tile {
    int items;  // keys per invocation
    constexpr std::int32_t size() const { return kWg * items; }
    /// Tiles that n keys take (on the host, or in a kernel).
    constexpr std::int64_t count(std::int64_t n) const { return (n + size() - 1) / size(); }
    Int count(const Int& n) const { return (n + (size() - 1)) / size(); }
};
/// The tiles through Vulkan of keys-only passes (count-then-scatter's, whose
/// scatter took 176-184 registers at 256 x 28 and 30, and its sort 10.7-10.9
/// against 7.5 ms; OneSweep's) and of pairs (count-then-scatter's,
/// OneSweep's), and of every other pass.
constexpr Tile kKeysTile{24}, kSweepKeysTile{30}, kPairsTile{20}, kSweepPairsTile{24}, kTile{16};
/// Whether RILL_RADIX_TILES=vulkan asks every backend for the tiles Vulkan takes. A test
/// knob: code keyed on Vulkan's OneSweep tiles then runs where CI can run OneSweep (the CPU
/// backend; lavapipe refuses it).
inline bool vulkan_tiles_everywhere() {
    const char* v = std::getenv("RILL_RADIX_TILES");
    if (!v || !*v) return false;
    if (std::string_view(v) == "vulkan") return true;
    throw Error("RILL_RADIX_TILES=" + std::string(v) + " is not a choice; use vulkan (every backend sorts in Vulkan's tiles) or leave it unset");
}
/// The tile a sort's passes take on a backend, with values or not, by OneSweep or not.
inline Tile tile_for(const BackendInfo& info, bool values, bool sweep) {
    if (!vulkan_tiles_everywhere() && info.name != "vulkan") return kTile;
    if (values) return sweep ? kSweepPairsTile : kPairsTile;
    return sweep ? kSweepKeysTile : kKeysTile;
}
/// The largest tile of any sort (bounds the keys a sort takes).
constexpr std::int32_t kMostTile =
    std::max({kKeysTile.size(), kSweepKeysTile.size(), kPairsTile.size(), kSweepPairsTile.size(), kTile.size()});
static_assert(kMostTile <= 0x10000, "a key's place in its tile takes 16 bits");
/// Sorts take fewer keys than 2^31 - kMostTile, so that tile offsets stay in int32.
inline Error too_many_keys() {
    return Error("rill::radix_sort: more than 2^31 - " + std::to_string(kMostTile + 1) + " keys; split the stream");
}

/// Workgroups of one pass at most, when the caller does not choose: the
/// counts (256 per workgroup: 64 MB at most) stay small next to the keys. On
/// the H100 (docs/PERFORMANCE.md#radix-sort), 2^28 pairs sorted fastest in runs of 1
/// tile (14.24 against 20.15 ms in runs of 4), keys in tiles of
/// 6144 too (8.78 ms against 8.89 in runs of 2), keys in tiles of
/// 4096 in runs of 2 (10.06 ms against 10.43 in runs of 4).
inline std::int64_t default_groups(Tile tile, bool values) { return values || tile.items != kTile.items ? 65536 : 32768; }
/// Loop iterations a workgroup's invocation runs per tile in the scatter, at
/// most (8 splits, each a workgroup scan of up to 8 steps without subgroups):
/// what a driver's loop limit allows is divided by it.
constexpr std::int64_t kLoopsPerTile = 1 + kDigitBits * (1 + 8);

/// The digit of key k in a pass: key bits shift .. shift + log2(mask + 1),
/// flipped (flip = mask) for a descending sort.
inline Expr<std::uint32_t> digit_of(const Expr<std::uint32_t>& k, const UInt& shift, const UInt& mask, const UInt& flip) {
    return ((k >> shift) & mask) ^ flip;
}

/// The tiles of this workgroup's run: [first, last).
inline std::pair<Int, Int> tile_run(const Int& n, const Int& tiles_per_group, Tile tile) {
    Int tiles = tile.count(n);
    Int first = group_id() * tiles_per_group;
    return {first, min(first + tiles_per_group, tiles)};
}

/// The keys of tile t that invocation local_id() takes: key j at place
/// j kWg + local_id() of the tile (past n: a copy of key n - 1), every load
/// issued at once, so that they are in flight together.
inline std::vector<Var<std::uint32_t>> load_tile_keys(const Array<std::uint32_t>& keys, const Int& n, const Int& t, Tile tile) {
    std::vector<Var<std::uint32_t>> key;
    for (int j = 0; j < tile.items; ++j) key.emplace_back(keys.load(min(t * tile.size() + j * kWg + local_id(), n - 1)));
    return key;
}
/// Whether key j of load_tile_keys is one of the n.
inline Expr<bool> tile_key_in(const Int& n, const Int& t, Tile tile, int j) { return t * tile.size() + j * kWg + local_id() < n; }

/// Counts the keys of tile t below n (load_tile_keys).
template <class Count>
void count_tile_keys(const Array<std::uint32_t>& keys, const Int& n, const Int& t, Tile tile, Count count) {
    std::vector<Var<std::uint32_t>> key = load_tile_keys(keys, n, t, tile);
    for (int j = 0; j < tile.items; ++j) If(tile_key_in(n, t, tile, j), [&] { count(Expr<std::uint32_t>(key[j])); });
}

inline auto make_histogram_kernel(int items) {
    const Tile tile{items};
    return group_kernel<kWg>("radix_histogram(keys, counts, size, count, counted, tiles_per_group, shift, mask, flip)",
                             [tile](Array<std::uint32_t> keys, Array<std::uint32_t> counts, Int size, Array<std::uint32_t> count,
                                Int counted, Int tiles_per_group, UInt shift, UInt mask, UInt flip) {
        Int n = elements_to_sort(count, size, counted);
        Shared<std::uint32_t> hist(kBins, dsl::Unchecked{});  // indexed by digits, below kBins
        hist.store(local_id(), 0u);
        barrier();
        auto [first, last] = tile_run(n, tiles_per_group, tile);
        For(first, last, [&](Int t) {
            count_tile_keys(keys, n, t, tile, [&](const Expr<std::uint32_t>& key) { hist.atomic_add(digit_of(key, shift, mask, flip), 1u); });
        });
        barrier();
        counts.store(local_id() * num_groups() + group_id(), hist.load(local_id()));
    });
}

/// Shared memory (words) the exchange and the counters of the ranking by
/// ballots take together at most: 23 KB, 24 KB with the offsets, so that two
/// workgroups fit in the 48 KB that NVIDIA's Vulkan and OpenGL drivers give
/// an H100 SM (measured by rill-bench-occupancy: two workgroups of up to 24
/// KB, three of up to 16 KB; docs/PERFORMANCE.md#radix-sort), and one in the
/// 32 KB that OpenGL promises. 256 x 30 keys in subgroups of 32 take 5888
/// (counters a word each, 2 parts); OneSweep's pairs of 256 x 24 take 5120
/// (a word each, 2 parts), count-then-scatter's of 256 x 20 4608.
constexpr int kExchangeWords = 6144 - kBins;

/// How the ranking by ballots keeps its counters, one per (subgroup, digit),
/// and in how many parts the tile then passes through shared memory (the
/// keys wait in registers meanwhile), whole rows per invocation: the
/// counters and a part take kExchangeWords together.
struct Counters {
    bool packed;  // 16 bits each, two to a word; else a word each
    int words;
    int parts;  // of the tile exchanged in turn; 0: does not fit
};
inline Counters counters_packed(int S, Tile tile, bool packed) {
    const int words = kWg / S * kBins / (packed ? 2 : 1);
    auto fits = [&](int parts) { return tile.items % parts == 0 && tile.size() / parts + words <= kExchangeWords; };
    int parts = 1;
    while (parts <= tile.items && !fits(parts)) ++parts;
    return {packed, words, parts <= tile.items ? parts : 0};
}
/// A word per counter where the tile then passes in as few parts as with
/// packed counters (a subgroup counts at most S x items < 2^16 keys of a
/// digit, and a place in the tile is below kMostTile <= 2^16). On the H100
/// through Vulkan (docs/PERFORMANCE.md#radix-sort) the packed counters'
/// halves took the scatter at 256 x 24 from 120 to 178 registers (one
/// workgroup per SM, 1.52 against 2.55 ms per pass), while at 256 x 16 they
/// spare a second part. Subgroups of 32 count in words at 256 x 24 and 256 x
/// 30, in halves at 256 x 16 (OneSweep's keys through Vulkan at 256 x 30:
/// 1.407-1.416 ms per pass in words, 1.533 in halves; through OpenGL, at 256 x 16 in 1 part, not timed); subgroups of 8 or
/// 16 in halves.
inline Counters counters_for(int S, Tile tile) {
    const Counters words = counters_packed(S, tile, false), halves = counters_packed(S, tile, true);
    return words.parts != 0 && (halves.parts == 0 || words.parts <= halves.parts) ? words : halves;
}

/// The shared memory of the scatter. `items` holds the tile, or a part of
/// it, while it is sorted (keys, or places in the tile for pairs); `offset`
/// per digit, the output place of the tile's key at place p is
/// offset[digit] + p. The ranking by ballots counts in `counters`
/// (counters_for), zero when a tile starts, and adds up over the workgroup
/// in `subgroup_totals` (the first words of `items`, which hold nothing then);
/// the ranking by splits marks where each digit's keys `start` and `end` in
/// the sorted tile.
struct ScatterShared {
    /// S: subgroup size of the ranking by ballots; 0 for splits. `one_tile`:
    /// each workgroup sorts one tile, so its counters are zeroed once (begin)
    /// and not again for a next tile.
    // Every index is a place in the tile, a counter or a digit (below kBins):
    // in range by construction, accessed without bounds checks.
    ScatterShared(int S, Tile tile, bool one_tile)
        : tile(tile),
          one_tile(one_tile),
          layout(S > 0 ? counters_for(S, tile) : Counters{false, 0, 1}),
          items(S > 0 ? tile.size() / layout.parts : padded_size(tile.size()), dsl::Unchecked{}),
          counters(std::max(layout.words, 1), dsl::Unchecked{}),
          subgroup_totals(S > 0 ? items : Shared<std::uint32_t>(1, dsl::Unchecked{})),
          start(S > 0 ? offset : Shared<std::uint32_t>(kBins, dsl::Unchecked{})),  // used by splits only
          end(S > 0 ? offset : Shared<std::uint32_t>(kBins, dsl::Unchecked{})) {}
    Tile tile;
    bool one_tile;
    Counters layout;  // of `counters` (no words for splits), and the parts the tile is exchanged in
    /// The ranking by ballots computes each key's digit again after the scan
    /// (rank_tile_by_match) instead of keeping it from before.
    bool recompute_digits = false;
    /// Pairs: each part's rows are all read from shared memory (keys with
    /// their output places, then values) before any is stored, rather than
    /// row by row, each store behind its own check against in_tile. For
    /// OneSweep's pairs, whose kernel has no Array bounds checks: on the H100
    /// through Vulkan (docs/PERFORMANCE.md#radix-sort) the sweep took
    /// 2.332-2.337 ms per pass against 2.364-2.370 row by row, where NVIDIA's
    /// compiler had made each row a branch of its own with both of its shared
    /// loads inside; with the checks on, the rows read first took 2.425.
    bool rows_first = false;
    /// The ranking by ballots lets the highest of the lanes with one digit
    /// add for them all, rather than the lowest. For OneSweep's pairs: on the
    /// H200 through Vulkan (docs/PERFORMANCE.md#radix-sort) their sort took
    /// 9.061-9.071 ms against 9.143-9.144; the keys' 5.551-5.560 against
    /// 5.537-5.546, so they keep the lowest.
    bool highest_leads = false;
    /// Each invocation's places in the sorted tile (row j of a part: its
    /// index + j kWg), which the writes check against the tile's keys, come
    /// from its index plus a zero that the compiler cannot see before the
    /// tile is ranked: NVIDIA's compiler otherwise works them out at the start
    /// and keeps every row's in a register through the ranking. For
    /// OneSweep's pairs: on the H200 through Vulkan (docs/PERFORMANCE.md#radix-sort)
    /// their sweep took 2.121-2.123 ms per pass against 2.136-2.139
    /// at 256 x 22, and fit 256 x 24 in 128 registers (2.101, against 171
    /// registers and 3.11 ms without).
    bool late_places = false;
    /// With rows_first, a part's rows are read from shared memory and
    /// written out this many at a time (0: all at once), a subgroup barrier
    /// after each group but the last. NVIDIA's Vulkan driver makes that
    /// barrier a workgroup BAR.SYNC, past which its compiler does not read
    /// later rows early; without it the compiler reads a whole part at once
    /// while every key, the values and the places are still held (the
    /// sweep's register peak). For Vulkan's OneSweep pairs' tile of 256 x 24:
    /// on the H200 (docs/PERFORMANCE.md#radix-sort) the sweep took
    /// 2.000-2.002 ms per pass in groups of 2 against 2.089-2.094 in whole
    /// parts (groups of 4: 2.012-2.014, of 6: 2.041), the sort 1.005-1.007
    /// of CUB's pairs.
    int rows_per_write = 0;
    Shared<std::uint32_t> items;
    Shared<std::uint32_t> offset{kBins, dsl::Unchecked{}};
    Shared<std::uint32_t> counters, subgroup_totals;
    Shared<std::uint32_t> start, end;
    /// Sets the counters of the ranking by ballots to zero (the caller's barrier follows).
    void zero_counters() const {
        for (int k = 0; k * kWg < layout.words; ++k)
            If(k * kWg + local_id() < layout.words, [&] { counters.store(k * kWg + local_id(), 0u); });
    }
    /// Before a workgroup's first tile.
    void begin() const {
        if (layout.words == 0) return;
        zero_counters();
        barrier();
    }
};

/// Sorts a tile by the digit with one stable 1-bit split per digit bit, each a
/// workgroup scan of the zeros (any subgroup size, 1 included). Pairs sort
/// digit << 16 | place in the tile. Calls place_digits (sort_and_write_tile).
template <bool WithValues, class PlaceDigits>
void sort_tile_by_splits(const ScatterShared& sh, const Array<std::uint32_t>& keys, const Int& n, const Int& tile_base,
                         const Int& in_tile, const UInt& shift, const UInt& mask, const UInt& flip, const Int& bits,
                         PlaceDigits place_digits) {
    Int lid = local_id();
    UInt item_shift = WithValues ? UInt(16u) : shift;
    UInt item_flip = WithValues ? UInt(0u) : flip;
    auto digit = [&](const Expr<std::uint32_t>& item) { return digit_of(item, item_shift, mask, item_flip); };
    // Past n: an item of the largest digit, which sorts after every key of the
    // tile (stably after the keys of that digit) and is not written.
    for (int j = 0; j < sh.tile.items; ++j) {
        Int i = j * kWg + lid;
        UInt key = keys.load(min(tile_base + i, n - 1));
        if constexpr (WithValues) {
            UInt d = select(i < in_tile, digit_of(key, shift, mask, flip), Expr<std::uint32_t>(mask));
            sh.items.store(padded(i), (d << 16u) | cast<std::uint32_t>(i));
        } else {
            sh.items.store(padded(i), select(i < in_tile, key, select(flip == 0u, 0xffffffffu, 0u)));
        }
    }
    barrier();
    Int row = lid * sh.tile.items;
    std::vector<Var<std::uint32_t>> x;
    for (int j = 0; j < sh.tile.items; ++j) x.emplace_back(sh.items.load(padded(row + j)));
    For(0, bits, [&](Int b) {  // lowest bit first: zeros, then ones
        UInt at_bit = item_shift + cast<std::uint32_t>(b);
        UInt flip_bit = (item_flip >> cast<std::uint32_t>(b)) & 1u;
        std::vector<Var<std::uint32_t>> one, zeros_before;
        Var<std::uint32_t> zeros = 0u;
        for (int j = 0; j < sh.tile.items; ++j) {
            one.emplace_back(((x[j] >> at_bit) & 1u) ^ flip_bit);
            zeros_before.emplace_back(Expr<std::uint32_t>(zeros));
            zeros = zeros + (one[j] ^ 1u);
        }
        auto [before, total] = workgroup_exclusive<std::uint32_t>(kWg, ScanOp::Add, zeros, 0u);
        for (int j = 0; j < sh.tile.items; ++j) {
            UInt z = before + zeros_before[j];
            UInt at = select(one[j] == 0u, z, total + (cast<std::uint32_t>(row + j) - z));
            sh.items.store(padded(cast<std::int32_t>(at)), x[j]);
        }
        barrier();
        for (int j = 0; j < sh.tile.items; ++j) x[j] = sh.items.load(padded(row + j));
    });
    sh.start.store(lid, 0u);
    sh.end.store(lid, 0u);
    barrier();
    for (int j = 0; j < sh.tile.items; ++j) {
        Int p = j * kWg + lid;
        UInt d = digit(sh.items.load(padded(p)));
        Bool first_of_digit = p == 0 || d != digit(sh.items.load(padded(max(p - 1, 0))));
        Bool last_of_digit = p == sh.tile.size() - 1 || d != digit(sh.items.load(padded(min(p + 1, sh.tile.size() - 1))));
        If(first_of_digit, [&] { sh.start.store(d, cast<std::uint32_t>(p)); });
        If(last_of_digit, [&] { sh.end.store(d, cast<std::uint32_t>(p + 1)); });
    }
    barrier();
    UInt first = sh.start.load(lid);
    place_digits(first, sh.end.load(lid) - first);
    barrier();
}

/// The lanes of the subgroup whose digit equals this lane's `d` (8 ballots),
/// as how many of them are below this lane, how many there are, which of
/// them leads them (the highest, `highest_leads`, or the lowest), and whether
/// this lane does. `active`: subgroup_ballot(true), taken once by the caller
/// for all its keys (NVIDIA's compiler repeats a ballot per key). Subgroups of
/// up to 32 use one word of the ballots.
struct Peers {
    Int below, count, leader;
    Bool leads;
};
/// Whether this lane leads its peers, told from the counts: told from the
/// leader's lane (whose bit search the atomic then waits for), the keys' sort
/// took 5.634-5.654 ms on the H200 against 5.537-5.546.
inline Peers peers_of(const Int& below, const Int& count, const Int& leader, bool highest_leads) {
    return {below, count, leader, highest_leads ? below == count - 1 : below == 0};
}
inline Peers match_digit(int S, const Expr<std::uint32_t>& d, const Expr<uint4>& active, bool highest_leads) {
    if (S <= 32) {
        Var<std::uint32_t> peers = active.x();
        for (int b = 0; b < kDigitBits; ++b) {
            UInt bit = (d >> static_cast<std::uint32_t>(b)) & 1u;
            peers = peers & (subgroup_ballot(bit == 1u).x() ^ (bit - 1u));  // bit - 1: all ones where clear
        }
        UInt below_me = lanes_below_word();
        return peers_of(cast<std::int32_t>(bit_count(peers & below_me)), cast<std::int32_t>(bit_count(peers)),
                        cast<std::int32_t>(highest_leads ? find_msb(peers) : find_lsb(peers)), highest_leads);
    }
    Var<uint4> peers = active;
    for (int b = 0; b < kDigitBits; ++b) {
        UInt bit = (d >> static_cast<std::uint32_t>(b)) & 1u;
        UInt same = bit - 1u;
        peers = peers & (subgroup_ballot(bit == 1u) ^ Expr<uint4>(same, same, same, same));
    }
    Expr<uint4> below_me = lanes_below();
    // The leader: the lowest set bit of the first nonzero word from x, or the highest from w.
    const std::array<Expr<std::uint32_t>, 4> word{peers.x(), peers.y(), peers.z(), peers.w()};
    auto lane_in = [&](int c) -> Expr<std::int32_t> {
        Expr<std::int32_t> bit = cast<std::int32_t>(highest_leads ? find_msb(word[c]) : find_lsb(word[c]));
        if (c == 0) return bit;
        return 32 * c + bit;
    };
    const int step = highest_leads ? -1 : 1;  // from word w down, or from x up
    auto first_set = [&](auto&& self, int c) -> Expr<std::int32_t> {
        if (c + step < 0 || c + step > 3) return lane_in(c);
        return select(word[c] != 0u, lane_in(c), self(self, c + step));
    };
    Int leader = first_set(first_set, highest_leads ? 3 : 0);
    return peers_of(ballot_bit_count(peers & below_me), ballot_bit_count(peers), leader, highest_leads);
}

/// The element of the tile that invocation local_id() ranks as its j-th: subgroup
/// w takes elements w S items .. (w + 1) S items - 1, row j of them its lanes in order.
inline Int ranked_element(int S, Tile tile, int j) { return local_id() / S * (S * tile.items) + j * S + subgroup_invocation(); }

/// A tile ranked by ballots (rank_tile_by_match), in registers: the keys this
/// invocation ranked (ranked_element; past n, a key of the largest digit,
/// which sorts last and is not written) and the place in the sorted tile of
/// each, two to a word (places are below 2^16), so that a tile of 256 x 24
/// keys fits in the 128 registers that keep two workgroups on an SM.
struct RankedTile {
    std::vector<Var<std::uint32_t>> key, places;
    Expr<std::uint32_t> place(int j) const {
        return j % 2 == 0 ? Expr<std::uint32_t>(places[j / 2] & 0xffffu) : Expr<std::uint32_t>(places[j / 2] >> 16u);
    }
    // Adds x to the place of the j-th key (x and the sum below 2^16).
    void add(int j, const Expr<std::uint32_t>& x) { places[j / 2] = places[j / 2] + (j % 2 == 0 ? x : x << 16u); }
};

/// Exclusive sum of x over the workgroup, in subgroups of exactly S
/// invocations: each subgroup's total goes to `totals`, and after one barrier
/// every invocation adds those of the subgroups before its own.
inline Expr<std::uint32_t> exclusive_over_workgroup(int S, const Expr<std::uint32_t>& x, const Shared<std::uint32_t>& totals) {
    Int w = local_id() / S;
    UInt inclusive = subgroup_inclusive_add(x);
    If(subgroup_invocation() == S - 1, [&] { totals.store(w, inclusive); });
    barrier();
    Var<std::uint32_t> before = inclusive - x;
    for (int g = 0; g + 1 < kWg / S; ++g) before = before + select(g < w, totals.load(g), Expr<std::uint32_t>(0u));
    return before;
}

/// Ranks a tile by the digit in one go, as Onesweep does (Adinets and Merrill
/// 2022): subgroup w takes tile elements w S items .. (w + 1) S items - 1, rows
/// of S (ranked_element); in each row the lanes with the same digit find each
/// other with 8 ballots, and one of them (sh.highest_leads) adds their number
/// to the subgroup's counter of that digit (sh.counters, zero at the start). Then
/// invocation d adds up digit d's counters, the workgroup scans the totals,
/// and each counter becomes where its subgroup's keys of the digit start in
/// the sorted tile: every element's place, stably. Subgroups of exactly S (8
/// to 128) invocations with ballots and shuffles. Calls place_digits
/// (sort_and_write_tile) as soon as the digit counts are known. `items` holds
/// the subgroup totals only between two barriers of the ranking (every read of
/// it before, for an earlier tile, is done): the caller may store into it as
/// soon as this returns, and must zero the counters (behind a barrier) before
/// the next tile. `full_apart`: a full
/// tile loads its keys without clamping their indices to n or marking those
/// past it (full_tiles_apart).
template <class PlaceDigits>
RankedTile rank_tile_by_match(int S, const ScatterShared& sh, const Array<std::uint32_t>& keys, const Int& n,
                              const Int& tile_base, const Int& in_tile, const UInt& shift, const UInt& mask, const UInt& flip,
                              bool full_apart, PlaceDigits place_digits) {
    const bool packed = sh.layout.packed;
    const int row = kBins / (packed ? 2 : 1);  // words of a subgroup's counters
    const int groups = kWg / S;
    Int lid = local_id();
    Int w = lid / S;
    // The counter of digit d in subgroup g: a word of sh.counters and the shift of its half.
    auto counter = [&](const Int& g, const Expr<std::uint32_t>& d) {
        if (!packed) return std::pair<Int, UInt>(g * row + cast<std::int32_t>(d), UInt(0u));
        return std::pair<Int, UInt>(g * row + cast<std::int32_t>(d >> 1u), (d & 1u) << 4u);
    };
    auto half_of = [packed](const Expr<std::uint32_t>& word, const UInt& half) -> Expr<std::uint32_t> {
        return packed ? (word >> half) & 0xffffu : word;
    };
    auto digit = [&](const Expr<std::uint32_t>& key) { return digit_of(key, shift, mask, flip); };
    RankedTile r;
    auto load = [&](int j, bool clamp) {
        Int i = tile_base + ranked_element(S, sh.tile, j);
        return keys.load(clamp ? Expr<std::int32_t>(min(i, n - 1)) : Expr<std::int32_t>(i));
    };
    // Past n: a key of the largest digit, which sorts last and is not written.
    UInt past_n = select(flip == 0u, 0xffffffffu, 0u);  // of digit mask
    auto in_n = [&](int j) { return ranked_element(S, sh.tile, j) < in_tile; };
    if (full_apart) {
        for (int j = 0; j < sh.tile.items; ++j) r.key.emplace_back(0u);
        If(in_tile == sh.tile.size(), [&] {
            for (int j = 0; j < sh.tile.items; ++j) r.key[j] = load(j, false);
        }).Else([&] {
            for (int j = 0; j < sh.tile.items; ++j) r.key[j] = select(in_n(j), load(j, true), past_n);
        });
    } else {
        for (int j = 0; j < sh.tile.items; ++j) r.key.emplace_back(load(j, true));
    }
    Var<uint4> active = subgroup_ballot(Expr<bool>(true));
    for (int j = 0; j < sh.tile.items; ++j) {
        if (!full_apart) r.key[j] = select(in_n(j), Expr<std::uint32_t>(r.key[j]), past_n);
        UInt d = digit(r.key[j]);
        Peers peers = match_digit(S, d, active, sh.highest_leads);
        auto [word, half] = counter(w, d);
        // Every lane adds, without a branch: the leader its peers' number to their counter, the others 0 to a
        // counter of their subgroup (word `lane` of its row; adding 0 changes nothing, whichever add comes first).
        // On the H200 through Vulkan (docs/PERFORMANCE.md#radix-sort), against the leader alone in a branch: the
        // keys' sort 5.537-5.546 ms against 5.850-5.856, their claiming pass 1.100-1.112 against 1.256-1.257.
        Int at = select(peers.leads, word, w * row + subgroup_invocation());
        UInt before = half_of(sh.counters.atomic_add(at, select(peers.leads, cast<std::uint32_t>(peers.count) << half, 0u)), half);
        UInt rank = subgroup_shuffle(before, peers.leader) + cast<std::uint32_t>(peers.below);
        if (j % 2 == 1) r.add(j, rank);
        else r.places.emplace_back(rank);
    }
    barrier();  // every key counted
    // Invocation d: the keys of digit d in the tile, and where they start in the sorted tile.
    UInt d = cast<std::uint32_t>(lid);
    Var<std::uint32_t> total = 0u;
    for (int g = 0; g < groups; ++g) {
        auto [word, half] = counter(Int(g), d);
        total = total + half_of(sh.counters.load(word), half);
    }
    UInt first = exclusive_over_workgroup(S, total, sh.subgroup_totals);  // every counter read before its barrier
    place_digits(first, total);
    // Each counter becomes where its subgroup's keys of the digit start: invocation
    // d walks digit d's counters, or, packed, invocation d of even d the words
    // that hold the counters of digits d and d + 1.
    if (!packed) {
        Var<std::uint32_t> run = first;
        for (int g = 0; g < groups; ++g) {
            Int word = g * row + lid;
            UInt counts = sh.counters.load(word);
            sh.counters.store(word, run);
            run = run + counts;
        }
    } else If((lid & 1) == 0, [&] {
        Var<std::uint32_t> low = first, high = first + total;
        for (int g = 0; g < groups; ++g) {
            Int word = g * row + lid / 2;
            UInt counts = sh.counters.load(word);
            sh.counters.store(word, low | (high << 16u));
            low = low + (counts & 0xffffu);
            high = high + (counts >> 16u);
        }
    });
    barrier();
    // Through a shift equal to `shift` (n < 2^31) that the compiler cannot
    // prove equal, so that it recomputes the digits rather than keeping every
    // key's digit live across the scan: on the H100 through Vulkan OneSweep's
    // keys-only sweep took 113 registers against 127, 1.825 against 1.834 ms
    // per pass; count-then-scatter's scatter 123 against 120, slower, so it
    // keeps them (docs/PERFORMANCE.md#radix-sort).
    const UInt shift_again = sh.recompute_digits ? UInt(shift | (cast<std::uint32_t>(n) >> 31u)) : shift;
    for (int j = 0; j < sh.tile.items; ++j) {
        auto [word, half] = counter(w, digit_of(r.key[j], shift_again, mask, flip));
        r.add(j, half_of(sh.counters.load(word), half));
    }
    return r;
}

/// Values of one 32-bit word go through shared memory with the keys; others
/// are fetched by their place in the tile.
template <class V>
constexpr bool kOneWordValue = std::is_same_v<V, std::uint32_t> || std::is_same_v<V, std::int32_t> || std::is_same_v<V, float>;

template <class V>
Expr<std::uint32_t> value_word(const Expr<V>& v) {
    if constexpr (std::is_same_v<V, float>) return float_bits_to_uint(v);
    else return cast<std::uint32_t>(v);  // int32: the same bits
}
template <class V>
Expr<V> word_value(const Expr<std::uint32_t>& w) {
    if constexpr (std::is_same_v<V, float>) return uint_bits_to_float(w);
    else return cast<V>(w);
}

/// One tile of step 3: sorted by the digit in shared memory, then written
/// out in the sorted order, striped across the workgroup (a digit's keys go
/// to consecutive addresses). `place_digits(first, total)` says where:
/// invocation d calls it for digit d once the tile's digits are counted (its
/// keys start at place `first` of the sorted tile, `total` of them, keys past
/// n counted in the largest digit) and stores in sh.offset[d] the output
/// place of that first key minus `first`. Every invocation calls it, in
/// uniform control flow; a barrier follows before sh.offset is read. Or, for
/// what must wait longer: `place_late()` runs once the (first part of the)
/// sorted tile is in shared memory, before any of it is written out (in
/// uniform control flow; if it stores sh.offset, it ends with a barrier).
/// Ranked by ballots, the tile passes through shared memory in sh.layout.parts parts
/// in turn, from registers. Values of one word follow their keys through
/// shared memory (a second exchange, at the places the ranking gave); other
/// pairs fetch key and value by their place in the tile (read just before:
/// cached), so that values of any type never pass through shared memory. S:
/// the subgroup size to rank by ballots with, 0 to rank by 1-bit splits. The
/// next tile may follow at once: before it the workgroup has passed a barrier
/// since its last read of shared memory (ranked by ballots, after the
/// counters were zeroed, early in the tile), unless sh.one_tile (no next
/// tile).
template <class V, bool WithValues, class PlaceDigits, class PlaceLate>
void sort_and_write_tile(int S, const ScatterShared& sh, const Array<std::uint32_t>& keys, const Array<V>* values,
                         const Array<std::uint32_t>& keys_out, const Array<V>* values_out, const Int& n, const Int& tile_base,
                         const Int& in_tile, const UInt& shift, const UInt& mask, const UInt& flip, const Int& bits,
                         PlaceDigits place_digits, PlaceLate place_late) {
    Int lid = local_id();
    // Where the sorted tile's p-th element goes: after the earlier keys of its digit.
    auto out_place = [&](const Expr<std::uint32_t>& key, const Int& p) {
        return sh.offset.load(digit_of(key, shift, mask, flip)) + cast<std::uint32_t>(p);
    };
    constexpr bool kValuesShared = WithValues && kOneWordValue<V>;  // values through shared memory
    constexpr bool kByPlace = WithValues && !kOneWordValue<V>;      // keys and values fetched by place
    // Keys only: a full tile (every tile but the last) is traced apart from
    // the last, its keys loaded without clamping indices to n or marking those
    // past it, and written without checking places against n. On the H100
    // through Vulkan, 2^28 keys (docs/PERFORMANCE.md#radix-sort): OneSweep's
    // keys' sweep 1.527-1.536 against 1.544-1.556 ms per pass, count-then-
    // scatter's keys 7.43-7.45 against 7.55-7.56 ms. The pairs' sweep took
    // 2.66-2.76 against 2.59 ms per pass so (at 256 x 16, 128 registers), and
    // keeps one path.
    constexpr bool kFullTilesApart = !WithValues;
    if (S > 0) {
        RankedTile r = rank_tile_by_match(S, sh, keys, n, tile_base, in_tile, shift, mask, flip, kFullTilesApart, place_digits);
        // Loaded in the ranking's layout, in flight while place_late waits
        // (OneSweep's look-back) and the keys are written.
        std::vector<Var<V>> value;
        if constexpr (kValuesShared)
            for (int j = 0; j < sh.tile.items; ++j) value.emplace_back(values->load(min(tile_base + ranked_element(S, sh.tile, j), n - 1)));
        const int part = sh.tile.size() / sh.layout.parts, rows = sh.tile.items / sh.layout.parts;
        // The zero of sh.late_places: every place in the tile is below 2^16.
        Int place_lid = sh.late_places ? Int(lid + cast<std::int32_t>(r.places[0] >> 31u)) : lid;
        // A part's rows [first, last) in groups of sh.rows_per_write (rows_first only), a subgroup barrier between groups.
        auto in_row_groups = [&](int rows_in_part, auto write) {
            const int group = sh.rows_first && sh.rows_per_write > 0 ? sh.rows_per_write : rows_in_part;
            for (int first = 0; first < rows_in_part; first += group) {
                if (first > 0) subgroup_barrier();
                write(first, std::min(rows_in_part, first + group));
            }
        };
        // The items of part h of the sorted tile go to `items` at their places there.
        auto exchange = [&](int h, auto item) {
            for (int j = 0; j < sh.tile.items; ++j) {
                Int at = cast<std::int32_t>(r.place(j));
                if (sh.layout.parts == 1) sh.items.store(at, item(j));
                else If(at / part == h, [&] { sh.items.store(at - h * part, item(j)); });
            }
        };
        for (int h = 0; h < sh.layout.parts; ++h) {
            // The place in the sorted tile of row j of this part (invocation local_id()).
            auto sorted_place = [&](int j) { return h * part + j * kWg + place_lid; };
            if constexpr (kByPlace) exchange(h, [&](int j) { return cast<std::uint32_t>(ranked_element(S, sh.tile, j)); });
            else exchange(h, [&](int j) { return Expr<std::uint32_t>(r.key[j]); });
            barrier();  // the part in shared memory, every counter read
            if (h == 0) {
                place_late();
                // For the next tile, behind the barrier after this part is written (sh.one_tile: no next tile).
                if (!sh.one_tile) sh.zero_counters();
            }
            std::vector<Var<std::uint32_t>> to;
            if constexpr (kByPlace) {
                // Loads (gathers from the tile) first, then the stores.
                std::vector<Var<std::uint32_t>> key;
                std::vector<Var<V>> val;
                for (int j = 0; j < rows; ++j) {
                    Int from = tile_base + cast<std::int32_t>(sh.items.load(j * kWg + lid));
                    key.emplace_back(keys.load(min(from, n - 1)));
                    val.emplace_back(values->load(min(from, n - 1)));
                }
                for (int j = 0; j < rows; ++j) {
                    Int p = sorted_place(j);
                    If(p < in_tile, [&] {
                        UInt at = out_place(key[j], p);
                        keys_out.store(at, key[j]);
                        values_out->store(at, val[j]);
                    });
                }
            } else {
                // Row j of the part written out; places past n are not written, unless `check` is false.
                auto write_row = [&](int j, bool check) {
                    Int p = sorted_place(j);
                    UInt key = sh.items.load(j * kWg + lid);
                    UInt at = out_place(key, p);
                    if (check) If(p < in_tile, [&] { keys_out.store(at, key); });
                    else keys_out.store(at, key);
                    return at;
                };
                if constexpr (kFullTilesApart) {
                    If(in_tile == sh.tile.size(), [&] {
                        for (int j = 0; j < rows; ++j) write_row(j, false);
                    }).Else([&] {
                        for (int j = 0; j < rows; ++j) write_row(j, true);
                    });
                } else if (sh.rows_first) {
                    in_row_groups(rows, [&](int first, int last) {
                        std::vector<Var<std::uint32_t>> key;
                        for (int j = first; j < last; ++j) {
                            key.emplace_back(sh.items.load(j * kWg + lid));
                            to.emplace_back(out_place(key[j - first], sorted_place(j)));
                        }
                        for (int j = first; j < last; ++j)
                            If(sorted_place(j) < in_tile, [&] { keys_out.store(to[j], key[j - first]); });
                    });
                } else {
                    for (int j = 0; j < rows; ++j) to.emplace_back(write_row(j, true));
                }
            }
            const bool last = h + 1 == sh.layout.parts;
            // Not after the last part, unless the counters were zeroed in it with no barrier since.
            if (!last || kValuesShared || (sh.layout.parts == 1 && !sh.one_tile)) barrier();
            if constexpr (kValuesShared) {
                exchange(h, [&](int j) { return value_word<V>(value[j]); });
                barrier();
                in_row_groups(rows, [&](int first, int last) {
                    std::vector<Var<std::uint32_t>> word;
                    if (sh.rows_first)
                        for (int j = first; j < last; ++j) word.emplace_back(sh.items.load(j * kWg + lid));
                    for (int j = first; j < last; ++j) {
                        Int p = sorted_place(j);
                        If(p < in_tile, [&] {
                            values_out->store(to[j], word_value<V>(sh.rows_first ? Expr<std::uint32_t>(word[j - first])
                                                                                  : sh.items.load(j * kWg + lid)));
                        });
                    }
                });
                if (!last) barrier();
            }
        }
        return;  // the tile is traced
    }
    sort_tile_by_splits<WithValues>(sh, keys, n, tile_base, in_tile, shift, mask, flip, bits, place_digits);
    place_late();
    // Loads (pairs: gathers from the tile) first, then the stores.
    std::vector<Var<std::uint32_t>> key;
    std::vector<Int> from;
    for (int j = 0; j < sh.tile.items; ++j) {
        UInt item = sh.items.load(padded(j * kWg + lid));
        from.emplace_back(tile_base + cast<std::int32_t>(item & 0xffffu));
        key.emplace_back(WithValues ? Expr<std::uint32_t>(keys.load(min(from[j], n - 1))) : Expr<std::uint32_t>(item));
    }
    std::vector<Var<V>> value;
    if constexpr (WithValues)
        for (int j = 0; j < sh.tile.items; ++j) value.emplace_back(values->load(min(from[j], n - 1)));
    for (int j = 0; j < sh.tile.items; ++j) {
        Int p = j * kWg + lid;
        If(p < in_tile, [&] {
            UInt at = out_place(key[j], p);
            keys_out.store(at, key[j]);
            if constexpr (WithValues) values_out->store(at, value[j]);
        });
    }
    barrier();
}

/// Step 3 for one workgroup: its tiles in turn (sort_and_write_tile), each
/// digit's keys after those of the group's earlier tiles.
template <class V, bool WithValues>
void scatter_tiles(int S, Tile tile, const Array<std::uint32_t>& keys, const Array<V>* values,
                   const Array<std::uint32_t>& offsets, const Array<std::uint32_t>& keys_out,
                   const Array<V>* values_out, const Int& n, const Int& tiles_per_group, const UInt& shift,
                   const UInt& mask, const UInt& flip, const Int& bits) {
    // n: the keys to sort (elements_to_sort)
    ScatterShared sh(S, tile, false);
    sh.begin();
    Int lid = local_id();
    Var<std::uint32_t> base = offsets.load(lid * num_groups() + group_id());  // of digit lid's next key
    auto [first, last] = tile_run(n, tiles_per_group, tile);
    For(first, last, [&](Int t) {
        Int tile_base = t * tile.size();
        Int in_tile = min(n - tile_base, tile.size());
        sort_and_write_tile<V, WithValues>(S, sh, keys, values, keys_out, values_out, n, tile_base, in_tile, shift, mask, flip,
                                           bits, [&](const UInt& first_in_tile, const UInt& total) {
            sh.offset.store(lid, base - first_in_tile);
            base = base + total;
        }, [] {});
    });
}

/// How the scatter ranks a tile: by ballots in subgroups of `size`
/// invocations (0: by 1-bit splits), with the size required of the device
/// when it could run another (`pin`); ballot_subgroup says which.
using Ranking = BallotSubgroup;

/// What a kernel of a pass is traced for: its ranking and its tile.
struct PassKernel {
    Ranking ranking;
    int items;
    bool claims = false;  // OneSweep: the tiles claim their places (claims_places)
    bool operator<(const PassKernel& o) const { return std::tie(ranking, items, claims) < std::tie(o.ranking, o.items, o.claims); }
};

/// The options of a keys-only pass's kernel (count-then-scatter's scatter,
/// OneSweep's sweep): without spirv-opt. On the H100 through Vulkan, with it
/// the keys' sweep took 1.855 against 1.797 ms per pass, and count-then-
/// scatter's keys 8.01 against 7.78 ms; the pairs' sweep was the same
/// either way, 2.673 against 2.671 (docs/PERFORMANCE.md#radix-sort).
/// Without rill's Array bounds checks too: every index of these kernels is in
/// range by construction (keys below n, offsets and states by digit and tile).
/// On the H100 through Vulkan the keys' sweep took 1.694-1.707 against
/// 1.723-1.738 ms per pass, count-then-scatter's keys 7.50-7.55 against
/// 7.69-7.74 ms; unchecked, the pairs' sweep took 2.70-2.72 against 2.56-2.59
/// (128 registers against 127), so count-then-scatter's pairs keep their
/// checks (docs/PERFORMANCE.md#radix-sort); OneSweep's pairs go without
/// them (sweep_pairs_options).
inline GroupOptions keys_pass_options(Ranking r) {
    GroupOptions o = ballot_options(r);
    o.spirv_opt = SpirvOpt::Never;
    o.unchecked_arrays = true;
    return o;
}

inline auto make_scatter_keys_kernel(PassKernel k) {
    return group_kernel<kWg>(
        "radix_scatter_keys(keys, offsets, keys_out, size, count, counted, tiles_per_group, shift, mask, flip, bits)",
        keys_pass_options(k.ranking),
        [S = k.ranking.size, tile = Tile{k.items}](Array<std::uint32_t> keys, Array<std::uint32_t> offsets, Array<std::uint32_t> keys_out, Int size,
            Array<std::uint32_t> count, Int counted, Int tiles_per_group, UInt shift, UInt mask, UInt flip, Int bits) {
            scatter_tiles<std::uint32_t, false>(S, tile, keys, nullptr, offsets, keys_out, nullptr, elements_to_sort(count, size, counted),
                                                tiles_per_group, shift, mask, flip, bits);
        });
}

template <class V>
auto make_scatter_pairs_kernel(PassKernel k) {
    return group_kernel<kWg>(
        "radix_scatter_pairs(keys, values, offsets, keys_out, values_out, size, count, counted, tiles_per_group, shift, mask, flip, bits)",
        ballot_options(k.ranking),
        [S = k.ranking.size, tile = Tile{k.items}](Array<std::uint32_t> keys, Array<V> values, Array<std::uint32_t> offsets, Array<std::uint32_t> keys_out,
            Array<V> values_out, Int size, Array<std::uint32_t> count, Int counted, Int tiles_per_group, UInt shift, UInt mask,
            UInt flip, Int bits) {
            scatter_tiles<V, true>(S, tile, keys, &values, offsets, keys_out, &values_out, elements_to_sort(count, size, counted),
                                   tiles_per_group, shift, mask, flip, bits);
        });
}

/// How n keys are spread over workgroups: each workgroup's run (here the
/// tiles it sorts in turn; keys per row for row tiles, radix_rows.h), how many
/// workgroups that takes, and how many digit counts the histogram leaves.
struct Runs {
    std::int64_t run, groups, counts;
};
/// Tiles per workgroup: the caller's choice, or enough that at most
/// default_groups workgroups run; within a driver's loop limit either way.
/// Counts: kBins per workgroup.
inline Runs runs_for(std::int64_t n, Tile tile, std::int64_t requested, std::int64_t default_groups, std::uint64_t loop_limit,
                     const std::string& device) {
    const std::int64_t tiles = tile.count(n);
    const std::int64_t most = loop_limit ? std::max<std::int64_t>(1, static_cast<std::int64_t>(loop_limit) / kLoopsPerTile)
                                         : std::numeric_limits<std::int32_t>::max();
    if (requested > most)
        throw Error("rill::radix_sort: tiles_per_workgroup = " + std::to_string(requested) + " but " + device +
                    " ends loops after " + std::to_string(loop_limit) + " iterations, which allows at most " +
                    std::to_string(most) + "; give a smaller number or 0 (automatic)");
    const std::int64_t per_group =
        requested > 0 ? requested : std::min(most, std::max<std::int64_t>(1, (tiles + default_groups - 1) / default_groups));
    const std::int64_t groups = (tiles + per_group - 1) / per_group;
    return {per_group, groups, kBins * groups};
}

}  // namespace rill::detail::radix
