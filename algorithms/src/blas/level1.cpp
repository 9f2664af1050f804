// BLAS level 1. axpy and scal are element kernels (each element read and
// written once, views handled by the kernel call). The reductions are one
// group kernel: each workgroup folds a range of elements (strided loads, then
// the workgroup in order) into its partial result, and the last workgroup to
// finish (rill::last_to_finish) folds the partial results in order and turns
// them into the answer (nrm2's scaled sums, iamax's index). Where
// invocations run one after another (the CPU backend) axpy, scal, dot and
// asum take runs of consecutive elements per invocation instead (row tiles).
#include <algorithm>
#include <array>
#include <cmath>

#include <rill/algorithms/blas.h>

#include "operands.h"

namespace rill::blas {

namespace {

constexpr int kWorkgroup = 256;

/// Blue's accumulators of sum(x^2): small, medium and big magnitudes kept
/// apart and scaled, so that no square overflows or underflows (the
/// constants of LAPACK's la_constants.f90 for single precision).
constexpr float kBlueSmall = 0x1p-63f, kBlueBig = 0x1p52f;        // thresholds
constexpr float kBlueScaleSmall = 0x1p75f, kBlueScaleBig = 0x1p-76f;  // scalings

/// A level-1 reduction in one kernel: partial[g] combines
/// map(x[i * incx], y[i * incy], i) over workgroup g's range of per * 256
/// elements, and the last workgroup to finish (counted in finished[0], a
/// zeroed word) combines the partial results in order and calls
/// finish(total, result) in its invocation 0. Invocations take every 256th
/// element of a range (neighbours read neighbouring elements), four at a
/// time so that four loads are in flight; the combiner must therefore not
/// depend on the order (sums, and iamax's comparison of value, then index).
/// One launch: a reduction of the partial results (and nrm2's and iamax's
/// answers) as kernels of their own would each wait for the one before, a
/// third of the call at 2^20 elements (docs/PERFORMANCE.md#blas).
template <class A, class R, class Map, class Combine, class Finish>
auto reduction_kernel(const char* signature, Map map, Combine combine, Finish finish) {
    return group_kernel<kWorkgroup>(signature, [map, combine, finish](Array<float> x, Array<float> y, Array<A> partial,
                                                                      Array<std::uint32_t> finished, Array<R> result, Int n,
                                                                      Int incx, Int incy, Int per) {
        Int begin = group_id() * (per * kWorkgroup);
        Int end = begin + min(per * kWorkgroup, n - begin);
        auto element = [&](const Expr<std::int32_t>& i) {
            Int at = min(i, end - 1);  // in range; a lane past the end repeats the last element
            return map(x.load(at * incx), y.load(at * incy), at);
        };
        Var<dsl::dsl_t<A>> acc = element(begin + local_id());
        For(begin + local_id() + kWorkgroup, end, 4 * kWorkgroup, [&](Expr<std::int32_t> i) {
            Var<dsl::dsl_t<A>> v[4] = {element(i), element(i + kWorkgroup), element(i + 2 * kWorkgroup),
                                       element(i + 3 * kWorkgroup)};
            for (int u = 0; u < 4; ++u)
                If(i + u * kWorkgroup < end, [&] { combine(acc, v[u]); });
        });
        Int valid = min(end - begin, Int(kWorkgroup));
        Var<dsl::dsl_t<A>> total = workgroup_fold<A>(kWorkgroup, acc, valid, combine);
        If(local_id() == 0, [&] {
            partial.store(group_id(), total);
            memory_fence();  // before the count that hands it to the last workgroup
        });
        Int groups = num_groups();
        If(last_to_finish(finished, 0, groups), [&] {  // the same in every invocation
            memory_fence();  // the other workgroups' partial results, after the count that handed them on
            Var<dsl::dsl_t<A>> all = fold_runs<A>(kWorkgroup, 0, groups, (groups + kWorkgroup - 1) / kWorkgroup,
                                                   [&](const Expr<std::int32_t>& g) { return partial.load(g); }, combine);
            If(local_id() == 0, [&] {
                finish(all, result);
                finished.store(0, 0u);
            });
        });
    });
}

const Reduction<float>& float_sum() {
    static const Reduction<float> sum = reduction("blas_sum", [](In<float> a, Reduce<float> acc) { acc += a; });
    return sum;
}

/// Row tiles (detail/rows.h), for sums over consecutive x and y: invocation
/// l of a workgroup sums its run of `per` consecutive elements (a multiple
/// of 16) into 16 sums, 16 consecutive terms per step, `add(acc, x, y)`
/// giving acc plus the term as an fma; the sums then go to its part of
/// shared memory in one straight run of consecutive stores, from which the
/// compiled C++ vectorizes the loop (the sums become one vector register),
/// then pairwise into one, then the workgroup's into partial[g]. With plain
/// additions GCC's loop vectorizer takes the loop instead, across steps, with
/// gathers; fma chains it leaves alone (and fma(v, 1, acc) rounds as acc + v).
using blas::detail::kRowGroup;
constexpr int kRowSums = 16;
constexpr std::int64_t kRowPartials = 64;  // workgroups: every thread gets some

template <class Add>
auto row_partials_kernel(const char* signature, Add add) {
    return group_kernel<kRowGroup>(signature, GroupOptions{.unchecked_arrays = true},
                                   [add](Array<float> x, Array<float> y, Array<float> partial, Int n, Int per) {
        Shared<float> spill(kRowGroup * kRowSums, dsl::Unchecked{});
        Int begin = global_id() * per;
        Int end = min(begin + per, n);
        Var<float> s = 0.0f;
        If(begin < n, [&] {
            std::array<Var<float>, kRowSums> acc;  // zero
            Int whole = begin + ((end - begin) / kRowSums) * kRowSums;
            For(0, (whole - begin) / kRowSums, [&](Expr<std::int32_t> q) {
                Int e0 = begin + q * kRowSums;
                for (int c = 0; c < kRowSums; ++c) acc[c] = add(acc[c], x.load(e0 + c), y.load(e0 + c));
            });
            Int mine = local_id() * kRowSums;
            for (int c = 0; c < kRowSums; ++c) spill.store(mine + c, acc[c]);
            For(whole, end, [&](Expr<std::int32_t> e) { s = add(s, x.load(e), y.load(e)); });
            s = s + blas::detail::pairwise_sum(spill, mine, kRowSums);
        });
        Var<float> total = workgroup_fold<float>(kRowGroup, s, Int(kRowGroup), [](Var<float>& acc, const Var<float>& v) { acc = acc + v; });
        If(local_id() == 0, [&] { partial.store(group_id(), total); });
    });
}

/// The row kernel's sum over x and y into `result` where x and y are
/// consecutive and invocations run one after another; false otherwise.
template <class K>
bool row_sum_into(const K& kernel, const blas::detail::Vector& x, const blas::detail::Vector& y, const Stream<float>& result) {
    if (!blas::detail::row_tiles_for(x, y)) return false;
    const std::int64_t invocations = kRowPartials * kRowGroup;
    const std::int64_t per = std::max<std::int64_t>(1024, (x.n + invocations * kRowSums - 1) / (invocations * kRowSums) * kRowSums);
    const std::int64_t groups = (x.n + per * kRowGroup - 1) / (per * kRowGroup);
    Stream<float> partial = Runtime::of(x.extent).scratch<float>(Shape{groups});
    kernel(Groups{groups}, x.extent, y.extent, partial, x.n, static_cast<std::int32_t>(per));
    float_sum()(partial, result);
    return true;
}

/// Elements per invocation: enough that at most 1024 workgroups cover x,
/// whose partial results Brook's reduction then sums in one pass.
std::int64_t per_invocation(std::int64_t n) {
    constexpr std::int64_t kTargetGroups = 1024;
    return std::max<std::int64_t>(1, (n + kWorkgroup * kTargetGroups - 1) / (kWorkgroup * kTargetGroups));
}

/// Runs a reduction_kernel (accumulators of A) over x (and y), its answer
/// into `result` (one element).
template <class A, class K, class R>
void reduce_into(const K& kernel, const blas::detail::Vector& x, const blas::detail::Vector& y, const Stream<R>& result) {
    const std::int64_t per = per_invocation(x.n), groups = (x.n + per * kWorkgroup - 1) / (per * kWorkgroup);
    Runtime rt = Runtime::of(x.extent);
    Stream<A> partial = rt.template scratch<A>(Shape{groups});
    kernel(Groups{groups}, x.extent, y.extent, partial, rt.zeroed_words(1), result, x.n, x.inc, y.inc, static_cast<std::int32_t>(per));
}

/// finish() of the sums: the total is the answer.
void store_total(const Var<float>& total, const Array<float>& result) { result.store(0, total); }

void check_result(const char* who, const StreamBase& result) {
    if (result.size() != 1)
        throw Error(std::string(who) + ": result has shape " + result.shape().str() +
                    "; pass a stream of one element (shape 1)");
}

void check_same_length(const char* who, const blas::detail::Vector& x, const blas::detail::Vector& y) {
    if (x.n != y.n)
        blas::detail::wrong_shape(who, "y", Shape{y.n}, std::to_string(x.n), "x has " + std::to_string(x.n) + " elements");
}

/// Writes `value` into a one-element result (the answer for an empty x).
template <class T>
void fill_result(const Stream<T>& result, T value) {
    Stream<T>(result).upload(std::vector<T>{value});
}

template <class T, class F>
T to_host(const Stream<float>& x, F device_call) {
    // Scratch: every path writes the one element, so a zeroed stream's fill
    // would be a command more, which the call's kernel must wait for.
    auto result = Runtime::of(x).template scratch<T>(Shape{1});
    device_call(result);
    return result.download()[0];
}

/// iamax's order: a NaN is larger than every number; of equals, the lower
/// index wins (so the order of the comparisons does not matter).
Expr<bool> later_wins(const Var<IndexedFloat>& acc, const Var<IndexedFloat>& other) {
    Expr<bool> nan_a = isnan(acc.value), nan_b = isnan(other.value);
    Expr<bool> equal = (nan_a && nan_b) || other.value == acc.value;
    return (nan_b && !nan_a) || other.value > acc.value || (equal && other.index < acc.index);
}

/// Row tiles for axpy and scal over consecutive elements: each invocation
/// its run of `per`, in a loop the compiled C++ vectorizes (the element
/// kernels run in the CPU backend's lane executor).
constexpr std::int64_t kRowRun = 16384;
using RowUpdate = Kernel<Array<float>, Array<float>, Int, Int, Float>;

/// Runs `kernel` over x and y in row tiles where that pays; false otherwise.
bool row_update(const RowUpdate& kernel, const blas::detail::Vector& x, const blas::detail::Vector& y, float alpha) {
    if (!blas::detail::row_tiles_for(x, y)) return false;
    const std::int64_t groups = (y.n + kRowRun * kRowGroup - 1) / (kRowRun * kRowGroup);
    kernel(Groups{groups}, x.extent, y.extent, y.n, static_cast<std::int32_t>(kRowRun), alpha);
    return true;
}

}  // namespace

void axpy(float alpha, const Stream<float>& x, const Stream<float>& y) {
    static const auto kernel = rill::kernel("blas_axpy(alpha, x, y, out)",
                                            [](Float a, In<float> x, In<float> y, Out<float> out) { out = a * x + y; });
    const auto vx = blas::detail::vector_operand("rill::blas::axpy", "x", x);
    const auto vy = blas::detail::vector_operand("rill::blas::axpy", "y", y, true);
    check_same_length("rill::blas::axpy", vx, vy);
    if (vx.n == 0 || alpha == 0.0f) return;  // the reference BLAS returns early, NaN in x or not
    static const RowUpdate rows = group_kernel<kRowGroup>("blas_axpy_rows(x, y, n, per, alpha)", GroupOptions{.unchecked_arrays = true},
                                                          [](Array<float> x, Array<float> y, Int n, Int per, Float a) {
        Int begin = global_id() * per;
        For(begin, min(begin + per, n), [&](Expr<std::int32_t> i) { y.store(i, a * x.load(i) + y.load(i)); });
    });
    if (!row_update(rows, vx, vy, alpha)) kernel(alpha, x, y, y);
}

void scal(float alpha, const Stream<float>& x) {
    static const auto kernel = rill::kernel("blas_scal(alpha, x, out)", [](Float a, In<float> x, Out<float> out) { out = a * x; });
    const auto vx = blas::detail::vector_operand("rill::blas::scal", "x", x, true);
    if (vx.n == 0) return;
    static const RowUpdate rows = group_kernel<kRowGroup>("blas_scal_rows(x, unused, n, per, alpha)", GroupOptions{.unchecked_arrays = true},
                                                          [](Array<float> x, Array<float>, Int n, Int per, Float a) {
        Int begin = global_id() * per;
        For(begin, min(begin + per, n), [&](Expr<std::int32_t> i) { x.store(i, a * x.load(i)); });
    });
    if (!row_update(rows, vx, vx, alpha)) kernel(alpha, x, x);
}

void dot(const Stream<float>& x, const Stream<float>& y, const Stream<float>& result) {
    static const auto kernel = reduction_kernel<float, float>(
        "blas_dot(x, y, partial, finished, result, n, incx, incy, per)", [](auto a, auto b, auto) { return a * b; },
        [](Var<float>& acc, const Var<float>& v) { acc = acc + v; }, store_total);
    const char* who = "rill::blas::dot";
    const auto vx = blas::detail::vector_operand(who, "x", x);
    const auto vy = blas::detail::vector_operand(who, "y", y);
    check_same_length(who, vx, vy);
    check_result(who, result);
    if (vx.n == 0) return fill_result(result, 0.0f);
    static const auto rows = row_partials_kernel("blas_dot_rows(x, y, partial, n, per)",
                                                 [](const Expr<float>& acc, auto a, auto b) { return fma(a, b, acc); });
    if (!row_sum_into(rows, vx, vy, result)) reduce_into<float>(kernel, vx, vy, result);
}

float dot(const Stream<float>& x, const Stream<float>& y) {
    return to_host<float>(x, [&](const Stream<float>& r) { dot(x, y, r); });
}

void asum(const Stream<float>& x, const Stream<float>& result) {
    static const auto kernel = reduction_kernel<float, float>(
        "blas_asum(x, y, partial, finished, result, n, incx, incy, per)", [](auto a, auto, auto) { return abs(a); },
        [](Var<float>& acc, const Var<float>& v) { acc = acc + v; }, store_total);
    const char* who = "rill::blas::asum";
    const auto vx = blas::detail::vector_operand(who, "x", x);
    check_result(who, result);
    if (vx.n == 0) return fill_result(result, 0.0f);
    static const auto rows = row_partials_kernel("blas_asum_rows(x, y, partial, n, per)",
                                                 [](const Expr<float>& acc, auto a, auto) { return fma(abs(a), 1.0f, acc); });
    if (!row_sum_into(rows, vx, vx, result)) reduce_into<float>(kernel, vx, vx, result);
}

float asum(const Stream<float>& x) {
    return to_host<float>(x, [&](const Stream<float>& r) { asum(x, r); });
}

void nrm2(const Stream<float>& x, const Stream<float>& result) {
    // Each element adds its scaled square to one of Blue's three sums; the
    // last workgroup combines them as LAPACK's snrm2 does, the largest scale
    // first.
    static const auto kernel = reduction_kernel<float3, float>(
        "blas_nrm2(x, y, partial, finished, result, n, incx, incy, per)",
        [](auto a, auto, auto) {
            Expr<float> m = abs(a);
            Expr<float> big = m * kBlueScaleBig, small = m * kBlueScaleSmall;
            return select(m > kBlueBig, Float3(0.0f, 0.0f, big * big),
                          select(m < kBlueSmall, Float3(small * small, 0.0f, 0.0f), Float3(0.0f, m * m, 0.0f)));
        },
        [](Var<float3>& acc, const Var<float3>& v) { acc = acc + v; },
        [](const Var<float3>& s, const Array<float>& result) {
            Var<float> scale = 1.0f, sumsq = s.y();
            If(s.z() > 0.0f, [&] {
                // Medium values scaled down to the big ones' scale; NaN propagates.
                Var<float> big = s.z();
                If(s.y() > 0.0f || isnan(s.y()), [&] { big = big + (s.y() * kBlueScaleBig) * kBlueScaleBig; });
                scale = 1.0f / kBlueScaleBig;
                sumsq = big;
            }).Elif(s.x() > 0.0f, [&] {
                If(s.y() > 0.0f || isnan(s.y()), [&] {
                    // Both small and medium: combine at the medium scale.
                    Expr<float> med = sqrt(s.y()), sml = sqrt(s.x()) / kBlueScaleSmall;
                    Expr<float> hi = max(med, sml), lo = min(med, sml);
                    sumsq = hi * hi * (1.0f + (lo / hi) * (lo / hi));
                }).Else([&] {
                    scale = 1.0f / kBlueScaleSmall;
                    sumsq = s.x();
                });
            });
            result.store(0, scale * sqrt(sumsq));
        });
    const char* who = "rill::blas::nrm2";
    const auto vx = blas::detail::vector_operand(who, "x", x);
    check_result(who, result);
    if (vx.n == 0) return fill_result(result, 0.0f);
    reduce_into<float3>(kernel, vx, vx, result);
}

float nrm2(const Stream<float>& x) {
    return to_host<float>(x, [&](const Stream<float>& r) { nrm2(x, r); });
}

void iamax(const Stream<float>& x, const Stream<std::int32_t>& result) {
    static const auto kernel = reduction_kernel<IndexedFloat, std::int32_t>(
        "blas_iamax(x, y, partial, finished, result, n, incx, incy, per)",
        [](auto a, auto, auto i) {
            Var<IndexedFloat> v;
            v.value = abs(a);
            v.index = i;
            return v;
        },
        [](Var<IndexedFloat>& acc, const Var<IndexedFloat>& later) { If(later_wins(acc, later), [&] { acc = later; }); },
        [](const Var<IndexedFloat>& best, const Array<std::int32_t>& result) { result.store(0, best.index); });
    const char* who = "rill::blas::iamax";
    const auto vx = blas::detail::vector_operand(who, "x", x);
    check_result(who, result);
    if (vx.n == 0) return fill_result(result, std::int32_t{-1});
    reduce_into<IndexedFloat>(kernel, vx, vx, result);
}

std::int32_t iamax(const Stream<float>& x) {
    return to_host<std::int32_t>(x, [&](const Stream<std::int32_t>& r) { iamax(x, r); });
}

}  // namespace rill::blas
