// The reductions everyone needs, ready-made (each traced once per type):
//
//   float total = rill::reductions::sum<float>().value(x);
//   rill::reductions::max<rill::float4>()(x, per_row);   // component-wise
//   rill::Indexed<float> m = rill::reductions::argmin(rt, x);  // value and lowest index
//
// sum, product, min and max work on every scalar and vector type (component-
// wise on vectors); logical_and / logical_or on bool32 streams. argmin and argmax
// return the extreme value and the lowest index where it occurs (ties resolved
// toward the first, so the result does not depend on the evaluation order).
#pragma once

#include "rill/dsl/reduce.h"

namespace rill {
/// A value and the index where it was found (argmin / argmax results).
struct IndexedFloat {
    float value;
    std::int32_t index;
};
struct IndexedInt {
    std::int32_t value;
    std::int32_t index;
};
struct IndexedUint {
    std::uint32_t value;
    std::int32_t index;
};
}  // namespace rill
RILL_STRUCT(rill::IndexedFloat, value, index);
RILL_STRUCT(rill::IndexedInt, value, index);
RILL_STRUCT(rill::IndexedUint, value, index);

namespace rill {

template <class T>
struct indexed_of;
template <> struct indexed_of<float> { using type = IndexedFloat; };
template <> struct indexed_of<std::int32_t> { using type = IndexedInt; };
template <> struct indexed_of<std::uint32_t> { using type = IndexedUint; };
template <class T>
using Indexed = typename indexed_of<T>::type;

namespace reductions {

template <StreamElement T>
const Reduction<T>& sum() {
    static const Reduction<T> r = reduction("sum<" + element_name<T>::get() + ">", [](In<T> a, Reduce<T> acc) { acc += a; });
    return r;
}
template <StreamElement T>
const Reduction<T>& product() {
    static const Reduction<T> r =
        reduction("product<" + element_name<T>::get() + ">", [](In<T> a, Reduce<T> acc) { acc *= a; });
    return r;
}
template <StreamElement T>
const Reduction<T>& min() {
    static const Reduction<T> r =
        reduction("min<" + element_name<T>::get() + ">", [](In<T> a, Reduce<T> acc) { acc = rill::min(acc, a); });
    return r;
}
template <StreamElement T>
const Reduction<T>& max() {
    static const Reduction<T> r =
        reduction("max<" + element_name<T>::get() + ">", [](In<T> a, Reduce<T> acc) { acc = rill::max(acc, a); });
    return r;
}
inline const Reduction<bool32>& logical_and() {
    static const Reduction<bool32> r = reduction("logical_and", [](In<bool32> a, Reduce<bool32> acc) { acc = acc && a; });
    return r;
}
inline const Reduction<bool32>& logical_or() {
    static const Reduction<bool32> r = reduction("logical_or", [](In<bool32> a, Reduce<bool32> acc) { acc = acc || a; });
    return r;
}

namespace detail {
template <class T, bool Max>
const Reduction<Indexed<T>>& arg_extreme() {
    static const Reduction<Indexed<T>> r = reduction(
        std::string(Max ? "argmax<" : "argmin<") + element_name<T>::get() + ">",
        [](In<Indexed<T>> a, Reduce<Indexed<T>> acc) {
            auto better = Max ? (a.value > acc.value) : (a.value < acc.value);
            If(better || (a.value == acc.value && a.index < acc.index), [&] { acc = a; });
        });
    return r;
}

template <class T>
Stream<Indexed<T>> with_indices(const Stream<T>& x) {
    static const auto pair_up = kernel("with_indices(x, r)", [](In<T> v, Out<Indexed<T>> r) {
        r.value = v;
        r.index = indexof(r);
    });
    Stream<Indexed<T>> out = Runtime::of(x).template stream<Indexed<T>>(Shape{x.size()});
    pair_up(x.reshape(Shape{x.size()}), out);
    return out;
}
}  // namespace detail

/// The smallest element of `x` and its (lowest) row-major index.
template <class T>
Indexed<T> argmin(const Stream<T>& x) {
    return detail::arg_extreme<T, false>().value(detail::with_indices(x));
}
/// The largest element of `x` and its (lowest) row-major index.
template <class T>
Indexed<T> argmax(const Stream<T>& x) {
    return detail::arg_extreme<T, true>().value(detail::with_indices(x));
}

}  // namespace reductions
}  // namespace rill
