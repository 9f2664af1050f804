#include "rill/core/shape.h"

#include "rill/core/error.h"

namespace rill {

Shape::Shape(std::initializer_list<std::int64_t> d) {
    if (d.size() < 1 || d.size() > kMaxRank)
        throw Error("rill::Shape: a stream has 1 to 4 dimensions, got " + std::to_string(d.size()) +
                    "; flatten the extra dimensions into one");
    for (std::int64_t v : d) {
        if (v < 0) throw Error("rill::Shape: dimension " + std::to_string(rank) + " is negative (" +
                               std::to_string(v) + "); sizes must be >= 0");
        dims[rank++] = v;
    }
    std::int64_t n = 0;
    if (!count(n)) throw_shape_overflow(*this, "rill::Shape");
}

void throw_shape_overflow(const Shape& shape, const char* who) {
    throw Error(std::string(who) + ": shape " + shape.str() +
                " has more elements than a 64-bit count holds; give dimensions whose product is below 2^63");
}

std::array<std::int64_t, kMaxRank> row_major_strides(const Shape& shape) {
    std::array<std::int64_t, kMaxRank> strides{};
    std::int64_t stride = 1;
    for (int d = shape.rank - 1; d >= 0; --d) {
        strides[d] = stride;
        stride *= shape.dims[d];
    }
    return strides;
}

std::string Shape::str() const {
    if (rank == 0) return "(no shape)";
    std::string s;
    for (int i = 0; i < rank; ++i) {
        if (i) s += "x";
        s += std::to_string(dims[i]);
    }
    return s;
}

}  // namespace rill
