// BLAS for float streams, written in the DSL: the same code on every backend.
//
//   #include <rill/algorithms/blas.h>
//   namespace blas = rill::blas;
//   blas::axpy(2.0f, x, y);                                   // y = 2 x + y
//   float d = blas::dot(x, y);                                // to the host
//   blas::gemv(blas::Op::N, 1.0f, A, x, 0.0f, y);             // y = A x
//   blas::gemm(blas::Op::N, blas::Op::T, 1.0f, A, B, 0.0f, C);  // C = A B^T
//
// Names, argument order and special cases follow the reference BLAS (and CBLAS),
// with these differences:
// - Matrices are row-major 2D streams {rows, columns}, as everything in rill.
//   A leading dimension is a view: `big.domain({r0, c0}, {r1, c1})` is the
//   submatrix with big's row length as its leading dimension. Vectors are 1D
//   streams; an increment is a view too: `x.stride({2})`.
// - Sizes come from the streams' shapes; a stream of the wrong shape is a
//   rill::Error that says which shape was expected.
// - Reductions return their result to the host, or write it into a
//   one-element stream that stays on the device (no host round trip).
// - iamax returns a 0-based index (as CBLAS does); a NaN counts as larger
//   than every number (the first NaN wins), where the reference BLAS's answer
//   depends on where the NaN is.
//
// As in the reference BLAS: gemv and gemm with beta = 0 do not read y / C
// (NaN there does not propagate), alpha = 0 does not read A, x or B; a
// matrix product with an empty dimension leaves its output untouched, except
// gemm with k = 0, which scales C by beta.
//
// Accuracy: sums are formed in float in a tree (pairwise within a workgroup),
// so each result element is within about gamma_k * (|A| |x|)_i of the exact
// value, gamma_k = k u / (1 - k u), u = 2^-24 (the bound the tests use, with
// k the length of the sum). nrm2 scales as it sums (Blue's algorithm, as the
// reference BLAS since LAPACK 3.10), so it neither overflows nor underflows
// where the result is a normal float.
//
// How the kernels are laid out and how fast they are: docs/PERFORMANCE.md#blas.
#pragma once

#include <cstdint>

#include <rill/rill.h>

namespace rill::blas {

/// op(A): the matrix itself or its transpose (BLAS's 'N' and 'T').
enum class Op { N, T };

// --- Level 1 -------------------------------------------------------------------------

/// y = alpha x + y.
void axpy(float alpha, const Stream<float>& x, const Stream<float>& y);
/// x = alpha x.
void scal(float alpha, const Stream<float>& x);

/// x . y
float dot(const Stream<float>& x, const Stream<float>& y);
void dot(const Stream<float>& x, const Stream<float>& y, const Stream<float>& result);
/// The Euclidean norm of x.
float nrm2(const Stream<float>& x);
void nrm2(const Stream<float>& x, const Stream<float>& result);
/// The sum of |x_i|.
float asum(const Stream<float>& x);
void asum(const Stream<float>& x, const Stream<float>& result);
/// The first index of the largest |x_i| (0-based); -1 for an empty x.
std::int32_t iamax(const Stream<float>& x);
void iamax(const Stream<float>& x, const Stream<std::int32_t>& result);

// --- Level 2 -------------------------------------------------------------------------

/// y = alpha op(A) x + beta y, A of shape {m, n}: x has n elements and y m for
/// Op::N, x m and y n for Op::T.
void gemv(Op trans, float alpha, const Stream<float>& A, const Stream<float>& x, float beta, const Stream<float>& y);

// --- Level 3 -------------------------------------------------------------------------

/// C = alpha op(A) op(B) + beta C, with op(A) {m, k}, op(B) {k, n}, C {m, n}.
void gemm(Op transa, Op transb, float alpha, const Stream<float>& A, const Stream<float>& B, float beta,
          const Stream<float>& C);

}  // namespace rill::blas
