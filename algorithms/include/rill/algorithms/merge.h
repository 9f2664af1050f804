// Merge of two sorted streams, written in the DSL. Every element's place in
// the output is its index plus the number of elements of the other stream
// that go before it, found by binary search; so every element is written once
// and no invocation waits for another. Stable: of elements equal in the
// order, a's come first, and each stream keeps its own order.
//
//   rill::merge(a, b, out);                    // uint32, int32, float in the sorts' order
//   rill::merge(a, av, b, bv, out, outv);      // values move with their keys
//   rill::Merge<Spark> by_depth("by_depth", [](const Var<Spark>& x, const Var<Spark>& y) { return x.depth < y.depth; });
//   by_depth(a, b, out, {.descending = true}); // a and b sorted far first
//
// a and b must be sorted in the order given (as for std::merge); elements of
// an unsorted input land in an unspecified order, and some places of `out`
// may be left as they were.
#pragma once

#include <string>

#include <rill/algorithms/detail/key_order.h>

namespace rill {

struct MergeOptions {
    /// a and b are sorted in the reverse of the order (and so will be out).
    bool descending = false;
};

namespace detail::merging {

/// The place kernel: writes src[i] to out[i + rank], rank = the elements of
/// `other` that go before it; with `indexed`, also where it came from (offset + i).
template <class K>
auto make_place(const std::string& name, const Less<K>& less, bool indexed) {
    return group_kernel<256>(name + (indexed ? "_merge_pairs" : "_merge_keys") +
                                 "(src, other, out, from, n_src, n_other, src_is_b, offset, descending)",
                             [less, indexed](Array<K> src, Array<K> other, Array<K> out, Array<std::uint32_t> from,
                                             Int n_src, Int n_other, Int src_is_b, Int offset, Int descending) {
        Int i = global_id();
        If(i < n_src, [&] {
            Var<K> x = src.load(i);
            Int lo = 0;
            Int hi = n_other;
            While([&] { return lo < hi; }, [&] {
                Int mid = lo + (hi - lo) / 2;
                Var<K> y = other.load(mid);
                Bool y_before_x = goes_before<K>(less, descending, y, x);
                Bool x_before_y = goes_before<K>(less, descending, x, y);
                // Ties: a's elements go first, so a b-element passes the a's equal to it.
                Bool y_first = select(src_is_b != 0, !x_before_y, y_before_x);
                If(y_first, [&] { lo = mid + 1; }).Else([&] { hi = mid; });
            });
            out.store(i + lo, x);
            if (indexed) from.store(i + lo, cast<std::uint32_t>(offset + i));
        });
    });
}

template <class K>
using PlaceKernel = decltype(make_place<K>("", Less<K>(), false));

/// outv[p] = from[p] < na ? av[from[p]] : bv[from[p] - na].
template <class V>
void gather_values(const Stream<std::uint32_t>& from, const Stream<V>& av, const Stream<V>& bv, const Stream<V>& outv) {
    static const auto gather = group_kernel<256>("merge_values(from, av, bv, outv, na, n)",
                                                 [](Array<std::uint32_t> from, Array<V> av, Array<V> bv, Array<V> outv,
                                                    UInt na, Int n) {
        Int p = global_id();
        If(p < n, [&] {
            UInt f = from.load(p);
            If(f < na, [&] { outv.store(p, av.load(f)); }).Else([&] { outv.store(p, bv.load(f - na)); });
        });
    });
    const std::int64_t n = outv.size();
    gather(Groups{(n + 255) / 256}, from, av, bv, outv, static_cast<std::uint32_t>(av.size()), static_cast<std::int32_t>(n));
}

}  // namespace detail::merging

/// A merge in the order `less` (a strict weak order written in the DSL), traced once.
template <StreamElement K>
class Merge {
public:
    template <class L>
    Merge(const std::string& name, L less)
        : name_(name),
          keys_(detail::merging::make_place<K>(name, detail::Less<K>(less), false)),
          pairs_(detail::merging::make_place<K>(name, detail::Less<K>(less), true)) {}

