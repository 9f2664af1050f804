// BLAS level 3: C = alpha op(A) op(B) + beta C.
//
// One workgroup of 16 x 16 invocations computes a 128 x 128 tile of C, each
// invocation an 8 x 8 block of it in registers (rows ty*4 .. +3 and
// 64 + ty*4 .. +3, columns likewise with tx, so that its shared-memory reads
// are 16-byte vectors at consecutive addresses across the subgroup). Each
// step over k moves a 128 x Depth slice of op(A) and a Depth x 128 slice of
// op(B) into shared memory as float4 columns of four rows (op(A)) or four
// columns (op(B)), loaded along whichever direction is consecutive in memory
// for the operand's op; then every invocation does Depth x 64 multiply-adds.
// The slices of the next step are loaded from memory before a step's
// multiply-adds and stored into the other of two shared buffers after them,
// so that their latency hides behind the arithmetic and a step needs one barrier.
//
// Where invocations run one after another (the CPU backend, detail/rows.h),
// shared memory and barriers only cost: there each invocation computes an
// 8 x 16 block of C straight from memory (rows_kernel below).
#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include <rill/algorithms/blas.h>
#include <rill/algorithms/detail/kernel_cache.h>
#include <rill/algorithms/detail/rows.h>

#include "operands.h"

namespace rill::blas {

namespace {

constexpr int kTile = 128, kWorkgroup = 256;
/// The k of a step. Depth 16 (half the barriers, twice the registers for the
/// next slices: 173 an invocation against 127, one workgroup an SM) ran 0.73x
/// as fast as depth 8 on the H200 and 0.80-0.83x on an H100 through Vulkan at
/// 4096^3 and 8192^3 (docs/PERFORMANCE.md#blas; RILL_BLAS_GEMM_DEPTH=16).
constexpr int kDepth = 8;
constexpr int kQuads = kTile / 4;  // float4 columns of a shared slice

/// Float4s from one depth's row of a shared slice to the next's: a quad more
/// than the row holds. A slice loaded along k (an operand whose k is
/// consecutive in memory: A not transposed, B transposed) is stored by eight
/// neighbouring invocations at eight depths of one quad: rows of exactly 32
/// quads put those 16-byte stores 512 bytes apart, in one bank group, an
/// 8-way conflict in each quarter-warp; rows 33 quads apart put them in eight.
/// The multiply-adds' loads keep constant offsets from a row's start (an XOR
/// of quad and depth, tried first, spread the stores as well but cost every
/// load its own address: tn, which has no such slice, ran 10% slower with it;
/// docs/PERFORMANCE.md#blas). RILL_BLAS_GEMM_UNPADDED=1 leaves the quad out
/// (an A/B knob, docs/TUNING.md).
int row_stride() {
    static const int stride = env_flag("RILL_BLAS_GEMM_UNPADDED") ? kQuads : kQuads + 1;
    return stride;
}

/// RILL_BLAS_GEMM_GUARDED_SLICES=1: the next step's slices are loaded and
/// stored only where there is a next step, behind a branch each (an A/B
/// knob, docs/TUNING.md).
bool guarded_slices() {
    static const bool guarded = env_flag("RILL_BLAS_GEMM_GUARDED_SLICES");
    return guarded;
}

/// Component c of a float4 value.
Expr<float> component(const Expr<float4>& v, int c) { return Expr<float>(dsl::FromId{dsl::builder().swizzle(v.id(), &c, 1)}); }

using GemmKernel = Kernel<Array<float>, Array<float>, Array<float>, Int, Int, Int, Int, Int, Int, Int, Int, Int, Float, Float>;

/// How a tiled kernel keeps its accesses inside the matrices (all but
/// Checked without rill's bounds checks): Exact where every tile lies inside C and
/// k is a multiple of the depth (nothing to keep); Clamped for other shapes
/// (rows and columns past C's edge read C's last ones, whose products are
/// not stored; depths past k read the last and count zero; C's stores
/// guarded); Checked, rill's checks on every access and zero past every edge
/// (RILL_BLAS_GEMM_CHECKED=1, an A/B knob: through OpenGL the checks made nn
/// 1.8x slower, docs/PERFORMANCE.md#blas).
enum class Bounds { Exact, Clamped, Checked };

/// Which tiled kernel: op(A) and op(B), whether A^T and B load their slices'
/// items as 16-byte vectors (gemm checks that their rows start at quads),
/// the bounds, and the k of a step.
struct Variant {
    bool ta = false, tb = false, quads = false;
    Bounds bounds = Bounds::Clamped;
    int depth = kDepth;
    auto operator<=>(const Variant&) const = default;
};

/// The slices of one step: depth / 8 float4s of op(A) and of op(B) per
/// invocation, loaded from memory into registers, then stored into shared
/// memory (buffer `half` of two). Item `it` of a slice is the float4 of four
/// rows of op(A) (columns of op(B)) at one depth: neighbouring invocations
/// take neighbouring depths where the operand is consecutive along k, else
/// neighbouring quads.
struct Slices {
    Variant v;
    std::vector<Var<float4>> a, b;  // declared before the loop that assigns them

