// Moving elements to where a sort put their keys: values[i] = values[order[i]].
#pragma once

#include <rill/rill.h>

namespace rill::detail {

/// values[i] = (values before the call)[order[i]] for every i, through a scratch stream.
template <class V>
void permute(const Stream<V>& values, const Stream<std::uint32_t>& order) {
    static const auto gather = group_kernel<256>("permute(order, source, out, n)",
                                                 [](Array<std::uint32_t> order, Array<V> source, Array<V> out, Int n) {
        Int i = global_id();
        If(i < n, [&] { out.store(i, source.load(order.load(i))); });
    });
    const std::int64_t n = values.size();
    if (n == 0) return;
    auto scratch = Runtime::of(values).template scratch<V>(values.shape());  // the gather writes all of it
    gather(Groups{(n + 255) / 256}, order, values, scratch, static_cast<std::int32_t>(n));
    copy_stream(scratch, values);
}

}  // namespace rill::detail
