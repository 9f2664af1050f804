// The passes of rill::radix_sort in row tiles (rows.h), for backends whose
// invocations run one after another (the CPU backend): the classic CPU radix
// sort. Each invocation owns a row of consecutive keys, per pass:
//   1. histogram: it counts its row's digits in its own bins in shared
//      memory, and the workgroup adds its rows' bins up into
//      counts[digit * groups + group];
//   2. the exclusive sum scan of counts, as in the tile passes;
//   3. scatter: it counts its row again, the workgroup turns the bins into
//      each row's start per digit (after the earlier rows of the workgroup),
//      and it walks its row in order writing each key to its digit's next
//      place. Rows in order, keys in order within a row: stable.
// No tile is sorted in shared memory and no key moves twice.
#pragma once

#include <rill/algorithms/detail/radix_digit_pass.h>
#include <rill/algorithms/detail/rows.h>

namespace rill::detail::radix {

constexpr int kRowsWg = kRowWorkgroup;
static_assert(kBins % kRowsWg == 0, "every invocation sums the same number of digits");
/// Workgroups of a pass when n allows rows of kMinRow keys: enough for many
/// cores, few enough that the counts stay small against the keys.
constexpr std::int64_t kRowsGroups = 256;
constexpr std::int64_t kMinRow = 64;

/// Keys per row, and how many workgroups of kRowsWg rows that takes.
struct RowRuns {
    std::int64_t row, groups;
};
inline RowRuns row_runs(std::int64_t n) {
    const std::int64_t row = std::max(kMinRow, (n + kRowsGroups * kRowsWg - 1) / (kRowsGroups * kRowsWg));
    return {row, (n + row * kRowsWg - 1) / (row * kRowsWg)};
}

/// Bins of one workgroup: digit d of invocation l at d * kRowsWg + l, so that
/// one digit's bins over the rows are consecutive.
inline Int bin(const Expr<std::uint32_t>& d, const Int& l) { return cast<std::int32_t>(d) * kRowsWg + l; }

/// This invocation's row of the n keys: [first, end).
inline std::pair<Int, Int> key_row(const Int& n, const Int& row) {
    Int first = min((group_id() * kRowsWg + local_id()) * row, n);
    return {first, min(first + row, n)};
}

/// Counts this invocation's row [first, end) into its bins.
inline void count_row(const Shared<std::uint32_t>& bins, const Array<std::uint32_t>& keys, const Int& first,
                      const Int& end, const UInt& shift, const UInt& mask, const UInt& flip) {
    Int lid = local_id();
    For(0, kBins, [&](Int d) { bins.store(d * kRowsWg + lid, 0u); });
    For(first, end, [&](Int i) {
        Int b = bin(digit_of(keys.load(i), shift, mask, flip), lid);
        bins.store(b, bins.load(b) + 1u);
    });
}

inline auto make_rows_histogram_kernel() {
    return group_kernel<kRowsWg>(
        "radix_rows_histogram(keys, counts, size, count, counted, row, shift, mask, flip)",
        [](Array<std::uint32_t> keys, Array<std::uint32_t> counts, Int size, Array<std::uint32_t> count, Int counted,
           Int row, UInt shift, UInt mask, UInt flip) {
            Int n = elements_to_sort(count, size, counted);
            Shared<std::uint32_t> bins(kBins * kRowsWg);
            auto [first, end] = key_row(n, row);
            count_row(bins, keys, first, end, shift, mask, flip);
            barrier();
            for (int q = 0; q < kBins / kRowsWg; ++q) {
                Int d = local_id() * (kBins / kRowsWg) + q;
                Var<std::uint32_t> sum = 0u;
                For(0, kRowsWg, [&](Int l) { sum = sum + bins.load(d * kRowsWg + l); });
                counts.store(d * num_groups() + group_id(), sum);
            }
        });
}

/// Step 3 for one workgroup; `offsets` is the scanned counts.
template <class V, bool WithValues>
void scatter_rows(const Array<std::uint32_t>& keys, const Array<V>* values, const Array<std::uint32_t>& offsets,
                  const Array<std::uint32_t>& keys_out, const Array<V>* values_out, const Int& n, const Int& row,
                  const UInt& shift, const UInt& mask, const UInt& flip) {
    Shared<std::uint32_t> bins(kBins * kRowsWg);
    Int lid = local_id();
    auto [first, end] = key_row(n, row);
    count_row(bins, keys, first, end, shift, mask, flip);
    barrier();
    for (int q = 0; q < kBins / kRowsWg; ++q) {
        Int d = lid * (kBins / kRowsWg) + q;
        Var<std::uint32_t> next = offsets.load(d * num_groups() + group_id());
        For(0, kRowsWg, [&](Int l) {
            UInt c = bins.load(d * kRowsWg + l);
            bins.store(d * kRowsWg + l, next);
            next = next + c;
        });
    }
    barrier();
    For(first, end, [&](Int i) {
        UInt key = keys.load(i);
        Int b = bin(digit_of(key, shift, mask, flip), lid);
        UInt at = bins.load(b);
        keys_out.store(at, key);
        if constexpr (WithValues) values_out->store(at, values->load(i));
        bins.store(b, at + 1u);
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
