// Reductions (Brook section 3.3) with a combiner written in the DSL:
//
//   auto sum = rill::reduction("sum", [](rill::In<float> a, rill::Reduce<float> r) { r += a; });
//   sum(T, y);                 // T {50, 50} -> y {50, 1}: each y element sums a row of T
//   float total = sum.value(x); // everything, to the host
//
// The combiner must be associative; it need not be commutative: elements are
// combined in stream order, grouped as the runtime sees fit. The output's
// shape decides what is reduced: each output element combines the block of
// input elements it covers (input dims divided by output dims; every ratio must
// be an integer). A one-element output receives the reduction of everything.
//
// Written in the DSL only, so it runs on every backend. Where each output's
// block is a run of consecutive elements of a dense input (everything into one
// value, rows of a matrix) and the runs are long, a group kernel reduces each
// run: every invocation folds a few consecutive elements, the workgroup
// combines those in order (rill::workgroup_fold), and the workgroup that
// finishes a run's partial results last folds them in order (runs of more
// than 2^20 elements take a pass per 1024 workgroups before that). Other
// blocks (columns, tiles) are folded by a kernel per input rank, an
// invocation per output element, whose neighbours read neighbouring elements.
#pragma once

#include <functional>
#include <mutex>
#include <optional>

#include "rill/core/stream_ops.h"
#include "rill/dsl/control.h"
#include "rill/dsl/kernel.h"
#include "rill/dsl/workgroup_fold.h"

namespace rill {

/// The accumulator of a reduction combiner: read it and assign to it.
template <StreamElement T>
class Reduce : public Var<dsl::dsl_t<T>> {
    using Base = Var<dsl::dsl_t<T>>;

public:
    explicit Reduce(Base& acc) : Base(dsl::AliasTag{}, acc) {}
    Reduce(const Reduce& other) : Base(dsl::AliasTag{}, const_cast<Reduce&>(other)) {}
    using Base::operator=;
    Reduce& operator=(const Reduce& other) {
        Base::operator=(static_cast<const Base&>(other));
        return *this;
    }
};

namespace dsl {

/// Block geometry of one reduction pass (see reduce.cpp).
struct FoldPlan {
    int4 out_dims{1, 1, 1, 1};
    int4 block{1, 1, 1, 1};
    std::int64_t outputs = 0, block_size = 0, chunk = 0, chunks = 0;
};
FoldPlan plan_reduction(const std::string& name, const Shape& in, const Shape& out);
FoldPlan plan_rows(std::int64_t rows, std::int64_t cols);

/// Whether each output's block is the run of block_size consecutive elements
/// (in row-major order) starting at output * block_size.
bool blocks_are_runs(const Shape& in, const FoldPlan& p);

/// One pass of the run reduction: each workgroup of `workgroup` invocations
/// reduces `per` consecutive elements per invocation of one output's run;
/// an output's run takes `chunks` workgroups (and a further pass when more than one).
struct RunsPlan {
    std::int64_t per = 1, chunks = 1;
};
/// `in_sequence`: the backend runs a workgroup's invocations one after
/// another (BackendInfo::invocations_in_sequence), so long runs per
/// invocation pay there.
RunsPlan plan_runs(std::int64_t run, int workgroup, bool in_sequence = false);
/// The shortest run the group kernel takes; shorter ones fold per invocation.
inline constexpr std::int64_t kShortestRun = 128;

template <int R>
using index_t = std::conditional_t<R == 1, std::int32_t, vec<std::int32_t, (R < 2 ? 2 : R)>>;

/// Component d (known when tracing) of an int4 value.
inline Expr<std::int32_t> component(const Expr<int4>& v, int d) {
    return Expr<std::int32_t>(FromId{builder().swizzle(v.id(), &d, 1)});
}

}  // namespace dsl

template <StreamElement T>
class Reduction {
    using Combine = std::function<void(In<T>, Reduce<T>)>;
    template <int R>
    using Fold = Kernel<Gather<T, R>, Out<T>, Int4, Int4, Int, Int>;

public:
    Reduction(std::string name, Combine combine) : state_(std::make_shared<State>()) {
        state_->name = std::move(name);
        state_->combine = std::move(combine);
    }

