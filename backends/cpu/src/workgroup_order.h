// The order the CPU backend starts a dispatch's workgroups in: by number, or
// with RILL_CPU_WORKGROUPS=reverse last first, so that tests run code that
// must not assume workgroups start in order (a look-back over tiles numbered
// by group_id, and its fallback) where nothing else would reorder them.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace rill::cpu {

class WorkgroupOrder {
public:
    /// Read on the dispatching thread, once per dispatch.
    explicit WorkgroupOrder(std::int64_t groups) : last_(groups - 1) {
        const char* v = std::getenv("RILL_CPU_WORKGROUPS");
        reverse_ = v && std::strcmp(v, "reverse") == 0;
    }
    /// The workgroup that the b-th one started is.
    std::int64_t operator()(std::int64_t b) const { return reverse_ ? last_ - b : b; }

private:
    std::int64_t last_;
    bool reverse_ = false;
};

}  // namespace rill::cpu
