// C++ source for a group kernel: one function runs one workgroup. The lane
// executor spends most of its time per node and per lane on bookkeeping; the
// host compiler turns the same kernel into straight code. A workgroup's
// invocations run as loops over lanes between the points where they must meet
// (barriers, subgroup operations, and control flow around them), each loop
// running every lane through the code between two such points; values that
// live across those points are kept per lane in scratch columns, the rest in
// registers. Control flow around meeting points uses lane masks, exactly as
// the lane executor does, so both give the same results.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "rill/core/ir.h"

namespace rill::cpu {

struct NativeSource {
    std::string code;                 // defines extern "C" rill_workgroup (native_abi.h)
    std::size_t scratch_words = 0;    // per-lane columns, variables and masks of one workgroup
};

/// The source of group kernel `k` with subgroups of `subgroup_size` lanes and
/// its shared arrays at `shared_offsets` (words); nullopt for element kernels.
std::optional<NativeSource> generate_native(const ir::Kernel& k, int subgroup_size,
                                            const std::vector<std::size_t>& shared_offsets);

}  // namespace rill::cpu