    /// Reduces `in` into the smaller stream `out` (or everything into a
    /// one-element `out`). Asynchronous, like a kernel call.
    void operator()(const Stream<T>& in, const Stream<T>& out) const {
        if (out.empty()) return;
        dsl::FoldPlan p = dsl::plan_reduction(state_->name, in.shape(), out.shape());
        Runtime rt = Runtime::of(in);
        if (p.block_size >= dsl::kShortestRun && in.contiguous() && !in.is_iterator() && dsl::blocks_are_runs(in.shape(), p)) {
            reduce_runs(rt, in.reshape(Shape{in.size()}), out, p.outputs, p.block_size);
            return;
        }
        Stream<T> target = reshape(out, Shape{p.outputs, 1});
        if (p.chunks == 1) {
            fold_pass(in, target, p);
            return;
        }
        Stream<T> partial = rt.stream<T>(Shape{p.outputs, p.chunks});
        fold_pass(in, partial, p);
        while (true) {
            dsl::FoldPlan q = dsl::plan_rows(p.outputs, partial.shape()[1]);
            if (q.chunks == 1) {
                fold_pass(partial, target, q);
                return;
            }
            Stream<T> next = rt.stream<T>(Shape{q.outputs, q.chunks});
            fold_pass(partial, next, q);
            partial = next;
        }
    }

    /// Reduces every element of `in` and returns the result to the host.
    T value(const Stream<T>& in) const {
        Stream<T> one = Runtime::of(in).template stream<T>(Shape{1});
        (*this)(in, one);
        return one.download()[0];
    }

    const std::string& name() const { return state_->name; }

private:
    static constexpr int kRunsWorkgroup = 256;
    /// Elements each invocation loads before combining them (fold_runs).
    static constexpr int kInFlight = 4;
    /// The most partial results a pass's last workgroup folds itself (4 per
    /// invocation), so that the pass needs no further one.
    static constexpr std::int64_t kFoldedByTheLast = 4 * kRunsWorkgroup;
    using Runs = Kernel<Array<T>, Array<T>, Int, Int, Int>;
    using RunsOnce = Kernel<Array<T>, Array<T>, Array<T>, Array<std::uint32_t>, Int, Int, Int, Int>;

    /// Reduces each of `outputs` runs of `run` consecutive elements of `in`
    /// (dense, 1D) into out (any view of `outputs` elements). A pass whose runs
    /// take up to kFoldedByTheLast workgroups each is the last: the workgroup
    /// that finishes a run's partial results last folds them (a launch and its
    /// wait fewer than a further pass: Brook's sum of 2^20 float4 is mostly those).
    void reduce_runs(Runtime& rt, Stream<T> in, const Stream<T>& out, std::int64_t outputs, std::int64_t run) const {
        const bool in_sequence = rt.info().invocations_in_sequence;
        while (true) {
            const dsl::RunsPlan q = dsl::plan_runs(run, kRunsWorkgroup, in_sequence);
            const bool last = q.chunks <= kFoldedByTheLast;
            Stream<T> next = !last            ? rt.scratch<T>(Shape{outputs * q.chunks})
                             : out.contiguous() ? out.reshape(Shape{outputs})
                                                : rt.scratch<T>(Shape{outputs});
            if (q.chunks == 1 || !last) {
                runs_kernel()(Groups{outputs * q.chunks}, in, next, int(run), int(q.chunks), int(q.per));
            } else {
                auto partials = rt.scratch<T>(Shape{outputs * q.chunks});
                auto finished = rt.zeroed_words(outputs);  // no run's workgroup has finished
                const dsl::RunsPlan fold = dsl::plan_runs(q.chunks, kRunsWorkgroup, in_sequence);
                runs_once_kernel()(Groups{outputs * q.chunks}, in, partials, next, finished, int(run), int(q.chunks), int(q.per),
                                   int(fold.per));
            }
            if (last) {
                if (next.buffer() != out.buffer()) detail::copy_stream(next.reshape(out.shape()), out);
                return;
            }
            in = next;
            run = q.chunks;
        }
    }

