// The portable ScatterOp / GatherOp, for elements no device updates atomically
// (vectors, structs): sort the updates by target index, combine each run of
// equal indices with a segmented inclusive scan (Hillis-Steele: log2 n passes,
// each combining with the element d places back when it has the same index),
// and let the last update of each run write its target. Every kernel is named
// `<name>_sorted_*`, so RILL_DUMP shows that this path ran.
#pragma once

#include <bit>
#include <functional>
#include <string>
#include <utility>

#include "rill/algorithms/radix_sort.h"

namespace rill::detail {

/// A DSL value of element type T: Expr<T> for scalars and vectors, Var<T> for structs.
template <class T>
using Element = dsl::read_t<T>;

template <class T>
using Combiner = std::function<Element<T>(Element<T>, Element<T>)>;

/// The kernels of one element type and combiner, traced once.
template <class T>
class SortedScatter {
public:
    SortedScatter(const std::string& name, Combiner<T> combine)
        : keys_(group_kernel<256>(name + "_sorted_keys(index, keys, order, n, size)",
                                  [](Array<std::int32_t> index, Array<std::uint32_t> keys, Array<std::uint32_t> order,
                                     Int n, Int size) {
                                      Int i = global_id();
                                      If(i < n, [&] {
                                          Int t = index.load(i);
                                          // Indices outside the target sort last, as `size`, and are skipped.
                                          keys.store(i, cast<std::uint32_t>(select(t >= 0 && t < size, t, size)));
                                          order.store(i, cast<std::uint32_t>(i));
                                      });
                                  })),
          gather_(group_kernel<256>(name + "_sorted_values(order, values, sorted, n)",
                                    [](Array<std::uint32_t> order, Array<T> values, Array<T> sorted, Int n) {
                                        Int i = global_id();
                                        If(i < n, [&] { sorted.store(i, values.load(order.load(i))); });
                                    })),
          step_(group_kernel<256>(name + "_sorted_scan_step(keys, in, out, n, d)",
                                  [combine](Array<std::uint32_t> keys, Array<T> in, Array<T> out, Int n, Int d) {
                                      Int i = global_id();
                                      If(i < n, [&] {
                                          Element<T> v = in.load(i);
                                          If(i >= d && keys.load(i - d) == keys.load(i),
                                             [&] { out.store(i, combine(in.load(i - d), v)); })
                                              .Else([&] { out.store(i, v); });
                                      });
                                  })),
          old_(group_kernel<256>(name + "_sorted_old(keys, order, combined, source, old, n, size)",
                                 [combine](Array<std::uint32_t> keys, Array<std::uint32_t> order, Array<T> combined,
                                           Array<T> source, Array<T> old, Int n, UInt size) {
                                     Int i = global_id();
                                     If(i < n, [&] {
                                         UInt k = keys.load(i);
                                         Element<T> base = source.load(k);  // zero for skipped indices (k == size)
                                         UInt at = order.load(i);
                                         If(k < size && i > 0 && keys.load(i - 1) == k,
                                            [&] { old.store(at, combine(base, combined.load(i - 1))); })
                                             .Else([&] { old.store(at, base); });
                                     });
                                 })),
          apply_(group_kernel<256>(name + "_sorted_apply(keys, combined, target, n, size)",
                                   [combine](Array<std::uint32_t> keys, Array<T> combined, Array<T> target, Int n,
                                             UInt size) {
                                       Int i = global_id();
                                       If(i < n, [&] {
                                           UInt k = keys.load(i);
                                           If(k < size && (i == n - 1 || keys.load(i + 1) != k),
                                              [&] { target.store(k, combine(target.load(k), combined.load(i))); });
                                       });
                                   })) {}

    /// target[index[i]] = combine(target[index[i]], values[i]) for every i; with
    /// `old`, also old[i] = the element as update i found it (GatherOp).
    void operator()(const Stream<T>& values, const Stream<std::int32_t>& index, const Stream<T>& target,
                    const Stream<T>* old) const {
        const std::int64_t n = index.size();
        if (n == 0) return;
        const std::int64_t size = target.size();
        if (size > 0x7ffffffe)
            throw Error("rill::scatter_op: a target of " + std::to_string(size) +
                        " elements is more than 2^31 - 2; split the target");
        Runtime rt = Runtime::of(values);
        const Groups groups{(n + 255) / 256};
        const auto n32 = static_cast<std::int32_t>(n);
        const auto size32 = static_cast<std::uint32_t>(size);
        auto keys = rt.stream<std::uint32_t>({n});
        auto order = rt.stream<std::uint32_t>({n});
        keys_(groups, index, keys, order, n32, static_cast<std::int32_t>(size));
        // Keys run from 0 to size: sort on just the bits that can be set.
        radix_sort(keys, order, {.bits = std::max(1, static_cast<int>(std::bit_width(size32)))});
        Stream<T> a = rt.stream<T>({n}), b = rt.stream<T>({n});
        gather_(groups, order, values, a, n32);
        for (std::int64_t d = 1; d < n; d *= 2) {
            step_(groups, keys, a, b, n32, static_cast<std::int32_t>(d));
            std::swap(a, b);
        }
        if (old) old_(groups, keys, order, a, target, *old, n32, size32);
        apply_(groups, keys, a, target, n32, size32);
    }

private:
    using U32 = Array<std::uint32_t>;
    Kernel<Array<std::int32_t>, U32, U32, Int, Int> keys_;
    Kernel<U32, Array<T>, Array<T>, Int> gather_;
    Kernel<U32, Array<T>, Array<T>, Int, Int> step_;
    Kernel<U32, U32, Array<T>, Array<T>, Array<T>, Int, UInt> old_;
    Kernel<U32, Array<T>, Array<T>, Int, UInt> apply_;
};

}  // namespace rill::detail
