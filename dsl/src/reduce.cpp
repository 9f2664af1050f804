// Planning a reduction: which input block each output element covers, and how
// the block is split into chunks so that the first pass has enough parallelism.
#include "rill/dsl/reduce.h"

#include <algorithm>

namespace rill::dsl {

namespace {
// About this many independent folds per pass keep every core / SM busy while
// each fold stays long enough to amortize its setup.
constexpr std::int64_t kTargetFolds = 1 << 16;
constexpr std::int64_t kMinChunk = 32;
// The most elements per invocation of a run reduction where invocations run
// one after another, and the workgroups a run keeps at least
// (docs/PERFORMANCE.md#streaming-and-reductions).
constexpr std::int64_t kSequentialPer = 1024, kSequentialGroups = 64;

void set_chunks(FoldPlan& p) {
    std::int64_t total = p.outputs * p.block_size;
    std::int64_t chunk = std::max<std::int64_t>(kMinChunk, (total + kTargetFolds - 1) / kTargetFolds);
    p.chunk = std::min<std::int64_t>(chunk, std::max<std::int64_t>(p.block_size, 1));
    p.chunks = (p.block_size + p.chunk - 1) / p.chunk;
    if (p.chunks < 1) p.chunks = 1;
}

void check_int32(const std::string& name, const Shape& in) {
    if (in.size() > 0x7fffffff)
        throw Error("reduction '" + name + "': the input has " + std::to_string(in.size()) +
                    " elements; reductions index with 32-bit ints, so split the input into parts under 2^31");
}
}  // namespace

FoldPlan plan_reduction(const std::string& name, const Shape& in, const Shape& out) {
    check_int32(name, in);
    FoldPlan p;
    if (in.size() == 0)
        throw Error("reduction '" + name + "': the input stream is empty but the output has shape " + out.str() +
                    "; a user combiner has no identity element, so there is nothing to put there");
    if (out.size() == 1) {
        // Everything into one element, whatever the ranks.
        for (int d = 0; d < in.rank; ++d) p.block[d] = static_cast<std::int32_t>(in.dims[d]);
    } else {
        if (out.rank != in.rank)
            throw Error("reduction '" + name + "': the input has shape " + in.str() + " but the output has shape " +
                        out.str() + "; give the output the input's rank (e.g. {rows, 1} to reduce rows) or one element");
        for (int d = 0; d < in.rank; ++d) {
            if (out.dims[d] == 0 || in.dims[d] % out.dims[d] != 0)
                throw Error("reduction '" + name + "': the input has shape " + in.str() + " but the output has shape " +
                            out.str() + ": dimension " + std::to_string(d) + " (" + std::to_string(in.dims[d]) +
                            " over " + std::to_string(out.dims[d]) + ") is not an integer ratio; each output "
                            "dimension must divide the input's");
            p.out_dims[d] = static_cast<std::int32_t>(out.dims[d]);
            p.block[d] = static_cast<std::int32_t>(in.dims[d] / out.dims[d]);
        }
    }
    p.outputs = out.size();
    p.block_size = in.size() / p.outputs;
    set_chunks(p);
    return p;
}

bool blocks_are_runs(const Shape& in, const FoldPlan& p) {
    // Dimensions before the first one a block spans must be single, those
    // after it whole: then block j starts at j * block_size.
    int d = 0;
    while (d < in.rank && p.block[d] == 1) ++d;
    for (int e = d + 1; e < in.rank; ++e)
        if (p.block[e] != in.dims[e]) return false;
    return true;
}

RunsPlan plan_runs(std::int64_t run, int workgroup, bool in_sequence) {
    // 4 consecutive elements per invocation where the run has them: the
    // neighbours of an invocation read 16 bytes apart (floats), which the
    // caches gather into whole lines; longer runs per invocation spread a
    // warp's loads over many lines at once (on the H200, 64 per invocation
    // summed 2^28 floats at a twentieth of the bandwidth). Long runs take
    // more passes instead, each 1024 times shorter than the one before.
    // Where invocations run one after another, an invocation's run is
    // consecutive memory whatever its length, and long runs leave the
    // workgroup's in-order fold (its barriers) and the passes little to do:
    // as long as kSequentialGroups workgroups still share the run (every core busy).
    constexpr std::int64_t kPer = 4;
    RunsPlan q;
    q.per = std::max<std::int64_t>(1, std::min(kPer, (run + workgroup - 1) / workgroup));
    if (in_sequence) q.per = std::max(q.per, std::min(kSequentialPer, run / (workgroup * kSequentialGroups)));
    q.chunks = (run + q.per * workgroup - 1) / (q.per * workgroup);
    return q;
}

FoldPlan plan_rows(std::int64_t rows, std::int64_t cols) {
    FoldPlan p;
    p.out_dims = int4{static_cast<std::int32_t>(rows), 1, 1, 1};
    p.block = int4{1, static_cast<std::int32_t>(cols), 1, 1};
    p.outputs = rows;
    p.block_size = cols;
    set_chunks(p);
    return p;
}

}  // namespace rill::dsl
