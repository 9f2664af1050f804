#include "rill/core/error.h"

#include <cstdio>
#include <cstdlib>

namespace rill {

void internal_failure(const char* file, int line, const char* condition, const std::string& detail) {
    std::fprintf(stderr, "rill: internal error at %s:%d: %s failed: %s\n"
                         "This is a bug in rill; please report it with this message.\n",
                 file, line, condition, detail.c_str());
    std::abort();
}

}  // namespace rill
