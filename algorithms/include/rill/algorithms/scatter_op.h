// Brook's ScatterOp and GatherOp (paper section 3.4), on the device, written as
// group kernels with atomics:
//
//   rill::scatter_op(values, index, target, rill::Combine::Add);
//       target[index[i]] = target[index[i]] + values[i]   for every i, in some order
//   rill::gather_op(index, values, source, old, rill::Combine::Add);
//       old[i] = source[index[i]]; source[index[i]] += values[i]   (fetch-and-add)
//
// Many i may name the same element: the result equals applying the updates one
// after another in some order (exact for integers; floats differ by rounding).
// Indices outside the target are skipped. A user combiner (associative and
// commutative), on any element type:
//
//   rill::ScatterOp<float> mul("mul", [](Expr<float> old, Expr<float> v) { return old * v; });
//   mul(values, index, target);
//
// int32, uint32 and float elements are updated with the device's atomics (add,
// min, max, exchange; float add where the device has it, the rest and user
// combiners through a compare-exchange loop). scatter_op on vectors of them
// (float2 .. float4 with Add; int and uint vectors with Add, Min and Max)
// takes one atomic per component. The rest (gather_op on vectors, whose old
// values must be whole vectors of one order of updates; Replace on vectors;
// structs; user combiners of vectors) takes the portable path of
// scatter_sorted.h: sort by index, combine runs. Which path ran is visible in
// RILL_DUMP's kernel names and code.
#pragma once

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "rill/algorithms/scatter_sorted.h"
#include "rill/dsl/kernel.h"

