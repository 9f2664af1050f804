// The single pass's decoupled look-back (Merrill and Garland 2016), shared by
// the scan and the compaction: each tile publishes its aggregate, then finds
// its prefix from the tiles before it and publishes its inclusive prefix.
// The scan numbers tiles by a ticket in the order their workgroups start, so
// that every tile it waits for has started; the compaction numbers them by
// group_id and counts a tile that keeps it waiting itself (count_before), as
// the radix sort's OneSweep does with its own states (radix_onesweep.h).
#pragma once

#include <rill/algorithms/detail/workgroup_scan.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>

namespace rill::detail::look_back {

template <class T>
Expr<std::uint32_t> to_bits(const Expr<T>& v) {
    if constexpr (std::is_same_v<T, float>) return float_bits_to_uint(v);
    else return cast<std::uint32_t>(v);
}
template <class T>
Expr<T> from_bits(const Expr<std::uint32_t>& b) {
    if constexpr (std::is_same_v<T, float>) return uint_bits_to_float(b);
    else return cast<T>(b);
}

template <class T>
Expr<T> subgroup_reduce(ScanOp op, const Expr<T>& x) {
    switch (op) {
        case ScanOp::Add: return subgroup_add(x);
        case ScanOp::Mul: return subgroup_mul(x);
        case ScanOp::Min: return subgroup_min(x);
        case ScanOp::Max: return subgroup_max(x);
        case ScanOp::And: return subgroup_and(x);
        case ScanOp::Or: return subgroup_or(x);
        case ScanOp::Xor: return subgroup_xor(x);
    }
    RILL_UNREACHABLE("bad scan op");
}

// Tile states. Tile t has four words: its aggregate (the combination of its
// own elements) as a low and a high half, then its inclusive prefix
// (everything up to and including it) likewise. Each word is written once,
// with atomics, as kReady | 16 bits, so a reader that sees both halves ready
// has the value whatever order the words became visible in: no memory fences
// are needed, and every backend can run it. The words are kept as four arrays
// of one word per tile (word w of tile t at kStateTile + w * tiles + t), so
// that a subgroup reading the states of consecutive tiles reads consecutive
// words: a quarter of the memory requests of keeping a tile's four words
// together, and the look-back polls them over and over. Word 0 is the ticket
// counter.
constexpr std::uint32_t kReady = 0x80000000u;
constexpr std::int32_t kStateTile = 4;
constexpr std::int32_t kAggregate = 0, kInclusive = 2;

/// Words of the state of `tiles` tiles; all zero before the pass (no tile
/// ready, ticket 0), as a new stream is.
constexpr std::int64_t state_words(std::int64_t tiles) { return kStateTile + 4 * tiles; }
inline Expr<std::int32_t> state_words(const Int& tiles) { return kStateTile + 4 * tiles; }

/// Where word `which` of tile t's state is, with `tiles` tiles in all.
inline Int state_word(const Int& tiles, const Int& t, std::int32_t which) { return kStateTile + which * tiles + t; }

inline void publish(const Array<std::uint32_t>& state, const Int& tiles, const Int& tile, std::int32_t which,
                    const Expr<std::uint32_t>& bits) {
    state.atomic_store(state_word(tiles, tile, which), (bits & 0xffffu) | kReady);
    state.atomic_store(state_word(tiles, tile, which + 1), (bits >> 16u) | kReady);
}

/// This workgroup's tile: numbered in the order workgroups start, not by
/// group_id, so that every tile a look-back waits for has started (see
/// prefix_before). Every invocation must call it (it has a barrier). The
/// counter is word `at` of `state` (0 unless passes share a state).
inline Int ticket(const Array<std::uint32_t>& state, const Int& at = Int(0)) {
    Shared<std::uint32_t> taken(1);
    If(local_id() == 0, [&] { taken.store(0, state.atomic_add(at, 1u)); });
    barrier();
    return cast<std::int32_t>(taken.load(0));
}

/// The look-back of tile t > 0, run by every invocation of the first
/// subgroup (S of them, any S >= 1): lane l reads the state of tile hi - l,
/// from hi = t - 1 down. When the nearest tile k with an inclusive prefix is
/// in the window and every tile before it has at least its aggregate, the
/// window is done: the prefix is k's inclusive prefix combined with the
/// aggregates of the tiles between. A window of aggregates only moves down by
/// S. A tile whose state is not ready yet is read again: it holds a ticket, so
/// it is running and will publish (docs/SEMANTICS.md, forward progress).
template <class T>
Expr<T> prefix_before(int wg, ScanOp op, const Array<std::uint32_t>& state, const Int& tiles, const Int& t, T identity) {
    Int S = min(subgroup_size(), Int(wg));  // a subgroup wider than the workgroup has wg invocations
    Int lane = subgroup_invocation();
    Var<T> acc = identity;  // tiles hi + 1 .. t - 1, combined
    Int hi = t - 1;
    Bool done = false;
    While([&] { return !done; }, [&] {
        Int j = hi - lane;
        Bool exists = j >= 0;
        Int tile = max(j, 0);
        Var<std::uint32_t> il = 0u, ih = 0u, al = 0u, ah = 0u;
        If(exists, [&] {
            il = state.atomic_load(state_word(tiles, tile, kInclusive));
            ih = state.atomic_load(state_word(tiles, tile, kInclusive + 1));
            al = state.atomic_load(state_word(tiles, tile, kAggregate));
            ah = state.atomic_load(state_word(tiles, tile, kAggregate + 1));
        });
        // Past tile 0 counts as an inclusive prefix of the identity.
        Bool inclusive = !exists || (il & ih & kReady) != 0u;
        Bool aggregate = (al & ah & kReady) != 0u;
        Int k = subgroup_min(select(inclusive, lane, S));  // nearest inclusive prefix, S if none
        Bool needed = lane <= k;
        If(subgroup_all(!needed || inclusive || aggregate), [&] {
            Expr<std::uint32_t> lo = select(inclusive, Expr<std::uint32_t>(il), Expr<std::uint32_t>(al));
            Expr<std::uint32_t> hi_bits = select(inclusive, Expr<std::uint32_t>(ih), Expr<std::uint32_t>(ah));
            Expr<T> value = select(exists, from_bits<T>((lo & 0xffffu) | (hi_bits << 16u)), Expr<T>(identity));
            // Lanes before k have aggregates; lane k has the inclusive prefix.
            Expr<T> window = subgroup_reduce<T>(op, select(needed, value, Expr<T>(identity)));
            acc = combine<T>(op, window, acc);
            done = k < S;
            hi = hi - S;
        });
    });
    return acc;
}

/// What tile_prefix and tile_count_prefix share, with `total` the tile's own
/// combination: tile 0 publishes it as its inclusive prefix, the others
/// publish it as their aggregate, look back (the first subgroup, `look_back()`)
/// and publish their inclusive prefix, `combine(before, total)`.
/// publish(inclusive, value) writes the tile's state. Returns everything
/// before the tile (`id` for tile 0). Every invocation must call it (it ends
/// with a barrier, so what the workgroup wrote to shared memory before is
/// visible to every invocation after).
template <class T, class Publish, class LookBack, class Combine>
Expr<T> publish_and_look_back(const Int& t, T id, const Expr<T>& total, Publish publish, LookBack look_back, Combine combine) {
    Shared<T> prefix(1);
    If(local_id() < subgroup_size(), [&] {
        If(t == 0, [&] {
            If(local_id() == 0, [&] {
                publish(true, total);
                prefix.store(0, Expr<T>(id));
            });
        }).Else([&] {
            If(local_id() == 0, [&] { publish(false, total); });
            Expr<T> before = look_back();
            If(local_id() == 0, [&] {
                publish(true, combine(before, total));
                prefix.store(0, before);
            });
        });
    });
    barrier();
    Var<T> p = prefix.load(0);
    return p;
}

/// Everything before tile t in the whole stream, once every invocation has
/// the tile's `total` (publish_and_look_back over states of any 32-bit value).
template <class T>
Expr<T> tile_prefix(int wg, ScanOp op, T id, const Array<std::uint32_t>& state, const Int& t, const Expr<T>& total) {
    Int tiles = num_groups();
    return publish_and_look_back<T>(
        t, id, total,
        [&](bool inclusive, const Expr<T>& v) { publish(state, tiles, t, inclusive ? kInclusive : kAggregate, to_bits<T>(v)); },
        [&] { return prefix_before<T>(wg, op, state, tiles, t, id); },
        [&](const Expr<T>& before, const Expr<T>& own) { return combine<T>(op, before, own); });
}

/// Tile t (of wg invocations; one workgroup per tile), once every invocation
/// has its own total (`own`): the workgroup's scan of them, the look-back for
/// the tiles before, then finish(start), start being everything before the
/// invocation's elements in the whole stream.
template <class T, class Finish>
void scan_tile(int wg, ScanOp op, T id, const Array<std::uint32_t>& state, const Int& t, const Expr<T>& own, Finish finish) {
    auto [exclusive, total] = workgroup_exclusive<T>(wg, op, own, id);
    // Its barrier comes after every invocation has read its row.
    finish(combine<T>(op, tile_prefix<T>(wg, op, id, state, t, total), exclusive));
}

// Tile states of counts (how many elements of each tile a compaction keeps):
// one word per tile after word 0 (the ticket counter, where tiles are
// numbered by ticket), a flag in the top two bits (none yet, the tile's own
// count, or the inclusive count up to it) and the count in the low 30 bits.
// Read whole, so a step of the look-back reads one word per tile where a
// state of any 32-bit value takes four; exact while every count stays below
// 2^30 (fewer elements than kMostCounted).
constexpr std::uint32_t kOwnCount = 1u << 30, kInclusiveCount = 2u << 30, kCountBits = kOwnCount - 1u;
constexpr std::int64_t kMostCounted = std::int64_t{1} << 30;

/// Words of the count states of `tiles` tiles; all zero before the pass.
constexpr std::int64_t count_state_words(std::int64_t tiles) { return 1 + tiles; }
inline Expr<std::int32_t> count_state_words(const Int& tiles) { return 1 + tiles; }

/// The scan's single passes whose states take at most this many words
/// (state_words) keep them in the runtime's zeroed words (Runtime::zeroed_words,
/// one word more: the last counts the tiles that finished), and the last tile
/// to finish sets them back to zero (clear_states): no fill before the pass, a
/// GPU command and a barrier fewer. Larger passes take a new zero-filled
/// stream of their words, as one workgroup clearing more words would be the
/// pass's tail. The compaction's single passes always take a new stream
/// (Filter's run_single_pass says why).
constexpr std::int64_t kClearedStateWords = 4097;

/// The states of a single pass of `words` state words: where they are
/// cleared (kClearedStateWords), the zeroed words, with the finished counter
/// after them; else a zero-filled stream of their own.
inline Stream<std::uint32_t> states_for(Runtime& rt, std::int64_t words) {
    return words <= kClearedStateWords ? rt.zeroed_words(words + 1) : rt.stream<std::uint32_t>({words});
}

/// The end of a single pass over `tiles` tiles whose states take `words`
/// words: where `state` holds the finished counter after them (states_for),
/// the last tile to finish clears every word; a stream of `words` (a
/// zero-filled one) is left as it is. Every invocation must call it (it has
/// barriers), after the tile's last read and write of the states.
///
/// The fences order each tile's publishes (atomic stores by its first
/// invocation) before its count in the finished counter, and the last tile's
/// clearing stores after every count it saw: without them nothing at device
/// scope keeps a publish from landing after the store that cleared its word,
/// which would leave the next pass a tile's inclusive count from this one.
inline void clear_states(int wg, const Array<std::uint32_t>& state, const Expr<std::int32_t>& words, const Int& tiles) {
    If(state.size() > words, [&] {
        memory_fence();
        If(last_to_finish(state, words, tiles), [&] {
            memory_fence();
            For(local_id(), words + 1, wg, [&](Int i) { state.store(i, 0u); });
        });
    });
}

/// Reads of a step that found a needed tile unpublished, before the look-back
/// counts that tile itself (count_before's fallback).
constexpr std::uint32_t kFallbackReads = 8;

/// prefix_before for count states: the kept elements of the tiles before t
/// (t > 0), by the first subgroup, S tiles a step. With `count` (not
/// nullptr), tiles are numbered by group_id, so a tile before may not have
/// started, and nothing says it will while this one waits: after
/// kFallbackReads reads that find a needed tile unpublished, the subgroup
/// counts that tile's kept elements itself (count(tile), every lane of the
/// subgroup calls it and gets the count) and goes on, as in decoupled
/// fallback (Smith, Levien and Owens, SPAA 2025). Without it, tiles must be
/// numbered by ticket (every tile waited for has started).
template <class CountTile = std::nullptr_t>
Expr<std::uint32_t> count_before(int wg, const Array<std::uint32_t>& state, const Int& t, CountTile count = nullptr) {
    Int S = min(subgroup_size(), Int(wg));
    Int lane = subgroup_invocation();
    Var<std::uint32_t> acc = 0u;  // tiles hi + 1 .. t - 1
    Var<std::uint32_t> reads = 0u;  // of this window, finding a needed tile unpublished
    Int hi = t - 1;
    Bool done = false;
    While([&] { return !done; }, [&] {
        Int j = hi - lane;
        Bool exists = j >= 0;
        Var<std::uint32_t> w = kInclusiveCount;  // past tile 0: an inclusive count of zero
        If(exists, [&] { w = state.atomic_load(1 + j); });
        Bool inclusive = w >= kInclusiveCount;
        Int k = subgroup_min(select(inclusive, lane, S));  // nearest inclusive count, S if none
        Bool needed = lane <= k;
        if constexpr (!std::is_null_pointer_v<CountTile>) {
            reads = reads + 1u;
            If(reads > kFallbackReads, [&] {
                // The needed tiles still unpublished, nearest first, each counted by the whole subgroup.
                auto next = [&] { return subgroup_min(select(needed && w < kOwnCount, lane, S)); };
                Var<std::int32_t> l = next();
                While([&] { return l < S; }, [&] {
                    UInt c = count(hi - l);
                    If(lane == l, [&] { w = kOwnCount | c; });
                    l = next();
                });
            });
        }
        If(subgroup_all(!needed || w >= kOwnCount), [&] {
            acc = acc + subgroup_add(select(needed, w & kCountBits, Expr<std::uint32_t>(0u)));
            done = k < S;
            hi = hi - S;
            reads = 0u;
        });
    });
    return acc;
}

/// tile_prefix for count states: the kept elements before tile t, once every
/// invocation has the tile's `kept`; `count` as count_before's. Every
/// invocation must call it (it ends with a barrier).
template <class CountTile = std::nullptr_t>
Expr<std::uint32_t> tile_count_prefix(int wg, const Array<std::uint32_t>& state, const Int& t, const Expr<std::uint32_t>& kept,
                                      CountTile count = nullptr) {
    return publish_and_look_back<std::uint32_t>(
        t, 0u, kept,
        [&](bool inclusive, const Expr<std::uint32_t>& v) {
            state.atomic_store(1 + t, (inclusive ? kInclusiveCount : kOwnCount) | v);
        },
        [&] { return count_before(wg, state, t, count); },
        [](const Expr<std::uint32_t>& before, const Expr<std::uint32_t>& own) { return before + own; });
}

/// scan_tile for count states: `own` is each invocation's kept elements;
/// finish(start) gets the kept elements before the invocation's in the whole
/// stream; `count` as count_before's.
template <class Finish, class CountTile = std::nullptr_t>
void count_tile(int wg, const Array<std::uint32_t>& state, const Int& t, const Expr<std::uint32_t>& own, Finish finish,
                CountTile count = nullptr) {
    auto [exclusive, total] = workgroup_exclusive<std::uint32_t>(wg, ScanOp::Add, own, 0u);
    finish(tile_count_prefix(wg, state, t, total, count) + exclusive);
}

/// Whether a look-back is exact on this device: not where the driver ends
/// long loops (DeviceLimits::loop_iterations), which could cut a wait short.
inline bool exact_on(const BackendInfo& info) { return info.limits.loop_iterations == 0; }

/// Refuses ScanAlgorithm::SinglePass where the look-back is not exact:
/// `who` names the caller, `fix` what to use instead.
inline void check_exact(const BackendInfo& info, const std::string& who, const std::string& fix) {
    if (!exact_on(info))
        throw Error(who + ": ScanAlgorithm::SinglePass cannot be exact on " + info.device +
                    ": the driver ends every loop after " + std::to_string(info.limits.loop_iterations) +
                    " iterations, and a look-back may wait longer; use " + fix);
}

/// The most loop iterations of one window of S tiles in count_before, which
/// never waits long (its fallback counts a tile itself): kFallbackReads + 1
/// reads, then up to S of its tiles counted, a step of the loop over them and
/// ceil(tile_size / S) iterations of each count.
inline std::int64_t counted_window_iterations(std::int64_t tile_size, std::int64_t S) {
    return (kFallbackReads + 1) + S + S * ((tile_size + S - 1) / S);
}
/// The most loop iterations an invocation runs in a single pass with count
/// states over `tiles` tiles of `tile_size` elements, with subgroups of at
/// least `S` invocations: the last tile's windows, and `tile_size` more for
/// the kernel's other loops (each over less than a tile).
inline std::uint64_t counted_look_back_iterations(std::int64_t tiles, std::int64_t tile_size, std::int64_t S) {
    const std::int64_t windows = (std::max<std::int64_t>(tiles - 1, 0) + S - 1) / S;
    return static_cast<std::uint64_t>(windows * counted_window_iterations(tile_size, S) + tile_size);
}

/// Refuses a single pass with count states (counted_look_back_iterations)
/// where the driver ends loops (DeviceLimits::loop_iterations) before its
/// look-back could end: `who` names the caller, `fix` what to use instead.
/// Where the driver ends no loops, or the pass is short enough, it is exact.
inline void check_counted(const BackendInfo& info, const std::string& who, const std::string& fix, std::int64_t n,
                          std::int64_t tile_size, int wg) {
    const std::uint64_t limit = info.limits.loop_iterations;
    if (limit == 0 || n == 0) return;
    const std::int64_t smallest = info.limits.min_subgroup_size ? info.limits.min_subgroup_size : info.limits.subgroup_size;
    const std::int64_t S = std::clamp<std::int64_t>(smallest, 1, wg);
    const std::int64_t tiles = (n + tile_size - 1) / tile_size;
    const std::uint64_t most = counted_look_back_iterations(tiles, tile_size, S);
    if (most <= limit) return;
    // The most tiles whose look-backs end in time: whole windows of S, and the first tile.
    const std::int64_t windows = limit > static_cast<std::uint64_t>(tile_size)
                                     ? static_cast<std::int64_t>(limit - static_cast<std::uint64_t>(tile_size)) /
                                           counted_window_iterations(tile_size, S)
                                     : 0;
    throw Error(who + ": ScanAlgorithm::SinglePass of " + std::to_string(n) + " elements cannot be exact on " + info.device +
                ": the driver ends every loop after " + std::to_string(limit) + " iterations, and the look-back may take " +
                std::to_string(most) + "; use " + fix + ", or at most " + std::to_string((windows * S + 1) * tile_size) +
                " elements a call there");
}

}  // namespace rill::detail::look_back
