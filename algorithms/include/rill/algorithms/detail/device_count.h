// How the sorts take the number of elements to sort from a one-element stream
// on the device (SortOptions::count, e.g. a Filter's count): kernels get the
// stream and a flag beside the stream's size, and read the count where they
// would read n.
#pragma once

#include <optional>
#include <utility>

#include <rill/rill.h>

namespace rill::detail {

/// The elements a kernel takes: all `size` of the stream, or, when `counted`,
/// the first count[0] of them (at most size).
inline Int elements_to_sort(const Array<std::uint32_t>& count, const Int& size, const Int& counted) {
    return select(counted != 0, cast<std::int32_t>(min(count.load(0), cast<std::uint32_t>(size))), size);
}

/// The kernels' (count, counted) arguments for an optional count: without
/// one, a one-element scratch stream of its own fills the Array slot; its
/// value is never used (elements_to_sort selects `size`). Of its own: a
/// buffer bound to two parameters costs the kernel its `restrict` qualifiers
/// and makes its barriers order buffer memory too (backends/glsl).
inline std::pair<Stream<std::uint32_t>, std::int32_t> count_arguments(const std::optional<Stream<std::uint32_t>>& count,
                                                                      Runtime& rt) {
    return {count ? *count : rt.scratch<std::uint32_t>({1}), count ? 1 : 0};
}

}  // namespace rill::detail
