#include "classic_scans.h"

#include <rill/algorithms/detail/kernel_cache.h>
#include <rill/algorithms/detail/workgroup_scan.h>

namespace rill::detail {

namespace {

constexpr int kWg = 256;
constexpr int kBlock = 2 * kWg;  // Blelloch: two elements per invocation

using Variant = std::pair<ScanOp, bool>;  // operator, inclusive

std::string suffix(const Variant& v) { return std::string(scan_op_name(v.first)) + (v.second ? "_inclusive" : "_exclusive"); }

std::int64_t groups_for(std::int64_t n) { return (n + kWg - 1) / kWg; }

// --- Hillis-Steele ------------------------------------------------------------

template <class T>
struct HillisSteeleKernels {
    using Step = decltype(group_kernel<kWg>("", [](Array<T>, Array<T>, Int, Int) {}));
    using Finish = decltype(group_kernel<kWg>("", [](Array<T>, Array<T>, Int, Var<T>) {}));
    Step step;
    Finish finish;
};

template <class T>
HillisSteeleKernels<T> make_hillis_steele(Variant v) {
    const auto [op, inclusive] = v;
    auto step = group_kernel<kWg>("scan_hillis_steele_step_" + std::string(scan_op_name(op)) + "(in, out, n, offset)",
                                  [op](Array<T> in, Array<T> out, Int n, Int offset) {
        Int i = global_id();
        If(i < n, [&] {
            Var<T> x = in.load(i);
            If(i >= offset, [&] { x = combine<T>(op, in.load(i - offset), x); });
            out.store(i, x);
        });
    });
    // The inclusive scan of the steps, started at init (and shifted by one when exclusive).
    auto finish = group_kernel<kWg>("scan_hillis_steele_finish_" + suffix(v) + "(scanned, out, n, init)",
                                    [op, inclusive](Array<T> scanned, Array<T> out, Int n, Var<T> init) {
        Int i = global_id();
        If(i < n, [&] {
            if (inclusive) out.store(i, combine<T>(op, init, scanned.load(i)));
            else out.store(i, select(i == 0, Expr<T>(init), combine<T>(op, init, scanned.load(i - 1))));
        });
    });
    return {step, finish};
}

// --- Blelloch -----------------------------------------------------------------

template <class T>
struct BlellochKernels {
    using Block = decltype(group_kernel<kWg>("", [](Array<T>, Array<T>, Array<T>, Int) {}));
    using Add = decltype(group_kernel<kWg>("", [](Array<T>, Array<T>, Array<T>, Array<T>, Int, Var<T>) {}));
    Block block;
    Add add;
};

template <class T>
BlellochKernels<T> make_blelloch(Variant v) {
    const auto [op, inclusive] = v;
    const T id = scan_identity<T>(op);
    // Each block's exclusive scan into `partial`, its total into sums[block].
    auto block = group_kernel<kWg>("scan_blelloch_block_" + std::string(scan_op_name(op)) + "(in, partial, sums, n)",
                                   [op, id](Array<T> in, Array<T> partial, Array<T> sums, Int n) {
        Shared<T> a(padded_size(kBlock));
        Int base = group_id() * kBlock;
        Int lo = local_id(), hi = local_id() + kWg;
        a.store(padded(lo), select(base + lo < n, in.load(base + lo), Expr<T>(id)));
        a.store(padded(hi), select(base + hi < n, in.load(base + hi), Expr<T>(id)));
        // Up-sweep: build the tree of partial totals in place (left + right into right).
        int offset = 1;
        for (int d = kBlock / 2; d > 0; d /= 2, offset *= 2) {
            barrier();
            If(local_id() < d, [&] {
                Int left = offset * (2 * local_id() + 1) - 1;
                Int right = offset * (2 * local_id() + 2) - 1;
                a.store(padded(right), combine<T>(op, a.load(padded(left)), a.load(padded(right))));
            });
        }
        barrier();
        If(local_id() == 0, [&] {
            sums.store(group_id(), a.load(padded(Int(kBlock - 1))));
            a.store(padded(Int(kBlock - 1)), Expr<T>(id));
        });
        // Down-sweep: each node passes its prefix to its left child, and the
        // prefix combined with the left child's total to its right child.
        for (int d = 1; d < kBlock; d *= 2) {
            offset /= 2;
            barrier();
            If(local_id() < d, [&] {
                Int left = offset * (2 * local_id() + 1) - 1;
                Int right = offset * (2 * local_id() + 2) - 1;
                Var<T> left_total = a.load(padded(left));
                Var<T> prefix = a.load(padded(right));
                a.store(padded(left), prefix);
                a.store(padded(right), combine<T>(op, prefix, left_total));
            });
        }
        barrier();
        partial.store(base + lo, a.load(padded(lo)));  // past n: no effect
        partial.store(base + hi, a.load(padded(hi)));
    });
    auto add = group_kernel<kWg>("scan_blelloch_add_" + suffix(v) + "(in, partial, sums, out, n, init)",
                                 [op, inclusive](Array<T> in, Array<T> partial, Array<T> sums, Array<T> out, Int n,
                                                 Var<T> init) {
        Int i = global_id();
        If(i < n, [&] {
            Var<T> x = combine<T>(op, combine<T>(op, init, sums.load(i / kBlock)), partial.load(i));
            if (inclusive) x = combine<T>(op, x, in.load(i));
            out.store(i, x);
        });
    });
    return {block, add};
}

}  // namespace

template <class T>
void hillis_steele_scan(const Stream<T>& in, const Stream<T>& out, ScanOp op, T init, bool inclusive) {
    const auto& k = traced_once(Variant{op, inclusive}, make_hillis_steele<T>);
    Runtime rt = Runtime::of(in);
    const std::int64_t n = in.size();
    const auto groups = Groups{groups_for(n)};
    const auto count = static_cast<std::int32_t>(n);
    // Ping-pong between two scratch streams; the input is only read.
    Stream<T> from = in;
    Stream<T> a = rt.stream<T>({n}), b = rt.stream<T>({n});
    for (std::int64_t offset = 1; offset < n; offset *= 2) {
        k.step(groups, from, a, count, static_cast<std::int32_t>(offset));
        from = a;
        std::swap(a, b);
    }
    k.finish(groups, from, out, count, init);
}

template <class T>
void blelloch_scan(const Stream<T>& in, const Stream<T>& out, ScanOp op, T init, bool inclusive) {
    const auto& k = traced_once(Variant{op, inclusive}, make_blelloch<T>);
    Runtime rt = Runtime::of(in);
    const std::int64_t n = in.size();
    const std::int64_t blocks = (n + kBlock - 1) / kBlock;
    auto partial = rt.stream<T>({n});
    auto sums = rt.stream<T>({blocks});
    k.block(Groups{blocks}, in, partial, sums, static_cast<std::int32_t>(n));
    const T id = scan_identity<T>(op);
    if (blocks > 1) blelloch_scan(sums, sums, op, id, false);
    else sums.upload(std::vector<T>{id});
    k.add(Groups{groups_for(n)}, in, partial, sums, out, static_cast<std::int32_t>(n), init);
}

#define RILL_CLASSIC_SCANS(T)                                                                          \
    template void hillis_steele_scan<T>(const Stream<T>&, const Stream<T>&, ScanOp, T, bool);         \
    template void blelloch_scan<T>(const Stream<T>&, const Stream<T>&, ScanOp, T, bool);
RILL_CLASSIC_SCANS(std::int32_t)
RILL_CLASSIC_SCANS(std::uint32_t)
RILL_CLASSIC_SCANS(float)
#undef RILL_CLASSIC_SCANS

}  // namespace rill::detail
