// Runs a group kernel's compiled workgroup function (native.h) over a
// dispatch: one TBB task per workgroup, as the lane executor runs them.
#pragma once

#include "program.h"

namespace rill::cpu {

void execute_native(const CpuProgram& program, native::WorkgroupFn fn, const Dispatch& dispatch);

}  // namespace rill::cpu