    const Runs& runs_kernel() const {
        std::lock_guard lock(state_->mutex);
        if (!state_->runs) state_->runs.emplace(trace_runs());
        return *state_->runs;
    }

    const RunsOnce& runs_once_kernel() const {
        std::lock_guard lock(state_->mutex);
        if (!state_->runs_once) state_->runs_once.emplace(trace_runs_once());
        return *state_->runs_once;
    }

    /// combine as fold_runs and workgroup_fold call it: b folded into a.
    static auto folder(const Combine& combine) {
        return [combine](Var<dsl::dsl_t<T>>& acc, const Var<dsl::dsl_t<T>>& later) {
            In<T> a(dsl::FromValue{}, later);
            combine(a, Reduce<T>(acc));
        };
    }

    /// Workgroup g folds chunk g % chunks of run g / chunks: `per` elements an invocation.
    static Var<dsl::dsl_t<T>> fold_chunk(const Combine& combine, Array<T>& in, Int run, Int chunks, Int per) {
        Int g = group_id();
        Int j = g / chunks;
        Int begin = j * run + (g - j * chunks) * (per * kRunsWorkgroup);
        Int end = begin + min(per * kRunsWorkgroup, (j + 1) * run - begin);
        return fold_runs<T>(kRunsWorkgroup, begin, end, per, [&](Expr<std::int32_t> e) { return in.load(e); }, folder(combine),
                            kInFlight);
    }

    Runs trace_runs() const {
        Combine combine = state_->combine;
        return group_kernel<kRunsWorkgroup>(state_->name + "_runs(in, out, run, chunks, per)",
                                            [combine](Array<T> in, Array<T> out, Int run, Int chunks, Int per) {
            Var<dsl::dsl_t<T>> total = fold_chunk(combine, in, run, chunks, per);
            If(local_id() == 0, [&] { out.store(group_id(), total); });
        });
    }

    /// As trace_runs, and the last of a run's workgroups to finish folds the
    /// run's partial results, in order, into out[run]. `finished` counts each
    /// run's finished workgroups (Runtime::zeroed_words: zeros before the call,
    /// and the last workgroup sets its count back to zero).
    RunsOnce trace_runs_once() const {
        Combine combine = state_->combine;
        return group_kernel<kRunsWorkgroup>(
            state_->name + "_runs_once(in, partials, out, finished, run, chunks, per, partials_per)",
            [combine](Array<T> in, Array<T> partials, Array<T> out, Array<std::uint32_t> finished, Int run, Int chunks, Int per,
                      Int partials_per) {
                Var<dsl::dsl_t<T>> total = fold_chunk(combine, in, run, chunks, per);
                Int g = group_id();
                Int j = g / chunks;
                If(local_id() == 0, [&] {
                    partials.store(g, total);
                    memory_fence();  // the partial result before the count that hands it on
                });
                If(last_to_finish(finished, j, chunks), [&] {  // the same in every invocation: the barriers inside are reached by all
                    memory_fence();  // every invocation reads partial results: each orders its loads after the count
                    Var<dsl::dsl_t<T>> run_total =
                        fold_runs<T>(kRunsWorkgroup, j * chunks, (j + 1) * chunks, partials_per,
                                     [&](Expr<std::int32_t> e) { return partials.load(e); }, folder(combine), kInFlight);
                    If(local_id() == 0, [&] {
                        out.store(j, run_total);
                        finished.store(j, 0u);  // every workgroup of run j has counted
                    });
                });
            });
    }

    void fold_pass(const Stream<T>& in, const Stream<T>& out, const dsl::FoldPlan& p) const {
        switch (in.shape().rank) {
            case 1: fold_kernel<1>()(in, out, p.out_dims, p.block, int(p.chunk), int(p.block_size)); break;
            case 2: fold_kernel<2>()(in, out, p.out_dims, p.block, int(p.chunk), int(p.block_size)); break;
            case 3: fold_kernel<3>()(in, out, p.out_dims, p.block, int(p.chunk), int(p.block_size)); break;
            case 4: fold_kernel<4>()(in, out, p.out_dims, p.block, int(p.chunk), int(p.block_size)); break;
            default: RILL_UNREACHABLE("stream rank out of range");
        }
    }

