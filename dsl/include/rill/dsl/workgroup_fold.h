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

/// Whether this workgroup is the last of the `count` workgroups that count
/// themselves in finished[counter] to get here: single-pass algorithms whose
/// last workgroup combines what the others stored (Brook's reductions, BLAS's
/// split sums) save the launch of a further pass. Every invocation calls it
/// (it has a barrier), those that stored what the last one reads after a
/// memory_fence(); the result is the same in every invocation. `finished`
/// comes from Runtime::zeroed_words: the last workgroup sets
/// finished[counter] back to zero, and each of its invocations calls
/// memory_fence() before it reads what the others stored:
///   If(local_id() == 0, [&] { partials.store(g, mine); memory_fence(); });
///   If(last_to_finish(finished, j, chunks), [&] { memory_fence(); ...; finished.store(j, 0u); });
inline Expr<bool> last_to_finish(const Array<std::uint32_t>& finished, const Expr<std::int32_t>& counter,
                                 const Expr<std::int32_t>& count) {
    Shared<std::uint32_t> last(1, dsl::Unchecked{});
    barrier();  // every invocation's fenced stores, before invocation 0 counts the workgroup
    If(local_id() == 0, [&] {
        Expr<std::uint32_t> before = finished.atomic_add(counter, 1u);
        memory_fence();  // what the counts handed on, before the barrier hands it to the workgroup
        last.store(0, select(before == cast<std::uint32_t>(count - 1), 1u, 0u));
    });
    barrier();
    return last.load(0) == 1u;
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
