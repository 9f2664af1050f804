// What a Runtime handle points to (internal to core).
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>

#include "rill/core/backend.h"
#include "rill/core/runtime.h"

namespace rill::detail {

struct RuntimeState {
    std::unique_ptr<Backend> backend;
    std::uint64_t serial = 0;  // unique per runtime in this process

    struct Key {
        std::uint64_t ir_hash, signature_hash;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const { return k.ir_hash * 31 + k.signature_hash; }
    };
    std::mutex programs_mutex;
    std::unordered_map<Key, std::unique_ptr<Program>, KeyHash> programs;

    std::atomic<std::uint64_t> programs_compiled{0};
    std::atomic<std::uint64_t> dispatches{0};

    // RILL_SCRATCH_PATTERN (a test knob), read when the runtime is made: not in
    // every allocation.
    bool scratch_pattern = env_flag("RILL_SCRATCH_PATTERN");

    // Runtime::zeroed_words: after `backend`, so that it is released first.
    std::mutex zeroed_mutex;
    std::shared_ptr<Buffer> zeroed;
    std::int64_t zeroed_count = 0;
};

}  // namespace rill::detail
