// Segmented sort: many independent sorts of runs of any lengths in one stream,
// the runs given by head flags (a nonzero heads[i] starts a run; the first
// run starts at 0 whatever heads[0] says). Stable, in the radix sort's orders.
//
//   rill::segmented_sort(keys, heads);                   // each run sorted on its own
//   rill::segmented_sort(keys, values, heads, {.descending = true});
//
// It falls out of the radix sort: the positions are sorted by key (stable),
// then by run number (stable, so the key order stays within each run), and
// keys and values are gathered once in that order. Two sorts of n, whatever
// the number and lengths of the runs; runs of one length are faster through
// rill::bitonic_sort's {.segment = length}.
#pragma once

#include <bit>

#include <rill/algorithms/radix_sort.h>
#include <rill/algorithms/scan.h>

namespace rill {

namespace detail::segmented {

/// order[i] = i; runs[i] = 1 where a run starts after position 0, else 0.
inline void start(const Stream<std::uint32_t>& heads, const Stream<std::uint32_t>& order, const Stream<std::uint32_t>& runs) {
    static const auto k = group_kernel<256>("segmented_sort_start(heads, order, runs, n)",
                                            [](Array<std::uint32_t> heads, Array<std::uint32_t> order,
                                               Array<std::uint32_t> runs, Int n) {
        Int i = global_id();
        If(i < n, [&] {
            order.store(i, cast<std::uint32_t>(i));
            runs.store(i, select(i > 0 && heads.load(i) != 0u, 1u, 0u));
        });
    });
    const std::int64_t n = heads.size();
    k(Groups{(n + 255) / 256}, heads, order, runs, static_cast<std::int32_t>(n));
}

template <class K, class V, bool WithValues>
void sort(const Stream<K>& keys, const Stream<V>* values, const Stream<std::uint32_t>& heads, const RadixSortOptions& opt) {
    const std::int64_t n = keys.size();
    if (heads.size() != n)
        throw Error("rill::segmented_sort: " + std::to_string(n) + " keys but " + std::to_string(heads.size()) +
                    " head flags; give one flag per key (nonzero where a run starts)");
    if constexpr (WithValues) check_one_value_per_key(n, values->size());
    if (opt.count)
        throw Error("rill::segmented_sort: a count on the device is not taken here; give runs that cover the "
                    "stream (a last run of the elements to leave alone, say)");
    if (n <= 1) return;
    Runtime rt = Runtime::of(keys);
    auto order = rt.stream<std::uint32_t>({n});
    auto runs = rt.stream<std::uint32_t>({n});
    start(heads, order, runs);
    inclusive_scan(runs, runs);  // the run number of each position, from 0
    auto sorted_keys = rt.stream<K>(keys.shape());
    copy_stream(keys, sorted_keys);
    radix_sort(sorted_keys, order, opt);  // positions by key
    permute(runs, order);                 // the run of each, in that order
    const int run_bits = std::bit_width(static_cast<std::uint64_t>(n - 1));
    radix_sort(runs, order, RadixSortOptions{.bits = run_bits});  // by run, keys in order within each
    permute(keys, order);
    if constexpr (WithValues) permute(*values, order);
}

}  // namespace detail::segmented

/// Sorts each run of `keys` (uint32, int32 or float) on its own, in place.
template <class K>
void segmented_sort(const Stream<K>& keys, const Stream<std::uint32_t>& heads, const RadixSortOptions& opt = {}) {
    detail::segmented::sort<K, std::uint32_t, false>(keys, nullptr, heads, opt);
}

/// The same, moving `values` (any element type) with their keys; stable.
template <class K, class V>
void segmented_sort(const Stream<K>& keys, const Stream<V>& values, const Stream<std::uint32_t>& heads,
                    const RadixSortOptions& opt = {}) {
    detail::segmented::sort<K, V, true>(keys, &values, heads, opt);
}

}  // namespace rill
