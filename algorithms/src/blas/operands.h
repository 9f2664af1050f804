// The operands of a BLAS call as its kernels see them: each vector or matrix
// view bound as one contiguous Array (its extent) with element strides, so
// that a domain of a larger matrix (a leading dimension) or a strided vector
// (an increment) needs no copy.
#pragma once

#include <string>

#include <rill/algorithms/blas.h>
#include <rill/algorithms/detail/rows.h>

namespace rill::blas::detail {

/// A vector of n elements at extent[i * inc].
struct Vector {
    Stream<float> extent;
    std::int32_t n = 0, inc = 1;
};

/// A matrix of rows x cols elements at extent[i * row_stride + j * col_stride].
struct Matrix {
    Stream<float> extent;
    std::int32_t rows = 0, cols = 0, row_stride = 0, col_stride = 1;
};

/// The row tiles' workgroup size on the CPU backend (gemv.cpp, level1.cpp):
/// small, so that a matrix of few rows (or a short vector) still gives every
/// thread some (detail/rows.h's 64 would put 64 rows on one thread).
inline constexpr int kRowGroup = 8;

/// Whether the row tiles take a vector pair: invocations run one after
/// another on this backend and both vectors' elements are consecutive.
inline bool row_tiles_for(const Vector& x, const Vector& y) {
    return rill::detail::rows_pay(Runtime::of(x.extent).info()) && x.inc == 1 && y.inc == 1;
}

/// The sum of the `count` floats (a power of two) at spill[first ..], added
/// pairwise in a fixed order (the row tiles' sums, stored there so that the
/// compiled CPU code vectorizes them: gemv.cpp, level1.cpp).
inline Expr<float> pairwise_sum(const Shared<float>& spill, const Expr<std::int32_t>& first, int count) {
    for (int w = count / 2; w >= 1; w /= 2)
        for (int c = 0; c < w; ++c) spill.store(first + c, spill.load(first + c) + spill.load(first + c + w));
    return spill.load(first);
}

/// Whether a stream's first element starts a quad of its buffer, as
/// Array::load_vector<4> needs.
inline bool starts_at_quad(const Stream<float>& extent) { return extent.offset() % 4 == 0; }

/// Whether x's rows are whole quads starting at quads (consecutive columns, a
/// multiple of 4 of them, rows a multiple of 4 elements apart): the kernels
/// may load a row's elements four at a time.
inline bool rows_of_quads(const Matrix& x) {
    return x.col_stride == 1 && x.cols % 4 == 0 && x.row_stride % 4 == 0 && starts_at_quad(x.extent);
}

/// `who` is the call ("rill::blas::dot"), `name` the argument ("x"); an
/// output may not be a repeat view (its elements would be written twice).
Vector vector_operand(const char* who, const char* name, const Stream<float>& s, bool output = false);
Matrix matrix_operand(const char* who, const char* name, const Stream<float>& s, bool output = false);

/// The error for an operand of the wrong shape: "rill::blas::gemv: y has shape
/// 5 but op(A) x has 4 elements; pass y of shape 4".
[[noreturn]] void wrong_shape(const char* who, const char* name, const Shape& got, const std::string& expected,
                              const std::string& why);

}  // namespace rill::blas::detail
