// Command-line parsing that the apps share: a bad argument prints what is
// wrong and the usage, and exits with status 2.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace app_args {

struct Usage {
    const char* program;  // "rill-fft"
    const char* text;     // the --help text
};

[[noreturn]] inline void usage_error(const Usage& u, const std::string& what) {
    std::fprintf(stderr, "%s: %s\n%s", u.program, what.c_str(), u.text);
    std::exit(2);
}

inline float number(const Usage& u, const char* flag, const char* text) {
    char* end = nullptr;
    const float v = std::strtof(text, &end);
    if (!end || *end || end == text) usage_error(u, std::string(flag) + " takes a number, not '" + text + "'");
    return v;
}

inline int integer(const Usage& u, const char* flag, const char* text) {
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (!end || *end || end == text || v < -(1L << 30) || v > (1L << 30))
        usage_error(u, std::string(flag) + " takes an integer, not '" + text + "'");
    return static_cast<int>(v);
}

/// --size WxH, both from 1 to 16384.
inline void size(const Usage& u, const char* text, int& width, int& height) {
    if (std::sscanf(text, "%dx%d", &width, &height) != 2 || width < 1 || height < 1 || width > 16384 || height > 16384)
        usage_error(u, "--size takes WxH with both from 1 to 16384, not '" + std::string(text) + "'");
}

}  // namespace app_args
