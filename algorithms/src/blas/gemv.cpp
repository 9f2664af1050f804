// BLAS level 2: y = alpha op(A) x + beta y.
//
// Both kernels give each output element a team of invocations of one
// workgroup, whose loads of A are consecutive in memory:
// - op(A) = A: a team of `Team` invocations per row walks the row's columns
//   Team apart (rows of Workgroup / Team per workgroup); short rows get small
//   teams, long rows a whole workgroup, and long rows 4 to a team, which
//   loads each piece of x once for the 4.
// - op(A) = A^T: an invocation per column walks down the rows, `Columns`
//   neighbouring columns per workgroup and Workgroup / Columns invocations per
//   column taking every so-many-th row; narrow matrices get few columns and
//   more invocations per column.
// Where A's rows (and, for op(A) = A, x) start at multiples of 4 elements,
// every load moves four of them at once (16 bytes: a 4-column quad of a row):
// the team then walks quads, and each op(A) = A^T invocation owns a quad of
// columns. Each invocation keeps four sums, so four loads are in flight
// (eight for op(A) = A^T on quads).
// The team's sums meet in shared memory. Where that leaves too few
// workgroups to fill a GPU (few long rows: the short-and-wide matrices; few
// long columns), the sum is split into chunks, and the last of the workgroups
// of a group of outputs to finish adds up their partial sums
// (rill::last_to_finish; a second kernel took a launch more).
//
// Where invocations run one after another (the CPU backend, detail/rows.h)
// an invocation takes a whole row of A (op(A) = A; 4 rows where rows are
// long) or 64, 128 or 256 whole columns (op(A) = A^T) in consecutive loads
// (row_kernels below).
#include <array>
#include <string>
#include <vector>

#include <rill/algorithms/blas.h>
#include <rill/algorithms/detail/kernel_cache.h>
#include <rill/algorithms/detail/rows.h>
#include <rill/dsl/workgroup_fold.h>

#include "operands.h"