    explicit Slices(const Variant& variant) : v(variant), a(variant.depth / 8), b(variant.depth / 8) {}

    Expr<std::int32_t> depth_of(const Expr<std::int32_t>& it, bool along_k) const { return along_k ? it % v.depth : it / kQuads; }
    Expr<std::int32_t> quad_of(const Expr<std::int32_t>& it, bool along_k) const { return along_k ? it / v.depth : it % kQuads; }
    /// x where the element is in the matrix (`in`: its row or column inside
    /// C, `in_k`: its depth below k), else 0; an Exact variant's always are,
    /// and a Clamped variant's rows and columns past C's edge only feed
    /// products that are not stored.
    template <class T>
    Expr<T> inside(const Expr<bool>& in, const Expr<bool>& in_k, const Expr<T>& x) const {
        switch (v.bounds) {
            case Bounds::Exact: return x;
            case Bounds::Clamped: return select(in_k, x, Expr<T>(T{}));
            case Bounds::Checked: break;
        }
        return select(in && in_k, x, Expr<T>(T{}));
    }
    /// A row, column or depth index to read at: a Clamped variant's stays
    /// inside [0, count - 1] (quads: a whole quad's first, count a multiple
    /// of 4), the others' as it is.
    Expr<std::int32_t> at(const Expr<std::int32_t>& index, const Int& count, int quad = 1) const {
        return v.bounds == Bounds::Clamped ? min(index, count - quad) : index;
    }

    /// The item of operand X at edge index e (a row of op(A), a column of
    /// op(B); e .. e + 3 of `count`) and depth p: X's element (e, p) at
    /// e * ld + p * cs where X is consecutive along k (A, B^T), else at p * ld
    /// + e * cs. Quads: where the four lie consecutive (A^T, B), one 16-byte load.
    Expr<float4> item(const Array<float>& X, bool along_k, const Expr<std::int32_t>& e, const Int& count,
                      const Expr<std::int32_t>& p, const Int& k, const Int& ld, const Int& cs) const {
        Expr<std::int32_t> pc = at(p, k);
        if (v.quads && !along_k) return inside<float4>(e < count, p < k, X.load_vector<4>(pc * (ld / 4) + at(e, count, 4) / 4));
        std::vector<Expr<float>> x;
        for (int r = 0; r < 4; ++r) {
            Expr<std::int32_t> ec = at(e + r, count);
            x.push_back(inside<float>(e + r < count, p < k, X.load(along_k ? ec * ld + pc * cs : pc * ld + ec * cs)));
        }
        return Float4(x[0], x[1], x[2], x[3]);
    }

    void load(const Array<float>& A, const Array<float>& B, const Expr<std::int32_t>& p0, const Expr<std::int32_t>& i0,
              const Expr<std::int32_t>& j0, const Int& m, const Int& n, const Int& k, const Int& lda, const Int& csa,
              const Int& ldb, const Int& csb) {
        for (std::size_t s = 0; s < a.size(); ++s) {
            Expr<std::int32_t> it = local_id() + static_cast<int>(s) * kWorkgroup;
            a[s] = item(A, !v.ta, i0 + quad_of(it, !v.ta) * 4, m, p0 + depth_of(it, !v.ta), k, lda, csa);
            b[s] = item(B, v.tb, j0 + quad_of(it, v.tb) * 4, n, p0 + depth_of(it, v.tb), k, ldb, csb);
        }
    }

