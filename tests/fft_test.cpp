// rill's FFT against FFTW in double precision (Debian libfftw3-dev): every
// length 1 to 1024, longer powers of two, primes and smooth sizes (one, two
// and three passes through memory, Bluestein), batches, 2D and 3D,
// real-to-complex and complex-to-real, in place, round trips and Parseval,
// and the errors of bad calls. Inputs are random in [-1, 1]^2.
//
// Bounds (relative L2 error of each transform against FFTW's, fft.h):
// 1e-6 where every prime factor of every length is at most 19, 3e-6 where a
// length goes through Bluestein's algorithm; a forward + scaled inverse round
// trip within 2e-6 of the input. Lengths up to 2^16 here; 2^20 and 2^24 run in
// the benchmark (bench/fft) and on the GPU.
#include <fftw3.h>

#include <cmath>
#include <complex>
#include <numeric>

#include <rill/algorithms/fft.h>

#include "../algorithms/src/fft/kernels.h"
#include "../algorithms/src/fft/schedule.h"
#include "backend_fixture.h"

namespace rill::test {
namespace {

class Fft : public BackendTest {};

using cplx = std::complex<double>;
using fft::Direction;
using fft::Scale;

std::vector<float2> random_complex(std::int64_t n) {
    const auto v = random_floats(static_cast<std::size_t>(2 * n), -1, 1);
    std::vector<float2> c(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = float2{v[2 * i], v[2 * i + 1]};
    return c;
}

/// FFTW's transforms of the last `dims` dimensions of x (shape), in double.
std::vector<cplx> reference(const std::vector<cplx>& x, const Shape& shape, int dims, bool inverse) {
    std::vector<int> n;
    int per = 1;
    for (int i = shape.rank - dims; i < shape.rank; ++i) n.push_back(static_cast<int>(shape[i])), per *= n.back();
    const int batch = per ? static_cast<int>(shape.size() / per) : 0;
    std::vector<cplx> in = x, out(x.size());
    if (x.empty()) return out;
    fftw_plan p = fftw_plan_many_dft(dims, n.data(), batch, reinterpret_cast<fftw_complex*>(in.data()), nullptr, 1, per,
                                     reinterpret_cast<fftw_complex*>(out.data()), nullptr, 1, per,
                                     inverse ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_destroy_plan(p);
    return out;
}

std::vector<cplx> widen(const std::vector<float2>& v) {
    std::vector<cplx> r(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) r[i] = {v[i].x, v[i].y};
    return r;
}

/// The largest relative L2 error of the transforms of `per` elements each.
double worst_error(const std::vector<float2>& got, const std::vector<cplx>& want, std::int64_t per) {
    double worst = 0;
    for (std::size_t b = 0; b * per < want.size(); ++b) {
        double err = 0, norm = 0;
        for (std::int64_t i = 0; i < per; ++i) {
            const std::size_t k = b * static_cast<std::size_t>(per) + static_cast<std::size_t>(i);
            err += std::norm(cplx(got[k].x, got[k].y) - want[k]);
            norm += std::norm(want[k]);
        }
        worst = std::max(worst, norm > 0 ? std::sqrt(err / norm) : std::sqrt(err));
    }
    return worst;
}

/// 1e-6, or 3e-6 when a transformed length goes through Bluestein.
double bound(const Shape& shape, int dims) {
    for (int i = shape.rank - dims; i < shape.rank; ++i)
        if (!fft::detail::smooth(shape[i])) return 3e-6;
    return 1e-6;
}

std::int64_t transform_size(const Shape& shape, int dims) {
    std::int64_t per = 1;
    for (int i = shape.rank - dims; i < shape.rank; ++i) per *= shape[i];
    return per;
}

/// A C2C transform of random data of `shape` against FFTW; returns the error.
double c2c_error(Runtime& rt, const Shape& shape, int dims, Direction dir, bool in_place = false) {
    const auto hx = random_complex(shape.size());
    auto x = rt.stream<float2>(shape, hx);
    auto y = in_place ? x : rt.stream<float2>(shape);
    fft::Plan::c2c(rt, shape, dims, dir)(x, y);
    return worst_error(y.download(), reference(widen(hx), shape, dims, dir == Direction::Inverse),
                       transform_size(shape, dims));
}

/// Whether n's prime factors are all radices rill has (2, 3, 5, 7, 11, 13, 17, 19).
bool radix_smooth(std::int64_t n) {
    for (std::int64_t p : {2, 3, 5, 7, 11, 13, 17, 19})
        while (n % p == 0) n /= p;
    return n == 1;
}

TEST_P(Fft, LengthsTo1024) {
    // Every length to 128 and every mix of radices to 1024 (the 336 lengths
    // whose factors are radices rill has); of the other lengths, which all run
    // by Bluestein through the same kernels, every 16th and those beside the
    // short kernel's limit and 1024. Every length 1 .. 1024 ran here on every
    // backend when these kernels were written (2026-12-02).
    for (std::int64_t n = 1; n <= 1024; ++n) {
        if (n > 128 && !radix_smooth(n) && n % 16 != 1 && n != 511 && n != 513 && n != 1021 && n != 1023) continue;
        SCOPED_TRACE(n);
        const Shape shape{n % 7 == 0 ? 3 : 1, n};
        ASSERT_LE(c2c_error(rt(), shape, 1, n % 2 ? Direction::Inverse : Direction::Forward), bound(shape, 1));
    }
}

TEST_P(Fft, LongerLengths) {
    // Two passes through memory from 2049, three above 2048^2 (not reached
    // here); Bluestein of a power of two up to 2^17 for the primes.
    for (std::int64_t n : {2048, 2049, 4096, 6144, 8192, 10007, 12289, 15625, 16384, 16807, 19683, 28561, 32768,
                           65536}) {
        SCOPED_TRACE(n);
        const Shape shape{n};
        EXPECT_LE(c2c_error(rt(), shape, 1, Direction::Forward), bound(shape, 1));
        EXPECT_LE(c2c_error(rt(), shape, 1, Direction::Inverse), bound(shape, 1));
    }
}

TEST_P(Fft, Batches) {
    for (std::int64_t n : {1, 2, 17, 23, 64, 1000, 3000})
        for (std::int64_t batch : {1, 3, 64}) {
            SCOPED_TRACE(std::to_string(batch) + " transforms of " + std::to_string(n));
            const Shape shape{batch, n};
            EXPECT_LE(c2c_error(rt(), shape, 1, Direction::Forward), bound(shape, 1));
        }
    // A batch over two leading dimensions.
    EXPECT_LE(c2c_error(rt(), Shape{2, 3, 60}, 1, Direction::Inverse), 1e-6);
}

TEST_P(Fft, TwoAndThreeDimensions) {
    for (const Shape& shape : {Shape{1, 1}, Shape{3, 5}, Shape{8, 8}, Shape{17, 12}, Shape{64, 128}, Shape{2, 31, 64},
                               Shape{5, 2100}, Shape{2500, 3}})
        for (Direction dir : {Direction::Forward, Direction::Inverse}) {
            SCOPED_TRACE(shape.str());
            EXPECT_LE(c2c_error(rt(), shape, 2, dir), bound(shape, 2));
        }
    for (const Shape& shape : {Shape{4, 6, 10}, Shape{2, 3, 7, 9}, Shape{16, 16, 16}}) {
        SCOPED_TRACE(shape.str());
        EXPECT_LE(c2c_error(rt(), shape, 3, Direction::Forward), bound(shape, 3));
    }
}

TEST_P(Fft, InPlace) {
    for (const Shape& shape : {Shape{1000}, Shape{3, 4099}, Shape{5000}, Shape{24, 40}}) {
        SCOPED_TRACE(shape.str());
        EXPECT_LE(c2c_error(rt(), shape, shape.rank, Direction::Forward, true), bound(shape, shape.rank));
    }
}

/// A real transform of random data against FFTW's C2C of the same signal. Even
/// lengths run forward as complex transforms of half the length (46: of 23,
/// by Bluestein), odd ones as full complex transforms.
TEST_P(Fft, RealToComplexAndBack) {
    for (const Shape& shape : {Shape{1}, Shape{2}, Shape{3}, Shape{5}, Shape{16}, Shape{4, 17}, Shape{100}, Shape{1024},
                               Shape{2, 2500}, Shape{6, 9}, Shape{16, 23}, Shape{3, 12, 10}, Shape{2, 46}})
        for (int dims : {1, 2}) {
            if (dims > shape.rank) continue;
            SCOPED_TRACE(shape.str() + " in " + std::to_string(dims) + "D");
            const std::int64_t n = shape[shape.rank - 1], h = n / 2 + 1;
            Shape half = shape;
            half.dims[shape.rank - 1] = h;
            const auto hr = random_floats(static_cast<std::size_t>(shape.size()), -1, 1);
            std::vector<cplx> as_complex(hr.begin(), hr.end());
            const auto full = reference(as_complex, shape, dims, false);
            std::vector<cplx> want_half(static_cast<std::size_t>(half.size()));
            for (std::int64_t i = 0; i < half.size(); ++i) want_half[i] = full[(i / h) * n + i % h];

            auto x = rt().stream<float>(shape, hr);
            auto X = rt().stream<float2>(half);
            fft::Plan::r2c(rt(), shape, dims)(x, X);
            const auto got = X.download();
            // Rows of the half spectrum are not whole transforms: compare per transform of h * (other dims).
            EXPECT_LE(worst_error(got, want_half, half.size() / (shape.size() / transform_size(shape, dims))),
                      bound(shape, dims));

            // Back: the real signal times the transform size, then scaled.
            auto back = rt().stream<float>(shape);
            fft::Plan::c2r(rt(), shape, dims)(X, back);
            const auto b = back.download();
            const double per = static_cast<double>(transform_size(shape, dims));
            std::vector<float2> got_back(b.size());
            std::vector<cplx> want_back(b.size());
            for (std::size_t i = 0; i < b.size(); ++i) got_back[i] = float2{b[i], 0.0f}, want_back[i] = hr[i] * per;
            EXPECT_LE(worst_error(got_back, want_back, transform_size(shape, dims)), 2 * bound(shape, dims));
            EXPECT_EQ(X.download(), got) << "c2r changed its input";
            fft::Plan::c2r(rt(), shape, dims, Scale::ByLength)(X, back);
            const auto scaled = back.download();
            for (std::size_t i = 0; i < b.size(); ++i) got_back[i] = float2{scaled[i], 0.0f}, want_back[i] = hr[i];
            EXPECT_LE(worst_error(got_back, want_back, transform_size(shape, dims)), 2 * bound(shape, dims));
        }
}

TEST_P(Fft, ComplexToRealIgnoresImaginaryPartsARealSpectrumCannotHave) {
    // fft.h: the imaginary parts of output 0 and (n even) output n / 2 are
    // ignored, as FFTW does: set to anything, the signal comes back the same.
    // Even lengths run through the packed path, odd ones through the full one.
    for (std::int64_t n : {2, 7, 10, 64, 1000}) {
        SCOPED_TRACE(n);
        const std::int64_t rows = 3, h = n / 2 + 1;
        const auto hr = random_floats(static_cast<std::size_t>(rows * n), -1, 1);
        auto x = rt().stream<float>({rows, n}, hr);
        auto X = rt().stream<float2>({rows, h});
        fft::Plan::r2c(rt(), {rows, n}, 1)(x, X);
        auto spectrum = X.download();
        for (std::int64_t r = 0; r < rows; ++r) {
            spectrum[static_cast<std::size_t>(r * h)].y = 5.0f + static_cast<float>(r);
            if (n % 2 == 0) spectrum[static_cast<std::size_t>(r * h + h - 1)].y = -7.0f;
        }
        auto with_noise = rt().stream<float2>({rows, h}, spectrum);
        auto back = rt().stream<float>({rows, n});
        fft::Plan::c2r(rt(), {rows, n}, 1, Scale::ByLength)(with_noise, back);
        const auto b = back.download();
        std::vector<float2> got(b.size());
        std::vector<cplx> want(b.size());
        for (std::size_t i = 0; i < b.size(); ++i) got[i] = float2{b[i], 0.0f}, want[i] = hr[i];
        EXPECT_LE(worst_error(got, want, n), 2e-6);
    }
}

TEST_P(Fft, SpecializedKernelsFromTheSecondCall) {
    // A plan's first call runs the generic kernel, its second the kernels
    // specialized to its passes (sizes as constants, unrolled loops), which
    // must give the same transforms: single passes of several radices whose
    // butterflies leave invocations of a line idle (1000 = 8 5 5 5, 1001 = 7
    // 11 13), short lines many to a workgroup (6 = 2 3), a last workgroup with
    // fewer lines, two passes with pre-twiddles (4096), strided passes (2D; 64 x
    // 64: the same length and radices along both axes, different kernels),
    // radices 17 and 19 (323), Bluestein (23, through lines of 64), inverse with
    // scaling, a real transform.
    // Where rows pay (the CPU backend) the specialized passes take four or
    // eight lines in lockstep, several sets a workgroup: counts of lines that
    // leave a last set part full (1003 lines of 2, 9 of 2048), columns whose
    // neighbours are not a whole set apart (2D 13 x 6, 3D 7 x 9 x 10); they
    // take lines of up to 8192 in one pass (4096 above, 2 x 8192) and longer
    // ones in two (15625 = 125 x 125). And rows of one odd radix
    // from 7 to 19 (GPUs: staged, a line per invocation) in workgroups of
    // 64 lines, the last one part full (301 x 13, 9 x 7 inverse, 40 x 19, the
    // rows of 13 of a 2D 11 x 13); more of those and of the split kernel in
    // LinesInRegistersAtTheirEdges.
    struct Case {
        Shape shape;
        int dims;
        Direction dir;
    };
    for (const Case& c : {Case{{3, 1000}, 1, Direction::Forward}, Case{{5, 1001}, 1, Direction::Inverse},
                          Case{{67, 6}, 1, Direction::Forward}, Case{{4096}, 1, Direction::Inverse},
                          Case{{24, 40}, 2, Direction::Forward}, Case{{2, 64, 64}, 2, Direction::Forward},
                          Case{{3, 23}, 1, Direction::Forward}, Case{{5, 323}, 1, Direction::Inverse}, Case{{1003, 2}, 1, Direction::Forward},
                          Case{{9, 2048}, 1, Direction::Inverse}, Case{{13, 6}, 2, Direction::Inverse},
                          Case{{7, 9, 10}, 3, Direction::Forward}, Case{{2, 8192}, 1, Direction::Inverse},
                          Case{{15625}, 1, Direction::Forward}, Case{{301, 13}, 1, Direction::Forward},
                          Case{{9, 7}, 1, Direction::Inverse}, Case{{40, 19}, 1, Direction::Forward},
                          Case{{2, 11, 13}, 2, Direction::Inverse}}) {
        SCOPED_TRACE(c.shape.str() + " in " + std::to_string(c.dims) + "D");
        const auto hx = random_complex(c.shape.size());
        auto x = rt().stream<float2>(c.shape, hx);
        auto y = rt().stream<float2>(c.shape);
        const bool inverse = c.dir == Direction::Inverse;
        const auto plan = fft::Plan::c2c(rt(), c.shape, c.dims, c.dir, inverse ? Scale::ByLength : Scale::None);
        auto want = reference(widen(hx), c.shape, c.dims, inverse);
        if (inverse)
            for (cplx& v : want) v /= static_cast<double>(transform_size(c.shape, c.dims));
        for (int call = 0; call < 2; ++call) {
            plan(x, y);
            EXPECT_EQ(plan.specialized(), call == 1);
            EXPECT_LE(worst_error(y.download(), want, transform_size(c.shape, c.dims)), bound(c.shape, c.dims)) << "call " << call;
        }
    }
    // A real transform, specialized up front.
    const Shape shape{4, 100};
    const auto hr = random_floats(static_cast<std::size_t>(shape.size()), -1, 1);
    const auto full = reference(std::vector<cplx>(hr.begin(), hr.end()), shape, 1, false);
    std::vector<cplx> want(4 * 51);
    for (std::size_t i = 0; i < want.size(); ++i) want[i] = full[(i / 51) * 100 + i % 51];
    auto x = rt().stream<float>(shape, hr);
    auto X = rt().stream<float2>({4, 51});
    const auto plan = fft::Plan::r2c(rt(), shape, 1);
    plan.specialize();
    EXPECT_TRUE(plan.specialized());
    plan(x, X);
    EXPECT_LE(worst_error(X.download(), want, 51), 1e-6);
}

/// The error against FFTW of a specialized plan's C2C transform of random data
/// of `shape` (an inverse scaled by the transform's size).
double specialized_error(Runtime& rt, const Shape& shape, int dims, bool inverse) {
    const auto hx = random_complex(shape.size());
    auto x = rt.stream<float2>(shape, hx);
    auto y = rt.stream<float2>(shape);
    const auto plan = fft::Plan::c2c(rt, shape, dims, inverse ? Direction::Inverse : Direction::Forward,
                                     inverse ? Scale::ByLength : Scale::None);
    plan.specialize();
    plan(x, y);
    auto want = reference(widen(hx), shape, dims, inverse);
    if (inverse)
        for (cplx& v : want) v /= static_cast<double>(transform_size(shape, dims));
    return worst_error(y.download(), want, transform_size(shape, dims));
}

TEST_P(Fft, LinesInRegistersAtTheirEdges) {
    // Specialized single passes over contiguous lines that GPUs run with a
    // line's elements in registers: the staged kernel (a line an invocation,
    // 3 to 32 elements) and the split kernel (n2 columns of n1, 33 elements
    // on, columns of up to kSplitLongestColumn: 33 = 11 x 3, 625 = 25 x 25,
    // 960 = 32 x 30, 1600 = 40 x 40, Bluestein's 58 through lines of 128)
    // and the three-step split kernel where a column would be longer (1001
    // = 13 11 7, 2048 = 16 16 8 and Bluestein's 1009 through lines of 2048,
    // 1536 = 16 12 8 swizzled, 2187 = 27 9 9 in 81 invocations, 3125 = 25 25
    // 5 and 4096 = 16 16 16 in one pass where the line kernels take two),
    // batches that leave a last workgroup part full, forward and inverse
    // (every other length) with scaling; then strided lines, and the passes
    // of transforms too long for one. Every backend runs them (the CPU its
    // lockstep kernels).
    const std::int64_t lengths[] = {2, 3, 5, 7, 8, 16, 27, 32, 33, 58, 243, 625, 960, 1001, 1024, 1009, 1600, 2048, 1536, 2187, 3125, 4096};
    for (std::size_t i = 0; i < std::size(lengths); ++i) {
        const std::int64_t n = lengths[i];
        const bool inverse = i % 2 == 1;
        const Shape shape{n % 3 == 0 ? 7 : 67, n};
        SCOPED_TRACE(shape.str() + (inverse ? " inverse" : " forward"));
        EXPECT_LE(specialized_error(rt(), shape, 1, inverse), bound(shape, 1));
    }
    // Strided lines (the columns of 2D transforms) in the split kernel, several
    // side by side: columns of 40 (5 columns of 8, rows padded), of 96 (8 of
    // 12, swizzled), and of 1024 and 1600 in rows too narrow for a workgroup's
    // lines to share a row of the array (20 and 3 wide). Then the passes of
    // longer transforms, lines read strided and twiddled on loading: 8192 =
    // 128 x 64 (both passes split, 16 x 8 and 8 x 8), 2187 = 81 x 27 in 2D
    // columns (split 9 x 9, then the line kernel), 20000 = 160 x 125 (split
    // 16 x 10, 25 x 5), and 2^18 x 17 = 2176 x 2048 in two passes (three of
    // 2048 at most) whose second reads pre-twiddled and writes strided.
    // Bluestein's lengths in one kernel each (the chirp, the transform of 64
    // or 128 in the three-step split, the filter, the inverse and the chirp
    // again) along contiguous lines: a 2D 37 x 23 inverse, its rows in that
    // kernel, its strided columns in the five kernels. Short lines that the
    // CPU's lockstep kernel keeps in registers: 2D columns of 5 and 6, and
    // 24576, whose passes on the CPU are 8192 and a pre-twiddled 3.
    struct Case {
        Shape shape;
        int dims;
        bool inverse;
    };
    for (const Case& c : {Case{{3, 40, 33}, 2, false}, Case{{2, 96, 50}, 2, true}, Case{{1024, 20}, 2, false},
                          Case{{1600, 3}, 2, false}, Case{{2, 8192}, 1, true}, Case{{2187, 2}, 2, false}, Case{{20000}, 1, false},
                          Case{{std::int64_t{17} << 18}, 1, true}, Case{{37, 23}, 2, true}, Case{{2, 5, 6}, 2, true},
                          Case{{24576}, 1, false}}) {
        SCOPED_TRACE(c.shape.str() + (c.inverse ? " inverse" : " forward"));
        EXPECT_LE(specialized_error(rt(), c.shape, c.dims, c.inverse), bound(c.shape, c.dims));
    }
}

/// Puts a process-wide FFT setting that a test changes back when it ends.
class RestoreSetting {
public:
    RestoreSetting(int (*get)(), void (*set)(int)) : set_(set), was_(get()) {}
    RestoreSetting(const RestoreSetting&) = delete;
    RestoreSetting& operator=(const RestoreSetting&) = delete;
    ~RestoreSetting() { set_(was_); }

private:
    void (*set_)(int);
    int was_;
};

TEST_P(Fft, StridedLinesOf4096InOnePass) {
    // On GPUs, strided lines of 4096 in one pass of the strided three-step
    // kernel, with 4, 2 and 1 lines a workgroup side by side, and with none
    // (0, the default: the split kernel's two passes): 2D columns 3 wide (a
    // workgroup's last lines missing) and 6 wide in a batch of two, inverse
    // (lines of the batch's second matrix beside the first's); with 4 also
    // 2^23 = 4096 x 2048, whose first pass reads strided lines
    // of 4096 and writes them contiguous (2^24's second pass, strided both
    // ways and pre-twiddled, runs in the GPU benchmark, checked against
    // FFTW). The CPU runs its lockstep kernels.
    const RestoreSetting restore(fft::detail::split3_strided_lines, fft::detail::set_split3_strided_lines);
    for (int lines : {4, 2, 1, 0}) {
        fft::detail::set_split3_strided_lines(lines);
        SCOPED_TRACE(std::to_string(lines) + " lines a workgroup");
        EXPECT_LE(specialized_error(rt(), Shape{4096, 3}, 2, false), 1e-6);
        EXPECT_LE(specialized_error(rt(), Shape{2, 4096, 6}, 2, true), 1e-6);
    }
    fft::detail::set_split3_strided_lines(4);
    EXPECT_LE(specialized_error(rt(), Shape{std::int64_t{1} << 23}, 1, false), 1e-6);
}

TEST_P(Fft, ExchangesWholeAndInHalves) {
    // The specialized kernels whose workgroups would hold more than 16 KiB
    // (8 KiB) for one exchange, with their exchanges whole (float2) and in
    // halves (real parts, then imaginary parts, through a buffer of floats;
    // above 16 KiB the default, kernels.h):
    // three-step lines of 2187 (27 9 9), 2560 (16 16 10: step three's rows
    // not a whole number per invocation), 3072, 3125 and 4096 (the float
    // swizzle of multiples of 16), Bluestein's 1031 in one kernel (padded to
    // 4096), and the split kernel's strided passes (2D columns of 40, 96,
    // 1024 and 1600; the passes of 8192 and 20000, pre-twiddled); above 8
    // KiB also contiguous lines of 1024 in the split kernel, 2048 in the
    // three-step one and Bluestein's 1009 (padded to 2048), and by default
    // (above 8 KiB where that is 128 bytes an invocation or more) lines of
    // 1000 and 625 and those of 1024 and 2048 again; each against FFTW. The CPU runs its lockstep kernels, as in the tests above.
    const RestoreSetting restore(fft::detail::halves_above, fft::detail::set_halves_above);
    struct Case {
        Shape shape;
        int dims;
        bool inverse;
    };
    for (const Case& c : {Case{{7, 2187}, 1, false}, Case{{5, 2560}, 1, true}, Case{{5, 3072}, 1, false},
                          Case{{3, 3125}, 1, true}, Case{{67, 4096}, 1, false}, Case{{3, 1031}, 1, true},
                          Case{{3, 40, 33}, 2, false}, Case{{2, 96, 50}, 2, true}, Case{{1024, 20}, 2, false},
                          Case{{1600, 3}, 2, true}, Case{{2, 8192}, 1, true}, Case{{20000}, 1, false},
                          Case{{6, 1024}, 1, false}, Case{{5, 2048}, 1, true}, Case{{3, 1009}, 1, false},
                          Case{{4, 1000}, 1, true}, Case{{5, 625}, 1, false}})
        for (int above : {0, 16384, 8192, fft::detail::kHalvesWhereFewInvocations}) {
            fft::detail::set_halves_above(above);
            SCOPED_TRACE(c.shape.str() + (c.inverse ? " inverse" : " forward") + " in halves above " + std::to_string(above));
            EXPECT_LE(specialized_error(rt(), c.shape, c.dims, c.inverse), bound(c.shape, c.dims));
        }
}

TEST_P(Fft, RoundTripAndParseval) {
    for (const Shape& shape : {Shape{1}, Shape{7, 360}, Shape{4097}, Shape{65536}, Shape{2, 33, 20}}) {
        const int dims = shape.rank == 3 ? 2 : 1;
        SCOPED_TRACE(shape.str());
        const auto hx = random_complex(shape.size());
        auto x = rt().stream<float2>(shape, hx);
        auto X = rt().stream<float2>(shape);
        auto back = rt().stream<float2>(shape);
        fft::Plan::c2c(rt(), shape, dims, Direction::Forward)(x, X);
        fft::Plan::c2c(rt(), shape, dims, Direction::Inverse, Scale::ByLength)(X, back);
        const std::int64_t per = transform_size(shape, dims);
        EXPECT_LE(worst_error(back.download(), widen(hx), per), 2e-6);
        // Parseval: sum |X|^2 = per * sum |x|^2, transform by transform.
        const auto hX = X.download();
        for (std::int64_t b = 0; b < shape.size() / per; ++b) {
            double ex = 0, eX = 0;
            for (std::int64_t i = b * per; i < (b + 1) * per; ++i)
                ex += std::norm(cplx(hx[i].x, hx[i].y)), eX += std::norm(cplx(hX[i].x, hX[i].y));
            EXPECT_NEAR(eX / (per * ex), 1.0, 4e-6) << "transform " << b;
        }
    }
}

TEST_P(Fft, EmptyBatchesDoNothing) {
    auto x = rt().stream<float2>({0, 16});
    fft::Plan::c2c(rt(), x.shape(), 1, Direction::Forward)(x, x);
    auto r = rt().stream<float>({0, 8, 8});
    auto c = rt().stream<float2>({0, 8, 5});
    fft::Plan::r2c(rt(), r.shape(), 2)(r, c);
    fft::Plan::c2r(rt(), r.shape(), 2)(c, r);
}

TEST_P(Fft, BadCallsThrowAndWriteNothing) {
    auto sentinel = std::vector<float2>(8, float2{5.0f, 6.0f});
    auto x = rt().stream<float2>({8}, random_complex(8));
    auto y = rt().stream<float2>({8}, sentinel);
    EXPECT_EQ(error_message([&] { fft::Plan::c2c(rt(), Shape{4, 0}, 1, Direction::Forward); }),
              "rill::fft::Plan::c2c: dimension 1 of shape 4x0 is 0, and a transform of length 0 is not defined; pass "
              "lengths of at least 1 (an empty batch, a 0 before the transformed dimensions, is fine)");
    EXPECT_EQ(error_message([&] { fft::Plan::c2c(rt(), Shape{8}, 2, Direction::Forward); }),
              "rill::fft::Plan::c2c: dims is 2 for shape 8; pass 1, 2 or 3, at most the shape's rank (1)");
    EXPECT_EQ(error_message([&] { fft::Plan::r2c(rt(), Shape{(std::int64_t{1} << 24) + 1}, 1); }),
              "rill::fft::Plan::r2c: dimension 0 of shape 16777217 is 16777217, above the longest transform rill has, "
              "2^24 = 16777216; split it (e.g. as a 2D transform with twiddles)");
    const auto plan = fft::Plan::c2c(rt(), Shape{8}, 1, Direction::Forward);
    auto wrong = rt().stream<float2>({9});
    EXPECT_EQ(error_message([&] { plan(x, wrong); }),
              "rill::fft::Plan (c2c): the output has shape 9 but the plan transforms 8; pass a stream of shape 8 or "
              "make a plan for 9");
    auto real = rt().stream<float>({8});
    EXPECT_EQ(error_message([&] { plan(real, y); }),
              "rill::fft::Plan (c2c): called with a real input, but the plan was made for Stream<float2> input and "
              "output (Plan::c2c); pass those, or make a plan of the other kind");
    auto big = rt().stream<float2>({16}, random_complex(16));
    EXPECT_EQ(error_message([&] { plan(big.stride({2}), y); }),
              "rill::fft::Plan (c2c): the input is a view (domain, stride, repeat or iterator), and the FFT reads and "
              "writes dense streams; copy it into a new stream first");
    const auto r2c = fft::Plan::r2c(rt(), Shape{3, 10}, 1);
    auto half_wrong = rt().stream<float2>({3, 10});
    EXPECT_EQ(error_message([&] { r2c(rt().stream<float>({3, 10}), half_wrong); }),
              "rill::fft::Plan (r2c): the output has shape 3x10 but the plan transforms 3x6; pass a stream of shape "
              "3x6 or make a plan for 3x10");
    Runtime other("cpu");
    auto foreign = other.stream<float2>({8});
    EXPECT_EQ(error_message([&] { plan(foreign, y); }),
              "rill::fft::Plan (c2c): the input belongs to another Runtime than the plan; make the plan with the "
              "stream's runtime");
    EXPECT_EQ(y.download(), sentinel) << "a failed call wrote its output";
}

TEST(FftSchedule, PassesAndRadices) {
    using namespace fft::detail;
    EXPECT_EQ(radices(2048), (std::vector<int>{8, 8, 8, 4}));
    EXPECT_EQ(radices(1), std::vector<int>{});
    EXPECT_EQ(radices(2 * 3 * 3 * 13), (std::vector<int>{2, 3, 3, 13}));
    EXPECT_EQ(radices(4 * 17 * 19), (std::vector<int>{4, 17, 19}));
    EXPECT_EQ(pass_lengths(2048, 2048), std::vector<std::int64_t>{2048});
    EXPECT_EQ(pass_lengths(std::int64_t{1} << 22, 2048), (std::vector<std::int64_t>{2048, 2048}));
    EXPECT_EQ(pass_lengths(4096, 8192), std::vector<std::int64_t>{4096});
    EXPECT_EQ(pass_lengths(std::int64_t{1} << 24, 8192), (std::vector<std::int64_t>{4096, 4096}));
    for (std::int64_t n : {std::int64_t{6144}, std::int64_t{1} << 24, std::int64_t{13} << 20, std::int64_t{3} * 5 * 7 * 11 * 13 * 16}) {
        const auto p = pass_lengths(n, 2048);
        EXPECT_EQ(std::accumulate(p.begin(), p.end(), std::int64_t{1}, std::multiplies<>()), n);
        for (std::int64_t R : p) EXPECT_LE(R, 2048);
    }
    EXPECT_EQ(bluestein_length(23), 64);
    EXPECT_EQ(bluestein_length(1), 1);
    EXPECT_TRUE(smooth(17 * 19));
    EXPECT_FALSE(smooth(23));
    EXPECT_TRUE(smooth(1));
}

TEST(FftSchedule, ThreeStepSplits) {
    // The three-step split kernel's factors: n1 >= n2 >= n3 >= 2, each at most
    // kSplitLongestColumn, n1 as small as can be, then n3 as large; none where
    // the length has no such factors.
    using namespace fft::detail;
    auto factors = [](int R) {
        const SplitLine3 f = split_line3(R);
        return std::vector<int>{f.n1, f.n2, f.n3};
    };
    EXPECT_EQ(factors(2048), (std::vector<int>{16, 16, 8}));
    EXPECT_EQ(factors(4096), (std::vector<int>{16, 16, 16}));
    EXPECT_EQ(factors(1001), (std::vector<int>{13, 11, 7}));
    EXPECT_EQ(factors(2187), (std::vector<int>{27, 9, 9}));
    EXPECT_EQ(factors(3125), (std::vector<int>{25, 25, 5}));
    EXPECT_EQ(factors(4093), (std::vector<int>{0, 0, 0}));  // a prime
    EXPECT_EQ(factors(2 * 1021), (std::vector<int>{0, 0, 0}));
    for (int R = 8; R <= kSplit3Longest; ++R) {
        const SplitLine3 f = split_line3(R);
        if (f.n1 == 0) continue;
        EXPECT_EQ(f.n1 * f.n2 * f.n3, R);
        EXPECT_TRUE(f.n1 >= f.n2 && f.n2 >= f.n3 && f.n3 >= 2 && f.n1 <= kSplitLongestColumn) << R;
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, Fft, ::testing::ValuesIn(backends_under_test()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace rill::test
