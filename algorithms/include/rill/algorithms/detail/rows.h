// Row tiles, for backends whose invocations run one after another (the CPU
// backend). GPU tiles stripe loads and stores across a workgroup, so that
// neighbouring invocations touch neighbouring elements, and transpose them
// through shared memory so that each invocation works on consecutive ones.
// Where invocations run one after another, an invocation's row of
// consecutive elements is consecutive memory already and the transposition
// only costs: each invocation reads and writes its row itself, in a loop.
// Long rows against a small workgroup make the workgroup's own work (its scan
// of the rows' totals) small against the elements' (docs/PERFORMANCE.md).
#pragma once

#include <rill/rill.h>

#include <utility>

namespace rill::detail {

inline constexpr int kRowWorkgroup = 64;
inline constexpr int kRowItems = 256;
inline constexpr std::int32_t kRowTile = kRowWorkgroup * kRowItems;

/// Whether a backend's default tiles are rows.
inline bool rows_pay(const BackendInfo& info) { return info.invocations_in_sequence; }

/// Invocation l's row of the row tile at `base` (rows of `items`): elements first .. end - 1.
inline std::pair<Int, Int> row_of(const Int& base, const Int& n, int items = kRowItems) {
    Int first = base + local_id() * items;
    return {first, min(first + items, n)};
}

}  // namespace rill::detail
