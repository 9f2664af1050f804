// Timing and checking shared by the benchmark programs: medians of device
// times (GPU timestamps, or host time per kernel on the CPU backend) after a
// warm-up, and the exit for a wrong result (a fast wrong answer is no figure).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <rill/rill.h>

namespace rill::bench {

using Clock = std::chrono::steady_clock;

struct Timing {
    double host_ms = 0;    // wall time per call around a batch, median of batches
    double device_ms = 0;  // the kernels' own time (GPU timestamps), median of batches
    /// From the first kernel's start to the last one's end, the gaps between
    /// kernels included (GPU timestamps), median of batches of one call: what
    /// a peer timed by events around the call (CUB's) is compared with. 0 for
    /// batches of several calls, whose bench_* kernels run in between.
    double span_ms = 0;
};

/// For an argument a program does not take: -h or --help prints `usage` and
/// exits 0, anything else prints the argument with `usage` and exits 2.
[[noreturn]] inline void exit_with_usage(const char* arg, const char* usage) {
    if (!std::strcmp(arg, "--help") || !std::strcmp(arg, "-h")) {
        std::printf("usage: %s\n", usage);
        std::exit(0);
    }
    std::fprintf(stderr, "%s is not an option here\nusage: %s\n", arg, usage);
    std::exit(2);
}

/// For the programs whose arguments are positional: any argument that starts
/// with '-' ends the program through exit_with_usage, so that an option never
/// starts a long run instead.
inline void exit_on_options(int argc, char** argv, const char* usage) {
    for (int i = 1; i < argc; ++i)
        if (argv[i][0] == '-') exit_with_usage(argv[i], usage);
}

/// Says once per program that the device figures are host wall times.
inline void say_host_times(rill::Runtime& rt) {
    static bool said = false;
    if (!said) std::fprintf(stderr, "rill bench: %s reports no real kernel times; device figures are host wall times\n",
                            rt.info().name.c_str());
    said = true;
}

/// Runs f (and waits for it) for a second: an idle H100 runs its SMs at 345
/// MHz and takes seconds to reach 1980 (seen with nvidia-smi: 300 ms left
/// sorts at half speed). Memory clocks do not change, so copy alone does not
/// show it. Every timed figure comes after this.
template <class F>
void warm_up(F&& f, rill::Runtime& rt) {
    const auto warm_until = Clock::now() + std::chrono::milliseconds(1000);
    do {
        f();
        rt.finish();
    } while (Clock::now() < warm_until);
}

template <class F>
Timing median_ms(int batch, int repeats, F&& f, rill::Runtime& rt) {
    std::vector<double> host, device, span;
    bool recorded = false;  // kernel times were recorded (profiling on)
    warm_up(f, rt);
    for (int r = 0; r < repeats; ++r) {
        rt.reset_kernel_times();
        auto t0 = Clock::now();
        for (int i = 0; i < batch; ++i) f();
        rt.finish();
        host.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / batch);
        double total = 0;  // kernels named bench_* set up the next call and are not counted
        double first = 0, last = 0;
        bool any = false;
        for (const auto& t : rt.kernel_times())
            if (t.kernel.rfind("bench_", 0) != 0) {
                total += t.total_ms;
                first = any ? std::min(first, t.first_start_ms) : t.first_start_ms;
                last = any ? std::max(last, t.last_end_ms) : t.last_end_ms;
                any = recorded = true;
            }
        device.push_back(total / batch);
        span.push_back(batch == 1 ? last - first : 0.0);
        static const bool verbose = std::getenv("RILL_BENCH_VERBOSE") != nullptr;
        if (verbose)
            std::fprintf(stderr, "    repeat %d: device %.4f ms, span %.4f ms, host %.4f ms\n", r, device.back(), span.back(), host.back());
    }
    std::sort(host.begin(), host.end());
    std::sort(device.begin(), device.end());
    std::sort(span.begin(), span.end());
    const double host_median = host[host.size() / 2], device_median = device[device.size() / 2], span_median = span[span.size() / 2];
    if (recorded && device_median < host_median * 1e-3) {
        // The driver's kernel times are not real (Mesa's llvmpipe answers GL
        // timer queries with a few nanoseconds for any kernel): such a figure
        // would claim absurd bandwidth, so the host's wall time stands in. A
        // GPU's kernels take far more than a thousandth of the wall time
        // around them.
        say_host_times(rt);
        return {host_median, host_median, batch == 1 ? host_median : 0.0};
    }
    return {host_median, device_median, span_median};
}

