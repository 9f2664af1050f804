// IR passes. Each takes a valid kernel and returns a valid kernel; lower() is
// the one place that says which run, in which order.
#pragma once

#include "rill/core/ir.h"

namespace rill::ir {

/// Replaces reads of variables by the values assigned to them where that is
/// unambiguous, and drops variables nobody reads any more.
Kernel forward_variables(const Kernel& k);

/// Throws rill::Error when a barrier of a group kernel may be reached by only
/// some invocations of a workgroup (see check_barriers.cpp for the rule).
void check_barriers(const Kernel& k);

/// The pipeline from a traced kernel to what backends compile:
///   validate -> check_barriers -> forward_variables -> validate
/// With RILL_DUMP set, the IR after each stage is written next to the others.
Kernel lower(const Kernel& traced);

}  // namespace rill::ir