    void store(const Shared<float4>& as, const Shared<float4>& bs, const Expr<std::int32_t>& half) const {
        for (std::size_t s = 0; s < a.size(); ++s) {
            Expr<std::int32_t> it = local_id() + static_cast<int>(s) * kWorkgroup;
            Expr<std::int32_t> da = depth_of(it, !v.ta), db = depth_of(it, v.tb);
            as.store(half * (v.depth * row_stride()) + da * row_stride() + quad_of(it, !v.ta), a[s]);
            bs.store(half * (v.depth * row_stride()) + db * row_stride() + quad_of(it, v.tb), b[s]);
        }
    }
};

/// Two shared buffers: while the
/// invocations multiply out of one, the next step's slices, loaded from memory
/// before the multiplications, go into the other, so a step needs one barrier.
GemmKernel tiled_kernel(const Variant& v) {
    const std::string name = std::string("blas_gemm_") + (v.ta ? "t" : "n") + (v.tb ? "t" : "n") + std::to_string(v.depth) +
                             (v.quads ? "q" : "") + (v.bounds == Bounds::Exact ? "x" : v.bounds == Bounds::Clamped ? "c" : "");
    // Without spirv-opt where the driver optimizes as well: on an H100 the
    // five products of the bench ran within 2% either way.
    return group_kernel<kWorkgroup>(
        name + "(A, B, C, m, n, k, lda, csa, ldb, csb, ldc, csc, alpha, beta)",
        GroupOptions{.spirv_opt = SpirvOpt::UnlessTheDriverOptimizes, .unchecked_arrays = v.bounds != Bounds::Checked},
        [v](Array<float> A, Array<float> B, Array<float> C, Int m, Int n, Int k, Int lda, Int csa, Int ldb, Int csb, Int ldc,
            Int csc, Float alpha, Float beta) {
            const int depth = v.depth;
            Shared<float4> as(2 * depth * row_stride(), dsl::Unchecked{});
            Shared<float4> bs(2 * depth * row_stride(), dsl::Unchecked{});
            Int tiles_n = (n + kTile - 1) / kTile;
            Int i0 = (group_id() / tiles_n) * kTile;
            Int j0 = (group_id() % tiles_n) * kTile;
            Int ty = local_id() / 16, tx = local_id() % 16;
            Slices slices(v);
            slices.load(A, B, Int(0), i0, j0, m, n, k, lda, csa, ldb, csb);
            slices.store(as, bs, Int(0));
            barrier();

            std::array<Var<float>, 64> acc;  // zero
            Int steps = (k + depth - 1) / depth;
            For(0, steps, [&](Expr<std::int32_t> step) {
                Int half = step & 1;
                // The next step's slices, loaded without a branch: the last
                // step loads its own again and stores it into the buffer no
                // one reads any more. Behind an `if`, NVIDIA's compiler sank
                // the loads below the multiply-adds into the stores' branch
                // (the same condition), so each step waited for memory.
                Int next = min(step + 1, steps - 1) * depth;
                if (guarded_slices()) If(step + 1 < steps, [&] { slices.load(A, B, next, i0, j0, m, n, k, lda, csa, ldb, csb); });
                else slices.load(A, B, next, i0, j0, m, n, k, lda, csa, ldb, csb);
                for (int d = 0; d < depth; ++d) {
                    Int row = half * (depth * row_stride()) + d * row_stride();
                    const Expr<float4> a[2] = {as.load(row + ty), as.load(row + 16 + ty)};
                    const Expr<float4> b[2] = {bs.load(row + tx), bs.load(row + 16 + tx)};
                    for (int r = 0; r < 8; ++r)
                        for (int c = 0; c < 8; ++c)
                            acc[r * 8 + c] = fma(component(a[r / 4], r % 4), component(b[c / 4], c % 4), acc[r * 8 + c]);
                }
                if (guarded_slices()) If(step + 1 < steps, [&] { slices.store(as, bs, 1 - half); });
                else slices.store(as, bs, 1 - half);
                barrier();
            });
            for (int r = 0; r < 8; ++r) {
                Int i = i0 + (r / 4) * 64 + ty * 4 + r % 4;
                for (int c = 0; c < 8; ++c) {
                    Int j = j0 + (c / 4) * 64 + tx * 4 + c % 4;
                    auto store = [&] {
                        Int at = i * ldc + j * csc;
                        If(beta == 0.0f, [&] { C.store(at, alpha * acc[r * 8 + c]); })
                            .Else([&] { C.store(at, alpha * acc[r * 8 + c] + beta * C.load(at)); });
                    };
                    if (v.bounds == Bounds::Exact) store();
                    else If(i < m && j < n, store);
                }
            }
        });
}

/// Row tiles (detail/rows.h): invocation l of a workgroup computes the 8 x 16
/// block of C at rows i0 .. i0 + 7 and columns j0 .. j0 + 15, its 128 sums in
/// registers, from 8 elements of op(A) (one per row) and a row of 16
/// consecutive elements of B's panel (panels_of) per step of k: the compiled
/// C++ makes that one vector load, 8 broadcasts and 8 vector fused
/// multiply-adds (AVX-512). The workgroup's 64 invocations cover 64 x 128 of
/// C, the 8 blocks of a row of blocks one after another, so that their rows
/// of op(A) stay in the L1 cache and the workgroup's 8 panels in L2. C's
/// columns are consecutive (a C whose are not takes the tiled kernel). Rows
/// past m read row m - 1 and are not stored.
constexpr int kBlockRows = 8, kBlockCols = 16, kBlocksAcross = 8;
constexpr int kRowsTileM = kBlockRows * (rill::detail::kRowWorkgroup / kBlocksAcross), kRowsTileN = kBlockCols * kBlocksAcross;

using RowsKernel = Kernel<Array<float>, Array<float>, Array<float>, Int, Int, Int, Int, Int, Int, Float, Float>;

template <bool TransA>
RowsKernel rows_kernel() {
    const std::string name = std::string("blas_gemm_rows_") + (TransA ? "t" : "n");
    return group_kernel<rill::detail::kRowWorkgroup>(
        name + "(A, panels, C, m, n, k, lda, csa, ldc, alpha, beta)", GroupOptions{.unchecked_arrays = true},
        [](Array<float> A, Array<float> B, Array<float> C, Int m, Int n, Int k, Int lda, Int csa, Int ldc, Float alpha, Float beta) {
            Int tiles_n = (n + kRowsTileN - 1) / kRowsTileN;
            Int i0 = (group_id() / tiles_n) * kRowsTileM + (local_id() / kBlocksAcross) * kBlockRows;
            Int j0 = (group_id() % tiles_n) * kRowsTileN + (local_id() % kBlocksAcross) * kBlockCols;
            Shared<float> block(rill::detail::kRowWorkgroup * kBlockRows * kBlockCols, dsl::Unchecked{});
            If(i0 < m && j0 < n, [&] {
                std::array<Var<std::int32_t>, kBlockRows> row;
                for (int r = 0; r < kBlockRows; ++r) row[r] = min(i0 + r, m - 1);
                std::array<Var<float>, kBlockRows * kBlockCols> acc;  // zero
                // B's panel of this block: k rows of 16 consecutive elements.
                Int panel = (j0 / kBlockCols) * (k * kBlockCols);
                For(0, k, [&](Expr<std::int32_t> p) {
                    std::array<Var<float>, kBlockRows> a;
                    for (int r = 0; r < kBlockRows; ++r) a[r] = A.load(TransA ? p * lda + row[r] * csa : row[r] * lda + p * csa);
                    Int b0 = panel + p * kBlockCols;
                    for (int c = 0; c < kBlockCols; ++c) {
                        Var<float> b = B.load(b0 + c);
                        for (int r = 0; r < kBlockRows; ++r) acc[r * kBlockCols + c] = fma(a[r], b, acc[r * kBlockCols + c]);
                    }
                });
                // The block goes first to this invocation's part of shared
                // memory in one straight run of consecutive stores, from
                // which the C++ compiler vectorizes the loop above (its sums
                // become vector registers); then into C.
                Int mine = local_id() * (kBlockRows * kBlockCols);
                for (int e = 0; e < kBlockRows * kBlockCols; ++e) block.store(mine + e, acc[e]);
                Int cols = min(Int(kBlockCols), n - j0);
                For(0, min(Int(kBlockRows), m - i0), [&](Expr<std::int32_t> r) {
                    Int first = (i0 + r) * ldc + j0;
                    For(0, cols, [&](Expr<std::int32_t> c) {
                        // C is read either way; where beta is 0 its value is dropped.
                        Expr<float> v = alpha * block.load(mine + r * kBlockCols + c);
                        C.store(first + c, select(beta == 0.0f, v, v + beta * C.load(first + c)));
                    });
                });
            });
        });
}

const RowsKernel& rows(bool ta) {
    static const auto make = [](int transposed) { return transposed ? rows_kernel<true>() : rows_kernel<false>(); };
    return rill::detail::traced_once<RowsKernel, int>(ta ? 1 : 0, +make);
}

/// op(B) in panels of 16 columns (for rows_kernel): panel q holds rows 0 ..
/// k - 1 of columns 16 q .. 16 q + 15, each row's 16 elements consecutive
/// (zeros past column n - 1), so that a block reads its panel in order. Read
/// along B's rows of 4 KiB or more, a block's 16 columns would take a new
/// page and, at power-of-two strides, the same few cache sets each step.
Stream<float> panels_of(const blas::detail::Matrix& b, bool transposed, std::int32_t k, std::int32_t n) {
    static const auto kernel = group_kernel<kWorkgroup>("blas_gemm_panels(B, out, k, n, ldb, csb, transposed)",
                                                       [](Array<float> B, Array<float> out, Int k, Int n, Int ldb, Int csb, Int transposed) {
        Int e = global_id();
        Int per_panel = k * kBlockCols;
        If(e < ((n + kBlockCols - 1) / kBlockCols) * per_panel, [&] {
            Int q = e / per_panel;
            Int p = (e - q * per_panel) / kBlockCols;
            Int j = q * kBlockCols + e % kBlockCols;
            Int at = select(transposed != 0, j * ldb + p * csb, p * ldb + j * csb);
            out.store(e, select(j < n, B.load(at), Expr<float>(0.0f)));
        });
    });
    const std::int64_t count = std::int64_t{(n + kBlockCols - 1) / kBlockCols} * k * kBlockCols;
    Stream<float> out = Runtime::of(b.extent).scratch<float>(Shape{count});
    kernel(Groups{(count + kWorkgroup - 1) / kWorkgroup}, b.extent, out, k, n, b.row_stride, b.col_stride, transposed ? 1 : 0);
    return out;
}

/// C = beta C (0 where beta is 0: C is not read).
void scale(const blas::detail::Matrix& c, float beta) {
    static const auto kernel = group_kernel<kWorkgroup>("blas_gemm_scale(C, m, n, ldc, csc, beta)",
                                                       [](Array<float> C, Int m, Int n, Int ldc, Int csc, Float beta) {
        Int e = global_id();
        If(e < m * n, [&] {
            Int i = e / n;
            Int at = i * ldc + (e - i * n) * csc;
            If(beta == 0.0f, [&] { C.store(at, 0.0f); }).Else([&] { C.store(at, beta * C.load(at)); });
        });
    });
    const std::int64_t count = std::int64_t{c.rows} * c.cols;
    kernel(Groups{(count + kWorkgroup - 1) / kWorkgroup}, c.extent, c.rows, c.cols, c.row_stride, c.col_stride, beta);
}

const GemmKernel& tiled(const Variant& v) {
    // Traced once each, on first use.
    return rill::detail::traced_once<GemmKernel, Variant>(v, +[](Variant w) { return tiled_kernel(w); });
}

/// The k of a step: kDepth, or RILL_BLAS_GEMM_DEPTH=16 (an A/B knob, docs/TUNING.md).
int step_depth() {
    static const int depth = [] {
        const char* s = std::getenv("RILL_BLAS_GEMM_DEPTH");
        return s && std::string(s) == "16" ? 16 : kDepth;
    }();
    return depth;
}

/// Whether the operands that tiled() loads in quads (A^T, B) have rows of
/// whole quads starting at quads. RILL_BLAS_GEMM_SCALAR_LOADS=1 says no (an
/// A/B knob, docs/TUNING.md).
bool quad_rows(const blas::detail::Matrix& x, bool loaded_in_quads) {
    static const bool off = env_flag("RILL_BLAS_GEMM_SCALAR_LOADS");
    return !loaded_in_quads || (!off && blas::detail::rows_of_quads(x));
}

}  // namespace

void gemm(Op transa, Op transb, float alpha, const Stream<float>& A, const Stream<float>& B, float beta, const Stream<float>& C) {
    const char* who = "rill::blas::gemm";
    const auto a = blas::detail::matrix_operand(who, "A", A);
    const auto b = blas::detail::matrix_operand(who, "B", B);
    const auto c = blas::detail::matrix_operand(who, "C", C, true);
    const bool ta = transa == Op::T, tb = transb == Op::T;
    const std::int32_t m = ta ? a.cols : a.rows, k = ta ? a.rows : a.cols;
    const std::int32_t kb = tb ? b.cols : b.rows, n = tb ? b.rows : b.cols;
    auto shape = [](std::int64_t r, std::int64_t c) { return std::to_string(r) + "x" + std::to_string(c); };
    if (kb != k)
        blas::detail::wrong_shape(who, "B", B.shape(), tb ? shape(n, k) : shape(k, n),
                                  "op(A) has " + std::to_string(k) + " columns (A has shape " + A.shape().str() +
                                      (ta ? ", transposed" : "") + "), so op(B) needs " + std::to_string(k) + " rows" +
                                      (tb ? " (B is transposed)" : ""));
    if (c.rows != m || c.cols != n)
        blas::detail::wrong_shape(who, "C", C.shape(), shape(m, n),
                                  "op(A) op(B) is " + shape(m, k) + " times " + shape(k, n));
    if (m == 0 || n == 0 || ((alpha == 0.0f || k == 0) && beta == 1.0f)) return;
    if (alpha == 0.0f || k == 0) return scale(c, beta);
    // RILL_BLAS_GEMM_TILED=1 takes the tiled kernels on every backend (a test
    // knob, docs/TUNING.md: ctest's cpu_blas_gpu_kernels checks there, with
    // RILL_CPU_VERIFY_UNCHECKED, that every access of the unchecked variants
    // stays inside the matrices).
    static const bool tiled_everywhere = env_flag("RILL_BLAS_GEMM_TILED");
    if (!tiled_everywhere && rill::detail::rows_pay(Runtime::of(C).info()) && c.col_stride == 1) {
        const std::int64_t tiles = std::int64_t{(m + kRowsTileM - 1) / kRowsTileM} * ((n + kRowsTileN - 1) / kRowsTileN);
        rows(ta)(Groups{tiles}, a.extent, panels_of(b, tb, k, n), c.extent, m, n, k, a.row_stride, a.col_stride, c.row_stride,
                 alpha, beta);
        return;
    }
    Variant v{.ta = ta, .tb = tb, .depth = step_depth()};
    // Variant op(A) = A with op(B) = B^T loads both along k: no quads.
    v.quads = !(!ta && tb) && quad_rows(a, ta) && quad_rows(b, !tb);
    static const bool checked = env_flag("RILL_BLAS_GEMM_CHECKED");  // an A/B knob, docs/TUNING.md
    v.bounds = checked ? Bounds::Checked
               : m % kTile == 0 && n % kTile == 0 && k % v.depth == 0 ? Bounds::Exact
                                                                      : Bounds::Clamped;
    const GemmKernel& kernel = tiled(v);
    const std::int64_t tiles = std::int64_t{(m + kTile - 1) / kTile} * ((n + kTile - 1) / kTile);
    kernel(Groups{tiles}, a.extent, b.extent, c.extent, m, n, k, a.row_stride, a.col_stride, b.row_stride, b.col_stride,
           c.row_stride, c.col_stride, alpha, beta);
}

}  // namespace rill::blas
