// The wall-clock times the apps print: milliseconds since a steady_clock point.
#pragma once

#include <chrono>

namespace app_time {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

}  // namespace app_time
