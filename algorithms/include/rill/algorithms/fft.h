// Fast Fourier transforms of float2 streams (interleaved real, imaginary),
// written in the DSL: the same code on every backend.
//
//   #include <rill/algorithms/fft.h>
//   namespace fft = rill::fft;
//   auto plan = fft::Plan::c2c(rt, {64, 1000}, 1, fft::Direction::Forward);   // 64 transforms of 1000
//   plan(x, X);                                              // X = DFT(x) per row, x and X Stream<float2>
//   fft::Plan::r2c(rt, {512, 768}, 2)(image, spectrum);      // 2D real-to-complex: spectrum {512, 385}
//   fft::inverse(X, x, 1, fft::Scale::ByLength);             // one-off calls make a plan each time
//
// Definitions (FFTW's and numpy's): the forward transform of x_0 .. x_(n-1)
// is X_k = sum_t x_t exp(-2 pi i t k / n), the inverse uses exp(+2 pi i t k /
// n) and is unnormalized unless Scale::ByLength is asked for (then it
// divides by the number of elements of one transform, so that inverse(forward(x))
// gives x back). A transform of `dims` dimensions acts on the last `dims`
// dimensions of the stream; the ones before are a batch. Real-to-complex
// transforms of a last dimension of n give its first n / 2 + 1 outputs (the
// rest are their conjugates); complex-to-real transforms take those and ignore
// the imaginary parts that a real signal's spectrum cannot have (output 0's,
// and output n / 2's for even n), as FFTW does. Real transforms of an even n
// run as complex transforms of n / 2 (pairs packed, then unpacked).
//
// Lengths: every length from 1 to 2^24 in each dimension. A length whose prime
// factors are at most 19 runs as a mixed-radix Stockham FFT (radices 2, 3, 4,
// 5, 7, 8, 11, 13, 17, 19) in shared memory, one pass over memory up to 2048
// elements, two up to 2048^2, three above (once specialized on a GPU, the
// last dimension's lines up to 4096 in one); any other length by Bluestein's
// algorithm, through transforms of a power of two of at least 2 n - 1 (once
// specialized on a GPU, the last dimension's lines up to 2048 in one kernel).
// Streams must be dense (a fresh stream or a reshape of one; copy a view
// first); C2C may run in place (the same stream as input and output).
//
// Accuracy (tests/fft_test.cpp, against FFTW in double precision): the
// relative L2 error of a transform is below 1e-6 for lengths of radices rill
// has and below 3e-6 by Bluestein; twiddle factors are computed in double on
// the host and rounded once.
//
// A Plan holds its twiddle tables, schedule and scratch on the device, made
// once. Its first call runs one generic kernel that reads the schedule from
// memory (shared by every plan, traced and compiled once per process); from
// its second call on, kernels specialized to its passes (Plan::specialize). How the passes are laid out and how fast they are:
// docs/PERFORMANCE.md#fft.
#pragma once

#include <cstdint>
#include <memory>

#include <rill/rill.h>

namespace rill::fft {

enum class Direction { Forward, Inverse };
/// Whether an inverse transform divides by the number of elements of one transform.
enum class Scale { None, ByLength };
enum class Kind { C2C, R2C, C2R };

class Plan {
public:
    /// Complex-to-complex transforms of the last `dims` (1 to 3) dimensions
    /// of streams of `shape`, out of place or in place.
    static Plan c2c(Runtime& rt, const Shape& shape, int dims, Direction direction, Scale scale = Scale::None);
    /// Real-to-complex (forward) transforms of real streams of `real_shape`;
    /// the output has the last dimension n / 2 + 1.
    static Plan r2c(Runtime& rt, const Shape& real_shape, int dims);
    /// Complex-to-real (inverse) transforms whose output has `real_shape`;
    /// the input has the last dimension n / 2 + 1.
    static Plan c2r(Runtime& rt, const Shape& real_shape, int dims, Scale scale = Scale::None);

    void operator()(const Stream<float2>& in, const Stream<float2>& out) const;  // C2C
    void operator()(const Stream<float>& in, const Stream<float2>& out) const;   // R2C
    void operator()(const Stream<float2>& in, const Stream<float>& out) const;   // C2R

    Kind kind() const;
    const Shape& input_shape() const;
    const Shape& output_shape() const;
    /// Traces and compiles kernels specialized to this plan's passes (every
    /// size a constant in their code: divisions by constants, unrolled loops;
    /// a few per plan, shared by every plan with the same passes). A plan does
    /// this by itself at its second call, so that a shape used once costs no
    /// compile; call it to pay that cost up front (before timing).
    void specialize() const;
    /// Whether the plan runs its specialized kernels.
    bool specialized() const;
    /// Passes over memory one call makes (kernels it runs), for benchmarks and docs.
    int kernel_launches() const;

    struct Impl;

private:
    explicit Plan(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
    std::shared_ptr<const Impl> impl_;
};

/// One-off transforms (a plan made and dropped per call).
void forward(const Stream<float2>& in, const Stream<float2>& out, int dims = 1);
void inverse(const Stream<float2>& in, const Stream<float2>& out, int dims = 1, Scale scale = Scale::None);
void forward(const Stream<float>& in, const Stream<float2>& out, int dims = 1);
void inverse(const Stream<float2>& in, const Stream<float>& out, int dims = 1, Scale scale = Scale::None);

}  // namespace rill::fft
