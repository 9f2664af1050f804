// rill::kernel: trace a C++ lambda into IR once, call it on streams many times.
//
//   auto saxpy = rill::kernel("saxpy(a, x, y, result)",
//       [](rill::Float a, rill::In<rill::float4> x, rill::In<rill::float4> y,
//          rill::Out<rill::float4> result) { result = a * x + y; });
//   saxpy(2.0f, x, y, result);   // asynchronous; result.download() waits
//
// The first argument is the kernel's name, optionally followed by its
// parameter names in parentheses; error messages use them. The body is traced
// right here, so tracing errors surface at this line, not at the first call.
// Argument types are checked at compile time; shapes at each call.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "rill/core/launch.h"
#include "rill/dsl/group.h"
#include "rill/dsl/params.h"

namespace rill {

namespace dsl {

template <class F>
struct lambda_params : lambda_params<decltype(&F::operator())> {};
template <class C, class R, class... A>
struct lambda_params<R (C::*)(A...) const> {
    using type = std::tuple<std::remove_cvref_t<A>...>;
};
template <class C, class R, class... A>
struct lambda_params<R (C::*)(A...)> {
    using type = std::tuple<std::remove_cvref_t<A>...>;
};

template <class P>
struct param_traits {
    static constexpr bool valid = false;
};
template <class T>
struct param_traits<In<T>> {
    static constexpr bool valid = true;
    static constexpr ir::ParamKind kind = ir::ParamKind::Input;
    using element = T;
    static constexpr int rank = 0;
};
template <class T>
struct param_traits<Out<T>> {
    static constexpr bool valid = true;
    static constexpr ir::ParamKind kind = ir::ParamKind::Output;
    using element = T;
    static constexpr int rank = 0;
};
template <class T, int R>
struct param_traits<Gather<T, R>> {
    static constexpr bool valid = true;
    static constexpr ir::ParamKind kind = ir::ParamKind::Gather;
    using element = T;
    static constexpr int rank = R;
};
template <class T>
struct param_traits<Array<T>> {
    static constexpr bool valid = true;
    static constexpr ir::ParamKind kind = ir::ParamKind::Array;
    using element = T;
    static constexpr int rank = 0;
};
template <class T>
struct param_traits<Var<T>> {
    static constexpr bool valid = true;
    static constexpr ir::ParamKind kind = ir::ParamKind::Uniform;
    using element = std::conditional_t<std::is_same_v<T, bool>, bool32, T>;
    static constexpr int rank = 0;
};

/// Parses "name(a, b, c)" into the name and the parameter names.
struct KernelSignature {
    std::string name;
    std::vector<std::string> params;
};
KernelSignature parse_signature(const std::string& text, std::size_t param_count);

/// RAII: a trace in progress on this thread.
class TraceScope {
public:
    explicit TraceScope(const std::string& name);
    ~TraceScope();
    TraceScope(const TraceScope&) = delete;
    TraceScope& operator=(const TraceScope&) = delete;
    TraceContext& context() { return *ctx_; }
    /// Finishes the kernel: validates it and hands it over.
    std::shared_ptr<const ir::Kernel> finish();

private:
    std::unique_ptr<TraceContext> ctx_;
    TraceContext* saved_;
};

std::uint16_t add_param(const std::string& name, const std::string& type_name, ir::ParamKind kind,
                        std::uint32_t words, int gather_rank);
void begin_epilogue();
/// Checks the options against the kernel being traced and records them.
void set_group_options(const GroupOptions& options);
void emit_store(std::uint16_t param, ir::ExprId value, std::uint32_t word);

template <class P>
P make_param(const std::string& name) {
    using tr = param_traits<P>;
    using E = typename tr::element;
    std::uint16_t index = add_param(name, element_name<E>::get(), tr::kind, element_words<E>, tr::rank);
    if constexpr (tr::kind == ir::ParamKind::Uniform) {
        return P(uniform_leaves(index, trace().kernel.params[index].uniform_offset));
    } else {
        return P(ParamSetup{index});
    }
}

template <class P>
void store_if_output(P& p) {
    if constexpr (param_traits<P>::kind == ir::ParamKind::Output) {
        using Base = Var<dsl_t<typename param_traits<P>::element>>;
        for_each_leaf(static_cast<Base&>(p), [&](auto& leaf, std::uint32_t word) {
            emit_store(p.param_index(), leaf.id(), word);
        });
    }
}

/// Per-call storage of one argument: a stream pointer, or a constant's bytes.
template <class P>
struct ArgSlot {
    using E = typename param_traits<P>::element;
    static constexpr bool is_stream = param_traits<P>::kind != ir::ParamKind::Uniform;

