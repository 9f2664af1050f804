#include "native_executor.h"

#include <tbb/cache_aligned_allocator.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <vector>

#include "cpu_buffer.h"
#include "group_ops.h"
#include "rill/core/error.h"

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

void execute_native(const CpuProgram& program, native::WorkgroupFn fn, const Dispatch& d) {
    const ir::Kernel& k = program.kernel();
    std::vector<native::Memory> arrays(k.params.size());
    for (std::size_t i = 0; i < k.params.size(); ++i) {
        if (k.params[i].kind != ir::ParamKind::Array || !d.streams[i].buffer) continue;
        const StreamBinding& b = d.streams[i];
        arrays[i].words = static_cast<CpuBuffer*>(b.buffer)->words() + static_cast<std::size_t>(b.offset) * k.params[i].words;
        arrays[i].count = b.shape.size();
        arrays[i].streamed = arrays[i].count * k.params[i].words * std::int64_t{4} >= program.streaming_bytes();
    }
    native::Args args;
    args.uniforms = d.uniforms.data();
    args.arrays = arrays.data();
    args.num_groups = d.domain.size() / k.workgroup_size;
    args.subgroup = &subgroup;
    args.program = &program;
    const std::size_t scratch_words = program.native().source->scratch_words;
    const std::size_t words = scratch_words + program.shared_words();
    auto body = [&](const tbb::blocked_range<std::int64_t>& r) {
        auto& s = scratch_pool().local();
        if (s.size() < words) s.resize(words, 0u);
        for (std::int64_t g = r.begin(); g != r.end(); ++g)
            if (fn(&args, g, s.data(), s.data() + scratch_words) == native::kBarrierDiverged)
                throw Error(barrier_divergence(k, g));
    };
    // One workgroup per task, as in the lane executor: workgroups that wait on
    // each other (through atomics) must not share a thread.
    if (args.num_groups <= 1) body(tbb::blocked_range<std::int64_t>(0, args.num_groups));
    else tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, args.num_groups, 1), body);
}

}  // namespace rill::cpu
