// Runs a group kernel's compiled workgroup function (native.h) over a
// dispatch: one TBB task per workgroup, as the lane executor runs them.
#pragma once

#include <vector>

#include "program.h"

namespace rill::cpu {

/// One dispatch's arguments for compiled workgroups, set up once; run() may
/// be called for any of its workgroups from any thread.
class NativeDispatch {
public:
    NativeDispatch(const CpuProgram& program, const Dispatch& dispatch);
    NativeDispatch(const NativeDispatch&) = delete;
    NativeDispatch& operator=(const NativeDispatch&) = delete;
    std::int64_t groups() const { return args_.num_groups; }
    void run(native::WorkgroupFn fn, std::int64_t group) const;

private:
    const CpuProgram& program_;
    std::size_t scratch_words_, words_;  // a workgroup's scratch columns; with its shared memory
    std::vector<native::Memory> arrays_;
    native::Args args_;
};

void execute_native(const CpuProgram& program, native::WorkgroupFn fn, const Dispatch& dispatch);

}  // namespace rill::cpu
