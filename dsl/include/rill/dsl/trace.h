// The tracing context: while rill::kernel(...) runs a kernel body, DSL values
// append IR to the kernel being traced here. Outside a trace, DSL values cannot
// be created (there is nothing to record them into).
#pragma once

#include <cstdint>
#include <string>

#include "rill/core/error.h"
#include "rill/core/ir.h"

namespace rill::dsl {

struct TraceContext {
    explicit TraceContext(std::string name);
    ir::Kernel kernel;
    ir::Builder builder{kernel};
    std::uint32_t serial = 0;  // identifies this trace; values remember it
    int loop_depth = 0;
};

/// The trace in progress on this thread; throws rill::Error if there is none.
TraceContext& trace();
TraceContext* current_trace();
void set_current_trace(TraceContext* t);

/// Throws the error for a value that belongs to another kernel's trace.
[[noreturn]] void foreign_value(std::uint32_t value_serial);

inline ir::Builder& builder() { return trace().builder; }

}  // namespace rill::dsl
