// The FFT's kernels, written in the DSL. One group kernel does every pass of
// every plan at its first call: its schedule (line length, radices,
// addressing, twiddles) is read from a small int stream the plan fills, so
// that a new length costs no trace and no compile (the tests try every length
// from 1 to 1024 on each backend). Later calls run kernels specialized to
// each pass: line kernels, or where rows pay lockstep kernels
// (line_kernels.cpp), or kernels that keep a line in registers: staged,
// split, three-step split, Bluestein in one (register_kernels.cpp). The rest
// are element-wise helpers for real transforms and Bluestein's algorithm
// (elementwise_kernels.cpp); kernel_support.h is what the files share.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <rill/rill.h>

namespace rill::fft::detail {

/// Invocations per workgroup of the line kernel.
constexpr int kWorkgroup = 256;
/// The most complex elements one workgroup transforms in shared memory (its
/// lines times their length): two buffers of this many float2, 32 KiB, the
/// least any backend offers.
constexpr int kLineElements = 2048;
/// Lines of up to this length run in a kernel with a quarter of that shared
/// memory (8 KiB), so that more workgroups fit on a multiprocessor: through
/// Vulkan the H200 gives a workgroup's shared memory out of about 48 KiB per
/// SM (docs/PERFORMANCE.md#fft).
constexpr int kShortLine = 512;
/// Radices of the passes in shared memory; a line length is a product of them.
constexpr int kRadices[] = {8, 4, 2, 3, 5, 7, 11, 13, 17, 19};
/// Pre-twiddles w^q of a pass with q up to 2^24 are a coarse and a fine table:
/// w^q = coarse[q / kFine] * fine[q % kFine] (q >= 0: a shift and a mask).
constexpr int kFineBits = 11;
constexpr int kFine = 1 << kFineBits;

/// Words of one pass's schedule in the descriptor stream (Pass::words()).
namespace desc {
enum : int {
    Length,        // R: the length of the lines of this pass (<= kLineElements)
    Lines,         // how many lines the pass transforms
    PerGroup,      // G: lines per workgroup (a power of two, G * R <= the pass's capacity_for)
    Threads,       // T = kWorkgroup / G: invocations per line
    Count0,        // a line index l has digits d0 = l % c0, d1 = (l / c0) % c1,
    Count1,        //   d2 = (l / c0 / c1) % c2, d3 = l / c0 / c1 / c2
    Count2,
    InMul0,        // element t of line l is read at sum(d_i * in_mul_i) + t * in_stride
    InMul1,
    InMul2,
    InMul3,
    OutMul0,       // and written at sum(d_i * out_mul_i) + t * out_stride
    OutMul1,
    OutMul2,
    OutMul3,
    InStride,
    OutStride,
    InRows,        // 1: element index fastest when loading (the lines are contiguous), 0: line index fastest
    OutRows,
    ConjIn,        // 1: conjugate on loading (an inverse transform's first pass)
    ConjOut,       //    and on storing (its last)
    LineTwiddles,  // offset of the line length's table w_R^q, q < R, in the twiddle stream
    PreTwiddle,    // 1: multiply element t of line l by w_M^(d1 * t) on loading (a pass after the first)
    PreFine,       //    offsets of its fine and coarse tables
    PreCoarse,
    RegisterTwiddles,  // offset of the split or three-step split kernel's table of the pass's length (split_twiddles, split3_twiddles)
    RadixCount,
    Radices,       // RadixCount radices, kMaxRadices slots
    Words = Radices + 16,
};
}
constexpr int kMaxRadices = desc::Words - desc::Radices;

/// One pass over memory: lines of one length, each transformed in shared memory.
/// (src, dst, twiddles, descriptor stream, offset of this pass's words, scale)
using LineKernel = Kernel<Array<float2>, Array<float2>, Array<float2>, Array<std::int32_t>, Int, Float>;
/// The generic line kernel whose workgroups hold `capacity` elements
/// (kShortLine, or kLineElements for the others), with the butterflies of
/// every radix or, without `large_radices`, of the radices up to 8 only.
const LineKernel& generic_line_kernel(int capacity, bool large_radices);
/// The schedule words of one pass.
using Words = std::array<std::int32_t, desc::Words>;
/// Whether a pass's radices include one above 8 (11, 13, 17, 19).
bool large_radices(const Words& words);
/// The line kernel specialized to one pass's schedule: every word but the
/// number of lines and the twiddle tables' offsets is a constant in its code,
/// so divisions are by constants, the loops over a line's elements and
/// butterflies are unrolled and the radices are chosen when it is traced.
/// Traced once per distinct schedule and kept for the process; called with
/// the same arguments as the generic kernel.
const LineKernel& line_kernel(int capacity, const Words& words);
/// Lines per workgroup of the staged line kernel (one invocation each).
constexpr int kStagedLines = 64;
/// The longest lines of the staged line kernel.
constexpr int kStagedLongest = 32;
/// Whether a pass runs in the staged line kernel: contiguous lines, in and
/// out, of 3 to kStagedLongest elements, transformed in one pass.
bool staged(const Words& words);
/// Such a pass with one invocation per line: the workgroup's kStagedLines
/// lines loaded into shared memory as one run of consecutive elements (lines
/// of an even length one element apart, so that no two invocations' elements
/// share a bank), each
/// invocation's line's DFT in its registers, written back, and the run stored.
/// Every invocation computes (the line kernel gives a radix-13 line's one
/// butterfly one invocation of eight), and every load and store moves
/// neighbouring elements (one line per invocation straight from memory was
/// slower than the line kernel: docs/PERFORMANCE.md#fft). Called like the
/// line kernels, over workgroups of kStagedLines lines.
const LineKernel& staged_line_kernel(const Words& words);
/// The longest column of the split line kernel (complex numbers an invocation
/// holds in registers), and the shared memory of its workgroups of contiguous
/// lines (of strided ones: twice that). Columns of 64 (lines of 2048 as 64 x
/// 32) pass the tests, but on an H100 took lines of 2048 no faster than the
/// line kernel (0.956 against 0.952 ms, docs/PERFORMANCE.md#fft): 40 stays.
constexpr int kSplitLongestColumn = 40;
constexpr int kSplitSharedBytes = 16384;
/// A line of R = n1 n2 elements as n2 columns of n1 (n2 the largest divisor
/// of R at most its square root).
struct SplitLine {
    int n1, n2;
};
SplitLine split_line(int R);
/// Whether a pass runs in the split line kernel: lines longer than the staged
/// kernel's (whole lines, contiguous or strided like the columns of a 2D
/// transform, or a pass of a longer transform, with its pre-twiddles) whose
/// split_line has columns of at most kSplitLongestColumn.
bool split(const Words& words);
/// The shared memory a workgroup of the split kernel's strided lines would
/// hold as float2 for one part of its exchange (split_parts): 32 KiB (twice
/// the contiguous lines'), so that several lines side by side make each
/// access of a warp wider; exchanged in halves
/// (halves_above) it holds half of that, three workgroups to an NVIDIA SM
/// through Vulkan where 32 KiB fits one. RILL_FFT_STRIDED_SHARED_KIB=16 or 8
/// (an A/B knob) gives fewer lines side by side.
int split_strided_shared_bytes();
/// The split kernel's twiddles of lines of R (split_line(R) = n1 n2): w_R^(j
/// k1) at k1 n2 + j, in the order invocation j of a line reads them (the
/// line table read at j k1 put a subgroup's loads k1 elements apart).
std::vector<float2> split_twiddles(int R);
/// The parts in which the split kernel's strided passes exchange their
/// lines: 2 where the columns are of an even length (else 1): a line's rows
/// through shared memory half at a time (one more barrier, or three in
/// halves), so that twice the lines lie side by side in the same memory
/// (Brook's columns of 1024 eight to a workgroup, 64 bytes of each row where
/// four read 32, in 16 KiB; on an H200 Brook's 2D FFT 1.17x and 2^24 1.04x
/// as fast: docs/PERFORMANCE.md#fft). RILL_FFT_STRIDED_PARTS=1 (an A/B knob)
/// exchanges whole lines. Contiguous passes exchange whole lines: in two
/// parts (4 KiB a workgroup of Brook's rows instead of 8) Brook's 2D FFT ran
/// 1.05x slower through both APIs (H100, docs/PERFORMANCE.md#fft).
int split_parts(const Words& words);
/// The most invocations of a workgroup of the split kernel's strided lines:
/// kWorkgroup, or RILL_FFT_STRIDED_INVOCATIONS (up to 1024, an A/B knob), so
/// that more lines lie side by side (Brook's columns of 1024 sixteen to a
/// workgroup with RILL_FFT_STRIDED_INVOCATIONS=512 and RILL_FFT_STRIDED_PARTS=4:
/// 128 bytes of each row a warp).
int split_strided_invocations();
/// Lines per workgroup of the split line kernel for a pass (a power of two).
int split_lines_per_group(const Words& words);
/// Such a pass as a two-step (four-step) transform in registers, n2
/// invocations a line: invocation j loads column j (elements j + n2 k,
/// neighbouring invocations neighbouring elements), transforms it in
/// registers, twiddles it by w_R^(j k) and writes it to shared memory; after
/// one barrier it transforms rows j, j + n2, ... (n2 elements each) in
/// registers and stores them to element k1 + n1 k2 of the line. One exchange
/// through shared memory, where the line kernel takes one per radix pass.
/// Where a pass reads or writes strided lines, several go to a workgroup and
/// its loads (or stores) put the lines side by side in the invocations
/// (neighbouring invocations, neighbouring elements of the array), in up to
/// 32 KiB of shared memory; a pass after a line's first multiplies element t
/// of line l by its pre-twiddle on loading, as the line kernel does.
const LineKernel& split_line_kernel(const Words& words);
/// Where a specialized kernel's workgroup exchanges its complex numbers in
/// halves instead of whole: the real parts through a buffer of floats, then
/// the imaginary parts, three barriers an exchange for one, in half the
/// shared memory. By default (kHalvesWhereFewInvocations) where a whole
/// exchange would take more than 16 KiB (the split kernel's strided passes,
/// three-step lines longer than kLineElements, Bluestein's padded lines of
/// 4096), so that three such workgroups fit an SM where NVIDIA's Vulkan
/// driver fits one (on an H200, 2^24 and lines of 3125 1.38x and 1.70x as
/// fast), and more than 8 KiB where that is 128 bytes or more an invocation
/// (contiguous lines of 243-2048 but Bluestein's): there the workgroups an SM
/// holds are few for their invocations (lines of 1000, one line of 25
/// invocations in 8 KiB, 1.25x as fast in halves on an H100; lines of 60,
/// 96 invocations in 9 KiB, 0.85x: docs/PERFORMANCE.md#fft).
/// RILL_FFT_EXCHANGE_HALVES=0 (never), 8 or 16 (above that many KiB, whatever
/// the invocations) are A/B knobs (docs/TUNING.md); set_halves_above (the
/// tests, which run each); plans made after a change pick their kernels by it.
constexpr int kHalvesWhereFewInvocations = -1;
int halves_above();
void set_halves_above(int bytes);
/// The longest line of the three-step split kernel: one line a workgroup in
/// one buffer of R float2 (32 KiB, the least shared memory any backend offers).
constexpr int kSplit3Longest = 4096;
/// A line of R = n1 n2 n3 elements (n1 >= n2 >= n3 >= 2, each at most
/// kSplitLongestColumn, n1 as small as can be, then n3 as large): {0, 0, 0}
/// where R has no such factors.
struct SplitLine3 {
    int n1, n2, n3;
};
SplitLine3 split_line3(int R);
/// w_M^q = exp(-2 pi i q / M) in float, computed in double from q mod M: every
/// twiddle table's element.
float2 root_of_unity(std::int64_t M, std::int64_t q);
/// The three-step split's twiddles of lines of R (split_line3(R) = n1 n2
/// n3, T = n2 n3), in the order its invocations read them, so that a
/// subgroup's loads are neighbours: w_R^(v k1) at k1 T + v (step one:
/// invocation v's column, k1 < n1), then w_R^(n1 j' i') at R + i' n3 + j'
/// (step two's columns j' < n3, i' < n2). R + T elements, where the line
/// table w_R^q read at q = v k1 put a subgroup's 32 loads up to 32 sectors apart.
std::vector<float2> split3_twiddles(int R);
/// Whether a pass runs in the three-step split kernel: lines of up to
/// kSplit3Longest elements that split() leaves to the line kernel (a column
/// of more than kSplitLongestColumn: 1001 = 77 x 13, 2048 = 64 x 32) and that
/// split_line3 factors, on contiguous lines (both strides 1; strided, the
/// kernel ran at a quarter of its contiguous speed: docs/PERFORMANCE.md#fft).
/// RILL_FFT_NO_THREE_STEP=1 says no to every pass (an A/B knob).
bool split3(const Words& words);
/// The same for a line length (whether a pass of lines of R would run there).
bool split3_length(std::int64_t R);
/// Such a pass as two nested four-step splits in registers, a line per
/// workgroup of R / n1 invocations: invocation j loads column j of the line
/// (elements j + m k1, m = n2 n3), its n1-point DFT, twiddled by w_R^(j k1),
/// into row k1 of shared memory; after a barrier each row's m-point DFT is
/// split again: columns j' of n2 (elements j' + n3 i), their DFTs twiddled
/// by w_m^(j' i') back where they were read; after a second barrier the
/// n3-point DFTs of rows (k1, i') go to X[k1 + n1 (i' + n2 k'')], neighbouring
/// invocations neighbouring k1. Two exchanges through shared memory where the
/// line kernel takes one per radix pass (four for 2048 = 8 8 8 4), and lines
/// of 2049 to 4096 in one pass over memory where the line kernels take two.
/// The kernel's addressing also serves strided lines (an element per
/// invocation), which plans no longer give it (split3).
/// Lengths that are multiples of 16 XOR-swizzle the buffer so that each of
/// the three access patterns spreads a half-warp over 16 banks.
const LineKernel& split3_line_kernel(const Words& words);
/// The strided three-step split kernel: strided lines of kLineElements + 1
/// to kSplit3Longest (the columns of a 2D 4096^2, both passes of 1D 2^24) in
/// one pass over memory where the split kernel's passes take two. G lines a
/// workgroup (split3_strided_lines), G n2 n3 invocations, side by side
/// where a side is strided: a subgroup's loads (stores) take G neighbouring
/// elements of the array, 32 bytes of a row for G = 4, where one line a
/// workgroup read 8 of each 32-byte sector (split3). The lines' rows k1 go
/// through shared memory kStrided3Rows / G at a time (n1 G / kStrided3Rows
/// parts, steps two and three of those rows done before the next part), so
/// that the exchange of G lines of 4096 holds 32 KiB. A plan takes G when it
/// is made: RILL_FFT_STRIDED3_LINES = 1, 2 or 4, or set_split3_strided_lines
/// (the tests, which run each). 0, the default until a GPU run times it
/// against them (bench/gpu/fft.sh strided3), leaves such lines to the split
/// kernel's passes.
constexpr int kStrided3Rows = 16;
int split3_strided_lines();
void set_split3_strided_lines(int lines);
/// Whether strided lines of R run in that kernel with G lines a workgroup on
/// a device that gives a workgroup `max_invocations` and `shared_bytes`: G
/// above 0, R above kLineElements, split by split_line3 into rows of a
/// multiple of 16 (its bank swizzle) and a number of rows that the parts divide.
bool split3_strided_length(std::int64_t R, int G, std::uint32_t max_invocations, std::uint64_t shared_bytes);
/// Whether a pass runs there: strided lines of more than kLineElements
/// (which only plans checked by split3_strided_length make).
bool split3_strided(const Words& words);
const LineKernel& split3_strided_line_kernel(const Words& words, int G);
/// Bluestein's algorithm for one axis in one kernel, a line per workgroup:
/// the chirped line zero-padded to M (a power of two), its transform by the
/// three-step split in shared memory, times the filter's transform, the
/// inverse transform the same way and the chirp again, stored; where the
/// five kernels below pass the line of M through memory five times. For
/// contiguous lines of `length` elements (line l's element t at l length +
/// t), `inverse`: conjugated on loading and on storing. The chirp's `length` elements and the filter's M
/// are at `chirp_at` and `filter_at` in the twiddle stream, split3_twiddles(M)
/// at `split3_twiddles`; `scale` includes the 1 / M of the inverse transform.
/// (x, y, twiddles, chirp_at, filter_at, split3_twiddles, lines, scale)
using BluesteinKernel = Kernel<Array<float2>, Array<float2>, Array<float2>, Int, Int, Int, Int, Float>;
/// Whether Bluestein's algorithm padded to M runs as one bluestein_kernel:
/// M up to kSplit3Longest (lengths up to 2048), unless RILL_FFT_NO_THREE_STEP=1;
/// plans use it on contiguous lines (inner 1) only, as split3.
bool bluestein_in_one(std::int64_t padded);
const BluesteinKernel& bluestein_kernel(int length, int padded, bool inverse);
/// The line kernel for devices whose invocations run one after another (the
/// CPU backend: rill::detail::rows_pay), specialized to one pass's schedule
/// like the one above and called with the same arguments, over workgroups of
/// one invocation that each transform lockstep_lines(words) lines of the pass
/// side by side at a time: element t of four lines is a float4 of their real
/// parts and one of their imaginary parts in shared memory, so that every
/// butterfly is float4 arithmetic, which the compiled code does with vector
/// instructions.
const LineKernel& lockstep_line_kernel(const Words& words);
/// The longest line a lockstep pass transforms in shared memory (a set of
/// four: two buffers of 256 KiB), so that lengths to 8192 take one pass over
/// memory where the line kernels take two.
constexpr int kLockstepLine = 8192;
/// Lockstep lines of up to this length are transformed whole in registers
/// (register_fft over lanes of four lines), without the shared buffer.
constexpr int kLockstepRegisterLine = 8;
/// Lines the lockstep kernel of a pass takes at a time (4 or 8), and the sets
/// of them a workgroup transforms one after another: workgroup g takes lines
/// g * sets * lines on.
int lockstep_lines(const Words& words);
int lockstep_sets(const Words& words);
/// Contiguous lines of up to this length run with half of kLineElements'
/// shared memory (16 KiB): three workgroups fit an H200 SM's 48 KiB through
/// Vulkan where the full capacity fits one (lines of 1024: 1.16 -> 0.71 ms
/// for 2^26 elements, docs/PERFORMANCE.md#fft). Strided lines keep the full
/// capacity: its two lines side by side make a column pass's accesses
/// 16 bytes wide (2D R2C of 1024^2 0.045 -> 0.052 ms with one).
constexpr int kMidLine = 1024;
/// The capacity a pass of lines of R elements runs with; `contiguous`: each
/// line's elements are neighbours in memory, in and out (the generic kernel
/// runs a kMidLine schedule with kLineElements' buffers).
constexpr int capacity_for(std::int64_t R, bool contiguous) {
    return R <= kShortLine ? kShortLine : R <= kMidLine && contiguous ? kMidLine : kLineElements;
}

/// out[i] = (in[i], 0) for i < count.
using RealToComplex = Kernel<Array<float>, Array<float2>, Int>;
const RealToComplex& real_to_complex();

/// out[i] = (in[2 i], in[2 i + 1]) for i < count: real rows of an even length
/// n as complex rows of n / 2 (a real transform as a complex one of half the
/// length).
using PackPairs = Kernel<Array<float>, Array<float2>, Int>;
const PackPairs& pack_pairs();

/// The half spectra X_0 .. X_m of real rows of n = 2 m from Z, the transforms
/// of their packed pairs (rows of m): with E_k = (Z_k + conj Z_(m-k)) / 2 and
/// O_k = -i (Z_k - conj Z_(m-k)) / 2 (indices mod m), X_k = E_k + w_n^k O_k;
/// w_n^k, k <= m, at `roots_at` in the twiddle stream. Workgroup g takes row
/// g / groups_per_row. (Z, out, twiddles, roots_at, m, groups_per_row)
using UnpackHalf = Kernel<Array<float2>, Array<float2>, Array<float2>, Int, Int, Int>;
const UnpackHalf& unpack_half();

/// The way back (complex-to-real of n = 2 m): from half spectra X_0 .. X_m
/// (rows of m + 1, the imaginary parts of X_0 and X_m ignored), Z_k =
/// (X_k + conj X_(m-k)) + i (X_k - conj X_(m-k)) conj(w_n^k) for k < m, whose
/// unnormalized inverse transform of m is the row's pairs of reals x_2j + i
/// x_2j+1 times n. (X, Z, twiddles, roots_at, m, groups_per_row)
using PackHalf = Kernel<Array<float2>, Array<float2>, Array<float2>, Int, Int, Int>;
const PackHalf& pack_half();

/// out[2 i] = in[i].x, out[2 i + 1] = in[i].y for i < count.
using UnpackPairs = Kernel<Array<float2>, Array<float>, Int>;
const UnpackPairs& unpack_pairs();

/// out[r * h + k] = in[r * n + k] for k < h: the first h = n / 2 + 1 of each row of n.
using HalfRows = Kernel<Array<float2>, Array<float2>, Int, Int, Int>;
const HalfRows& half_rows();

/// out[r * n + k] = in[r * h + k] for k < h, conj(in[r * h + n - k]) above:
/// a row of n from its Hermitian half.
using HermitianRows = Kernel<Array<float2>, Array<float2>, Int, Int, Int>;
const HermitianRows& hermitian_rows();

/// out[i] = in[i].x for i < count.
using RealPart = Kernel<Array<float2>, Array<float>, Int>;
const RealPart& real_part();

/// Bluestein's first step on an axis of (outer, length, inner) elements, line
/// l = outer index * inner + inner index: a[l * m + t] = x_t * chirp[t] for
/// t < length (x conjugated first when conj_in), 0 up to m = 2^shift.
/// The chirp is `length` elements at `chirp_at` in the twiddle stream.
/// (x, a, twiddles, chirp_at, length, inner, shift, lines, conj_in)
using ChirpIn = Kernel<Array<float2>, Array<float2>, Array<float2>, Int, Int, Int, Int, Int, Int>;
const ChirpIn& chirp_in();

/// a[i] = a[i] * filter[i % m] for i < count, m = 2^shift, the filter's m
/// elements at `filter_at` in the twiddle stream. (a, twiddles, filter_at, shift, count)
using ChirpFilter = Kernel<Array<float2>, Array<float2>, Int, Int, Int>;
const ChirpFilter& chirp_filter();

/// Its last: y_t = scale * a[l * m + t] * chirp[t], conjugated when conj_out.
/// (a, y, twiddles, chirp_at, length, inner, shift, lines, conj_out, scale)
using ChirpOut = Kernel<Array<float2>, Array<float2>, Array<float2>, Int, Int, Int, Int, Int, Int, Float>;
const ChirpOut& chirp_out();

}  // namespace rill::fft::detail
