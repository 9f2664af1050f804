#include "native_executor.h"

#include <tbb/cache_aligned_allocator.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <vector>

#include "cpu_buffer.h"
#include "group_ops.h"
#include "rill/core/error.h"
#include "workgroup_order.h"

namespace rill::cpu {

namespace {

using u32 = std::uint32_t;

/// A workgroup's scratch columns, then its shared memory; per thread, reused.
tbb::enumerable_thread_specific<std::vector<u32, tbb::cache_aligned_allocator<u32>>>& scratch_pool() {
    static tbb::enumerable_thread_specific<std::vector<u32, tbb::cache_aligned_allocator<u32>>> pool;
    return pool;
}

/// Args::subgroup: the lane executor's subgroup operations, over one workgroup.
void subgroup(const void* program, u32 node, const u32* value, const u32* arg, const u32* mask, u32* out) {
    const auto& p = *static_cast<const CpuProgram*>(program);
    const ir::Kernel& k = p.kernel();
    const ir::Node& n = k.node(node);
    subgroup_op(n, k.node(n.args[0]).type, value, arg, mask, out, p.lanes(), p.subgroup_size());
}

}  // namespace

NativeDispatch::NativeDispatch(const CpuProgram& program, const Dispatch& d)
    : program_(program),
      scratch_words_(program.native().source->scratch_words),
      words_(scratch_words_ + program.shared_words()) {
    const ir::Kernel& k = program.kernel();
    arrays_.resize(k.params.size());
    for (std::size_t i = 0; i < k.params.size(); ++i) {
        const bool gather = k.params[i].kind == ir::ParamKind::Gather;
        if ((k.params[i].kind != ir::ParamKind::Array && !gather) || !d.streams[i].buffer) continue;
        const StreamBinding& b = d.streams[i];
        for (int r = 0; r < b.shape.rank; ++r) {
            arrays_[i].dims[r] = b.shape.dims[r];
            arrays_[i].strides[r] = b.strides[r];
        }
        arrays_[i].words = static_cast<CpuBuffer*>(b.buffer)->words() + static_cast<std::size_t>(b.offset) * k.params[i].words;
        arrays_[i].count = b.shape.size();
        arrays_[i].streamed = arrays_[i].count * k.params[i].words * std::int64_t{4} >= program.streaming_bytes();
    }
    args_.uniforms = d.uniforms.data();
    args_.arrays = arrays_.data();
    args_.num_groups = d.domain.size() / k.workgroup_size;
    args_.subgroup = &subgroup;
    args_.program = &program;
}

void NativeDispatch::run(native::WorkgroupFn fn, std::int64_t group) const {
    auto& s = scratch_pool().local();
    if (s.size() < words_) s.resize(words_, 0u);
    if (fn(&args_, group, s.data(), s.data() + scratch_words_) == native::kBarrierDiverged)
        throw Error(barrier_divergence(program_.kernel(), group));
}

void execute_native(const CpuProgram& program, native::WorkgroupFn fn, const Dispatch& d) {
    const NativeDispatch native(program, d);
    const WorkgroupOrder order(native.groups());
    auto body = [&](const tbb::blocked_range<std::int64_t>& r) {
        for (std::int64_t g = r.begin(); g != r.end(); ++g) native.run(fn, order(g));
    };
    // One workgroup per task, as in the lane executor: workgroups that wait on
    // each other (through atomics) must not share a thread.
    if (native.groups() <= 1) body(tbb::blocked_range<std::int64_t>(0, native.groups()));
    else tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, native.groups(), 1), body);
}

}  // namespace rill::cpu