namespace rill {

enum class Combine { Replace, Add, Min, Max };

namespace detail {

/// Elements the device can update with one 32-bit atomic.
template <class T>
inline constexpr bool kAtomicElement =
    std::is_same_v<T, float> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t>;

/// Vectors of 2-4 int32, uint32 or float components (atomics per component).
template <class T>
inline constexpr bool kComponentAtomicElement = dsl::vector_scalar_v<T> != Scalar::Bool;

/// Whether scatter_op with `how` updates vector elements T one component at a
/// time: Add (any of them), Min and Max (int and uint; floats have no atomic min).
template <class T>
bool component_atomics(Combine how) {
    return kComponentAtomicElement<T> &&
           (how == Combine::Add || ((how == Combine::Min || how == Combine::Max) && dsl::vector_scalar_v<T> != Scalar::Float));
}

/// Checks sizes and returns the number of workgroups for n updates.
std::int64_t scatter_groups(const char* what, const StreamBase& values, const StreamBase& index, std::int64_t* n);

inline constexpr std::uint32_t kScatterGroup = 256;

/// old = user(element, v) applied atomically at target[i], by a compare-exchange
/// loop on the element's bits: retry until no other update came between our
/// read and our write. Returns the old element.
template <class T, class C>
Expr<T> compare_exchange_loop(const Array<T>& target, const Int& i, const Expr<T>& v, const C& user) {
    auto from_bits = [](const auto& b) {
        if constexpr (std::is_same_v<T, float>) return Expr<T>(uint_bits_to_float(b));
        else return cast<T>(b);
    };
    auto to_bits = [](const auto& x) {
        if constexpr (std::is_same_v<T, float>) return Expr<std::uint32_t>(float_bits_to_uint(x));
        else return cast<std::uint32_t>(x);
    };
    UInt seen = target.atomic_load_bits(i);
    UInt old = seen;
    Bool done = false;
    While([&] { return !done; }, [&] {
        old = target.atomic_compare_exchange_bits(i, seen, to_bits(user(from_bits(seen), v)));
        done = old == seen;
        seen = old;
    });
    return from_bits(old);
}

/// old = combine(element, v) applied atomically at target[i]; returns the old element.
template <class T, class C>
Expr<T> atomic_combine(const Array<T>& target, const Int& i, const Expr<T>& v, Combine how, const C& user) {
    if constexpr (!std::is_same_v<C, std::nullptr_t>) {
        return compare_exchange_loop(target, i, v, user);
    } else if constexpr (std::is_same_v<T, float>) {
        // Devices have float atomic add at most: the rest loop on compare-exchange.
        switch (how) {
            case Combine::Add: return target.atomic_add(i, v);
            case Combine::Replace: return compare_exchange_loop(target, i, v, [](const Expr<T>&, const Expr<T>& b) { return b; });
            case Combine::Min: return compare_exchange_loop(target, i, v, [](const Expr<T>& a, const Expr<T>& b) { return Expr<T>(min(a, b)); });
            case Combine::Max: return compare_exchange_loop(target, i, v, [](const Expr<T>& a, const Expr<T>& b) { return Expr<T>(max(a, b)); });
        }
        return target.atomic_add(i, v);
    } else {
        switch (how) {
            case Combine::Replace: return target.atomic_exchange(i, v);
            case Combine::Add: return target.atomic_add(i, v);
            case Combine::Min: return target.atomic_min(i, v);
            case Combine::Max: return target.atomic_max(i, v);
        }
        return target.atomic_add(i, v);
    }
}

template <class T, class C>
auto make_scatter_kernel(const std::string& name, Combine how, C user) {
    return group_kernel<kScatterGroup>(name + "(values, index, target, n)", [how, user](Array<T> values, Array<std::int32_t> index,
                                                                                      Array<T> target, Int n) {
        Int i = global_id();
        If(i < n, [&] { (void)atomic_combine(target, Int(index.load(i)), Expr<T>(values.load(i)), how, user); });
    });
}

template <class T, class C>
auto make_gather_kernel(const std::string& name, Combine how, C user) {
    return group_kernel<kScatterGroup>(name + "(index, values, source, old, n)",
                                       [how, user](Array<std::int32_t> index, Array<T> values, Array<T> source, Array<T> old,
                                                   Int n) {
                                           Int i = global_id();
                                           If(i < n, [&] {
                                               old.store(i, atomic_combine(source, Int(index.load(i)), Expr<T>(values.load(i)),
                                                                           how, user));
                                           });
                                       });
}

/// A built-in combiner as a DSL function, for the sorted path.
template <class T>
Combiner<T> builtin_combiner(const char* what, Combine how) {
    constexpr bool numeric = [] {
        if constexpr (IrValueType<T>) return dsl::type_v<T>.scalar != Scalar::Bool;
        else return false;
    }();
    if (how == Combine::Replace) return [](Element<T>, Element<T> v) { return v; };
    if constexpr (numeric) {
        switch (how) {
            case Combine::Add: return [](Element<T> a, Element<T> b) { return Element<T>(a + b); };
            case Combine::Min: return [](Element<T> a, Element<T> b) { return Element<T>(min(a, b)); };
            case Combine::Max: return [](Element<T> a, Element<T> b) { return Element<T>(max(a, b)); };
            case Combine::Replace: break;
        }
    }
    throw Error(std::string("rill::") + what + ": this combiner needs +, min or max on the element type, which it does "
                "not have; give a rill::ScatterOp with your own combiner");
}

/// The atomic path's kernels of one element type and combiner.
template <class T>
struct AtomicScatter {
    template <class C>
    AtomicScatter(const std::string& name, Combine how, C user)
        : scatter(make_scatter_kernel<T>(name + "_scatter", how, user)),
          gather(make_gather_kernel<T>(name + "_gather", how, user)) {}
    decltype(make_scatter_kernel<T>("", Combine::Add, Combiner<T>())) scatter;
    decltype(make_gather_kernel<T>("", Combine::Add, Combiner<T>())) gather;
};

/// scatter_op on the components of vectors of W scalars S, one invocation per
/// component: invocation j applies component j % W of update j / W, so that W
/// neighbouring invocations update the W words of one element together (on
/// GPUs one memory transaction, where an invocation per update had each atomic
/// instruction touch as many elements as a subgroup has invocations).
template <class S, int W>
auto make_component_kernel(const std::string& name, Combine how) {
    return group_kernel<kScatterGroup>(
        name + "(values, index, target, words, size)",
        [how](Array<S> values, Array<std::int32_t> index, Array<S> target, Int words, Int size) {
            Int j = global_id();
            If(j < words, [&] {
                Int i = j / W;
                Int t = index.load(i);
                // In range before t * W: a wild index must not wrap onto another element's word.
                If(t >= 0 && t < size, [&] {
                    (void)atomic_combine(target, t * W + (j - i * W), Expr<S>(values.load(j)), how, nullptr);
                });
            });
        });
}

/// A built-in combiner's kernels for vector elements: scatter_op one atomic per
/// component where component_atomics says so; gather_op, and scatter_op with
/// the other combiners, the sorted path.
template <class T>
struct VectorScatter {
    using S = typename vector_traits<T>::scalar;
    static constexpr int W = vector_traits<T>::width;
    VectorScatter(const std::string& name, Combine how, Combiner<T> combine) : sorted(name, std::move(combine)) {
        if (component_atomics<T>(how)) components.emplace(make_component_kernel<S, W>(name + "_components", how));
    }
    /// target[index[i]] = combine(target[index[i]], values[i]), component by component.
    void scatter(const Stream<T>& values, const Stream<std::int32_t>& index, const Stream<T>& target) const {
        const std::int64_t n = index.size(), size = target.size();
        if (size > 0x7fffffff / W)
            throw Error("rill::scatter_op: a target of " + std::to_string(size) + " elements of " +
                        std::to_string(W) + " components is more than 2^31 - 1 words; split the target");
        // As 1D streams, whatever their rank (strided views go on to the Array's error).
        auto flat = [](const auto& s) { return s.contiguous() && !s.is_iterator() ? s.reshape(Shape{s.size()}) : s; };
        const Stream<T> v = flat(values), to = flat(target);
        const Stream<std::int32_t> i = flat(index);
        auto run = [&](const Stream<T>& part, const Stream<std::int32_t>& at) {
            const std::int64_t words = at.size() * W;
            if (words > 0)
                (*components)(Groups{(words + kScatterGroup - 1) / kScatterGroup}, part.components(), at, to.components(),
                              static_cast<std::int32_t>(words), static_cast<std::int32_t>(size));
        };
        // Invocation ids are int32: past 2^31 words, runs of updates whose words they can count.
        const std::int64_t most = (std::int64_t{0x7fffffff} - kScatterGroup) / W;
        if (n <= most) return run(v, i);
        for (std::int64_t first = 0; first < n; first += most)
            run(v.domain({first}, {std::min(n, first + most)}), i.domain({first}, {std::min(n, first + most)}));
    }
    SortedScatter<T> sorted;
    std::optional<decltype(make_component_kernel<S, W>("", Combine::Add))> components;
};

/// target[index[i]] = combine(...) for every i through `k`; with `old`, GatherOp.
template <class T, class K>
void run_scatter(const K& k, const Stream<T>& values, const Stream<std::int32_t>& index, const Stream<T>& target,
                 std::type_identity_t<const Stream<T>*> old) {
    std::int64_t n = 0;
    const std::int64_t groups = scatter_groups(old ? "gather_op" : "scatter_op", values, index, &n);
    if (old) scatter_groups("gather_op", *old, index, &n);
    if constexpr (std::is_same_v<K, AtomicScatter<T>>) {
        if (n == 0) return;
        if (old) k.gather(Groups{groups}, index, values, target, *old, static_cast<std::int32_t>(n));
        else k.scatter(Groups{groups}, values, index, target, static_cast<std::int32_t>(n));
    } else if constexpr (std::is_same_v<K, VectorScatter<T>>) {
        if (old || !k.components) return k.sorted(values, index, target, old);
        k.scatter(values, index, target);
    } else {
        k(values, index, target, old);
    }
}

/// The kernels for a built-in combiner, traced on first use.
template <class T>
const auto& builtin_scatter(const char* what, Combine how) {
    using K = std::conditional_t<kAtomicElement<T>, AtomicScatter<T>,
                                 std::conditional_t<kComponentAtomicElement<T>, VectorScatter<T>, SortedScatter<T>>>;
    static std::array<std::unique_ptr<K>, 4> kernels;
    static std::mutex m;
    std::lock_guard<std::mutex> lock(m);
    std::unique_ptr<K>& k = kernels[static_cast<int>(how)];
    if (!k) {
        const char* names[] = {"scatter_replace", "scatter_add", "scatter_min", "scatter_max"};
        const char* name = names[static_cast<int>(how)];
        if constexpr (kAtomicElement<T>) k = std::make_unique<K>(name, how, nullptr);
        else if constexpr (kComponentAtomicElement<T>) k = std::make_unique<K>(name, how, builtin_combiner<T>(what, how));
        else k = std::make_unique<K>(name, builtin_combiner<T>(what, how));
    }
    return *k;
}

}  // namespace detail

/// A ScatterOp / GatherOp with a user combiner, traced once.
template <class T>
class ScatterOp {
public:
    template <class F>
    ScatterOp(const std::string& name, F combine) : kernels_(make(name, detail::Combiner<T>(combine))) {}
    /// target[index[i]] = combine(target[index[i]], values[i]) for every i.
    void operator()(const Stream<T>& values, const Stream<std::int32_t>& index, const Stream<T>& target) const {
        detail::run_scatter(kernels_, values, index, target, nullptr);
    }
    /// old[i] = source[index[i]], then source[index[i]] = combine(that, values[i]).
    void gather(const Stream<std::int32_t>& index, const Stream<T>& values, const Stream<T>& source,
                const Stream<T>& old) const {
        detail::run_scatter(kernels_, values, index, source, &old);
    }

private:
    using Kernels = std::conditional_t<detail::kAtomicElement<T>, detail::AtomicScatter<T>, detail::SortedScatter<T>>;
    static Kernels make(const std::string& name, detail::Combiner<T> combine) {
        if constexpr (detail::kAtomicElement<T>) return Kernels(name, Combine::Add, std::move(combine));
        else return Kernels(name, std::move(combine));
    }
    Kernels kernels_;
};

/// target[index[i]] = combine(target[index[i]], values[i]) for every i.
template <class T>
void scatter_op(const Stream<T>& values, const Stream<std::int32_t>& index, const Stream<T>& target, Combine how) {
    detail::run_scatter(detail::builtin_scatter<T>("scatter_op", how), values, index, target, nullptr);
}

/// old[i] = source[index[i]], then source[index[i]] = combine(that, values[i]).
template <class T>
void gather_op(const Stream<std::int32_t>& index, const Stream<T>& values, const Stream<T>& source,
               const Stream<T>& old, Combine how) {
    detail::run_scatter(detail::builtin_scatter<T>("gather_op", how), values, index, source, &old);
}

}  // namespace rill