    template <class A>
    static constexpr bool accepts() {
        if constexpr (is_stream) return std::is_same_v<std::remove_cvref_t<A>, Stream<E>>;
        else return std::is_convertible_v<const A&, E>;
    }
    template <class A>
    explicit ArgSlot(const A& a) {
        if constexpr (is_stream) stream = &a;
        else value = static_cast<E>(a);
    }
    detail::LaunchArg launch_arg() const {
        if constexpr (is_stream) return detail::LaunchArg{stream, nullptr, 0};
        else return detail::LaunchArg{nullptr, &value, sizeof(E)};
    }
    const StreamBase* stream = nullptr;
    std::conditional_t<is_stream, char, E> value{};
};

}  // namespace dsl

/// A traced kernel, callable on streams. Cheap to copy (shares the IR).
template <class... Ps>
class Kernel {
public:
    explicit Kernel(std::shared_ptr<detail::KernelState> s) : state_(std::move(s)) {}

    template <class... Args>
    void operator()(const Args&... args) const {
        static_assert(sizeof...(Args) == sizeof...(Ps),
                      "rill: kernel called with a different number of arguments than its lambda has parameters");
        check_args<0, Args...>();
        std::tuple<dsl::ArgSlot<Ps>...> slots{dsl::ArgSlot<Ps>(args)...};
        std::array<detail::LaunchArg, sizeof...(Ps)> launch_args = std::apply(
            [](const auto&... s) { return std::array<detail::LaunchArg, sizeof...(Ps)>{s.launch_arg()...}; }, slots);
        detail::launch(*state_, launch_args);
    }

    /// Runs a group kernel on `groups` workgroups.
    template <class... Args>
    void operator()(Groups groups, const Args&... args) const {
        static_assert(sizeof...(Args) == sizeof...(Ps),
                      "rill: kernel called with a different number of arguments than its lambda has parameters");
        check_args<0, Args...>();
        std::tuple<dsl::ArgSlot<Ps>...> slots{dsl::ArgSlot<Ps>(args)...};
        std::array<detail::LaunchArg, sizeof...(Ps)> launch_args = std::apply(
            [](const auto&... s) { return std::array<detail::LaunchArg, sizeof...(Ps)>{s.launch_arg()...}; }, slots);
        detail::launch(*state_, launch_args, groups.count);
    }

    const ir::Kernel& ir() const { return *state_->ir; }
    const std::string& name() const { return state_->ir->name; }

private:
    template <std::size_t I, class A, class... Rest>
    static constexpr void check_args() {
        using P = std::tuple_element_t<I, std::tuple<Ps...>>;
        static_assert(dsl::ArgSlot<P>::template accepts<A>(),
                      "rill: a kernel argument does not match its parameter: In<T>, Out<T>, Array<T> "
                      "and Gather<T, R> take a rill::Stream<T> of exactly that T; a constant parameter "
                      "Var<T> takes a value convertible to T (see the note above for which argument)");
        if constexpr (sizeof...(Rest) > 0) check_args<I + 1, Rest...>();
    }
    template <std::size_t I>
    static constexpr void check_args() {}