    /// out = the elements of a and b, sorted; out has a.size() + b.size() elements.
    void operator()(const Stream<K>& a, const Stream<K>& b, const Stream<K>& out, const MergeOptions& opt = {}) const {
        check(a, b, out);
        auto unused = Runtime::of(out).template scratch<std::uint32_t>({1});  // keys-only kernels never touch it
        place(keys_, a, b, out, unused, opt);
    }
    /// The same, moving values av (one per element of a) and bv with their keys into outv.
    template <StreamElement V>
    void operator()(const Stream<K>& a, const Stream<V>& av, const Stream<K>& b, const Stream<V>& bv,
                    const Stream<K>& out, const Stream<V>& outv, const MergeOptions& opt = {}) const {
        check(a, b, out);
        if (av.size() != a.size() || bv.size() != b.size() || outv.size() != out.size())
            throw Error("rill::Merge " + name_ + ": values " + std::to_string(av.size()) + ", " +
                        std::to_string(bv.size()) + " -> " + std::to_string(outv.size()) + " for keys " +
                        std::to_string(a.size()) + ", " + std::to_string(b.size()) + " -> " +
                        std::to_string(out.size()) + "; give one value per key");
        if (outv.buffer() == av.buffer() || outv.buffer() == bv.buffer())
            throw Error("rill::Merge " + name_ + ": the output values are input values (or a view of them); merge "
                        "into another stream");
        if (out.size() == 0) return;
        auto from = Runtime::of(out).template stream<std::uint32_t>({out.size()});
        place(pairs_, a, b, out, from, opt);
        detail::merging::gather_values(from, av, bv, outv);
    }

private:
    void check(const Stream<K>& a, const Stream<K>& b, const Stream<K>& out) const {
        if (out.size() != a.size() + b.size())
            throw Error("rill::Merge " + name_ + ": " + std::to_string(a.size()) + " + " + std::to_string(b.size()) +
                        " elements into a stream of " + std::to_string(out.size()) + "; give an output of " +
                        std::to_string(a.size() + b.size()));
        if (out.buffer() == a.buffer() || out.buffer() == b.buffer())
            throw Error("rill::Merge " + name_ + ": the output is an input stream (or a view of one); elements "
                        "would overwrite others not yet read. Merge into another stream");
        if (out.size() > 0x7fffffff) throw Error("rill::Merge " + name_ + ": more than 2^31 - 1 elements; split the streams");
    }

    void place(const detail::merging::PlaceKernel<K>& k, const Stream<K>& a, const Stream<K>& b, const Stream<K>& out,
               const Stream<std::uint32_t>& from, const MergeOptions& opt) const {
        const auto na = static_cast<std::int32_t>(a.size());
        const auto nb = static_cast<std::int32_t>(b.size());
        const std::int32_t desc = opt.descending ? 1 : 0;
        if (na > 0) k(Groups{(na + 255) / 256}, a, b, out, from, na, nb, 0, 0, desc);
        if (nb > 0) k(Groups{(nb + 255) / 256}, b, a, out, from, nb, na, 1, na, desc);
    }

    std::string name_;
    detail::merging::PlaceKernel<K> keys_;
    detail::merging::PlaceKernel<K> pairs_;
};

namespace detail::merging {
template <class K>
const Merge<K>& default_order() {
    static_assert(kOrderedKey<K>, "rill::merge: keys are uint32, int32 or float; for other keys give an order (rill::Merge)");
    static const Merge<K> merge("merge", [](const Expr<K>& x, const Expr<K>& y) { return ordered_less<K>(x, y); });
    return merge;
}
}  // namespace detail::merging

/// Merges sorted a and b (uint32, int32 or float, in the sorts' order) into out.
template <class K>
void merge(const Stream<K>& a, const Stream<K>& b, const Stream<K>& out, const MergeOptions& opt = {}) {
    detail::merging::default_order<K>()(a, b, out, opt);
}

/// The same with values: av and bv move with their keys into outv.
template <class K, class V>
void merge(const Stream<K>& a, const Stream<V>& av, const Stream<K>& b, const Stream<V>& bv, const Stream<K>& out,
           const Stream<V>& outv, const MergeOptions& opt = {}) {
    detail::merging::default_order<K>()(a, av, b, bv, out, outv, opt);
}

}  // namespace rill
