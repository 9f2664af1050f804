// The textbook scans, kept selectable by name (ScanAlgorithm::HillisSteele,
// ScanAlgorithm::Blelloch) for teaching and for reproducing the published
// tables; rill's own scans are in scan.cpp.
#pragma once

#include <rill/algorithms/scan.h>

namespace rill::detail {

/// Hillis and Steele (1986) as Horn (GPU Gems 2 ch. 36) ran it: ceil(log2 n)
/// passes over the whole stream, pass d combining each element with the one
/// 2^d before it; O(n log n) work.
template <class T>
void hillis_steele_scan(const Stream<T>& in, const Stream<T>& out, ScanOp op, T init, bool inclusive);

/// Blelloch's work-efficient scan as in GPU Gems 3 ch. 39.2.2-39.2.4: blocks of
/// 512 elements up-swept and down-swept in shared memory, the blocks' totals
/// scanned the same way (recursively), then added to their blocks; O(n) work.
template <class T>
void blelloch_scan(const Stream<T>& in, const Stream<T>& out, ScanOp op, T init, bool inclusive);

}  // namespace rill::detail
