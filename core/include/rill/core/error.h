// Two tiers of errors. What a user can cause (a shape mismatch, a wrong
// argument, an unknown backend, a shader that fails to compile) throws
// rill::Error with a message naming the kernel, the argument and the fix. A
// broken internal invariant is a bug in rill: RILL_ASSERT aborts with file and
// line, so that it is never mistaken for a user error and never caught.
#pragma once

#include <stdexcept>
#include <string>

namespace rill {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

[[noreturn]] void internal_failure(const char* file, int line, const char* condition,
                                   const std::string& detail);

}  // namespace rill

#define RILL_ASSERT(cond, detail)                                                 \
    do {                                                                          \
        if (!(cond)) ::rill::internal_failure(__FILE__, __LINE__, #cond, (detail)); \
    } while (0)

#define RILL_UNREACHABLE(detail) ::rill::internal_failure(__FILE__, __LINE__, "unreachable", (detail))
