// A kernel compiled for the CPU backend: no machine code, but a plan for the
// lane executor. Each IR node gets a column of `lanes` values per component in
// a per-thread scratch area; each statement gets the post-order list of nodes
// it must evaluate. Nodes are classified once:
//   Uniform  depends only on constants: computed once per task
//   Lane     depends on loads/positions but no variable: memoized per block
//   Varying  depends on a variable read: recomputed wherever it is used
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "eval_node.h"
#include "native_abi.h"
#include "native_codegen.h"
#include "rill/core/backend.h"
#include "rill/core/ir.h"

namespace rill::cpu {

/// A group kernel's compiled form (native.h), once it has one.
struct NativeState {
    std::optional<NativeSource> source;  // null for element kernels
    std::atomic<native::WorkgroupFn> fn{nullptr};
    std::mutex building;
    std::int64_t invocations = 0;  // run by the lane executor so far (RILL_CPU_COMPILE=auto)
    std::chrono::steady_clock::duration interpreted{};  // and the time that took
    bool attempted = false;
};

enum class Level : std::uint8_t { Uniform, Lane, Varying };

/// One step of a straight-line kernel's tape (see CpuProgram::tape).
struct TapeStep {
    enum class Kind : std::uint8_t {
        Loop,         // out = loop(a, b) over count words: an element-wise node
        Fused,        // out = fused(a, b, c) over count words: two element-wise nodes
        Node,         // any other node, through eval_node
        ReadVar,      // Def statement `id` of a variable read
        Assign,       // Assign statement `id`
        StoreTarget,  // Store statement `id` may compute its value straight into the stream
        Store,        // Store statement `id`
    };
    Kind kind;
    std::uint32_t id;
    LaneLoop loop = nullptr;
    FusedLoop fused = nullptr;
    // The same loops with non-temporal stores, for when `id` is computed
    // straight into a stream larger than the caches.
    LaneLoop loop_streaming = nullptr;
    FusedLoop fused_streaming = nullptr;
    ir::ExprId a = 0, b = 0, c = 0;
    int count = 0;  // words: components * lanes
    unsigned uniform = 0;  // bit i: operand i (a, b, c) is a Uniform node (see LaneLoop)
};

class CpuProgram final : public Program {
public:
    /// `lanes` is the block width of element kernels; a group kernel's block is
    /// one workgroup, split into subgroups of `subgroup_size` lanes.
    /// `lanes` 0: chosen per kernel. Outputs of at least `streaming_bytes` are
    /// written with non-temporal stores.
    CpuProgram(const ir::Kernel& k, int lanes, int subgroup_size, std::int64_t streaming_bytes);

    const ir::Kernel& kernel() const { return *kernel_; }
    int lanes() const { return lanes_; }
    int subgroup_size() const { return subgroup_size_; }
    std::int64_t streaming_bytes() const { return streaming_bytes_; }
    /// First word of shared array `s` in a block's shared memory.
    std::size_t shared_offset(std::uint32_t s) const { return shared_offsets_[s]; }
    const std::vector<std::size_t>& shared_offsets() const { return shared_offsets_; }
    std::size_t shared_words() const { return shared_words_; }

    Level level(ir::ExprId id) const { return levels_[id]; }
    /// First word of node `id`'s column block in scratch (width * lanes words).
    std::size_t node_offset(ir::ExprId id) const { return node_offsets_[id]; }
    std::size_t var_offset(ir::VarId v) const { return var_offsets_[v]; }
    std::size_t scratch_words() const { return scratch_words_; }

    /// Nodes statement `s` evaluates, in dependency order (Uniform nodes excluded).
    const std::vector<ir::ExprId>& plan(ir::StmtId s) const { return plans_[s]; }
    const std::vector<ir::ExprId>& uniform_nodes() const { return uniform_nodes_; }
    /// For a kernel without control flow or group features: every statement's
    /// work in order, each Lane node once, with the dispatch on op and type done
    /// here instead of in every block. Null for other kernels.
    const std::vector<TapeStep>* tape() const { return tape_.empty() ? nullptr : &tape_; }
    int max_depth() const { return max_depth_; }

    NativeState& native() const { return *native_; }

private:
    void plan_statement(ir::StmtId s, std::initializer_list<ir::ExprId> roots);
    int depth_of(ir::BlockId b) const;
    bool record_tape(ir::BlockId b, std::vector<char>& computed, const std::vector<int>& uses);
    std::vector<int> count_uses() const;

    std::shared_ptr<const ir::Kernel> kernel_;
    int lanes_;
    int subgroup_size_;
    std::int64_t streaming_bytes_;
    std::vector<std::size_t> shared_offsets_;
    std::size_t shared_words_ = 0;
    std::vector<Level> levels_;
    std::vector<std::size_t> node_offsets_;
    std::vector<std::size_t> var_offsets_;
    std::size_t scratch_words_ = 0;
    std::vector<std::vector<ir::ExprId>> plans_;
    std::vector<ir::ExprId> uniform_nodes_;
    std::vector<TapeStep> tape_;
    int max_depth_ = 0;
    std::unique_ptr<NativeState> native_ = std::make_unique<NativeState>();
};

}  // namespace rill::cpu
