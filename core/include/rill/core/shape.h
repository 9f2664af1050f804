// The shape of a stream: 1 to 4 dimensions, row-major (dims[0] is outermost,
// like C arrays and Brook's `float s<10,5>`). A shape may have zero elements.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace rill {

inline constexpr int kMaxRank = 4;

struct Shape {
    std::array<std::int64_t, kMaxRank> dims{};
    int rank = 0;

    Shape() = default;
    Shape(std::initializer_list<std::int64_t> d);

    std::int64_t size() const {
        std::int64_t n = 1;
        for (int i = 0; i < rank; ++i) n *= dims[i];
        return rank == 0 ? 0 : n;
    }
    std::int64_t operator[](int i) const { return dims[i]; }
    /// "100x4"
    std::string str() const;
    friend bool operator==(const Shape& a, const Shape& b) {
        if (a.rank != b.rank) return false;
        for (int i = 0; i < a.rank; ++i)
            if (a.dims[i] != b.dims[i]) return false;
        return true;
    }
};

/// Element strides of a densely packed row-major array of this shape.
std::array<std::int64_t, kMaxRank> row_major_strides(const Shape& shape);

}  // namespace rill