    std::shared_ptr<detail::KernelState> state_;
};

namespace dsl {

template <class P>
constexpr bool is_element_stream() {
    if constexpr (param_traits<P>::valid)
        return param_traits<P>::kind == ir::ParamKind::Input || param_traits<P>::kind == ir::ParamKind::Output;
    else
        return false;
}
template <class... Ps>
constexpr bool no_element_streams(std::tuple<Ps...>*) {
    return (!is_element_stream<Ps>() && ...);
}

template <class Tuple>
struct kernel_of;
template <class... Ps>
struct kernel_of<std::tuple<Ps...>> {
    using type = Kernel<Ps...>;
};

/// Traces `body` with parameters of types Ps... and returns the finished IR.
template <class F, class... Ps, std::size_t... I>
std::shared_ptr<const ir::Kernel> trace_kernel(const std::string& signature, F& body, std::tuple<Ps...>*,
                                               std::index_sequence<I...>, std::uint32_t workgroup_size = 0,
                                               GroupOptions options = {}) {
    static_assert((param_traits<Ps>::valid && ...),
                  "rill::kernel: every lambda parameter must be rill::In<T>, rill::Out<T>, rill::Array<T>, "
                  "rill::Gather<T, R>, or a constant rill::Var<T> (rill::Float, rill::Int3, a RILL_STRUCT ...)");
    KernelSignature sig = parse_signature(signature, sizeof...(Ps));
    TraceScope scope(sig.name);
    scope.context().kernel.workgroup_size = workgroup_size;
    set_group_options(options);
    // Braced init runs the constructors left to right: parameters get indices in order.
    std::tuple<Ps...> params{make_param<Ps>(sig.params[I])...};
    std::apply(body, params);
    begin_epilogue();
    std::apply([](auto&... p) { (store_if_output(p), ...); }, params);
    return scope.finish();
}

}  // namespace dsl

/// Traces a group kernel: `WorkgroupSize` invocations per workgroup, launched
/// as kernel(rill::Groups{count}, args...). Its parameters are Array<T>,
/// Gather<T, R> and constants; see rill/dsl/group.h.
/// The same with the workgroup size given at run time, for code that picks
/// it (an algorithm's tile shape from its options or the device): one
/// function traces every size, where a template argument per size compiles
/// the tracing code once per size. A size outside 1 .. 1024 is a rill::Error.
template <class F>
auto group_kernel(std::uint32_t workgroup_size, const std::string& signature, GroupOptions options, F&& body) {
    using Params = typename dsl::lambda_params<std::remove_cvref_t<F>>::type;
    static_assert(dsl::no_element_streams(static_cast<Params*>(nullptr)),
                  "rill::group_kernel: In<T> and Out<T> belong to element kernels (rill::kernel); a group "
                  "kernel reads and writes streams through rill::Array<T> (and reads through Gather<T, R>)");
    if (workgroup_size < 1 || workgroup_size > 1024)
        throw Error("rill::group_kernel '" + signature + "': a workgroup of " + std::to_string(workgroup_size) +
                    " invocations; give 1 to 1024 (devices may allow less; checked at launch)");
    using K = typename dsl::kernel_of<Params>::type;
    auto ir = dsl::trace_kernel(signature, body, static_cast<Params*>(nullptr),
                                std::make_index_sequence<std::tuple_size_v<Params>>{}, workgroup_size, options);
    return K(std::make_shared<detail::KernelState>(std::move(ir)));
}
template <class F>
auto group_kernel(std::uint32_t workgroup_size, const std::string& signature, F&& body) {
    return group_kernel(workgroup_size, signature, GroupOptions{}, std::forward<F>(body));
}

template <std::uint32_t WorkgroupSize, class F>
auto group_kernel(const std::string& signature, GroupOptions options, F&& body) {
    static_assert(WorkgroupSize >= 1 && WorkgroupSize <= 1024,
                  "rill::group_kernel<N>: N is 1 to 1024 (devices may allow less; checked at launch)");
    return group_kernel(WorkgroupSize, signature, options, std::forward<F>(body));
}
template <std::uint32_t WorkgroupSize, class F>
auto group_kernel(const std::string& signature, F&& body) {
    return group_kernel(WorkgroupSize, signature, GroupOptions{}, std::forward<F>(body));
}

template <class F>
auto kernel(const std::string& signature, F&& body) {
    using Params = typename dsl::lambda_params<std::remove_cvref_t<F>>::type;
    using K = typename dsl::kernel_of<Params>::type;
    auto ir = dsl::trace_kernel(signature, body, static_cast<Params*>(nullptr),
                                std::make_index_sequence<std::tuple_size_v<Params>>{});
    return K(std::make_shared<detail::KernelState>(std::move(ir)));
}

}  // namespace rill
