// RILL_VK_HOST_TIMES=1: where the host's time in the Vulkan backend goes, by
// what it was doing, printed to stderr when a runtime goes (docs/TUNING.md).
// For the calls whose host wall is far above their kernels' time (a BVH build
// of 1.11M triangles took 13-117 ms of host wall for 0.5-1.5 ms of kernels on an
// H100: a summary for each of thousands of runtimes showed it opening a backend
// of its own each time, docs/PERFORMANCE.md#ray-tracing). The kinds nest: a
// download's time holds the wait for its batch, which the waits count too, and a
// stream allocation's holds any vkAllocateMemory it made.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

#include "rill/core/backend.h"

namespace rill::vk {

class HostTimes {
public:
    enum What { StreamAllocate, DriverAllocate, DriverFree, Upload, Download, Dispatch, Submit, Wait, Compile, kinds };

    /// Adds the time from its making to its end to `what` (nothing when off).
    class Scope {
    public:
        Scope(HostTimes& t, What what) : t_(t.on ? &t : nullptr), what_(what) {
            if (t_) start_ = std::chrono::steady_clock::now();
        }
        ~Scope() {
            if (t_) t_->add(what_, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count());
        }
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        HostTimes* t_;
        What what_;
        std::chrono::steady_clock::time_point start_;
    };

    const bool on = env_flag("RILL_VK_HOST_TIMES");

    void add(What what, double ms) {
        std::lock_guard lock(mutex_);
        ++calls_[what];
        ms_[what] += ms;
    }

    /// One line per kind of work with any calls: calls, total and mean.
    std::string summary() const {
        static const char* names[kinds] = {"stream allocations (pooled or new)",
                                           "vkAllocateMemory",
                                           "vkFreeMemory",
                                           "uploads (recorded)",
                                           "downloads (waited for)",
                                           "dispatches (recorded)",
                                           "vkQueueSubmit",
                                           "waits for a batch",
                                           "kernel builds"};
        std::lock_guard lock(mutex_);
        std::string s = "rill vulkan host times (RILL_VK_HOST_TIMES), since the device was made: what, calls, total ms, mean us\n";
        for (int i = 0; i < kinds; ++i) {
            if (!calls_[i]) continue;
            char line[160];
            std::snprintf(line, sizeof line, "  %s, %llu, %.3f, %.1f\n", names[i], static_cast<unsigned long long>(calls_[i]), ms_[i],
                          1000.0 * ms_[i] / static_cast<double>(calls_[i]));
            s += line;
        }
        return s;
    }

private:
    mutable std::mutex mutex_;
    std::array<std::uint64_t, kinds> calls_{};
    std::array<double, kinds> ms_{};
};

}  // namespace rill::vk
