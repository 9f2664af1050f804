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
// commutative) on int32, uint32 or float elements:
//
//   rill::ScatterOp<float> mul("mul", [](Expr<float> old, Expr<float> v) { return old * v; });
//   mul(values, index, target);
//
// Built-ins use the device's atomics (add, min, max, exchange; float add and
// signed min/max through compare-exchange on GPUs); user combiners run a
// compare-exchange loop. Which one ran is visible in RILL_DUMP's kernel code.
#pragma once

#include <functional>

#include "rill/dsl/kernel.h"

namespace rill {

enum class Combine { Replace, Add, Min, Max };

namespace dsl {

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

template <class T>
void check_scatter_type() {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t>,
                  "rill::scatter_op / gather_op: elements are float, int32 or uint32 (one 32-bit word, updated "
                  "atomically); sort by index and reduce segments for wider types");
}

}  // namespace dsl

/// A ScatterOp / GatherOp with a user combiner, traced once.
template <class T>
class ScatterOp {
public:
    template <class F>
    ScatterOp(const std::string& name, F combine)
        : scatter_(dsl::make_scatter_kernel<T>(name + "_scatter", Combine::Add, std::function<Expr<T>(Expr<T>, Expr<T>)>(combine))),
          gather_(dsl::make_gather_kernel<T>(name + "_gather", Combine::Add, std::function<Expr<T>(Expr<T>, Expr<T>)>(combine))) {
        dsl::check_scatter_type<T>();
    }
    /// target[index[i]] = combine(target[index[i]], values[i]) for every i.
    void operator()(const Stream<T>& values, const Stream<std::int32_t>& index, const Stream<T>& target) const {
        std::int64_t n = 0;
        const std::int64_t groups = dsl::scatter_groups("scatter_op", values, index, &n);
        if (n > 0) scatter_(Groups{groups}, values, index, target, static_cast<std::int32_t>(n));
    }
    /// old[i] = source[index[i]], then source[index[i]] = combine(that, values[i]).
    void gather(const Stream<std::int32_t>& index, const Stream<T>& values, const Stream<T>& source,
                const Stream<T>& old) const {
        std::int64_t n = 0;
        const std::int64_t groups = dsl::scatter_groups("gather_op", values, index, &n);
        dsl::scatter_groups("gather_op", old, index, &n);
        if (n > 0) gather_(Groups{groups}, index, values, source, old, static_cast<std::int32_t>(n));
    }

private:
    using Scatter = decltype(dsl::make_scatter_kernel<T>("", Combine::Add, std::function<Expr<T>(Expr<T>, Expr<T>)>()));
    using Gather = decltype(dsl::make_gather_kernel<T>("", Combine::Add, std::function<Expr<T>(Expr<T>, Expr<T>)>()));
    Scatter scatter_;
    Gather gather_;
};

/// target[index[i]] = combine(target[index[i]], values[i]) for every i.
template <class T>
void scatter_op(const Stream<T>& values, const Stream<std::int32_t>& index, const Stream<T>& target, Combine how) {
    dsl::check_scatter_type<T>();
    static const auto kernels = [] {
        std::array<decltype(dsl::make_scatter_kernel<T>("", Combine::Add, nullptr)), 4> ks{
            dsl::make_scatter_kernel<T>("scatter_replace", Combine::Replace, nullptr),
            dsl::make_scatter_kernel<T>("scatter_add", Combine::Add, nullptr),
            dsl::make_scatter_kernel<T>("scatter_min", Combine::Min, nullptr),
            dsl::make_scatter_kernel<T>("scatter_max", Combine::Max, nullptr)};
        return ks;
    }();
    std::int64_t n = 0;
    const std::int64_t groups = dsl::scatter_groups("scatter_op", values, index, &n);
    if (n > 0) kernels[static_cast<int>(how)](Groups{groups}, values, index, target, static_cast<std::int32_t>(n));
}

/// old[i] = source[index[i]], then source[index[i]] = combine(that, values[i]).
template <class T>
void gather_op(const Stream<std::int32_t>& index, const Stream<T>& values, const Stream<T>& source,
               const Stream<T>& old, Combine how) {
    dsl::check_scatter_type<T>();
    static const auto kernels = [] {
        std::array<decltype(dsl::make_gather_kernel<T>("", Combine::Add, nullptr)), 4> ks{
            dsl::make_gather_kernel<T>("gather_replace", Combine::Replace, nullptr),
            dsl::make_gather_kernel<T>("gather_add", Combine::Add, nullptr),
            dsl::make_gather_kernel<T>("gather_min", Combine::Min, nullptr),
            dsl::make_gather_kernel<T>("gather_max", Combine::Max, nullptr)};
        return ks;
    }();
    std::int64_t n = 0;
    const std::int64_t groups = dsl::scatter_groups("gather_op", values, index, &n);
    dsl::scatter_groups("gather_op", old, index, &n);
    if (n > 0) kernels[static_cast<int>(how)](Groups{groups}, index, values, source, old, static_cast<std::int32_t>(n));
}

}  // namespace rill
