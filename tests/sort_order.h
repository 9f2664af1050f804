// The documented total order of sort keys, computed on the host without the
// device code: the reference the sort tests compare with.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace rill::test {

/// -inf < negatives < -0 < +0 < positives < +inf < NaN for floats; ints as they are.
template <class K>
std::int64_t order(K k) {
    if constexpr (std::is_same_v<K, float>) {
        if (std::isnan(k)) return std::int64_t{1} << 40;
        std::int32_t bits;
        std::memcpy(&bits, &k, 4);
        return bits < 0 ? -static_cast<std::int64_t>(bits & 0x7fffffff) - 1 : bits;  // -0 just below +0
    } else {
        return static_cast<std::int64_t>(k);
    }
}

}  // namespace rill::test
