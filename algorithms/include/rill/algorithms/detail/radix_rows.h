// The passes of rill::radix_sort in rows, for backends whose invocations run
// one after another (the CPU backend): the classic CPU radix sort. Each
// invocation owns one row of consecutive keys (detail/rows.h), per pass:
//   1. histogram: it counts its row's digits in its own bins in shared memory
//      and writes counts[digit * rows + row];
//   2. the exclusive sum scan of counts, as in the tile passes: where each
//      row's keys of each digit start in the output;
//   3. scatter: it walks its row in order and writes each key to its digit's
//      next place. Rows in order, keys in order within a row: stable.
// Invocations never share data, so a workgroup only groups rows into tasks.
// The scatter writes 256 streams at once. Written key by key, every store
// would touch a cache line of its own among 256 (docs/PERFORMANCE.md); so the
// keys of a digit are held in shared memory until they fill the output's
// cache line they belong to, and that line is written whole, past the caches
// where the output is large (the CPU backend's counted loops).
#pragma once

#include <rill/algorithms/detail/radix_digit_pass.h>
#include <rill/algorithms/detail/rows.h>

#include <optional>

namespace rill::detail::radix {

/// Rows of a workgroup. The lane executor runs them side by side, so it wants
/// many; compiled code runs them one after another and wants few, since each
/// row's 18 KB of shared memory (34 KB with values) is cold when its turn
/// comes (2^24 keys on 2 cores, rows of 2^14 keys: 1 row per workgroup 0.18 s,
/// 16 rows 0.20 s, 32 rows 0.22 s compiled; 35 s against 8 s in the lane
/// executor at 1 and 32). 16 rows with values fit the CPU backend's 1 MB.
constexpr int kRowsWg = 16;
/// Rows of a pass when n allows rows of kMinRow keys: enough workgroups for
/// many cores, few enough that the counts (256 per row) stay small against the
/// keys and that the first and last, partial, cache lines of each digit of a
/// row stay few against the whole ones (1024 rows of 2^14 keys: 0.22 s, 512: 0.20).
constexpr std::int64_t kRows = 512;
constexpr std::int64_t kMinRow = 4096;
/// Keys of one digit held before they are written: a 64-byte cache line.
constexpr int kLine = 16;

/// Keys per row, how many workgroups of kRowsWg rows that takes, and kBins counts per row.
inline Runs row_runs(std::int64_t n) {
    const std::int64_t row = std::max(kMinRow, (n + kRows - 1) / kRows);
    const std::int64_t groups = (n + row * kRowsWg - 1) / (row * kRowsWg);
    return {row, groups, kBins * groups * kRowsWg};
}

/// This invocation's row: its index among all rows, and its keys [first, end) of n.
struct KeyRow {
    Int index, first, end;
};
inline KeyRow key_row(const Int& n, const Int& row) {
    Int index = group_id() * kRowsWg + local_id();
    Int first = min(index * row, n);
    return {index, first, min(first + row, n)};
}

/// Where a row's count (and then its start) of digit d is in `counts`.
inline Int count_of(const Int& d, const Int& row_index) { return d * (num_groups() * kRowsWg) + row_index; }
/// This invocation's slot of digit d in a shared array of kBins per row.
inline Int bin(const Int& d) { return local_id() * kBins + d; }

inline auto make_rows_histogram_kernel() {
    return group_kernel<kRowsWg>(
        "radix_rows_histogram(keys, counts, size, count, counted, row, shift, mask, flip)",
        [](Array<std::uint32_t> keys, Array<std::uint32_t> counts, Int size, Array<std::uint32_t> count, Int counted,
           Int row, UInt shift, UInt mask, UInt flip) {
            Int n = elements_to_sort(count, size, counted);
            Shared<std::uint32_t> bins(kBins * kRowsWg);
            KeyRow r = key_row(n, row);
            For(0, kBins, [&](Int d) { bins.store(bin(d), 0u); });
            For(r.first, r.end, [&](Int i) {
                Int b = bin(cast<std::int32_t>(digit_of(keys.load(i), shift, mask, flip)));
                bins.store(b, bins.load(b) + 1u);
            });
            For(0, kBins, [&](Int d) { counts.store(count_of(d, r.index), bins.load(bin(d))); });
        });
}

/// Step 3 for one row; `offsets` is the scanned counts.
template <class V, bool WithValues>
void scatter_rows(const Array<std::uint32_t>& keys, const Array<V>* values, const Array<std::uint32_t>& offsets,
                  const Array<std::uint32_t>& keys_out, const Array<V>* values_out, const Int& n, const Int& row,
                  const UInt& shift, const UInt& mask, const UInt& flip) {
    // next: the output place of the row's next key of each digit; start: of
    // its first. The key for place p of digit d is held at
    // held(d) + p % kLine until p's cache line is full (or the row ends), and
    // with values its place in the input, whose value is copied then: values
    // of any size take the same shared memory.
    Shared<std::uint32_t> next(kBins * kRowsWg), start(kBins * kRowsWg), held_keys(kBins * kRowsWg * kLine);
    std::optional<Shared<std::uint32_t>> held_from;
    if constexpr (WithValues) held_from.emplace(kBins * kRowsWg * kLine);
    auto held = [](const Int& b, const Int& p) { return b * kLine + (p & (kLine - 1)); };
    auto write_held = [&](const Int& b, const Int& from, const Int& to) {
        For(from, to, [&](Int p) {
            keys_out.store(p, held_keys.load(held(b, p)));
            if constexpr (WithValues) values_out->store(p, values->load(cast<std::int32_t>(held_from->load(held(b, p)))));
        });
    };
    // The held keys of a digit from the start of place p's line (or of the digit).
    auto line_of = [&](const Int& b, const Int& p) { return max(p & ~(kLine - 1), cast<std::int32_t>(start.load(b))); };
    KeyRow r = key_row(n, row);
    For(0, kBins, [&](Int d) {
        UInt at = offsets.load(count_of(d, r.index));
        next.store(bin(d), at);
        start.store(bin(d), at);
    });
    For(r.first, r.end, [&](Int i) {
        UInt key = keys.load(i);
        Int b = bin(cast<std::int32_t>(digit_of(key, shift, mask, flip)));
        Int at = cast<std::int32_t>(next.load(b));
        held_keys.store(held(b, at), key);
        if constexpr (WithValues) held_from->store(held(b, at), cast<std::uint32_t>(i));
        next.store(b, cast<std::uint32_t>(at + 1));
        If(((at + 1) & (kLine - 1)) == 0, [&] { write_held(b, line_of(b, at), at + 1); });
    });
    For(0, kBins, [&](Int d) {
        Int at = cast<std::int32_t>(next.load(bin(d)));
        write_held(bin(d), line_of(bin(d), at), at);
    });
}

inline auto make_rows_scatter_keys_kernel() {
    return group_kernel<kRowsWg>(
        "radix_rows_scatter_keys(keys, offsets, keys_out, size, count, counted, row, shift, mask, flip)",
        [](Array<std::uint32_t> keys, Array<std::uint32_t> offsets, Array<std::uint32_t> keys_out, Int size,
           Array<std::uint32_t> count, Int counted, Int row, UInt shift, UInt mask, UInt flip) {
            scatter_rows<std::uint32_t, false>(keys, nullptr, offsets, keys_out, nullptr,
                                               elements_to_sort(count, size, counted), row, shift, mask, flip);
        });
}

template <class V>
auto make_rows_scatter_pairs_kernel() {
    return group_kernel<kRowsWg>(
        "radix_rows_scatter_pairs(keys, values, offsets, keys_out, values_out, size, count, counted, row, shift, mask, flip)",
        [](Array<std::uint32_t> keys, Array<V> values, Array<std::uint32_t> offsets, Array<std::uint32_t> keys_out,
           Array<V> values_out, Int size, Array<std::uint32_t> count, Int counted, Int row, UInt shift, UInt mask,
           UInt flip) {
            scatter_rows<V, true>(keys, &values, offsets, keys_out, &values_out, elements_to_sort(count, size, counted),
                                  row, shift, mask, flip);
        });
}

}  // namespace rill::detail::radix
