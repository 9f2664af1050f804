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

/// Walks a run's arguments once, in order:
///
///   app_args::Walker w(kArgs, argc, argv);
///   while (w.next()) {
///       if (w.is("--frames")) frames = w.integer(1, 100000, "1 to 100000");
///       else if (w.is("--out")) out = w.value();
///       else if (w.flag("--gl-points")) gl = true;
///       else if (w.positional() && input.empty()) input = w.arg();
///       else w.unknown();
///   }
///
/// --help and -h print the usage and exit with 0; an option without its
/// value, or one no branch takes, is a usage error naming it.
class Walker {
public:
    Walker(const Usage& u, int argc, char** argv) : u_(u), argc_(argc), argv_(argv) {}

    bool next() {
        if (++at_ >= argc_) return false;
        arg_ = argv_[at_];
        if (arg_ == "--help" || arg_ == "-h") {
            std::fputs(u_.text, stdout);
            std::exit(0);
        }
        return true;
    }
    const std::string& arg() const { return arg_; }
    /// 1 for the first argument.
    int position() const { return at_; }
    /// The argument is `option` and a value follows it.
    bool is(const char* option) const { return arg_ == option && at_ + 1 < argc_; }
    /// The argument is `option`, a flag without a value.
    bool flag(const char* option) const { return arg_ == option; }
    /// Not an option: an input file or a name.
    bool positional() const { return arg_.rfind("--", 0) != 0; }

    /// The option's value (consumed).
    const char* value() { return argv_[++at_]; }
    int integer() { return app_args::integer(u_, arg_.c_str(), value()); }
    float number() { return app_args::number(u_, arg_.c_str(), value()); }
    /// An integer from lo to hi; otherwise "OPTION takes RANGE".
    int integer(int lo, int hi, const char* range) {
        const int v = integer();
        if (v < lo || v > hi) error(arg_ + " takes " + range);
        return v;
    }
    /// A number from lo to hi; otherwise "OPTION takes RANGE".
    float number(float lo, float hi, const char* range) {
        const float v = number();
        if (!(v >= lo && v <= hi)) error(arg_ + " takes " + range);
        return v;
    }
    /// --size WxH.
    void size(int& width, int& height) { app_args::size(u_, value(), width, height); }

    [[noreturn]] void error(const std::string& what) const { usage_error(u_, what); }
    [[noreturn]] void unknown() const { error("unknown or incomplete argument '" + arg_ + "'"); }

private:
    const Usage& u_;
    int argc_;
    char** argv_;
    int at_ = 0;
    std::string arg_;
};

}  // namespace app_args
