// Stream compaction (filter) and stable partition, on the device, by scan
// (GPU Gems 3 ch. 39.3.1): flags from a DSL predicate, their exclusive sum
// scan gives every kept element its output position, and a scatter writes it.
//
//   rill::Filter<float> positive("positive", [](Expr<float> x) { return x > 0.0f; });
//   std::int64_t kept = positive(in, out);   // order kept; the host gets the count
//   positive(in, out, count);                // count (Stream<uint32_t> of 1) stays on the device
//   positive.partition(in, out, count);      // kept ones first, then the rest, each in order
//
// `out` has in's size; elements past the kept ones are left as they were
// (partition writes them all). Elements may be any stream type, structs too.
#pragma once

#include <rill/algorithms/scan.h>

namespace rill {

template <StreamElement T>
class Filter {
    using Pred = std::function<Expr<bool>(const dsl::read_t<T>&)>;

public:
    template <class P>
    Filter(const std::string& name, P predicate)
        : flags_(make_flags(name, Pred(predicate))),
          scatter_(make_scatter(name, Pred(predicate), false)),
          split_(make_scatter(name, Pred(predicate), true)) {}

    /// Writes the kept elements of `in`, in order, to the front of `out` and
    /// `count` (a Stream<uint32_t> of one element) without a host round trip.
    void operator()(const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& count) const {
        run(in, out, count, false);
    }
    /// The same, returning the count to the host (waits for the device).
    std::int64_t operator()(const Stream<T>& in, const Stream<T>& out) const {
        auto count = Runtime::of(in).template stream<std::uint32_t>({1});
        run(in, out, count, false);
        return count.download()[0];
    }
    /// Stable partition: kept elements first, then the others, each in input order.
    void partition(const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& count) const {
        run(in, out, count, true);
    }

private:
    using FlagsKernel = decltype(group_kernel<256>("", [](Array<T>, Array<std::uint32_t>, Int) {}));
    using ScatterKernel =
        decltype(group_kernel<256>("", [](Array<T>, Array<std::uint32_t>, Array<T>, Array<std::uint32_t>, Int) {}));

    static FlagsKernel make_flags(const std::string& name, Pred keep) {
        return group_kernel<256>(name + "_flags(in, flags, n)", [keep](Array<T> in, Array<std::uint32_t> flags, Int n) {
            Int i = global_id();
            If(i < n, [&] { flags.store(i, select(keep(in.load(i)), 1u, 0u)); });
        });
    }

    /// Moves each element to its position: kept ones to offset[i]; with `split`,
    /// the others to kept_total + (i - offset[i]). Also writes the count.
    static ScatterKernel make_scatter(const std::string& name, Pred keep, bool split) {
        return group_kernel<256>(name + (split ? "_partition" : "_scatter") + "(in, offsets, out, count, n)",
                                 [keep, split](Array<T> in, Array<std::uint32_t> offsets, Array<T> out,
                                               Array<std::uint32_t> count, Int n) {
            Int i = global_id();
            // The kept total: the last offset plus the last flag.
            UInt total = offsets.load(n - 1) + select(keep(in.load(n - 1)), 1u, 0u);
            If(i < n, [&] {
                auto x = in.load(i);
                UInt at = offsets.load(i);
                If(keep(x), [&] { out.store(at, x); });
                if (split) If(!keep(x), [&] { out.store(total + (cast<std::uint32_t>(i) - at), x); });
            });
            If(i == 0, [&] { count.store(0, total); });
        });
    }

    void run(const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& count, bool split) const {
        if (!(in.shape() == out.shape()))
            throw Error("rill::Filter: the input has shape " + in.shape().str() + " but the output has shape " +
                        out.shape().str() + "; compact into a stream of the input's size");
        if (count.size() != 1)
            throw Error("rill::Filter: the count stream has " + std::to_string(count.size()) +
                        " elements; pass a Stream<uint32_t> of one element");
        const std::int64_t n = in.size();
        Runtime rt = Runtime::of(in);
        if (in.buffer() == out.buffer())
            throw Error("rill::Filter: the output is the input stream (or a view of it); elements would overwrite "
                        "others not yet read. Compact into another stream");
        if (n == 0) {
            Stream<std::uint32_t>(count).upload(std::vector<std::uint32_t>{0});
            return;
        }
        const std::int64_t groups = (n + 255) / 256;
        auto offsets = rt.template stream<std::uint32_t>({n});
        flags_(Groups{groups}, in, offsets, static_cast<std::int32_t>(n));
        exclusive_scan(offsets, offsets);
        (split ? split_ : scatter_)(Groups{groups}, in, offsets, out, count, static_cast<std::int32_t>(n));
    }

    FlagsKernel flags_;
    ScatterKernel scatter_;
    ScatterKernel split_;
};

}  // namespace rill
