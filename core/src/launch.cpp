// Kernel call: check arguments (shapes, implicit resize, aliasing, runtime),
// find or compile the program, dispatch. Every user mistake here names the
// kernel, the argument and the fix.
#include "rill/core/launch.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "runtime_state.h"

namespace rill::detail {

KernelState::KernelState(std::shared_ptr<const ir::Kernel> k) : ir(std::move(k)), ir_hash(ir->hash()) {}

namespace {

using ir::ParamKind;

class Call {
public:
    Call(const ir::Kernel& k, std::span<const LaunchArg> args) : k_(k), args_(args) {}

    [[noreturn]] void fail(std::size_t i, const std::string& what) const {
        throw Error("kernel '" + k_.name + "': argument '" + k_.params[i].name + "' (" +
                    ir::param_kind_name(k_.params[i].kind) + " of " + k_.params[i].type_name + ") " + what);
    }

    std::shared_ptr<RuntimeState> check_runtime() const {
        std::shared_ptr<RuntimeState> rt;
        std::size_t first = 0;
        for (std::size_t i = 0; i < args_.size(); ++i) {
            const StreamBase* s = args_[i].stream;
            if (k_.params[i].kind == ParamKind::Uniform) continue;
            if (!s->runtime_state())
                fail(i, "is an empty Stream handle; create it with Runtime::stream before the call");
            if (!rt) {
                rt = s->runtime_state();
                first = i;
            } else if (s->runtime_state() != rt) {
                fail(i, "lives on another rill::Runtime than argument '" + k_.params[first].name +
                            "'; create all streams of one call from the same Runtime");
            }
        }
        if (!rt)
            throw Error("kernel '" + k_.name + "': has no stream arguments, so there is nothing to run "
                        "over; give it an Out<T> stream");
        return rt;
    }

    /// A group kernel runs groups x workgroup_size invocations; an element
    /// kernel one per element of its outputs.
    Shape domain(std::int64_t groups, const BackendInfo& info) const {
        if (k_.is_group_kernel() != (groups >= 0)) {
            if (groups < -1)
                throw Error("kernel '" + k_.name + "': rill::Groups{" + std::to_string(groups) +
                            "} is negative; pass the number of workgroups to run (0 runs none)");
            throw Error("kernel '" + k_.name + "': " +
                        (k_.is_group_kernel()
                             ? std::string("is a group kernel; call it as " + k_.name + "(rill::Groups{count}, ...)")
                             : std::string("is an element kernel (rill::kernel), which runs once per output element; "
                                           "call it without rill::Groups")));
        }
        if (!k_.is_group_kernel()) return element_domain();
        if (k_.workgroup_size > info.limits.max_workgroup_size)
            throw Error("kernel '" + k_.name + "': workgroup size " + std::to_string(k_.workgroup_size) +
                        " exceeds the " + info.name + " device's limit of " +
                        std::to_string(info.limits.max_workgroup_size) + " invocations; trace it with a smaller "
                        "rill::group_kernel<N>");
        if (k_.shared_bytes() > info.limits.shared_memory_bytes)
            throw Error("kernel '" + k_.name + "': its Shared<T> and Local<T> arrays take " + std::to_string(k_.shared_bytes()) +
                        " bytes but the " + info.name + " device has " + std::to_string(info.limits.shared_memory_bytes) +
                        " bytes of shared memory per workgroup; use fewer or smaller Shared and Local arrays (a Local<T> takes its count times the workgroup size)");
        if (const std::uint32_t s = k_.subgroup_size) {
            const DeviceLimits& l = info.limits;
            if (s < l.min_subgroup_size || s > l.max_subgroup_size)
                throw Error("kernel '" + k_.name + "': requires subgroups of " + std::to_string(s) + " invocations; the " +
                            info.name + " backend (" + info.device + ") runs " + std::to_string(l.min_subgroup_size) +
                            (l.max_subgroup_size != l.min_subgroup_size ? " to " + std::to_string(l.max_subgroup_size) : "") +
                            "; require a size in that range, or none (GroupOptions{})");
        }
        return Shape{groups * static_cast<std::int64_t>(k_.workgroup_size)};
    }

    Shape element_domain() const {
        std::size_t first = k_.params.size();
        for (std::size_t i = 0; i < args_.size(); ++i) {
            if (k_.params[i].kind != ParamKind::Output) continue;
            const StreamBase* s = args_[i].stream;
            if (s->is_iterator()) fail(i, "is an iterator stream, which cannot be written; pass a stream from Runtime::stream");
            if (first == k_.params.size()) {
                first = i;
            } else if (!(s->shape() == args_[first].stream->shape())) {
                fail(i, "has shape " + s->shape().str() + " but output '" + k_.params[first].name +
                            "' has shape " + args_[first].stream->shape().str() +
                            "; all outputs of a kernel must have the same shape");
            }
        }
        if (first == k_.params.size())
            throw Error("kernel '" + k_.name + "': has no Out<T> parameter, so there is no shape to run "
                        "over; add an output stream");
        return args_[first].stream->shape();
    }