namespace rill::blas {

namespace {

constexpr int kWorkgroup = 256;
/// Workgroups that keep every SM of a large GPU busy.
constexpr std::int64_t kTargetGroups = 1024;
/// Terms each invocation sums at least, before a sum is split further.
constexpr std::int64_t kMinPerInvocation = 16;
/// Rows a team sums at once where rows are long (at least 2048 quads, and
/// 128 where there are many rows), sharing x's loads and the team's barriers:
/// H200 through Vulkan, 512 x 2^20 0.77 -> 0.99 of cuBLAS, 32 x 2^22 0.77 -> 0.94.
constexpr int kLongRows = 4;
/// Quads from which a row is long enough for a team to take four steps an
/// iteration (16 loads of A and 4 of x in flight an invocation): H100 through
/// Vulkan, 512 x 2^20 0.91 -> 0.97 of cuBLAS, 32 x 2^22 0.90 -> 0.94 (two
/// steps: 0.93, 0.90); 8192^2 (2048 quads) 1.22 -> 1.15, so not there
/// (docs/PERFORMANCE.md#blas).
constexpr std::int32_t kStepsFrom = 1 << 14;
constexpr int kLongSteps = 4;

/// The sum over t in [begin, end) stepping by `step` of term(t), InFlight
/// (4 or 8) terms at a time, so that as many loads are in flight, into
/// `sums` sums (a divisor of InFlight; term u of a step into sum u % sums).
template <class T, int InFlight = 4, class Term>
Var<T> strided_sum(const Expr<std::int32_t>& begin, const Expr<std::int32_t>& end, int step, Term term, int sums = InFlight) {
    static_assert(InFlight == 4 || InFlight == 8);
    if (sums < 1 || InFlight % sums != 0) throw Error("rill::blas: " + std::to_string(sums) + " sums do not divide " + std::to_string(InFlight));
    Var<T> s[InFlight];
    // Every term is read into a variable before any is added: with A^T x's
    // bounds checks gone (columns_kernel), NVIDIA's compiler then kept more
    // loads in flight (H100 through Vulkan, A^T x 1.01-1.06x, A x of 2^22 x
    // 32 1.07x). RILL_BLAS_GEMV_INTERLEAVED=1 adds each term as it is read
    // (an A/B knob, docs/TUNING.md).
    static const bool loads_first = !env_flag("RILL_BLAS_GEMV_INTERLEAVED");
    For(begin, end, InFlight * step, [&](Expr<std::int32_t> t) {
        if (loads_first) {
            std::vector<Var<T>> v;
            for (int u = 0; u < InFlight; ++u) v.emplace_back(term(min(t + u * step, end - 1)));
            for (int u = 0; u < InFlight; ++u) s[u % sums] = s[u % sums] + select(t + u * step < end, Expr<T>(v[u]), Expr<T>(T{}));
            return;
        }
        for (int u = 0; u < InFlight; ++u) {
            Expr<std::int32_t> at = t + u * step;
            Expr<T> v = term(min(at, end - 1));  // in range; past the end it counts 0
            s[u % sums] = s[u % sums] + select(at < end, v, Expr<T>(T{}));
        }
    });
    // Pairwise: the sums of neighbours, then of neighbouring pairs...
    std::vector<Expr<T>> partial(s, s + sums);
    while (partial.size() > 1) {
        std::vector<Expr<T>> next;
        for (std::size_t i = 0; i < partial.size(); i += 2) next.push_back(partial[i] + partial[i + 1]);
        partial = std::move(next);
    }
    return Var<T>(partial[0]);
}

/// Adds up the `lanes` values of each team (lanes `stride` invocations apart
/// in the workgroup) in shared memory, for each of the R sums at once (one
/// barrier a step for all of them); the sums are defined at the team's lane 0.
template <class T, std::size_t R>
void team_sums(std::array<Var<T>, R>& s, const Expr<std::int32_t>& lane, int lanes, int stride) {
    if (lanes == 1) return;
    Shared<T> sums(kWorkgroup * static_cast<std::int64_t>(R), dsl::Unchecked{});
    for (std::size_t r = 0; r < R; ++r) sums.store(local_id() + static_cast<int>(r) * kWorkgroup, s[r]);
    barrier();
    for (int w = lanes / 2; w >= 1; w /= 2) {
        If(lane < w, [&] {
            for (std::size_t r = 0; r < R; ++r) {
                Int at = local_id() + static_cast<int>(r) * kWorkgroup;
                s[r] = s[r] + sums.load(at + w * stride);
                sums.store(at, s[r]);
            }
        });
        barrier();
    }
}

template <class T>
void team_sum(Var<T>& s, const Expr<std::int32_t>& lane, int lanes, int stride) {
    std::array<Var<T>, 1> one{s};
    team_sums(one, lane, lanes, stride);
    s = one[0];
}

/// y[at] = alpha s + beta y[at]; y is not read when beta is 0.
void store_result(const Array<float>& y, const Expr<std::int32_t>& at, const Expr<float>& s, const Expr<float>& alpha,
                  const Expr<float>& beta) {
    If(beta == 0.0f, [&] { y.store(at, alpha * s); }).Else([&] { y.store(at, alpha * s + beta * y.load(at)); });
}

/// Component c of a float4 value.
Expr<float> component(const Expr<float4>& v, int c) { return Expr<float>(dsl::FromId{dsl::builder().swizzle(v.id(), &c, 1)}); }

/// Partial sums of a chunk lie `pitch(outputs)` apart, a whole number of
/// quads, so that a split sum's end loads them four at a time.
Expr<std::int32_t> pitch(const Expr<std::int32_t>& outputs) { return (outputs + 3) / 4 * 4; }

/// A split sum's end: the last of the `chunks` workgroups of a group of
/// outputs [first, first + Outputs) to finish (counted in finished[counter])
/// sets y[i * incy] = alpha * (the sum over c of partial[c * pitch(outputs) +
/// i]) + beta y[i * incy] for each. With Quads its invocations take quads of
/// outputs (where Outputs is a multiple of 4), kWorkgroup / (Outputs / 4)
/// invocations a quad taking every so-many-th chunk, 4 loads in flight: this
/// runs after every other workgroup of the group, so each round trip to
/// memory is on the kernel's critical path (2^22 x 32 A^T x sums 1024 chunks
/// of 32 outputs here: 32 rounds of loads an output at a time, 8 in quads).
/// op(A) = A^T's kernels on quads take it: H100 through Vulkan, A^T x 1.02-1.06x
/// as fast (8192^2 0.908 -> 0.937 of cuBLAS). op(A) = A's keep an output an
/// invocation: their groups have 4 or 32 outputs, and with the quads' code
/// compiled in, their unsplit kernels ran up to 1.07x slower
/// (docs/PERFORMANCE.md#blas). Kernels on single elements, whose own sums
/// hold fewer registers than the quads, keep it too.
/// Neighbouring invocations take neighbouring outputs of a chunk, so that
/// each load of a subgroup reads consecutive partial sums. Every invocation
/// calls it, those that stored partial sums after a memory_fence().
template <int Outputs, bool Quads>
void finish_split(const Array<float>& partial, const Array<float>& y, const Array<std::uint32_t>& finished,
                  const Expr<std::int32_t>& counter, const Expr<std::int32_t>& first, const Expr<std::int32_t>& outputs,
                  const Expr<std::int32_t>& chunks, const Expr<std::int32_t>& incy, const Expr<float>& alpha, const Expr<float>& beta) {
    static_assert(Outputs >= 1 && Outputs <= kWorkgroup && kWorkgroup % Outputs == 0);
    // RILL_BLAS_GEMV_SCALAR_FINISH=1: an output an invocation, 4 loads in
    // flight (an A/B knob, docs/TUNING.md).
    static const bool scalar = env_flag("RILL_BLAS_GEMV_SCALAR_FINISH");
    If(last_to_finish(finished, counter, chunks), [&] {
        memory_fence();  // the other workgroups' partial sums, after the count that handed them on
        if (Quads && Outputs % 4 == 0 && !scalar) {
            constexpr int quads = Outputs % 4 == 0 ? Outputs / 4 : 1;
            constexpr int lanes = kWorkgroup / quads;
            Int lane = local_id() / quads;
            Int q = first / 4 + local_id() % quads;  // first is a multiple of Outputs
            Int row = pitch(outputs) / 4;
            Var<float4> s;
            If(q * 4 < outputs, [&] {
                s = strided_sum<float4, 4>(lane, chunks, lanes, [&](Expr<std::int32_t> c) { return partial.load_vector<4>(c * row + q); }, 1);
            });
            team_sum(s, lane, lanes, quads);
            for (int w = 0; w < 4; ++w)
                If(lane == 0 && q * 4 + w < outputs, [&] { store_result(y, (q * 4 + w) * incy, component(s, w), alpha, beta); });
        } else {
            constexpr int lanes = kWorkgroup / Outputs;
            Int lane = local_id() / Outputs;
            Int i = first + local_id() % Outputs;
            Var<float> s;
            If(i < outputs, [&] {
                s = strided_sum<float>(lane, chunks, lanes, [&](Expr<std::int32_t> c) { return partial.load(c * pitch(outputs) + i); });
            });
            team_sum(s, lane, lanes, Outputs);
            If(lane == 0 && i < outputs, [&] { store_result(y, i * incy, s, alpha, beta); });
        }
        If(local_id() == 0, [&] { finished.store(counter, 0u); });
    });
}

using SumKernel = Kernel<Array<float>, Array<float>, Array<float>, Array<float>, Array<std::uint32_t>, Int, Int, Int, Int, Int, Int,
                         Int, Int, Float, Float>;

/// Workgroup g's group of outputs and chunk of the sum in a split kernel,
/// of `groups` groups and `chunks` chunks: chunk-major (a chunk's groups side
/// by side), or group-major. Kernels that never split take group g and chunk
/// 0: no division (NVIDIA's compilers divide by a variable in about 20
/// instructions, which kernels of a few terms an invocation feel: 2^22 x 32
/// A x, 2 quads).
template <bool Split>
std::pair<Int, Int> group_and_chunk(const Expr<std::int32_t>& g, const Expr<std::int32_t>& groups, const Expr<std::int32_t>& chunks,
                                    bool group_major) {
    if constexpr (!Split) return {Int(g), Int(0)};
    if (group_major) {
        Int group = g / chunks;
        return {group, Int(g - group * chunks)};
    }
    Int chunk = g / groups;
    return {Int(g - chunk * groups), chunk};
}

/// A kernel's name: Split kernels end in "_split".
std::string kernel_name(std::string base, bool split) { return split ? base + "_split" : base; }

/// op(A) = A with teams of Team lanes per Rows rows. Workgroup g takes rows
/// (g % row_groups) * rows_per_group + ... and the columns (quads with Quads)
/// of chunk g / row_groups. Unsplit (one chunk) it writes y; Split it writes
/// partial[chunk * pitch(m) + row], which the row group's last workgroup adds
/// up. The two are traced apart, so that an unsplit kernel holds none of the
/// split's code: through NVIDIA's OpenGL the unsplit A x of 2^22 x 32, 8192^2
/// and 16384^2 ran 1.18-1.27x slower with it compiled in behind a uniform
/// branch (H200, 2026-12-07, docs/PERFORMANCE.md#blas).
/// With Rows > 1 (quads only) a lane loads each quad of x once for Rows rows:
/// a matrix of few long rows otherwise reads x from the cache once per row,
/// as many bytes as A itself.
template <int Team, bool Quads, int Rows, int Steps, bool Split>
SumKernel rows_kernel() {
    static_assert(Rows == 1 || Quads);
    static_assert(Steps == 1 || Rows > 1);
    return group_kernel<kWorkgroup>(
        kernel_name(std::string("blas_gemv_n") + std::to_string(Team) + (Quads ? "q" : "") + (Rows > 1 ? "r" + std::to_string(Rows) : "") +
                        (Steps > 1 ? "s" + std::to_string(Steps) : ""),
                    Split) +
            "(A, x, y, partial, finished, m, n, lda, cs, incx, incy, chunk, chunks, alpha, beta)",
        // Without rill's bounds checks, as columns_kernel (below): every index
        // is in range by construction (rows clamped to the last, a sum's
        // columns clamped into its chunk, x in quads only where it is
        // consecutive and holds n elements). H100, 2026-12-06: through OpenGL
        // 16384^2 0.71 -> 0.80 and 32 x 2^22 0.71 -> 0.92 of cuBLAS; through
        // Vulkan 0.95-0.97x as fast at 2^22 x 32 and 512 x 2^20, the others
        // within 1% (docs/PERFORMANCE.md#blas).
        GroupOptions{.unchecked_arrays = !env_flag("RILL_BLAS_GEMV_CHECKED")},
        [](Array<float> A, Array<float> x, Array<float> y, Array<float> partial, Array<std::uint32_t> finished, Int m, Int n, Int lda,
           Int cs, Int incx, Int incy, Int chunk, Int chunks, Float alpha, Float beta) {
            Int lane = local_id() % Team;
            // Split sums: neighbouring workgroups take the same chunk of
            // neighbouring row groups, so that the workgroups running at once
            // read few pieces of x, each from the cache after its first read
            // (32 x 2^22 reads x, 16 MiB, once for each of its 8 row groups).
            // RILL_BLAS_GEMV_ROW_GROUP_MAJOR=1: a row group's chunks next to
            // each other instead (an A/B knob, docs/TUNING.md).
            static const bool row_group_major = env_flag("RILL_BLAS_GEMV_ROW_GROUP_MAJOR");
            constexpr int outputs = kWorkgroup / Team * Rows;
            Int g = group_id();
            Expr<std::int32_t> row_groups = (m + outputs - 1) / outputs;  // for split kernels only
            auto [row_group, c] = group_and_chunk<Split>(g, row_groups, chunks, row_group_major);
            Int i = (row_group * (kWorkgroup / Team) + local_id() / Team) * Rows;  // the first of this team's rows
            Int begin = c * chunk;
            Int end = min(Quads ? Expr<std::int32_t>(n / 4) : Expr<std::int32_t>(n), begin + chunk);  // columns, or quads of them
            std::array<Var<float>, Rows> s;  // zero
            If(i < m, [&] {
                if constexpr (Rows > 1) {
                    // Rows past the last are read as the last (in range) and not stored.
                    std::vector<Expr<std::int32_t>> row;
                    for (int r = 0; r < Rows; ++r) row.push_back(min(i + r, m - 1) * (lda / 4));
                    if constexpr (Steps == 1) {
                        For(begin + lane, end, Team, [&](Expr<std::int32_t> q) {
                            Expr<float4> xq = x.load_vector<4>(q);
                            for (int r = 0; r < Rows; ++r) s[r] = s[r] + dot(A.load_vector<4>(row[r] + q), xq);
                        });
                    } else {
                        // Steps of the team an iteration, every load of them read before
                        // any is added (past the end clamped in range and counted 0).
                        For(begin + lane, end, Steps * Team, [&](Expr<std::int32_t> q) {
                            std::vector<Var<float4>> xs, as;
                            for (int u = 0; u < Steps; ++u) {
                                Expr<std::int32_t> at = min(q + u * Team, end - 1);
                                xs.emplace_back(x.load_vector<4>(at));
                                for (int r = 0; r < Rows; ++r) as.emplace_back(A.load_vector<4>(row[r] + at));
                            }
                            for (int u = 0; u < Steps; ++u) {
                                Expr<float4> xq = select(q + u * Team < end, Expr<float4>(xs[u]), Expr<float4>(0.0f));
                                for (int r = 0; r < Rows; ++r) s[r] = s[r] + dot(Expr<float4>(as[u * Rows + r]), xq);
                            }
                        });
                    }
                } else if constexpr (Quads) {
                    Int row = i * (lda / 4);
                    s[0] = strided_sum<float>(begin + lane, end, Team, [&](Expr<std::int32_t> q) {
                        return dot(A.load_vector<4>(row + q), x.load_vector<4>(q));
                    });
                } else {
                    s[0] = strided_sum<float>(begin + lane, end, Team,
                                              [&](Expr<std::int32_t> j) { return A.load(i * lda + j * cs) * x.load(j * incx); });
                }
            });
            team_sums(s, lane, Team, 1);
            for (int r = 0; r < Rows; ++r)
                If(lane == 0 && i + r < m, [&] {
                    if constexpr (Split) {
                        partial.store(c * pitch(m) + i + r, s[r]);
                        memory_fence();  // before the count that hands it on
                    } else {
                        store_result(y, (i + r) * incy, s[r], alpha, beta);
                    }
                });
            if constexpr (Split) finish_split<outputs, false>(partial, y, finished, row_group, row_group * outputs, m, chunks, incy, alpha, beta);
        });
}

/// op(A) = A^T with Columns columns (quads of columns with Quads) per
/// workgroup and kWorkgroup / Columns lanes each. Workgroup g takes columns
/// (g % column_groups) * Columns + ... and the rows of chunk g / column_groups;
/// Split (more than one chunk), the column group's last workgroup adds up the
/// chunks' partial sums; unsplit and split kernels are traced apart, as
/// rows_kernel's.
template <int Columns, bool Quads, bool Split>
SumKernel columns_kernel() {
    using V = std::conditional_t<Quads, float4, float>;
    return group_kernel<kWorkgroup>(
        kernel_name(std::string("blas_gemv_t") + std::to_string(Columns) + (Quads ? "q" : ""), Split) +
            "(A, x, y, partial, finished, m, n, lda, cs, incx, incy, chunk, chunks, alpha, beta)",
        // Without rill's bounds checks: every index is in range by
        // construction (a sum's rows clamped into its chunk, its columns
        // below n, partial sums and counters only where there are chunks,
        // strides never negative). Through OpenGL the checks had made A^T x
        // 1.6-2.9x slower (16384^2: 1.36 -> 0.49 ms), through Vulkan 1.00-1.05x
        // (H100, 2026-12-06, docs/PERFORMANCE.md#blas).
        // RILL_BLAS_GEMV_CHECKED=1 keeps them (an A/B knob, docs/TUNING.md).
        GroupOptions{.unchecked_arrays = !env_flag("RILL_BLAS_GEMV_CHECKED")},
        [](Array<float> A, Array<float> x, Array<float> y, Array<float> partial, Array<std::uint32_t> finished, Int m, Int n, Int lda,
           Int cs, Int incx, Int incy, Int chunk, Int chunks, Float alpha, Float beta) {
            Int lane = local_id() / Columns;
            // Neighbouring workgroups take neighbouring columns of the same
            // rows, so that the workgroups running at once read few rows
            // (and memory pages) of A, not a chunk of rows each.
            Int g = group_id();
            Expr<std::int32_t> column_groups = (n + Columns * (Quads ? 4 : 1) - 1) / (Columns * (Quads ? 4 : 1));  // split kernels
            auto [column_group, c] = group_and_chunk<Split>(g, column_groups, chunks, false);
            Int jq = column_group * Columns + local_id() % Columns;  // a column, or a quad of them
            Int begin = c * chunk;
            Int end = min(m, begin + chunk);
            Var<V> s;
            If(jq * (Quads ? 4 : 1) < n, [&] {
                // Quads: 8 loads in flight (H100 through Vulkan, 8192^2 0.86 -> 0.92 of
                // cuBLAS, 16384^2 0.89 -> 0.96, 2^20 x 512 0.85 -> 0.91; same run). 16
                // were slower on every shape, 32 x 2^22 by 1.7x (H100, 2026-12-07).
                auto term = [&](Expr<std::int32_t> i) {
                    if constexpr (Quads) return A.load_vector<4>(i * (lda / 4) + jq) * x.load(i * incx);
                    else return A.load(i * lda + jq * cs) * x.load(i * incx);
                };
                // Into 8 sums: 1, 2 or 4 (fewer registers) were slower on most shapes
                // (H100, 2026-12-07: 2^20 x 512 1.02-1.04x, 16384^2 up to 1.03x).
                s = strided_sum<V, Quads ? 8 : 4>(begin + lane, end, kWorkgroup / Columns, term);
            });
            team_sum(s, lane, kWorkgroup / Columns, Columns);
            If(lane == 0 && jq * (Quads ? 4 : 1) < n, [&] {
                for (int w = 0; w < (Quads ? 4 : 1); ++w) {
                    Int j = jq * (Quads ? 4 : 1) + w;
                    Expr<float> sum = [&] {
                        if constexpr (Quads) return component(s, w);
                        else return Expr<float>(s);
                    }();
                    if constexpr (Split) partial.store(c * pitch(n) + j, sum);
                    else store_result(y, j * incy, sum, alpha, beta);
                }
                if constexpr (Split) memory_fence();  // the partial sums before the count that hands them on
            });
            constexpr int outputs = Columns * (Quads ? 4 : 1);
            if constexpr (Split) finish_split<outputs, Quads>(partial, y, finished, column_group, column_group * outputs, n, chunks, incy, alpha, beta);
        });
}

/// y = beta y, not reading y where beta is 0 (gemv with alpha = 0).
void scale_y(const blas::detail::Vector& y, float beta) {
    static const auto kernel = group_kernel<kWorkgroup>("blas_gemv_scale_y(y, outputs, incy, beta)",
                                                        [](Array<float> y, Int outputs, Int incy, Float beta) {
        If(global_id() < outputs, [&] { store_result(y, global_id() * incy, 0.0f, 0.0f, beta); });
    });
    kernel(Groups{(y.n + kWorkgroup - 1) / kWorkgroup}, y.extent, y.n, y.inc, beta);
}

/// The kernel for a shape: teams of `lanes` invocations each computing one
/// output (`width` outputs for op(A) = A^T on quads).
struct Scheme {
    int kernel;  // sum_kernel's which
    int lanes, outputs_per_group;
};

template <bool Split>
SumKernel make_kernel(int v) {
    switch (v) {
        case 0: return rows_kernel<4, false, 1, 1, Split>();
        case 1: return rows_kernel<32, false, 1, 1, Split>();
        case 2: return rows_kernel<256, false, 1, 1, Split>();
        case 3: return rows_kernel<4, true, 1, 1, Split>();
        case 4: return rows_kernel<32, true, 1, 1, Split>();
        case 5: return rows_kernel<256, true, kLongRows, 1, Split>();
        case 6: return columns_kernel<4, false, Split>();
        case 7: return columns_kernel<32, false, Split>();
        case 8: return columns_kernel<256, false, Split>();
        case 9: return columns_kernel<1, true, Split>();
        case 10: return columns_kernel<8, true, Split>();
        case 11: return columns_kernel<64, true, Split>();
        case 12: return rows_kernel<32, true, kLongRows, 1, Split>();
        default: return rows_kernel<256, true, kLongRows, kLongSteps, Split>();
    }
}

/// The kernel of scheme `which`, split or not; traced once each, on first
/// use: 6 shapes x 2 ways of loading, 32-lane teams of 4 rows, and 256-lane
/// teams of 4 rows in 4 steps.
const SumKernel& sum_kernel(int which, bool split) {
    constexpr int kSplitKeys = 16;  // past the schemes' numbers
    static const auto make = [](int v) { return v >= kSplitKeys ? make_kernel<true>(v - kSplitKeys) : make_kernel<false>(v); };
    return rill::detail::traced_once<SumKernel, int>(which + (split ? kSplitKeys : 0), +make);
}

/// Which kernel (sum_kernel) takes op(A) of rows x cols, with how many lanes a
/// team and outputs a workgroup.
Scheme scheme(bool transposed, bool quads, std::int32_t rows, std::int32_t cols) {
    if (!transposed) {
        // Lanes per row by the row's length (in quads where loads take four).
        const std::int32_t length = quads ? cols / 4 : cols;
        const int which = length >= 2048 ? 2 : length >= 128 ? 1 : 0;
        const int lanes = which == 2 ? 256 : which == 1 ? 32 : 4;
        // Teams of 32 take 4 rows where that still leaves enough workgroups
        // (their rows are too short to split): 2^20 x 512 0.80 -> 0.95 of
        // cuBLAS, but 1024^2 2.10 -> 1.23 with 32 workgroups.
        if (quads && which == 1 && rows >= kTargetGroups * (kWorkgroup / 32) * kLongRows)
            return {12, lanes, kWorkgroup / lanes * kLongRows};
        if (quads && which == 2 && length >= kStepsFrom) return {13, lanes, kWorkgroup / lanes * kLongRows};
        return {which + (quads ? 3 : 0), lanes, kWorkgroup / lanes * (which == 2 && quads ? kLongRows : 1)};
    }
    // Columns (or quads of them) per workgroup by the width of op(A): a
    // narrow A whole, a wide one in bands of 256 columns; quads from 64 on
    // in bands of 64 quads, so that a workgroup reads 1 KiB of each row
    // (2^20 x 512 A^T x read 128 bytes of each 2 KiB row with bands of 8).
    const std::int32_t width = quads ? rows / 4 : rows;
    const int which = width >= (quads ? 64 : 256) ? 2 : width > (quads ? 1 : 4) ? 1 : 0;
    const int columns = quads ? (which == 2 ? 64 : which == 1 ? 8 : 1) : (which == 2 ? 256 : which == 1 ? 32 : 4);
    return {6 + which + (quads ? 3 : 0), kWorkgroup / columns, columns};
}

struct Split {
    std::int64_t chunks = 1, chunk = 0;
};

/// Chunks of a sum of `length` terms for `groups` workgroups whose teams have
/// `lanes` lanes: enough to fill the GPU, each lane keeping kMinPerInvocation terms.
Split split(std::int64_t groups, std::int64_t length, int lanes) {
    Split s;
    const std::int64_t most = std::max<std::int64_t>(1, length / (lanes * kMinPerInvocation));
    s.chunks = std::clamp<std::int64_t>((kTargetGroups + groups - 1) / groups, 1, most);
    s.chunk = (length + s.chunks - 1) / s.chunks;
    s.chunk = (s.chunk + lanes - 1) / lanes * lanes;  // whole strides of the team
    s.chunks = (length + s.chunk - 1) / s.chunk;
    return s;
}

/// Row tiles (detail/rows.h), for A with consecutive columns. op(A) = A:
/// invocation l sums row i of A times x (consecutive: gemv copies a strided
/// x first) into 16 sums, 16 consecutive terms per step; op(A) = A^T: it
/// sums a block of 64 or 128 columns down every row of A (the last block's
/// columns one at a time). Either way the sums go to this invocation's part
/// of shared memory in one straight run of consecutive stores, from which
/// the compiled C++ vectorizes the loop (its sums become vector registers).
constexpr int kRowSums = 16;
/// op(A) = A's rows per invocation where rows are long (at least kLongRow
/// elements): 64 x 2^18 read x (1 MiB) from beyond the L2 cache once per row
/// with one. Not for shorter rows: 2^18 x 64 took 2.4x as long with 4 (not
/// understood; GCC vectorizes both, a 16-wide FMA per row and step).
constexpr int kRowsAtOnce = 4;
constexpr std::int32_t kLongRow = 1 << 16;
/// op(A) = A^T's columns per invocation: 128 (8 vector sums) walk A's rows
/// in fewer passes (4096^2: 0.84 of OpenBLAS against 0.59 with 64), 256 for
/// rows of 2^16 and more (64 x 2^18: 1.09-1.20 against 0.81-0.88), but
/// narrower matrices would leave most columns to the last block's slow loop.
int column_block(std::int32_t cols) { return cols >= kLongRow ? 256 : cols >= 1024 ? 128 : 64; }
using RowGemvKernel = Kernel<Array<float>, Array<float>, Array<float>, Int, Int, Int, Int, Int, Float, Float>;

template <int kColumnBlock, int R = 1>
RowGemvKernel row_kernel(bool transposed) {
    constexpr int wg = blas::detail::kRowGroup;
    if (!transposed)
        // R rows an invocation, which loads each element of x once for them all.
        return group_kernel<wg>("blas_gemv_rows_n" + std::to_string(R) + "(A, x, y, rows, cols, lda, incy, unused, alpha, beta)",
                                GroupOptions{.unchecked_arrays = true},
                                [](Array<float> A, Array<float> x, Array<float> y, Int rows, Int cols, Int lda, Int incy, Int,
                                   Float alpha, Float beta) {
            Shared<float> spill(wg * R * kRowSums, dsl::Unchecked{});
            Int first = global_id() * R;
            If(first < rows, [&] {
                std::array<std::array<Var<float>, kRowSums>, R> acc;  // zero
                // Rows past the last are read as the last (in range) and not stored.
                std::vector<Expr<std::int32_t>> row;
                for (int r = 0; r < R; ++r) row.push_back(min(first + r, rows - 1) * lda);
                Int whole = cols - cols % kRowSums;
                For(0, whole / kRowSums, [&](Expr<std::int32_t> q) {
                    Int x0 = q * kRowSums;
                    std::vector<Expr<float>> xs;
                    for (int c = 0; c < kRowSums; ++c) xs.push_back(x.load(x0 + c));
                    // A row's 16 terms in one straight run: what GCC vectorizes.
                    for (int r = 0; r < R; ++r) {
                        Int a0 = row[r] + x0;
                        for (int c = 0; c < kRowSums; ++c) acc[r][c] = fma(A.load(a0 + c), xs[c], acc[r][c]);
                    }
                });
                Int mine = local_id() * (R * kRowSums);
                for (int r = 0; r < R; ++r)
                    for (int c = 0; c < kRowSums; ++c) spill.store(mine + r * kRowSums + c, acc[r][c]);
                for (int r = 0; r < R; ++r)
                    If(first + r < rows, [&] {
                        Var<float> tail = 0.0f;
                        For(whole, cols, [&](Expr<std::int32_t> j) { tail = fma(A.load(row[r] + j), x.load(j), tail); });
                        store_result(y, (first + r) * incy, tail + blas::detail::pairwise_sum(spill, mine + r * kRowSums, kRowSums),
                                     alpha, beta);
                    });
            });
        });
    return group_kernel<wg>("blas_gemv_rows_t" + std::to_string(kColumnBlock) + "(A, x, y, rows, cols, lda, incy, incx, alpha, beta)",
                            GroupOptions{.unchecked_arrays = true},
                            [](Array<float> A, Array<float> x, Array<float> y, Int rows, Int cols, Int lda, Int incy, Int incx,
                               Float alpha, Float beta) {
        // rows, cols: those of A; y has cols elements.
        Shared<float> spill(wg * kColumnBlock, dsl::Unchecked{});
        Int j0 = global_id() * kColumnBlock;
        Int mine = local_id() * kColumnBlock;
        If(j0 + kColumnBlock <= cols, [&] {
            std::array<Var<float>, kColumnBlock> acc;  // zero
            For(0, rows, [&](Expr<std::int32_t> i) {
                Var<float> xi = x.load(i * incx);
                Int a0 = i * lda + j0;
                for (int c = 0; c < kColumnBlock; ++c) acc[c] = fma(A.load(a0 + c), xi, acc[c]);
            });
            for (int c = 0; c < kColumnBlock; ++c) spill.store(mine + c, acc[c]);
            For(0, kColumnBlock, [&](Expr<std::int32_t> c) { store_result(y, (j0 + c) * incy, spill.load(mine + c), alpha, beta); });
        }).Elif(j0 < cols, [&] {
            For(j0, cols, [&](Expr<std::int32_t> j) {
                Var<float> s = 0.0f;
                For(0, rows, [&](Expr<std::int32_t> i) { s = fma(A.load(i * lda + j), x.load(i * incx), s); });
                store_result(y, j * incy, s, alpha, beta);
            });
        });
    });
}

const RowGemvKernel& row_kernels(bool transposed, int column_block, int rows_at_once) {
    static const auto make = [](int key) {
        return key == 0   ? row_kernel<64>(false)
               : key == 1 ? row_kernel<64, kRowsAtOnce>(false)
               : key == 64 ? row_kernel<64>(true)
               : key == 128 ? row_kernel<128>(true)
                            : row_kernel<256>(true);
    };
    return rill::detail::traced_once<RowGemvKernel, int>(transposed ? column_block : rows_at_once == 1 ? 0 : 1, +make);
}

/// x as a stream of consecutive elements (a copy where its increment is not 1).
Stream<float> consecutive(const blas::detail::Vector& x) {
    static const auto kernel = rill::kernel("blas_gemv_copy_x(x, out)", [](In<float> x, Out<float> out) { out = x; });
    if (x.inc == 1) return x.extent;
    // The extent's elements i * inc, as a strided view of it.
    Stream<float> out = Runtime::of(x.extent).scratch<float>(Shape{x.n});
    kernel(x.extent.stride({x.inc}), out);
    return out;
}

}  // namespace

void gemv(Op trans, float alpha, const Stream<float>& A, const Stream<float>& x, float beta, const Stream<float>& y) {
    const char* who = "rill::blas::gemv";
    const auto a = blas::detail::matrix_operand(who, "A", A);
    const auto vx = blas::detail::vector_operand(who, "x", x);
    const auto vy = blas::detail::vector_operand(who, "y", y, true);
    const bool t = trans == Op::T;
    const std::int32_t rows = t ? a.cols : a.rows, cols = t ? a.rows : a.cols;  // op(A) is rows x cols
    if (vx.n != cols)
        blas::detail::wrong_shape(who, "x", x.shape(), std::to_string(cols),
                                  std::string("op(A) has ") + std::to_string(cols) + " columns (A has shape " + A.shape().str() +
                                      (t ? ", transposed" : "") + ")");
    if (vy.n != rows)
        blas::detail::wrong_shape(who, "y", y.shape(), std::to_string(rows),
                                  std::string("op(A) has ") + std::to_string(rows) + " rows (A has shape " + A.shape().str() +
                                      (t ? ", transposed" : "") + ")");
    if (rows == 0 || cols == 0 || (alpha == 0.0f && beta == 1.0f)) return;
    if (alpha == 0.0f) {
        scale_y(vy, beta);  // without reading A or x
        return;
    }
    // RILL_BLAS_GEMV_TEAMS=1 takes the GPU kernels on every backend (a test
    // knob, docs/TUNING.md: ctest's cpu_blas_gpu_kernels checks there, with
    // RILL_CPU_VERIFY_UNCHECKED, that every access of their unchecked arrays
    // stays inside the operands).
    static const bool teams_everywhere = env_flag("RILL_BLAS_GEMV_TEAMS");
    if (!teams_everywhere && rill::detail::rows_pay(Runtime::of(A).info()) && a.col_stride == 1) {
        const int block = column_block(a.cols);
        const int rows_at_once = a.cols >= kLongRow ? kRowsAtOnce : 1;
        const std::int64_t outputs = t ? (std::int64_t{a.cols} + block - 1) / block : (std::int64_t{a.rows} + rows_at_once - 1) / rows_at_once;
        const std::int64_t groups = (outputs + blas::detail::kRowGroup - 1) / blas::detail::kRowGroup;
        row_kernels(t, block, rows_at_once)(Groups{groups}, a.extent, t ? vx.extent : consecutive(vx), vy.extent, a.rows, a.cols, a.row_stride,
                              vy.inc, vx.inc, alpha, beta);
        return;
    }
    // Quads: A's rows of whole quads starting at quads (and x likewise for op(A) = A).
    const bool quads = blas::detail::rows_of_quads(a) && (t || (vx.inc == 1 && blas::detail::starts_at_quad(vx.extent)));
    const Scheme s = scheme(t, quads, rows, cols);
    const std::int64_t groups = (rows + std::int64_t{s.outputs_per_group} * (t && quads ? 4 : 1) - 1) /
                                (std::int64_t{s.outputs_per_group} * (t && quads ? 4 : 1));
    const Split parts = split(groups, !t && quads ? cols / 4 : cols, s.lanes);
    const auto chunks = static_cast<std::int32_t>(parts.chunks), chunk = static_cast<std::int32_t>(parts.chunk);
    Runtime rt = Runtime::of(A);
    // Unsplit calls store no partial sums, but get a stream of their own all
    // the same: y bound twice would lose restrict. (When a buffer bound twice
    // still made every buffer coherent, A and x were read past the L1 cache:
    // 2^22 x 32 A x took 0.86 against 0.24 ms.)
    const bool chunked = parts.chunks > 1;
    auto partial = rt.scratch<float>(Shape{chunked ? parts.chunks * ((rows + 3) / 4 * 4) : 1});
    sum_kernel(s.kernel, chunked)(Groups{groups * parts.chunks}, a.extent, vx.extent, vy.extent, partial, rt.zeroed_words(chunked ? groups : 1), a.rows,
                a.cols, a.row_stride, a.col_stride, vx.inc, vy.inc, chunk, chunks, alpha, beta);
}

}  // namespace rill::blas
