// The shape of a stream: 1 to 4 dimensions, row-major (dims[0] is outermost,
// like C arrays and Brook's `float s<10,5>`). A shape may have zero elements.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace rill {

inline constexpr int kMaxRank = 4;

struct Shape;
/// Throws the rill::Error of a shape whose element count does not fit in 64 bits.
[[noreturn]] void throw_shape_overflow(const Shape& shape, const char* who);

struct Shape {
    std::array<std::int64_t, kMaxRank> dims{};
    int rank = 0;

    Shape() = default;
    /// Checks the rank, that no dimension is negative and that the element count fits in 64 bits.
    Shape(std::initializer_list<std::int64_t> d);

    /// The element count; a shape whose count overflows 64 bits (possible only
    /// when `dims` is written directly) throws rather than wrapping around.
    std::int64_t size() const {
        std::int64_t n = 0;
        if (!count(n)) throw_shape_overflow(*this, "rill::Shape::size");
        return n;
    }
    /// The element count into `n`; false when it does not fit in 64 bits.
    bool count(std::int64_t& n) const {
        n = rank == 0 ? 0 : 1;
        bool overflow = false;
        for (int i = 0; i < rank; ++i) {
            if (dims[i] == 0) return n = 0, true;
            overflow |= __builtin_mul_overflow(n, dims[i], &n);
        }
        return !overflow;
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