    StreamBinding bind(std::size_t i, const Shape& dom) const {
        const ir::Param& p = k_.params[i];
        const StreamBase& s = *args_[i].stream;
        StreamBinding b;
        b.buffer = s.buffer();
        b.iterator = s.iterator();
        b.shape = s.shape();
        b.offset = s.offset();
        b.strides = s.strides();
        if (p.kind == ParamKind::Array) {
            if (s.is_iterator())
                fail(i, "is an iterator stream, which has no storage; pass a stream from Runtime::stream");
            if (!s.contiguous())
                fail(i, "is a strided view; an Array<T> needs contiguous elements (copy the view into a "
                        "new stream first)");
            b.shape = Shape{s.size()};
            b.strides = {1, 0, 0, 0};
            if (s.size() == 0) b.offset = 0;  // GPU loads clamp into [offset, offset + max(size, 1))
            if (p.vector_width && b.offset % p.vector_width != 0)
                fail(i, "is a view that starts at element " + std::to_string(b.offset) + " of its buffer, but the "
                        "kernel moves it " + std::to_string(p.vector_width) + " elements at a time (load_vector / "
                        "store_vector), which needs a start at a multiple of " + std::to_string(p.vector_width) +
                        "; pass a view that starts there, or a copy of this one in a new stream");
            b.linear = true;
            return b;
        }
        if (p.kind == ParamKind::Gather) {
            if (s.shape().rank != p.gather_rank)
                fail(i, "is indexed with " + std::to_string(p.gather_rank) + " coordinate(s) but the stream has shape " +
                            s.shape().str() + " (rank " + std::to_string(s.shape().rank) +
                            "); declare Gather<" + p.type_name + ", " + std::to_string(s.shape().rank) +
                            "> or reshape the stream");
            if (s.empty() && dom.size() > 0)
                fail(i, "is empty, so a gather has no element to read (gathers clamp to the edge); "
                        "pass a stream with at least one element");
            return b;
        }
        if (p.kind == ParamKind::Input) {
            if (s.shape().rank != dom.rank)
                fail(i, "has shape " + s.shape().str() + " but the output has shape " + dom.str() +
                            "; an input must have the output's rank (reshape it, e.g. to 1x" +
                            std::to_string(s.size()) + ")");
            for (int d = 0; d < dom.rank; ++d) {
                const std::int64_t in = s.shape().dims[d], out = dom.dims[d];
                if (in == out) continue;
                if (in > 0 && out > 0 && out % in == 0) {
                    b.resize_div[d] = out / in;  // repeat: 123 -> 111222333
                } else if (in > 0 && out > 0 && in % out == 0) {
                    b.resize_mul[d] = in / out;  // stride: 123456789 -> 13579... by in/out
                } else {
                    fail(i, "has shape " + s.shape().str() + " but the output has shape " + dom.str() +
                                ": dimension " + std::to_string(d) + " (" + std::to_string(in) + " vs " +
                                std::to_string(out) + ") is not an integer ratio, so it can be neither "
                                "repeated nor strided; make one size divide the other");
                }
            }
        }
        if (p.kind == ParamKind::Output)
            for (int d = 0; d < s.shape().rank; ++d)
                if (s.shape().dims[d] > 1 && s.strides()[d] == 0)
                    fail(i, "is a repeat view (its elements appear several times), which cannot be written; write "
                            "the stream it repeats");
        if (p.indexof_rank && s.shape().rank != p.indexof_rank)
            fail(i, "is used with indexof<" + std::to_string(p.indexof_rank) + "> but has rank " +
                        std::to_string(s.shape().rank) + "; use indexof<" + std::to_string(s.shape().rank) + ">");
        b.linear = s.contiguous() && s.shape() == dom;
        return b;
    }


    /// Element range [lo, hi] a view can touch (empty views touch nothing).
    static std::pair<std::int64_t, std::int64_t> extent(const StreamBase& s) {
        std::int64_t hi = s.offset();
        for (int d = 0; d < s.shape().rank; ++d) hi += (s.shape().dims[d] - 1) * s.strides()[d];
        return {s.offset(), hi};
    }
    static bool overlap(const StreamBase& a, const StreamBase& b) {
        if (a.empty() || b.empty()) return false;
        const auto [alo, ahi] = extent(a);
        const auto [blo, bhi] = extent(b);
        return alo <= bhi && blo <= ahi;
    }

