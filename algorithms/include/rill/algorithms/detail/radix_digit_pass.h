// The passes of rill::radix_sort over uint32 keys: LSD radix sort by 8-bit
// digits (GPU Gems 3 ch. 39.3.3; Satish, Harris and Garland 2009). Each pass
// has three steps:
//   1. histogram: every workgroup counts the digits of its run of tiles into
//      counts[digit * groups + group];
//   2. an exclusive sum scan of counts: for each (digit, group), where the
//      group's keys with that digit start in the output;
//   3. scatter: every workgroup walks its tiles in order, sorts each tile of
//      4096 keys by the digit in shared memory (ranked by subgroup ballots,
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

namespace rill::detail::radix {

constexpr int kWg = 256;
constexpr int kItems = 16;
constexpr std::int32_t kTile = kWg * kItems;
constexpr int kDigitBits = 8;
constexpr std::int32_t kBins = 1 << kDigitBits;
static_assert(kBins == kWg, "the kernels give every invocation one bin");
static_assert(kTile <= 0x10000, "pairs keep a key's place in its tile in 16 bits");

/// Workgroups of one pass at most, when the caller does not choose: the
/// counts (256 per workgroup: 32 and 64 MB at most) stay small next to the
/// keys. On the H100 (docs/PERFORMANCE.md, session 25), 2^28 keys sorted
/// fastest in runs of 2 tiles (10.06 ms against 10.43 in runs of 4) and pairs
/// in runs of 1 (14.24 against 20.15 ms in runs of 4).
constexpr std::int64_t kDefaultGroupsKeys = 32768;
constexpr std::int64_t kDefaultGroupsPairs = 65536;
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
inline std::pair<Int, Int> tile_run(const Int& n, const Int& tiles_per_group) {
    Int tiles = (n + (kTile - 1)) / kTile;
    Int first = group_id() * tiles_per_group;
    return {first, min(first + tiles_per_group, tiles)};
}

inline auto make_histogram_kernel() {
    return group_kernel<kWg>("radix_histogram(keys, counts, size, count, counted, tiles_per_group, shift, mask, flip)",
                             [](Array<std::uint32_t> keys, Array<std::uint32_t> counts, Int size, Array<std::uint32_t> count,
                                Int counted, Int tiles_per_group, UInt shift, UInt mask, UInt flip) {
        Int n = elements_to_sort(count, size, counted);
        Shared<std::uint32_t> hist(kBins, dsl::Unchecked{});  // indexed by digits, below kBins
        hist.store(local_id(), 0u);
        barrier();
        auto [first, last] = tile_run(n, tiles_per_group);
        For(first, last, [&](Int t) {
            // Every load is issued before the first atomic, so that they are in flight together.
            std::vector<Var<std::uint32_t>> key;
            for (int j = 0; j < kItems; ++j) key.emplace_back(keys.load(min(t * kTile + j * kWg + local_id(), n - 1)));
            for (int j = 0; j < kItems; ++j)
                If(t * kTile + j * kWg + local_id() < n, [&] { hist.atomic_add(digit_of(key[j], shift, mask, flip), 1u); });
        });
        barrier();
        counts.store(local_id() * num_groups() + group_id(), hist.load(local_id()));
    });
}

/// The shared memory of the scatter. `items` holds a tile while it is sorted
/// (keys, or places in the tile for pairs); `start` where each digit's keys
/// start in the sorted tile (`end`: end, for the ranking by splits);
/// `offset` per digit, the output place of the tile's key at place p is
/// offset[digit] + p.
struct ScatterShared {
    /// S: subgroup size of the ranking by ballots, whose counters `items` also holds; 0 for splits.
    // Every index is a place in the tile, a counter or a digit (below kBins):
    // in range by construction, accessed without bounds checks.
    explicit ScatterShared(int S)
        : items(std::max<std::int64_t>(padded_size(kTile), S > 0 ? kWg / S * kBins / 2 : 0), dsl::Unchecked{}) {}
    Shared<std::uint32_t> items;
    Shared<std::uint32_t> offset{kBins, dsl::Unchecked{}}, start{kBins, dsl::Unchecked{}}, end{kBins, dsl::Unchecked{}};
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
    for (int j = 0; j < kItems; ++j) {
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
    Int row = lid * kItems;
    std::vector<Var<std::uint32_t>> x;
    for (int j = 0; j < kItems; ++j) x.emplace_back(sh.items.load(padded(row + j)));
    For(0, bits, [&](Int b) {  // lowest bit first: zeros, then ones
        UInt at_bit = item_shift + cast<std::uint32_t>(b);
        UInt flip_bit = (item_flip >> cast<std::uint32_t>(b)) & 1u;
        std::vector<Var<std::uint32_t>> one, zeros_before;
        Var<std::uint32_t> zeros = 0u;
        for (int j = 0; j < kItems; ++j) {
            one.emplace_back(((x[j] >> at_bit) & 1u) ^ flip_bit);
            zeros_before.emplace_back(Expr<std::uint32_t>(zeros));
            zeros = zeros + (one[j] ^ 1u);
        }
        auto [before, total] = workgroup_exclusive<std::uint32_t, kWg>(ScanOp::Add, zeros, 0u);
        for (int j = 0; j < kItems; ++j) {
            UInt z = before + zeros_before[j];
            UInt at = select(one[j] == 0u, z, total + (cast<std::uint32_t>(row + j) - z));
            sh.items.store(padded(cast<std::int32_t>(at)), x[j]);
        }
        barrier();
        for (int j = 0; j < kItems; ++j) x[j] = sh.items.load(padded(row + j));
    });
    sh.start.store(lid, 0u);
    sh.end.store(lid, 0u);
    barrier();
    for (int j = 0; j < kItems; ++j) {
        Int p = j * kWg + lid;
        UInt d = digit(sh.items.load(padded(p)));
        Bool first_of_digit = p == 0 || d != digit(sh.items.load(padded(max(p - 1, 0))));
        Bool last_of_digit = p == kTile - 1 || d != digit(sh.items.load(padded(min(p + 1, kTile - 1))));
        If(first_of_digit, [&] { sh.start.store(d, cast<std::uint32_t>(p)); });
        If(last_of_digit, [&] { sh.end.store(d, cast<std::uint32_t>(p + 1)); });
    }
    barrier();
    UInt first = sh.start.load(lid);
    place_digits(first, sh.end.load(lid) - first);
    barrier();
}

/// The lanes of the subgroup whose digit equals this lane's `d` (8 ballots),
/// as how many of them are below this lane, how many there are, and the
/// lowest of them. Subgroups of up to 32 use one word of the ballots.
struct Peers {
    Int below, count, lowest;
};
inline Peers match_digit(int S, const Expr<std::uint32_t>& d) {
    if (S <= 32) {
        Var<std::uint32_t> peers = subgroup_ballot(Expr<bool>(true)).x();
        for (int b = 0; b < kDigitBits; ++b) {
            UInt bit = (d >> static_cast<std::uint32_t>(b)) & 1u;
            peers = peers & (subgroup_ballot(bit == 1u).x() ^ (bit - 1u));  // bit - 1: all ones where clear
        }
        UInt below_me = lanes_below_word();
        return {cast<std::int32_t>(bit_count(peers & below_me)), cast<std::int32_t>(bit_count(peers)),
                cast<std::int32_t>(find_lsb(peers))};
    }
    Var<uint4> peers = subgroup_ballot(Expr<bool>(true));
    for (int b = 0; b < kDigitBits; ++b) {
        UInt bit = (d >> static_cast<std::uint32_t>(b)) & 1u;
        UInt same = bit - 1u;
        peers = peers & (subgroup_ballot(bit == 1u) ^ Expr<uint4>(same, same, same, same));
    }
    Expr<uint4> below_me = lanes_below();
    auto lsb = [](const Expr<std::uint32_t>& w) { return cast<std::int32_t>(find_lsb(w)); };
    Int lowest = select(peers.x() != 0u, lsb(peers.x()),
                        select(peers.y() != 0u, 32 + lsb(peers.y()),
                               select(peers.z() != 0u, 64 + lsb(peers.z()), 96 + lsb(peers.w()))));
    return {ballot_bit_count(peers & below_me), ballot_bit_count(peers), lowest};
}

/// The element of the tile that invocation local_id() ranks as its j-th: subgroup
/// w takes elements w S 16 .. (w + 1) S 16 - 1, row j of them its lanes in order.
inline Int ranked_element(int S, int j) { return local_id() / S * (S * kItems) + j * S + subgroup_invocation(); }

/// Sorts a tile by the digit in one go, as Onesweep does (Adinets and Merrill
/// 2022): subgroup w takes tile elements w S 16 .. (w + 1) S 16 - 1, 16 rows of
/// S; in each row the lanes with the same digit find each other with 8
/// ballots, and the lowest of them adds their number to the subgroup's counter
/// of that digit (in `items`: one word per counter where they fit, as with
/// subgroups of 16 or more; else 16-bit counters, two per word, whose shared
/// words make the atomics of two digits wait on each other). A scan of the
/// counters over the subgroups, per digit, and of the digit totals then gives
/// every element its place in the sorted tile, stably. Subgroups of exactly S
/// (8 to 128) invocations with ballots and shuffles. The sorted tile holds
/// the keys, or with Places their places in the tile; returned: the place in
/// the sorted tile of each element this invocation ranked (ranked_element).
/// Calls place_digits (sort_and_write_tile) as soon as the digit counts are
/// known, before the keys move.
template <bool Places, class PlaceDigits>
std::vector<Var<std::uint32_t>> sort_tile_by_match(int S, const ScatterShared& sh, const Array<std::uint32_t>& keys, const Int& n,
                                                   const Int& tile_base, const Int& in_tile, const UInt& shift, const UInt& mask,
                                                   const UInt& flip, PlaceDigits place_digits) {
    const int groups = kWg / S;  // subgroups of the workgroup
    const bool packed = groups * kBins > padded_size(kTile);
    const int per_word = packed ? 2 : 1;        // counters per word
    const int row = kBins / per_word;           // words of a subgroup's counters
    const int words = groups * row;
    Int lid = local_id();
    Int w = lid / S;
    // The counter of digit d in this subgroup: a word of `items` and the shift of its half.
    auto counter = [&](const Expr<std::uint32_t>& d) {
        if (!packed) return std::pair<Int, UInt>(w * row + cast<std::int32_t>(d), UInt(0u));
        return std::pair<Int, UInt>(w * row + cast<std::int32_t>(d >> 1u), (d & 1u) << 4u);
    };
    // The counter's value in the word `bits` holds.
    auto count_in = [&](const Expr<std::uint32_t>& bits, const UInt& half) -> Expr<std::uint32_t> {
        return packed ? (bits >> half) & 0xffffu : bits;
    };
    Shared<std::uint32_t> digit_totals(row, dsl::Unchecked{});  // per digit, packed like the counters
    for (int k = 0; k * kWg < words; ++k) If(k * kWg + lid < words, [&] { sh.items.store(k * kWg + lid, 0u); });
    barrier();
    std::vector<Var<std::uint32_t>> key, d, rank;
    for (int j = 0; j < kItems; ++j) key.emplace_back(keys.load(min(tile_base + ranked_element(S, j), n - 1)));
    for (int j = 0; j < kItems; ++j) {
        Int i = ranked_element(S, j);
        // Past n: the largest digit, so that it sorts last (and is not written).
        d.emplace_back(select(i < in_tile, digit_of(key[j], shift, mask, flip), Expr<std::uint32_t>(mask)));
        Peers peers = match_digit(S, d[j]);
        auto [word, half] = counter(d[j]);
        Var<std::uint32_t> before = 0u;
        If(peers.below == 0, [&] { before = count_in(sh.items.atomic_add(word, cast<std::uint32_t>(peers.count) << half), half); });
        rank.emplace_back(subgroup_shuffle(Expr<std::uint32_t>(before), peers.lowest) + cast<std::uint32_t>(peers.below));
    }
    barrier();
    // Per word of counters, the counters become exclusive prefixes over the subgroups.
    If(lid < row, [&] {
        Var<std::uint32_t> run = 0u;
        for (int g = 0; g < groups; ++g) {
            UInt c = sh.items.load(g * row + lid);
            sh.items.store(g * row + lid, run);
            run = run + c;
        }
        digit_totals.store(lid, run);
    });
    barrier();
    UInt total = packed ? Expr<std::uint32_t>((digit_totals.load(lid >> 1) >> (cast<std::uint32_t>(lid & 1) << 4u)) & 0xffffu)
                        : Expr<std::uint32_t>(digit_totals.load(lid));  // digit lid
    auto [first, unused] = workgroup_exclusive<std::uint32_t, kWg>(ScanOp::Add, total, 0u);
    (void)unused;
    sh.start.store(lid, first);
    place_digits(first, total);
    for (int j = 0; j < kItems; ++j) {
        auto [word, half] = counter(d[j]);
        rank[j] = rank[j] + count_in(sh.items.load(word), half);
    }
    barrier();  // every counter read before the tile overwrites them
    std::vector<Var<std::uint32_t>> at;
    for (int j = 0; j < kItems; ++j) {
        Int i = ranked_element(S, j);
        at.emplace_back(sh.start.load(d[j]) + rank[j]);
        sh.items.store(padded(cast<std::int32_t>(at[j])), Places ? Expr<std::uint32_t>(cast<std::uint32_t>(i)) : Expr<std::uint32_t>(key[j]));
    }
    barrier();
    return at;
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
/// what must wait longer: `place_late()` runs once the tile is sorted in shared
/// memory, before any of it is written out (in uniform control flow; if it
/// stores sh.offset, it ends with a barrier). Values of one
/// word follow their keys through shared memory (a second exchange, at the
/// places the ranking gave); other pairs fetch key and value by their place in
/// the tile (read just before: cached), so that values of any type never pass
/// through shared memory. S: the subgroup size to rank by ballots with, 0 to
/// rank by 1-bit splits. Ends with a barrier.
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
    if constexpr (WithValues && kOneWordValue<V>) {
        if (S > 0) {  // (the splits keep places, below)
            std::vector<Var<std::uint32_t>> at =
                sort_tile_by_match<false>(S, sh, keys, n, tile_base, in_tile, shift, mask, flip, place_digits);
            // Loaded in the ranking's layout, in flight while place_late waits
            // (OneSweep's look-back) and the keys are written.
            std::vector<Var<V>> value;
            for (int j = 0; j < kItems; ++j) value.emplace_back(values->load(min(tile_base + ranked_element(S, j), n - 1)));
            place_late();
            std::vector<Var<std::uint32_t>> to;
            for (int j = 0; j < kItems; ++j) {
                Int p = j * kWg + lid;
                UInt key = sh.items.load(padded(p));
                to.emplace_back(out_place(key, p));
                If(p < in_tile, [&] { keys_out.store(to[j], key); });
            }
            barrier();  // every key read before the values take their places
            for (int j = 0; j < kItems; ++j) sh.items.store(padded(cast<std::int32_t>(at[j])), value_word<V>(value[j]));
            barrier();
            for (int j = 0; j < kItems; ++j) {
                Int p = j * kWg + lid;
                If(p < in_tile, [&] { values_out->store(to[j], word_value<V>(sh.items.load(padded(p)))); });
            }
            barrier();
            return;  // the tile is traced
        }
    }
    if (S > 0)
        sort_tile_by_match<WithValues>(S, sh, keys, n, tile_base, in_tile, shift, mask, flip, place_digits);
    else
        sort_tile_by_splits<WithValues>(sh, keys, n, tile_base, in_tile, shift, mask, flip, bits, place_digits);
    place_late();
    // Loads (pairs: gathers from the tile) first, then the stores.
    std::vector<Var<std::uint32_t>> key;
    std::vector<Int> from;
    for (int j = 0; j < kItems; ++j) {
        UInt item = sh.items.load(padded(j * kWg + lid));
        from.emplace_back(tile_base + cast<std::int32_t>(item & 0xffffu));
        key.emplace_back(WithValues ? Expr<std::uint32_t>(keys.load(min(from[j], n - 1))) : Expr<std::uint32_t>(item));
    }
    std::vector<Var<V>> value;
    if constexpr (WithValues)
        for (int j = 0; j < kItems; ++j) value.emplace_back(values->load(min(from[j], n - 1)));
    for (int j = 0; j < kItems; ++j) {
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
void scatter_tiles(int S, const Array<std::uint32_t>& keys, const Array<V>* values,
                   const Array<std::uint32_t>& offsets, const Array<std::uint32_t>& keys_out,
                   const Array<V>* values_out, const Int& n, const Int& tiles_per_group, const UInt& shift,
                   const UInt& mask, const UInt& flip, const Int& bits) {
    // n: the keys to sort (elements_to_sort)
    ScatterShared sh(S);
    Int lid = local_id();
    Var<std::uint32_t> base = offsets.load(lid * num_groups() + group_id());  // of digit lid's next key
    auto [first, last] = tile_run(n, tiles_per_group);
    For(first, last, [&](Int t) {
        Int tile_base = t * kTile;
        Int in_tile = min(n - tile_base, kTile);
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

inline auto make_scatter_keys_kernel(Ranking r) {
    return group_kernel<kWg>(
        "radix_scatter_keys(keys, offsets, keys_out, size, count, counted, tiles_per_group, shift, mask, flip, bits)",
        ballot_options(r),
        [S = r.size](Array<std::uint32_t> keys, Array<std::uint32_t> offsets, Array<std::uint32_t> keys_out, Int size,
            Array<std::uint32_t> count, Int counted, Int tiles_per_group, UInt shift, UInt mask, UInt flip, Int bits) {
            scatter_tiles<std::uint32_t, false>(S, keys, nullptr, offsets, keys_out, nullptr, elements_to_sort(count, size, counted),
                                                tiles_per_group, shift, mask, flip, bits);
        });
}

template <class V>
auto make_scatter_pairs_kernel(Ranking r) {
    return group_kernel<kWg>(
        "radix_scatter_pairs(keys, values, offsets, keys_out, values_out, size, count, counted, tiles_per_group, shift, mask, flip, bits)",
        ballot_options(r),
        [S = r.size](Array<std::uint32_t> keys, Array<V> values, Array<std::uint32_t> offsets, Array<std::uint32_t> keys_out,
            Array<V> values_out, Int size, Array<std::uint32_t> count, Int counted, Int tiles_per_group, UInt shift, UInt mask,
            UInt flip, Int bits) {
            scatter_tiles<V, true>(S, keys, &values, offsets, keys_out, &values_out, elements_to_sort(count, size, counted),
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
inline Runs runs_for(std::int64_t n, std::int64_t requested, std::int64_t default_groups, std::uint64_t loop_limit,
                     const std::string& device) {
    const std::int64_t tiles = (n + kTile - 1) / kTile;
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
