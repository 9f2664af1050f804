// Group-kernel operations of the lane executor: a block is one workgroup, run
// in lockstep, so shared memory is a per-block array, barriers are points all
// lanes reach together, and a subgroup is a run of `subgroup_size` lanes.
#pragma once

#include <cstdint>
#include <string>

#include "rill/core/ir.h"

namespace rill::cpu {

using u32 = std::uint32_t;

/// Where an Array param's or shared array's elements live for one block.
struct MemoryView {
    u32* words = nullptr;      // element 0, word 0
    std::int64_t count = 0;    // elements
    std::uint32_t stride = 0;  // words per element
    bool shared_between_threads = false;  // global memory: atomics must be real atomics
};

/// Op::ArrayLoad / Op::SharedLoad over all lanes (out of range reads zero).
void memory_load(const MemoryView& mem, std::uint32_t word, int width, const u32* index, u32* out, int lanes);
/// StmtKind::ArrayStore / SharedStore for the lanes in `mask`, in lane order.
void memory_store(const MemoryView& mem, std::uint32_t word, int width, const u32* index, const u32* value,
                  const u32* mask, int lanes);
/// Op::ArrayLoadVector over all lanes: elements width k .. width k + width - 1
/// of one-word elements (components out of range read zero).
void memory_load_vector(const MemoryView& mem, int width, const u32* k, u32* out, int lanes);
/// StmtKind::ArrayStoreVector for the lanes in `mask`: the components in range.
void memory_store_vector(const MemoryView& mem, int width, const u32* k, const u32* value, const u32* mask, int lanes);
/// Op::Atomic for the lanes in `mask`, in lane order; `out` gets the old values.
void memory_atomic(const MemoryView& mem, const ir::Node& n, const u32* index, const u32* value, const u32* compare,
                   const u32* mask, u32* out, int lanes);
/// Op::Subgroup: `value` has the operand's width; `arg` is the id/mask/delta column.
void subgroup_op(const ir::Node& n, Type value_type, const u32* value, const u32* arg, const u32* mask, u32* out,
                 int lanes, int subgroup_size);

/// The error of a barrier() that only some invocations of workgroup `group` reached.
std::string barrier_divergence(const ir::Kernel& k, std::int64_t group);

}  // namespace rill::cpu
