// Variable outputs (Brook for GPUs, section 6): a kernel that emits any number
// of elements per input element, 0 included, into one stream in input order,
// whose length is known only after the kernel ran.
//
//   rill::VariableOutput<Tri, Tri> refine("refine", [](const rill::Var<Tri>& t, const rill::Int& i,
//                                                      rill::Emitter<Tri>& emit) {
//       rill::If(too_big(t), [&] { for (int c = 0; c < 4; ++c) emit(child(t, c)); }).Else([&] { emit(t); });
//   });
//   rill::Stream<Tri> finer = refine(tris);   // exactly as long as what was emitted
//   refine(tris, out, count);                 // no host round trip: count stays on the device
//
// The body runs twice per element: once counting its emits, then, after a
// scan of the counts, again writing them at its place; so it must
// emit the same values both times (no atomics or stores of its own). Extra
// streams the body reads are passed after the input, as `Array`s:
// VariableOutput<In, Out, Extra...> with a body taking `const Array<Extra>&...`.
// Counts are uint32: the total emitted by one call must stay below 2^32.
#pragma once

#include <limits>
#include <optional>

#include <rill/algorithms/scan.h>

namespace rill {

/// What a VariableOutput body emits through: emit(value) appends one element.
template <StreamElement T>
class Emitter {
public:
    template <class V>
    void operator()(const V& value) {
        if (out_) out_->store(at_ + count_, value);  // past the output's end: nothing (the count still grows)
        count_ = count_ + 1;
    }
    /// Elements emitted so far by this invocation.
    Expr<std::int32_t> count() const { return count_; }

    /// Counting (out == nullptr) or writing from index `at` of `out`.
    Emitter(const Array<T>* out, const Expr<std::int32_t>& at) : out_(out), at_(at), count_(0) {}

private:
    const Array<T>* out_;
    Int at_;
    Int count_;
};

template <StreamElement In, StreamElement Out, StreamElement... Extra>
class VariableOutput {
    using Body = std::function<void(const dsl::read_t<In>&, const Int&, Emitter<Out>&, const Array<Extra>&...)>;

public:
    template <class F>
    VariableOutput(const std::string& name, F body)
        : name_(name), count_(make_count(name, Body(body))), write_(make_write(name, Body(body))) {}

    /// Emits into `out` and writes the number of elements emitted to `count`
    /// (a Stream<uint32_t> of one element), all on the device. Elements that
    /// fall past out's end are dropped; `count` still says how many there were,
    /// so a caller that finds count > out.size() can grow `out` and run again.
    void operator()(const Stream<In>& in, const Stream<Out>& out, const Stream<std::uint32_t>& count,
                    const Stream<Extra>&... extras) const {
        if (count.size() != 1)
            throw Error("rill::VariableOutput '" + name_ + "': the count stream has " + std::to_string(count.size()) +
                        " elements; pass a Stream<uint32_t> of one element");
        auto offsets = count_offsets(in, extras...);
        if (!offsets) {
            Stream<std::uint32_t>(count).upload(std::vector<std::uint32_t>{0});
            return;
        }
        write_(Groups{groups(in)}, in, *offsets, out, count, size_of(in), extras...);
    }

    /// Emits into a new stream of exactly the emitted length (waits for the
    /// device once, to learn that length).
    Stream<Out> operator()(const Stream<In>& in, const Stream<Extra>&... extras) const {
        Runtime rt = Runtime::of(in);
        auto ends = count_offsets(in, extras...);
        if (!ends) return rt.template stream<Out>({0});
        const std::int64_t n = in.size();
        const std::int64_t total = ends->domain({n - 1}, {n}).download()[0];
        auto out = rt.template stream<Out>({total});
        auto count = rt.template stream<std::uint32_t>({1});
        if (total > 0) write_(Groups{groups(in)}, in, *ends, out, count, size_of(in), extras...);
        return out;
    }

private:
    using CountKernel = decltype(group_kernel<256>("", [](Array<In>, Array<std::uint32_t>, Int, Array<Extra>...) {}));
    using WriteKernel = decltype(group_kernel<256>(
        "", [](Array<In>, Array<std::uint32_t>, Array<Out>, Array<std::uint32_t>, Int, Array<Extra>...) {}));

    static CountKernel make_count(const std::string& name, Body body) {
        return group_kernel<256>(name + "_count(in, counts, n" + extra_names() + ")",
                                 [body](Array<In> in, Array<std::uint32_t> counts, Int n, Array<Extra>... extras) {
            Int i = global_id();
            If(i < n, [&] {
                Emitter<Out> emit(nullptr, Int(0));
                body(in.load(i), i, emit, extras...);
                counts.store(i, cast<std::uint32_t>(emit.count()));
            });
        });
    }

    static WriteKernel make_write(const std::string& name, Body body) {
        return group_kernel<256>(name + "_write(in, ends, out, count, n" + extra_names() + ")",
                                 [body](Array<In> in, Array<std::uint32_t> ends, Array<Out> out,
                                        Array<std::uint32_t> count, Int n, Array<Extra>... extras) {
            Int i = global_id();
            If(i < n, [&] {
                UInt at = ends.load(i - 1);  // where element i-1's emits end; ends[-1] reads 0
                Emitter<Out> emit(&out, cast<std::int32_t>(at));
                body(in.load(i), i, emit, extras...);
                If(i == n - 1, [&] { count.store(0, ends.load(i)); });
            });
        });
    }

    /// The inclusive scan of the per-element counts (where each element's emits
    /// end), or nothing for an empty input.
    std::optional<Stream<std::uint32_t>> count_offsets(const Stream<In>& in, const Stream<Extra>&... extras) const {
        const std::int64_t n = in.size();
        if (n > std::numeric_limits<std::int32_t>::max() - 4096)
            throw Error("rill::VariableOutput '" + name_ + "': " + std::to_string(n) +
                        " input elements is more than 2^31 - 4097; split the input");
        if (n == 0) return std::nullopt;
        auto offsets = Runtime::of(in).template stream<std::uint32_t>({n});
        count_(Groups{groups(in)}, in, offsets, size_of(in), extras...);
        inclusive_scan(offsets, offsets);
        return offsets;
    }

    /// ", extra0, extra1 ...": the kernels name every parameter.
    static std::string extra_names() {
        std::string names;
        for (std::size_t k = 0; k < sizeof...(Extra); ++k) names += ", extra" + std::to_string(k);
        return names;
    }

    static std::int64_t groups(const Stream<In>& in) { return (in.size() + 255) / 256; }
    static std::int32_t size_of(const Stream<In>& in) { return static_cast<std::int32_t>(in.size()); }

    std::string name_;
    CountKernel count_;
    WriteKernel write_;
};

}  // namespace rill
