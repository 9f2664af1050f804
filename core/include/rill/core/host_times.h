// Where the host's time in a backend goes, by what it was doing, printed to
// stderr when a runtime goes, where the backend's knob is set
// (RILL_VK_HOST_TIMES, RILL_GL_HOST_TIMES; docs/TUNING.md). For calls whose
// host wall is far above their kernels' time (a BVH build of 1.11M triangles
// took 13-117 ms of host wall for 0.5-1.5 ms of kernels on an H100: a summary
// for each of thousands of runtimes showed it opening a backend of its own
// each time, docs/PERFORMANCE.md#ray-tracing). A backend names its kinds of
// work (an enum from 0, and a name each); kinds may nest (a download's time
// holds its wait, which a kind of its own may count too).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "rill/core/backend.h"

namespace rill {

class HostTimes {
public:
    /// On where environment variable `knob` is set; `names` the kinds' names
    /// in the order of the backend's enum.
    HostTimes(const char* knob, std::string title, std::vector<std::string> names)
        : on(env_flag(knob)), title_(std::move(title)), names_(std::move(names)), calls_(names_.size()), ms_(names_.size()) {}

    /// Adds the time from its making to its end to kind `what` (nothing when off).
    class Scope {
    public:
        Scope(HostTimes& t, int what) : t_(t.on ? &t : nullptr), what_(what) {
            if (t_) start_ = std::chrono::steady_clock::now();
        }
        ~Scope() {
            if (t_) t_->add(what_, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count());
        }
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        HostTimes* t_;
        int what_;
        std::chrono::steady_clock::time_point start_;
    };

    const bool on;

    void add(int what, double ms) {
        std::lock_guard lock(mutex_);
        ++calls_[static_cast<std::size_t>(what)];
        ms_[static_cast<std::size_t>(what)] += ms;
    }

    /// The title, then one line per kind of work with any calls: calls, total and mean.
    std::string summary() const {
        std::lock_guard lock(mutex_);
        std::string s = title_ + ": what, calls, total ms, mean us\n";
        for (std::size_t i = 0; i < names_.size(); ++i) {
            if (!calls_[i]) continue;
            char line[200];
            std::snprintf(line, sizeof line, "  %s, %llu, %.3f, %.1f\n", names_[i].c_str(), static_cast<unsigned long long>(calls_[i]), ms_[i],
                          1000.0 * ms_[i] / static_cast<double>(calls_[i]));
            s += line;
        }
        return s;
    }

private:
    const std::string title_;
    const std::vector<std::string> names_;
    mutable std::mutex mutex_;
    std::vector<std::uint64_t> calls_;
    std::vector<double> ms_;
};

}  // namespace rill
