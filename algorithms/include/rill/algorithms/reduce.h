// Reduction of a whole stream to one value with a scan operator, on the scan's
// machinery (the tile-total pass of reduce-then-scan, repeated over the totals
// until one is left): each element is read once, in tiles of kScanTile (row
// tiles of 64 x 256 elements where invocations run in sequence: the CPU backend).
//
//   auto total = rt.stream<std::uint32_t>({1});
//   rill::reduce(keys, total);                    // stays on the device
//   float hi = rill::reduce(values, rill::ScanOp::Max);  // one host round trip
//
// For reductions over blocks of streams of any rank, with a combiner written in
// the DSL, see rill::reduction (Brook's reductions).
#pragma once

#include <rill/algorithms/scan.h>

namespace rill {

/// result[0] = in[0] op in[1] op ... op in[n-1]; the identity of op
/// (scan_identity) when `in` is empty. `result` holds one element. Float sums
/// differ from a sequential sum by rounding only (the additions form a tree;
/// where a backend runs invocations in sequence, a tree over runs of 256
/// elements summed in order, BackendInfo::invocations_in_sequence).
template <class T>
void reduce(const Stream<T>& in, const Stream<T>& result, ScanOp op = ScanOp::Add);

/// The same, downloaded to the host.
template <class T>
T reduce(const Stream<T>& in, ScanOp op = ScanOp::Add);

}  // namespace rill
