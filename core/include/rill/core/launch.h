// The bridge from a typed DSL kernel call to the backend: argument checking,
// implicit resize, the program cache, and dispatch. Kept out of the DSL
// templates so that a kernel call instantiates almost no code.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <span>

#include "rill/core/ir.h"
#include "rill/core/runtime.h"

namespace rill::detail {

/// One argument of a kernel call: a stream, or the bytes of a constant.
struct LaunchArg {
    const StreamBase* stream = nullptr;
    const void* value = nullptr;
    std::size_t bytes = 0;
};

/// A traced kernel plus a one-entry cache of the last program it ran, so that
/// a repeated call costs a few comparisons, not a hash-map lookup.
struct KernelState {
    explicit KernelState(std::shared_ptr<const ir::Kernel> k);
    std::shared_ptr<const ir::Kernel> ir;
    std::uint64_t ir_hash = 0;

    struct Last {
        std::uint64_t runtime_serial = 0;
        std::uint64_t signature_hash = 0;
        Program* program = nullptr;
    };
    mutable std::mutex last_mutex;
    mutable Last last;
};

/// Validates the arguments against the kernel's parameters and runs it; a
/// group kernel runs `groups` workgroups (-1 for an element kernel).
void launch(const KernelState& kernel, std::span<const LaunchArg> args, std::int64_t groups = -1);

/// Writes `text` to $RILL_DUMP/<file> when RILL_DUMP is set; backends use it for
/// generated code, the runtime for the IR.
void dump_file(const std::string& file, const std::string& text);

}  // namespace rill::detail
