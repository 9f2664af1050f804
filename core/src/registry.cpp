#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "rill/core/backend.h"
#include "rill/core/error.h"

namespace rill {

namespace {
struct Registry {
    std::mutex mutex;
    std::vector<BackendFactory> factories;
};
Registry& registry() {
    static Registry r;  // constructed on first use: registration runs during static init
    return r;
}
}  // namespace

bool register_backend(BackendFactory factory) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.factories.push_back(std::move(factory));
    std::stable_sort(r.factories.begin(), r.factories.end(),
                     [](const BackendFactory& a, const BackendFactory& b) { return a.priority > b.priority; });
    return true;
}

void Program::phase_done(const char* phase, std::chrono::steady_clock::time_point& since) {
    const auto now = std::chrono::steady_clock::now();
    char text[64];
    std::snprintf(text, sizeof text, "%s%s %.1f ms", build_phases.empty() ? "" : ", ", phase,
                  std::chrono::duration<double, std::milli>(now - since).count());
    build_phases += text;
    since = now;
}

std::vector<BackendFactory> registered_backends() {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    return r.factories;
}

void KernelTimes::add(const std::string& kernel, double ms, std::uint64_t start, double ms_per_tick) {
    if (!origin_) origin_ = start;
    const double start_ms = static_cast<double>(static_cast<std::int64_t>(start - *origin_)) * ms_per_tick;
    const double end_ms = start_ms + ms;
    for (auto& t : times_)
        if (t.kernel == kernel) {
            ++t.calls;
            t.total_ms += ms;
            t.first_start_ms = std::min(t.first_start_ms, start_ms);
            t.last_end_ms = std::max(t.last_end_ms, end_ms);
            if (t.each.size() < KernelTime::kKeptCalls) t.each.push_back({start_ms, end_ms});
            return;
        }
    times_.push_back(KernelTime{kernel, 1, ms, start_ms, end_ms, {{start_ms, end_ms}}});
}

std::vector<KernelTime> KernelTimes::list() const { return times_; }

std::string KernelTimes::summary(const std::string& backend) const {
    std::string s = "rill profile (" + backend + "): kernel, calls, total ms, mean us\n";
    char line[256];
    for (const auto& t : times_) {
        std::snprintf(line, sizeof line, "  %-32s %8llu %10.3f %10.2f\n", t.kernel.c_str(),
                      static_cast<unsigned long long>(t.calls), t.total_ms, 1000.0 * t.total_ms / double(t.calls));
        s += line;
    }
    return s;
}

bool quick_builds() {
    static const bool on = env_count("RILL_QUICK_BUILDS", 0, 1, 1, "quick builds off or on (0 builds every kernel for fast code)") == 1;
    return on;
}

bool env_flag(const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::string(v) != "0";
}

long env_count(const char* name, long lo, long hi, long fallback, const char* what) {
    const char* knob = std::getenv(name);
    if (!knob || !*knob) return fallback;
    char* end = nullptr;
    const long n = std::strtol(knob, &end, 10);
    if (*end != '\0' || n < lo || n > hi)
        throw Error(std::string(name) + " is '" + knob + "'; give " + what + " from " + std::to_string(lo) + " to " + std::to_string(hi) +
                    ", or unset it");
    return n;
}

bool profiling_from_env() { return env_flag("RILL_PROFILE"); }

std::uint64_t Signature::hash() const {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::uint8_t k : stream_kinds) h = (h ^ k) * 0x100000001b3ull;
    h = (h ^ static_cast<std::uint64_t>(domain_rank + 0x100)) * 0x100000001b3ull;
    for (std::uint8_t r : dim_resizes) h = (h ^ (r + 0x200u)) * 0x100000001b3ull;
    for (std::uint8_t a : aliased) h = (h ^ (a + 0x300u)) * 0x100000001b3ull;
    return (h ^ (aliased.empty() ? 0xa4u : 0x5bu)) * 0x100000001b3ull;
}

}  // namespace rill