/// Every command of a call in the order it ran on the device, with its start
/// (from the first one's), its time and the gap since the one before ended:
/// where a chain of small kernels loses its time between them.
inline void print_timeline(const std::vector<rill::KernelTime>& times, double origin_ms) {
    struct Entry {
        double start, end;
        const std::string* kernel;
    };
    std::vector<Entry> entries;
    for (const rill::KernelTime& t : times)
        for (const rill::KernelTime::Call& c : t.each) entries.push_back({c.start_ms, c.end_ms, &t.kernel});
    std::sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) { return x.start < y.start; });
    std::fprintf(stderr, "    timeline: start ms, device ms, gap ms before it, command\n");
    double end = origin_ms;
    for (const Entry& e : entries) {
        std::fprintf(stderr, "    %9.4f %8.4f %8.4f  %s\n", e.start - origin_ms, e.end - e.start, e.start - end, e.kernel->c_str());
        end = std::max(end, e.end);
    }
}

/// The kernels of one call of f, longest first (the first `top`, all of them
/// with RILL_BENCH_VERBOSE set): where its time goes. Kernel times are recorded for this call alone, so that rows
/// timed by host time run without them: OpenGL's timer queries around every
/// command (RILL_PROFILE) cost host time.
template <class F>
std::string breakdown(rill::Runtime& rt, F&& f, std::size_t top = 6) {
    if (std::getenv("RILL_BENCH_VERBOSE")) top = SIZE_MAX;
    rt.finish();
    rt.set_profiling(true);
    rt.reset_kernel_times();
    f();
    rt.finish();
    rt.set_profiling(false);
    std::vector<rill::KernelTime> t = rt.kernel_times();
    std::sort(t.begin(), t.end(), [](const rill::KernelTime& x, const rill::KernelTime& y) { return x.total_ms > y.total_ms; });
    double all = 0, first = 0, last = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        first = i == 0 ? t[i].first_start_ms : std::min(first, t[i].first_start_ms);
        last = i == 0 ? t[i].last_end_ms : std::max(last, t[i].last_end_ms);
        all += t[i].total_ms;
    }
    // Summed kernel times overlap where a backend's timestamps do (a kernel's
    // first timestamp taken before the kernels ahead of it end): the span,
    // from the first kernel's start to the last one's end, is what the device took.
    if (std::getenv("RILL_BENCH_TIMELINE")) print_timeline(t, first);
    char line[160];
    std::snprintf(line, sizeof line, "%.3f ms in %zu kernels, span %.3f ms:", all, t.size(), last - first);
    std::string s = line;
    for (std::size_t i = 0; i < t.size() && i < top; ++i) {
        std::snprintf(line, sizeof line, " %s %.3f (%llu calls)%s", t[i].kernel.c_str(), t[i].total_ms,
                      static_cast<unsigned long long>(t[i].calls), i + 1 < std::min(t.size(), top) ? "," : "");
        s += line;
    }
    return s;
}

/// A host peer's time: median of 3 runs of timed(), each after an untimed prepare().
template <class P, class F>
double host_median_ms(P&& prepare, F&& timed) {
    std::vector<double> ms;
    for (int r = 0; r < 3; ++r) {
        prepare();
        const auto t0 = Clock::now();
        timed();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[1];
}
template <class F>
double host_median_ms(F&& timed) {
    return host_median_ms([] {}, timed);
}

/// RILL_BENCH_ONLY=sort,scan (say) runs those parts only; unset: all.
inline bool section(const char* name) {
    const char* only = std::getenv("RILL_BENCH_ONLY");
    if (!only) return true;
    const std::string list = std::string(",") + only + ",";
    return list.find(std::string(",") + name + ",") != std::string::npos;
}

[[noreturn]] inline void fail(const std::string& what) {
    std::fprintf(stderr, "wrong result: %s\n", what.c_str());
    std::exit(1);
}


}  // namespace rill::bench
