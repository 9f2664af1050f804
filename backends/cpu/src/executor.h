// Runs a CpuProgram over a dispatch: the domain is cut into blocks of `lanes`
// invocations; TBB runs blocks in parallel; inside a block all lanes execute
// every IR node together (one tight loop per node) and divergent control flow
// is handled with lane masks, exactly like a GPU workgroup in lockstep.
#pragma once

#include "program.h"

namespace rill::cpu {

void execute(const CpuProgram& program, const Dispatch& dispatch);

}  // namespace rill::cpu
