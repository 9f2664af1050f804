// Generated C++ built by the host's compiler and loaded into the process.
// Each shared object is kept on disk (disk_cache.h's directory), named by a
// hash of its source, the compiler, the flags and the CPU, so a kernel is
// built once per machine; a second process only loads it.
#pragma once

#include <string>

#include "native_abi.h"

namespace rill::cpu {

/// RILL_CPU_COMPILE: whether group kernels run as compiled C++.
///   auto    (default) once a kernel has run enough invocations, or long
///           enough, to be worth a build, or at once when an earlier process
///           built it; a failed
///           build leaves it interpreted, with one warning
///   always  every group kernel, built before its first call; a failure is an error
///   off     never: the lane executor runs everything
enum class NativeMode { Off, Auto, Always };
NativeMode native_mode_from_env();

/// The workgroup function compiled from `source`, built unless the disk has
/// it. Throws rill::Error (naming `kernel`, the command and the compiler's
/// output) when it cannot be built or loaded.
native::WorkgroupFn load_native(const std::string& source, const std::string& kernel);

/// The workgroup function of `source` if an earlier build is on disk; null otherwise.
native::WorkgroupFn find_native(const std::string& source);

}  // namespace rill::cpu
