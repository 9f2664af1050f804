#include "rill/algorithms/scatter_op.h"

namespace rill::detail {

std::int64_t scatter_groups(const char* what, const StreamBase& values, const StreamBase& index, std::int64_t* n) {
    if (values.size() != index.size())
        throw Error(std::string("rill::") + what + ": the index stream has " + std::to_string(index.size()) +
                    " elements but the value stream has " + std::to_string(values.size()) +
                    "; give one index per value");
    if (index.size() > std::int64_t{0x7fffffff} - kScatterGroup)
        throw Error(std::string("rill::") + what + ": " + std::to_string(index.size()) +
                    " updates in one call is more than 2^31 - 1; split the streams");
    *n = index.size();
    return (*n + kScatterGroup - 1) / kScatterGroup;
}

}  // namespace rill::detail
