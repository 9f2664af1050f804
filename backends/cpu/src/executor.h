// Runs a CpuProgram over a dispatch: the domain is cut into blocks of `lanes`
// invocations; TBB runs blocks in parallel; inside a block all lanes execute
// every IR node together (one tight loop per node) and divergent control flow
// is handled with lane masks, exactly like a GPU workgroup in lockstep.
#pragma once

#include <functional>

#include "program.h"

namespace rill::cpu {

/// `elsewhere`, for group kernels: asked before each workgroup, it runs that
/// workgroup itself and returns true, or returns false to leave it here.
void execute(const CpuProgram& program, const Dispatch& dispatch,
             const std::function<bool(std::int64_t group)>& elsewhere = {});

}  // namespace rill::cpu
