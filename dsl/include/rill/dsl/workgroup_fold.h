// In-order reductions inside group kernels, for combiners that need not be
// commutative (Brook's reductions with a user combiner, BLAS's sums):
//
//   Var<T> acc = ...;                        // this invocation's value
//   Var<T> total = rill::workgroup_fold<T>(256, acc, count,
//       [](Var<T>& a, const Var<T>& b) { a = a + b; });   // a = a (+) b, a first
//   If(local_id() == 0, [&] { out.store(group_id(), total); });
//
// Invocations 0 .. count-1 hold values, in order; the rest take no part. The
// combination is a tree over invocations (log2 of the workgroup size steps
// through shared memory, one barrier each), so the order of the operands is
// kept and only their grouping changes.
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "rill/dsl/control.h"
#include "rill/dsl/group.h"

namespace rill {

/// The combination of the values of invocations 0 .. count-1 of the
/// workgroup, in invocation order, defined at invocation 0 (and anywhere when
/// count is 0: then `value` of invocation 0). `workgroup` is the size the
/// kernel was traced with; `combine(a, b)` folds b, the later operand, into
/// a. Every invocation must call it (it has barriers), with the same count.
template <StreamElement T, class Combine>
Var<dsl::dsl_t<T>> workgroup_fold(int workgroup, const Var<dsl::dsl_t<T>>& value, const Expr<std::int32_t>& count,
                                  Combine combine) {
    Shared<T> slots(workgroup, dsl::Unchecked{});
    Var<dsl::dsl_t<T>> acc = value;
    Expr<std::int32_t> me = local_id();
    slots.store(me, acc);
    barrier();
    // Level s: invocations at multiples of 2s take in the value s places
    // after them, which no invocation writes at this level.
    for (int s = 1; s < workgroup; s *= 2) {
        If((me & (2 * s - 1)) == 0 && me + s < count, [&] {
            Var<dsl::dsl_t<T>> later = slots.load(me + s);
            combine(acc, later);
            slots.store(me, acc);
        });
        barrier();
    }
    return acc;
}

/// Folds elements [begin, end) of a sequence in order, `load(e)` giving
/// element e: invocation i folds the run [begin + i per, begin + (i + 1) per)
/// one element after another, then the workgroup combines the runs
/// (workgroup_fold). The result is defined at invocation 0 when begin < end.
/// Every invocation must call it. `in_flight` elements of a run are loaded
/// before any of them is combined (a combine waits for its load, so one at a
/// time leaves the memory system a single load per invocation to work on);
/// the loads past the run's end read its last element again and are not
/// combined.
template <StreamElement T, class Load, class Combine>
Var<dsl::dsl_t<T>> fold_runs(int workgroup, const Expr<std::int32_t>& begin, const Expr<std::int32_t>& end,
                             const Expr<std::int32_t>& per, Load load, Combine combine, int in_flight = 1) {
    Expr<std::int32_t> first = begin + local_id() * per;
    Expr<std::int32_t> stop = min(first + per, end);
    Expr<std::int32_t> last = end - 1;
    Var<dsl::dsl_t<T>> acc = load(min(first, last));  // unused where first >= end
    std::vector<std::unique_ptr<Var<dsl::dsl_t<T>>>> ahead;
    for (int j = 1; j < in_flight; ++j) ahead.push_back(std::make_unique<Var<dsl::dsl_t<T>>>(load(min(first + j, last))));
    for (int j = 1; j < in_flight; ++j) If(first + j < stop, [&] { combine(acc, *ahead[j - 1]); });
    For(first + std::max(in_flight, 1), stop, [&](Expr<std::int32_t> e) {
        Var<dsl::dsl_t<T>> next = load(e);
        combine(acc, next);
    });
    Expr<std::int32_t> runs = min((end - begin + per - 1) / per, Expr<std::int32_t>(workgroup));
    return workgroup_fold<T>(workgroup, acc, runs, combine);
}

}  // namespace rill
