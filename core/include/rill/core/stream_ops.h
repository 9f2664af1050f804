// Stream operators that make views (no copies).
#pragma once

#include "rill/core/runtime.h"

namespace rill {

/// The same elements with another shape of equal size (row-major order kept).
template <StreamElement T>
Stream<T> reshape(const Stream<T>& s, const Shape& shape) {
    return s.reshape(shape);
}

}  // namespace rill