    /// The fold kernel for inputs of rank R, traced on first use.
    template <int R>
    const Fold<R>& fold_kernel() const {
        std::lock_guard lock(state_->mutex);
        auto& slot = std::get<R - 1>(state_->folds);
        if (!slot) slot.emplace(trace_fold<R>());
        return *slot;
    }

    template <int R>
    Fold<R> trace_fold() const {
        Combine combine = state_->combine;
        return kernel(state_->name + "(in, out, out_dims, block, chunk, block_size)",
                      [combine](Gather<T, R> in, Out<T> out, Int4 out_dims, Int4 block, Int chunk, Int block_size) {
            auto jc = indexof<2>(out);
            Expr<int4> dims = out_dims, blk = block;
            // Block origin of output j (row-major over out_dims).
            std::array<ir::ExprId, 4> base{};
            ir::ExprId rest = jc.x().id();
            for (int d = R - 1; d >= 0; --d) {
                Expr<std::int32_t> r(dsl::FromId{rest});
                base[d] = ((r % dsl::component(dims, d)) * dsl::component(blk, d)).id();
                rest = (r / dsl::component(dims, d)).id();
            }
            // Element t of the block, t in [0, block_size), row-major over the block.
            auto element = [&](Expr<std::int32_t> t) {
                std::array<ir::ExprId, 4> idx{};
                ir::ExprId rem = t.id();
                for (int d = R - 1; d >= 0; --d) {
                    Expr<std::int32_t> r(dsl::FromId{rem});
                    idx[d] = (Expr<std::int32_t>(dsl::FromId{base[d]}) + r % dsl::component(blk, d)).id();
                    rem = (r / dsl::component(blk, d)).id();
                }
                if constexpr (R == 1) return in[Expr<std::int32_t>(dsl::FromId{idx[0]})];
                else return in[Expr<dsl::index_t<R>>(dsl::FromId{dsl::builder().construct(Type{Scalar::Int, R}, idx.data(), R)})];
            };
            Expr<std::int32_t> t0 = jc.y() * chunk;
            Expr<std::int32_t> t1 = min(t0 + chunk, block_size);
            Var<dsl::dsl_t<T>> acc = element(t0);
            For(t0 + 1, t1, [&](Int t) {
                auto v = element(t);
                In<T> a(dsl::FromValue{}, v);
                combine(a, Reduce<T>(acc));
            });
            out = acc;
        });
    }

    struct State {
        std::string name;
        Combine combine;
        std::mutex mutex;
        std::tuple<std::optional<Fold<1>>, std::optional<Fold<2>>, std::optional<Fold<3>>, std::optional<Fold<4>>> folds;
        std::optional<Runs> runs;
        std::optional<RunsOnce> runs_once;
    };
    std::shared_ptr<State> state_;
};

namespace dsl {
template <class F>
struct reduction_element;
template <class C, class R, class A, class B>
struct reduction_element<R (C::*)(A, B) const> {
    using type = typename std::remove_cvref_t<A>::element_type;
    static_assert(std::is_same_v<std::remove_cvref_t<A>, In<type>> && std::is_same_v<std::remove_cvref_t<B>, Reduce<type>>,
                  "rill::reduction: the combiner takes (rill::In<T> a, rill::Reduce<T> r) and updates r with a");
};
}  // namespace dsl

/// Makes a reduction from a combiner lambda (In<T> a, Reduce<T> r) that folds a into r.
template <class F>
auto reduction(std::string name, F&& combine) {
    using T = typename dsl::reduction_element<decltype(&std::remove_cvref_t<F>::operator())>::type;
    return Reduction<T>(std::move(name), std::function<void(In<T>, Reduce<T>)>(std::forward<F>(combine)));
}

}  // namespace rill