    /// Views of one buffer may meet in a call only when they cannot race:
    /// disjoint regions, or the very same view as input and output (in place).
    void check_aliasing() const {
        for (std::size_t i = 0; i < args_.size(); ++i) {
            if (k_.params[i].kind == ParamKind::Uniform || !args_[i].stream->buffer()) continue;
            for (std::size_t j = i + 1; j < args_.size(); ++j) {
                if (k_.params[j].kind == ParamKind::Uniform) continue;
                const StreamBase* a = args_[i].stream;
                const StreamBase* b = args_[j].stream;
                if (a->buffer() != b->buffer()) continue;
                ParamKind ka = k_.params[i].kind, kb = k_.params[j].kind;
                // Arrays are written anywhere: for aliasing they count as outputs.
                bool a_out = ka == ParamKind::Output || ka == ParamKind::Array;
                bool b_out = kb == ParamKind::Output || kb == ParamKind::Array;
                if (!a_out && !b_out) continue;  // reading one stream twice is fine
                // Group kernels coordinate their own accesses (barriers, atomics).
                if (ka == ParamKind::Array && kb == ParamKind::Array) continue;
                if (!overlap(*a, *b)) continue;  // disjoint domains of one stream
                bool same_view = a->offset() == b->offset() && a->shape() == b->shape() && a->strides() == b->strides();
                if (a_out && b_out)
                    fail(j, "overlaps output '" + k_.params[i].name +
                                "' (the same stream, or overlapping views of it); two outputs of one call must not overlap");
                std::size_t gather = (ka == ParamKind::Gather) ? i : (kb == ParamKind::Gather ? j : args_.size());
                if (gather != args_.size())
                    fail(gather, "is also an output of this call; a stream read by gathers cannot be written "
                                 "by the same kernel call (other invocations would see half-written data). "
                                 "Write into a new stream, or into a domain that does not overlap the gathered one");
                if (!same_view)
                    fail(j, "shares storage with '" + k_.params[i].name +
                                "' through an overlapping but different view; in-place kernels must read and write "
                                "the same elements");
            }
        }
    }

private:
    const ir::Kernel& k_;
    std::span<const LaunchArg> args_;
};

std::uint8_t stream_kind(const StreamBinding& b) {
    if (b.iterator) return 3;
    return b.linear ? 1 : 2;
}

}  // namespace

void launch(const KernelState& ks, std::span<const LaunchArg> args, std::int64_t groups) {
    const ir::Kernel& k = *ks.ir;
    RILL_ASSERT(args.size() == k.params.size(), "argument count differs from the traced kernel");
    Call call(k, args);
    std::shared_ptr<RuntimeState> rt = call.check_runtime();
    Dispatch d;
    d.domain = call.domain(groups, rt->backend->info());
    call.check_aliasing();
    d.streams.resize(k.params.size());
    d.uniforms.assign(k.uniform_words, 0u);
    Signature sig;
    sig.stream_kinds.resize(k.params.size(), 0);
    sig.domain_rank = d.domain.rank;
    sig.dim_resizes.assign(4 * k.params.size(), 0);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const ir::Param& p = k.params[i];
        if (p.kind == ParamKind::Uniform) {
            RILL_ASSERT(args[i].bytes == p.words * 4u, "constant size differs from the traced parameter");
            std::memcpy(d.uniforms.data() + p.uniform_offset, args[i].value, args[i].bytes);
            continue;
        }
        const StreamBinding& b = d.streams[i] = call.bind(i, d.domain);
        sig.stream_kinds[i] = stream_kind(b);
        for (int dim = 0; dim < d.domain.rank; ++dim) {
            const bool resized = b.resize_mul[dim] != 1 || b.resize_div[dim] != 1;
            sig.dim_resizes[4 * i + dim] = !resized ? 0 : b.shape.dims[dim] == 1 ? 1 : 2;
        }
    }
    sig.aliased.assign(k.params.size(), 0);
    for (std::size_t i = 0; i < args.size(); ++i)
        for (std::size_t j = i + 1; j < args.size(); ++j)
            if (d.streams[i].buffer && d.streams[i].buffer == d.streams[j].buffer) sig.aliased[i] = sig.aliased[j] = 1;
    if (d.domain.size() == 0) return;

    const std::uint64_t sig_hash = sig.hash();
    Program* program = nullptr;
    {
        std::lock_guard lock(ks.last_mutex);
        if (ks.last.runtime_serial == rt->serial && ks.last.signature_hash == sig_hash) program = ks.last.program;
    }
    if (!program) {
        std::lock_guard lock(rt->programs_mutex);
        auto& slot = rt->programs[RuntimeState::Key{ks.ir_hash, sig_hash}];
        if (!slot) {
            std::ostringstream name;
            name << k.name << "-" << std::hex << ks.ir_hash << ".ir.txt";
            if (std::getenv("RILL_DUMP")) dump_file(name.str(), ir::print(k));
            const auto started = std::chrono::steady_clock::now();
            slot = rt->backend->compile(k, sig);
            ++rt->programs_compiled;
            // Read at every compile (they are rare), so that a process may turn it on and off.
            if (env_flag("RILL_LOG_COMPILES"))
                std::fprintf(stderr, "rill %s: kernel %s ready in %.1f ms (%s)\n", rt->backend->info().name.c_str(), k.name.c_str(),
                             std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count(),
                             slot->build_phases.empty() ? "generated, compiled or loaded from the disk cache"
                                                        : slot->build_phases.c_str());
        }
        program = slot.get();
        std::lock_guard lock2(ks.last_mutex);
        ks.last = KernelState::Last{rt->serial, sig_hash, program};
    }
    rt->backend->dispatch(*program, k, d);
    ++rt->dispatches;
}

}  // namespace rill::detail
