// FFT plans: the schedule of passes for each transformed axis, their twiddle
// tables (computed in double on the host), scratch, and the calls.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <complex>
#include <map>
#include <mutex>
#include <numbers>
#include <string>

#include <rill/algorithms/detail/rows.h>
#include <rill/algorithms/fft.h>

#include "kernels.h"
#include "schedule.h"

namespace rill::fft {

namespace d = detail;

namespace {

using Words = d::Words;

/// The host side of a plan while it is built: twiddles and schedule words
/// shared by all its axes, uploaded once.
struct Tables {
    std::vector<float2> twiddles;
    std::vector<std::int32_t> schedule;
    std::map<std::int64_t, std::int32_t> line_tables, fine_tables, coarse_tables, split_tables, split3_tables;

    /// exp(-2 pi i q / M) for q = first, first + step, ... (count of them).
    std::int32_t append_roots(std::int64_t M, std::int64_t count, std::int64_t step) {
        const auto at = static_cast<std::int32_t>(twiddles.size());
        for (std::int64_t i = 0; i < count; ++i) twiddles.push_back(d::root_of_unity(M, i * step));
        return at;
    }
    /// Appends `table`; returns where it starts.
    std::int32_t append(const std::vector<float2>& table) {
        const auto at = static_cast<std::int32_t>(twiddles.size());
        twiddles.insert(twiddles.end(), table.begin(), table.end());
        return at;
    }
    /// The offset of `tables`' entry for `key`, appended by append() (which
    /// returns it) the first time.
    template <class Append>
    std::int32_t once(std::map<std::int64_t, std::int32_t>& tables, std::int64_t key, const Append& append) {
        auto [it, fresh] = tables.try_emplace(key, 0);
        if (fresh) it->second = append();
        return it->second;
    }
    std::int32_t line_table(std::int64_t R) {
        return once(line_tables, R, [&] { return append_roots(R, R, 1); });
    }
    std::int32_t fine_table(std::int64_t M) {
        return once(fine_tables, M, [&] { return append_roots(M, std::min<std::int64_t>(M, d::kFine), 1); });
    }
    std::int32_t coarse_table(std::int64_t M) {
        return once(coarse_tables, M, [&] { return append_roots(M, (M + d::kFine - 1) / d::kFine, d::kFine); });
    }
    /// The split and three-step split kernels' tables of lines of R (kernels.h).
    std::int32_t split_table(std::int64_t R) {
        return once(split_tables, R, [&] { return append(d::split_twiddles(static_cast<int>(R))); });
    }
    std::int32_t split3_table(std::int64_t R) {
        return once(split3_tables, R, [&] { return append(d::split3_twiddles(static_cast<int>(R))); });
    }
};

std::int32_t i32(std::int64_t v) { return static_cast<std::int32_t>(v); }

/// Workgroups for the element-wise kernels (an invocation per element).
Groups groups_for(std::int64_t elements) { return Groups{(elements + d::kWorkgroup - 1) / d::kWorkgroup}; }

/// Passes over memory of one axis.
struct Passes {
    std::vector<std::int32_t> at;      // offsets of the schedule words of each pass
    std::vector<std::int64_t> groups;  // workgroups of each pass for the generic kernel
    std::vector<int> capacities;       // and the line kernel it runs with
    std::vector<Words> words;          // each pass's schedule, for its specialized kernel
    std::size_t size() const { return at.size(); }
};

/// The transform of one axis of a dense stream seen as (outer, length,
/// inner): lines of `length` elements spaced `inner` apart.
struct Axis {
    std::int64_t outer = 1, length = 1, inner = 1;
    bool inverse = false;
    float scale = 1.0f;

    /// The passes over memory: `passes` for the line kernels (lines of up
    /// to kLineElements), and where rows pay, `lockstep` for the lockstep
    /// kernels (lines of up to kLockstepLine elements: fewer passes).
    Passes passes, lockstep;
    /// Where lines of up to kSplit3Longest (the three-step split kernels')
    /// take fewer passes over memory than `passes` (lines of up to
    /// kLineElements): the passes of the specialized kernels (wide_pays).
    Passes wide;
    /// Lines a workgroup of wide's strided passes of more than kLineElements
    /// (split3_strided_lines when the plan was made).
    int strided3_lines = 0;
    /// What a call runs once Plan::Impl::specialize ran (else empty).
    struct Run {
        const d::LineKernel* kernel;
        std::int64_t groups;
        std::int32_t at;
    };
    mutable std::vector<Run> specialized;

    // Bluestein: the chirp w_t = exp(-i pi t^2 / length) and the filter's
    // transform (offsets in the twiddles), and transforms of length m over
    // the lines; or, specialized where m fits a workgroup (`in_one`), all of
    // it in one kernel.
    std::int64_t m = 0;
    std::int32_t chirp = 0, filter = 0, m_twiddles = 0;
    bool in_one = false;
    mutable const d::BluesteinKernel* fused = nullptr;
    std::unique_ptr<Axis> forward_m, inverse_m;

    std::int64_t lines() const { return outer * inner; }
    std::int64_t elements() const { return outer * length * inner; }
    /// Complex elements of scratch this axis needs beside its input and output.
    std::int64_t scratch() const {
        return m ? forward_m->scratch() : std::max(passes.size(), lockstep.size()) > 1 ? elements() : 0;
    }
    int launches() const {
        if (m) return fused ? 1 : 3 + forward_m->launches() + inverse_m->launches();
        return static_cast<int>(specialized.empty() ? passes.size() : specialized.size());
    }
};

void plan_passes(Axis& a, Tables& t, std::int64_t longest, Passes& out) {
    const auto lengths = d::pass_lengths(a.length, longest);
    std::int64_t ns = 1;
    for (std::size_t p = 0; p < lengths.size(); ++p) {
        const std::int64_t R = lengths[p], L = a.length, W = a.inner;
        Words w{};
        const bool contiguous = (L / R) * W == 1 && ns * W == 1;  // InStride and OutStride below
        const int capacity = d::capacity_for(R, contiguous);
        std::int64_t G = 1;
        while (G * 2 <= d::kWorkgroup && G * 2 * R <= capacity) G *= 2;
        const std::int64_t lines = a.outer * (L / R) * W;
        w[d::desc::Length] = i32(R);
        w[d::desc::Lines] = i32(lines);
        w[d::desc::PerGroup] = i32(G);
        w[d::desc::Threads] = i32(d::kWorkgroup / G);
        w[d::desc::Count0] = i32(W);
        w[d::desc::Count1] = i32(ns);
        w[d::desc::Count2] = i32(L / (R * ns));
        const std::int64_t in_mul[4] = {1, W, ns * W, L * W}, out_mul[4] = {1, W, ns * R * W, L * W};
        for (int i = 0; i < 4; ++i) w[d::desc::InMul0 + i] = i32(in_mul[i]), w[d::desc::OutMul0 + i] = i32(out_mul[i]);
        w[d::desc::InStride] = i32((L / R) * W);
        w[d::desc::OutStride] = i32(ns * W);
        w[d::desc::InRows] = w[d::desc::InStride] == 1;
        w[d::desc::OutRows] = w[d::desc::OutStride] == 1;
        w[d::desc::ConjIn] = a.inverse && p == 0;
        w[d::desc::ConjOut] = a.inverse && p + 1 == lengths.size();
        w[d::desc::LineTwiddles] = t.line_table(R);
        if (d::split(w)) w[d::desc::RegisterTwiddles] = t.split_table(R);
        else if (d::split3_length(R) && (contiguous || R > d::kLineElements)) w[d::desc::RegisterTwiddles] = t.split3_table(R);  // split3, split3_strided
        if (ns > 1) {
            w[d::desc::PreTwiddle] = 1;
            w[d::desc::PreFine] = t.fine_table(ns * R);
            w[d::desc::PreCoarse] = t.coarse_table(ns * R);
        }
        const auto r = d::radices(R);
        w[d::desc::RadixCount] = static_cast<std::int32_t>(r.size());
        std::copy(r.begin(), r.end(), w.begin() + d::desc::Radices);
        out.at.push_back(static_cast<std::int32_t>(t.schedule.size()));
        out.groups.push_back((lines + G - 1) / G);
        out.capacities.push_back(capacity);
        out.words.push_back(w);
        t.schedule.insert(t.schedule.end(), w.begin(), w.end());
        ns *= R;
    }
}

/// The forward DFT of x, whose length is a power of two, in place in double:
/// iterative radix 2 (Bluestein's filter, transformed once per plan).
void host_fft(std::vector<std::complex<double>>& x) {
    const std::size_t n = x.size();
    for (std::size_t i = 1, j = 0; i < n; ++i) {
        std::size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) std::swap(x[i], x[j]);
    }
    for (std::size_t len = 2; len <= n; len <<= 1) {
        for (std::size_t i = 0; i < n; i += len)
            for (std::size_t k = 0; k < len / 2; ++k) {
                const std::complex<double> w = std::polar(1.0, -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(len));
                const std::complex<double> u = x[i + k], v = x[i + k + len / 2] * w;
                x[i + k] = u + v;
                x[i + k + len / 2] = u - v;
            }
    }
}

/// What a plan's axes take from its device.
struct Device {
    bool lockstep = false;  // invocations run one after another (rows pay): the lockstep kernels' passes too
    std::uint32_t max_invocations = 0;  // a workgroup's
    std::uint64_t shared_bytes = 0;
};

/// Whether an axis takes fewer passes over memory in lines of up to
/// kSplit3Longest than in lines of up to kLineElements, each longer line in
/// a three-step kernel: contiguous (split3) or, on a device with room for
/// its workgroups, strided (split3_strided).
bool wide_pays(const Axis& a, const Device& dev) {
    if (a.length <= d::kLineElements) return false;
    const auto lengths = d::pass_lengths(a.length, d::kSplit3Longest);
    if (lengths.size() >= d::pass_lengths(a.length, d::kLineElements).size()) return false;
    std::int64_t ns = 1;
    for (const std::int64_t R : lengths) {
        const bool contiguous = (a.length / R) * a.inner == 1 && ns * a.inner == 1;  // as plan_passes
        if (R > d::kLineElements &&
            !(contiguous ? d::split3_length(R) : d::split3_strided_length(R, a.strided3_lines, dev.max_invocations, dev.shared_bytes)))
            return false;
        ns *= R;
    }
    return true;
}

std::unique_ptr<Axis> make_axis(std::int64_t outer, std::int64_t length, std::int64_t inner, bool inverse, float scale,
                                Tables& t, const Device& dev) {
    auto a = std::make_unique<Axis>();
    a->outer = outer, a->length = length, a->inner = inner, a->inverse = inverse, a->scale = scale;
    if (d::smooth(length)) {
        plan_passes(*a, t, d::kLineElements, a->passes);
        a->strided3_lines = d::split3_strided_lines();
        if (dev.lockstep) plan_passes(*a, t, d::kLockstepLine, a->lockstep);
        // Lines of 2049 to 4096 in one pass of a three-step kernel where the
        // line kernels take two: 4096 (contiguous or strided) in one, 2^24 in
        // two of 4096 instead of three of 256.
        else if (wide_pays(*a, dev))
            plan_passes(*a, t, d::kSplit3Longest, a->wide);
        return a;
    }
    a->m = d::bluestein_length(length);
    a->forward_m = make_axis(a->lines(), a->m, 1, false, 1.0f, t, dev);
    a->inverse_m = make_axis(a->lines(), a->m, 1, true, 1.0f, t, dev);
    // The chirp w_t, t^2 mod 2 length exact in 64 bits for lengths up to
    // 2^24, and the filter b_t = conj(w_t) for |t| < length, wrapped to m,
    // whose transform is taken in double on the host.
    a->chirp = static_cast<std::int32_t>(t.twiddles.size());
    std::vector<std::complex<double>> b(static_cast<std::size_t>(a->m));
    for (std::int64_t i = 0; i < length; ++i) {
        const std::int64_t q = (i * i) % (2 * length);
        const std::complex<double> w = std::polar(1.0, -std::numbers::pi * static_cast<double>(q) / static_cast<double>(length));
        t.twiddles.push_back(float2{static_cast<float>(w.real()), static_cast<float>(w.imag())});
        b[static_cast<std::size_t>(i)] = std::conj(w);
        if (i > 0) b[static_cast<std::size_t>(a->m - i)] = std::conj(w);
    }
    host_fft(b);
    a->filter = static_cast<std::int32_t>(t.twiddles.size());
    for (const auto& v : b) t.twiddles.push_back(float2{static_cast<float>(v.real()), static_cast<float>(v.imag())});
    // In one kernel along contiguous lines; strided lines take the five
    // kernels, whose transforms of m run along Bluestein's contiguous lines.
    a->in_one = !dev.lockstep && inner == 1 && d::bluestein_in_one(a->m);
    if (a->in_one) a->m_twiddles = t.split3_table(a->m);
    return a;
}

}  // namespace

struct Plan::Impl {
    mutable Runtime rt;  // makes scratch in const calls
    Kind kind = Kind::C2C;
    Shape in_shape, out_shape;
    std::vector<std::unique_ptr<Axis>> axes;  // applied in order: the last dimension first
    Stream<float2> twiddles;                   // every table of every axis
    Stream<std::int32_t> schedule;
    std::array<Stream<float2>, 2> scratch;     // passes over memory ping-pong through these
    Stream<float2> bluestein;                  // the lines of Bluestein's transforms
    Stream<float2> full;                       // R2C / C2R: the complex rows of n (of n / 2 packed)
    /// R2C and C2R of an even n: rows transformed as n / 2 packed pairs,
    /// packed and unpacked with the roots w_n^k, k <= n / 2, at `roots` in
    /// the twiddles.
    bool packed = false;
    std::int32_t roots = 0;

    // A plan's first call runs the generic line kernel (no trace, no compile);
    // its second specializes (Plan::specialize).
    mutable std::mutex mutex;
    mutable int calls = 0;
    mutable bool specialized = false;

    explicit Impl(Runtime r) : rt(std::move(r)) {}

    void specialize() const {
        std::lock_guard lock(mutex);
        if (specialized) return;
        for (const auto& a : axes) specialize(*a);
        specialized = true;
    }
    static void specialize(const Axis& a) {
        if (a.m) {
            if (a.in_one) {
                a.fused = &d::bluestein_kernel(static_cast<int>(a.length), static_cast<int>(a.m), a.inverse);
                return;
            }
            specialize(*a.forward_m);
            specialize(*a.inverse_m);
            return;
        }
        a.specialized.clear();
        const bool lockstep = a.lockstep.size() > 0;  // planned where rows pay (make_axis)
        const Passes& passes = lockstep ? a.lockstep : a.wide.size() > 0 ? a.wide : a.passes;
        for (std::size_t p = 0; p < passes.size(); ++p) {
            const Words& w = passes.words[p];
            if (lockstep) {
                const std::int64_t per_group = std::int64_t{d::lockstep_lines(w)} * d::lockstep_sets(w);
                a.specialized.push_back({&d::lockstep_line_kernel(w), (w[d::desc::Lines] + per_group - 1) / per_group, passes.at[p]});
            } else if (d::staged(w)) {
                a.specialized.push_back({&d::staged_line_kernel(w), (w[d::desc::Lines] + d::kStagedLines - 1) / d::kStagedLines, passes.at[p]});
            } else if (d::split(w)) {
                const std::int64_t per_group = d::split_lines_per_group(w);
                a.specialized.push_back({&d::split_line_kernel(w), (w[d::desc::Lines] + per_group - 1) / per_group, passes.at[p]});
            } else if (d::split3(w)) {
                a.specialized.push_back({&d::split3_line_kernel(w), w[d::desc::Lines], passes.at[p]});
            } else if (d::split3_strided(w)) {
                const std::int64_t per_group = a.strided3_lines;
                a.specialized.push_back({&d::split3_strided_line_kernel(w, a.strided3_lines), (w[d::desc::Lines] + per_group - 1) / per_group, passes.at[p]});
            } else {
                a.specialized.push_back({&d::line_kernel(passes.capacities[p], w), passes.groups[p], passes.at[p]});
            }
        }
    }
    /// Counts a call; the second specializes the plan's kernels.
    void count_call() const {
        bool second = false;
        {
            std::lock_guard lock(mutex);
            second = !specialized && ++calls == 2;
        }
        if (second) specialize();
    }

    /// One axis from src into dst (which may be src).
    void run(const Axis& a, const Stream<float2>& src, const Stream<float2>& dst) const {
        if (a.m) return run_bluestein(a, src, dst);
        const bool generic = a.specialized.empty();
        const std::size_t n = generic ? a.passes.size() : a.specialized.size();
        for (std::size_t p = 0; p < n; ++p) {
            const Stream<float2>& from = p == 0 ? src : scratch[(p - 1) % 2];
            const Stream<float2>& to = p + 1 == n ? dst : scratch[p % 2];
            const float scale = p + 1 == n ? a.scale : 1.0f;
            if (generic)
                d::generic_line_kernel(a.passes.capacities[p], d::large_radices(a.passes.words[p]))(
                    Groups{a.passes.groups[p]}, from, to, twiddles, schedule, a.passes.at[p], scale);
            else
                (*a.specialized[p].kernel)(Groups{a.specialized[p].groups}, from, to, twiddles, schedule, a.specialized[p].at, scale);
        }
    }

    void run_bluestein(const Axis& a, const Stream<float2>& src, const Stream<float2>& dst) const {
        if (a.fused) {
            (*a.fused)(Groups{a.lines()}, src, dst, twiddles, a.chirp, a.filter, a.m_twiddles, i32(a.lines()),
                       a.scale / static_cast<float>(a.m));
            return;
        }
        const std::int64_t count = a.lines() * a.m;
        const auto L = i32(a.length), inner = i32(a.inner), lines = i32(a.lines());
        const auto shift = static_cast<std::int32_t>(std::countr_zero(static_cast<std::uint64_t>(a.m)));
        d::chirp_in()(groups_for(count), src, bluestein, twiddles, a.chirp, L, inner, shift, lines, a.inverse ? 1 : 0);
        run(*a.forward_m, bluestein, bluestein);
        d::chirp_filter()(groups_for(count), bluestein, twiddles, a.filter, shift, i32(count));
        run(*a.inverse_m, bluestein, bluestein);
        d::chirp_out()(groups_for(count), bluestein, dst, twiddles, a.chirp, L, inner, shift, lines, a.inverse ? 1 : 0,
                       a.scale / static_cast<float>(a.m));
    }

    void upload(const Tables& t, std::int64_t scratch_elements) {
        twiddles = rt.stream<float2>({std::max<std::int64_t>(1, static_cast<std::int64_t>(t.twiddles.size()))});
        if (!t.twiddles.empty()) twiddles.domain({0}, {static_cast<std::int64_t>(t.twiddles.size())}).upload(t.twiddles);
        schedule = rt.stream<std::int32_t>({std::max<std::int64_t>(1, static_cast<std::int64_t>(t.schedule.size()))});
        if (!t.schedule.empty()) schedule.domain({0}, {static_cast<std::int64_t>(t.schedule.size())}).upload(t.schedule);
        if (scratch_elements > 0) scratch = {rt.scratch<float2>({scratch_elements}), rt.scratch<float2>({scratch_elements})};
    }
};

namespace {

const char* kind_name(Kind k) { return k == Kind::C2C ? "c2c" : k == Kind::R2C ? "r2c" : "c2r"; }

/// Checks the shape and dims of a new plan, and that `elements_on_device`
/// complex elements fit in one stream.
void check_plan(const char* who, const Runtime& rt, const Shape& shape, int dims, std::int64_t elements_on_device) {
    if (shape.rank < 1) throw Error(std::string(who) + ": the shape is empty (rank 0); pass the shape of the streams, e.g. {1024}");
    if (dims < 1 || dims > 3 || dims > static_cast<int>(shape.rank))
        throw Error(std::string(who) + ": dims is " + std::to_string(dims) + " for shape " + shape.str() +
                    "; pass 1, 2 or 3, at most the shape's rank (" + std::to_string(shape.rank) + ")");
    for (int i = 0; i < dims; ++i) {
        const std::int64_t n = shape[shape.rank - 1 - i];
        if (n < 1)
            throw Error(std::string(who) + ": dimension " + std::to_string(shape.rank - 1 - i) + " of shape " +
                        shape.str() + " is 0, and a transform of length 0 is not defined; pass lengths of at least 1 " +
                        "(an empty batch, a 0 before the transformed dimensions, is fine)");
        if (n > d::kLongest)
            throw Error(std::string(who) + ": dimension " + std::to_string(shape.rank - 1 - i) + " of shape " +
                        shape.str() + " is " + std::to_string(n) + ", above the longest transform rill has, 2^24 = " +
                        std::to_string(d::kLongest) + "; split it (e.g. as a 2D transform with twiddles)");
    }
    const std::uint64_t bytes = static_cast<std::uint64_t>(elements_on_device) * sizeof(float2);
    const std::uint64_t most = rt.info().limits.max_buffer_bytes;
    if (elements_on_device >= (std::int64_t{1} << 31) || (most && bytes > most))
        throw Error(std::string(who) + ": shape " + shape.str() + " needs " + std::to_string(elements_on_device) +
                    " complex elements of scratch in one stream, more than " + rt.backend_name() +
                    " can address (" + std::to_string(most) + " bytes, and below 2^31 elements); transform fewer " +
                    "at a time (split the batch)");
}

std::shared_ptr<Plan::Impl> build(Runtime& rt, Kind kind, const Shape& real_or_complex, int dims, bool inverse,
                                  Scale scale) {
    const char* who = kind == Kind::C2C ? "rill::fft::Plan::c2c" : kind == Kind::R2C ? "rill::fft::Plan::r2c" : "rill::fft::Plan::c2r";
    const Shape& s = real_or_complex;
    const int rank = static_cast<int>(s.rank);
    check_plan(who, rt, s, dims, 1);
    auto impl = std::make_shared<Plan::Impl>(rt);
    impl->kind = kind;
    const std::int64_t n = s[rank - 1], h = kind == Kind::C2C ? n : n / 2 + 1;
    Shape half = s;
    half.dims[rank - 1] = h;
    impl->in_shape = kind == Kind::C2R ? half : s;
    impl->out_shape = kind == Kind::R2C ? half : s;

    Tables t;
    const Device device{rill::detail::rows_pay(rt.info()), rt.info().limits.max_workgroup_size, rt.info().limits.shared_memory_bytes};
    std::int64_t scratch = 0, bluestein = 0;
    for (int i = 0; i < dims; ++i) {
        const int dim = rank - 1 - i;
        std::int64_t outer = 1, inner = 1;
        for (int k = 0; k < dim; ++k) outer *= s[k];
        for (int k = dim + 1; k < rank; ++k) inner *= (k == rank - 1 && i > 0) ? h : s[k];
        // A real transform of an even length runs as a complex one of half the length.
        const bool packed = i == 0 && kind != Kind::C2C && n % 2 == 0;
        const std::int64_t L = packed ? n / 2 : s[dim];
        // ByLength divides by the dimension's length (n, also where a transform of n / 2 runs).
        const float sc = inverse && scale == Scale::ByLength ? 1.0f / static_cast<float>(s[dim]) : 1.0f;
        auto a = make_axis(outer, L, inner, inverse, sc, t, device);
        if (packed) {
            impl->packed = true;
            impl->roots = t.append_roots(n, n / 2 + 1, 1);
        }
        scratch = std::max(scratch, a->scratch());
        if (a->m) bluestein = std::max(bluestein, a->lines() * a->m);
        impl->axes.push_back(std::move(a));
    }
    if (s.size() == 0) return impl;  // an empty batch: nothing to do, nothing to allocate
    const std::int64_t full = kind == Kind::C2C ? 0 : impl->packed ? s.size() / 2 : s.size();
    check_plan(who, rt, s, dims, std::max({scratch, bluestein, full}));
    impl->upload(t, scratch);
    if (bluestein) impl->bluestein = rt.scratch<float2>({bluestein});
    if (full) impl->full = rt.scratch<float2>({full});
    return impl;
}

void check_call(const Plan::Impl& p, Kind kind, const StreamBase& in, const StreamBase& out) {
    const std::string who = std::string("rill::fft::Plan (") + kind_name(p.kind) + ")";
    if (kind != p.kind)
        throw Error(who + ": called with a " + (kind == Kind::R2C ? "real input" : kind == Kind::C2R ? "real output" : "complex input and output") +
                    ", but the plan was made for " +
                    (p.kind == Kind::C2C ? "Stream<float2> input and output (Plan::c2c)" : p.kind == Kind::R2C ? "a Stream<float> input and a Stream<float2> output (Plan::r2c)" : "a Stream<float2> input and a Stream<float> output (Plan::c2r)") +
                    "; pass those, or make a plan of the other kind");
    auto check = [&](const StreamBase& s, const char* name, const Shape& want) {
        if (s.shape() != want)
            throw Error(who + ": " + name + " has shape " + s.shape().str() + " but the plan transforms " + want.str() +
                        "; pass a stream of shape " + want.str() + " or make a plan for " + s.shape().str());
        if (s.runtime_state() != p.rt.state())
            throw Error(who + ": " + name + " belongs to another Runtime than the plan; make the plan with the stream's runtime");
        if (!s.contiguous() || s.is_iterator())
            throw Error(who + ": " + name + " is a view (domain, stride, repeat or iterator), and the FFT reads and " +
                        "writes dense streams; copy it into a new stream first");
    };
    check(in, "the input", p.in_shape);
    check(out, "the output", p.out_shape);
}

}  // namespace

Plan Plan::c2c(Runtime& rt, const Shape& shape, int dims, Direction direction, Scale scale) {
    return Plan(build(rt, Kind::C2C, shape, dims, direction == Direction::Inverse, scale));
}
Plan Plan::r2c(Runtime& rt, const Shape& real_shape, int dims) {
    return Plan(build(rt, Kind::R2C, real_shape, dims, false, Scale::None));
}
Plan Plan::c2r(Runtime& rt, const Shape& real_shape, int dims, Scale scale) {
    return Plan(build(rt, Kind::C2R, real_shape, dims, true, scale));
}

Kind Plan::kind() const { return impl_->kind; }
const Shape& Plan::input_shape() const { return impl_->in_shape; }
const Shape& Plan::output_shape() const { return impl_->out_shape; }
void Plan::specialize() const { impl_->specialize(); }
bool Plan::specialized() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->specialized;
}

int Plan::kernel_launches() const {
    int n = impl_->kind == Kind::C2C ? 0 : 2;
    for (const auto& a : impl_->axes) n += a->launches();
    return n;
}

void Plan::operator()(const Stream<float2>& in, const Stream<float2>& out) const {
    const Impl& p = *impl_;
    check_call(p, Kind::C2C, in, out);
    if (in.empty()) return;
    p.count_call();
    for (std::size_t i = 0; i < p.axes.size(); ++i) p.run(*p.axes[i], i == 0 ? in : out, out);
}

void Plan::operator()(const Stream<float>& in, const Stream<float2>& out) const {
    const Impl& p = *impl_;
    check_call(p, Kind::R2C, in, out);
    if (in.empty()) return;
    p.count_call();
    const std::int64_t n = p.in_shape[p.in_shape.rank - 1], h = n / 2 + 1, rows = in.size() / n;
    if (p.packed) {
        const std::int64_t m = n / 2, groups_per_row = (m + 1 + d::kWorkgroup - 1) / d::kWorkgroup;
        d::pack_pairs()(groups_for(rows * m), in, p.full, i32(rows * m));
        p.run(*p.axes[0], p.full, p.full);
        d::unpack_half()(Groups{rows * groups_per_row}, p.full, out, p.twiddles, p.roots, i32(m), i32(groups_per_row));
    } else {
        d::real_to_complex()(groups_for(in.size()), in, p.full, i32(in.size()));
        p.run(*p.axes[0], p.full, p.full);
        d::half_rows()(groups_for(rows * h), p.full, out, i32(rows), i32(n), i32(h));
    }
    for (std::size_t i = 1; i < p.axes.size(); ++i) p.run(*p.axes[i], out, out);
}

void Plan::operator()(const Stream<float2>& in, const Stream<float>& out) const {
    const Impl& p = *impl_;
    check_call(p, Kind::C2R, in, out);
    if (in.empty()) return;
    p.count_call();
    const std::int64_t n = p.out_shape[p.out_shape.rank - 1], h = n / 2 + 1, rows = out.size() / n;
    // The other dimensions first, into a copy (the input is left as it was).
    Stream<float2> half = in;
    if (p.axes.size() > 1) {
        half = p.rt.scratch<float2>(in.shape());
        for (std::size_t i = 1; i < p.axes.size(); ++i) p.run(*p.axes[i], i == 1 ? in : half, half);
    }
    if (p.packed) {
        const std::int64_t m = n / 2, groups_per_row = (m + d::kWorkgroup - 1) / d::kWorkgroup;
        d::pack_half()(Groups{rows * groups_per_row}, half, p.full, p.twiddles, p.roots, i32(m), i32(groups_per_row));
        p.run(*p.axes[0], p.full, p.full);
        d::unpack_pairs()(groups_for(rows * m), p.full, out, i32(rows * m));
        return;
    }
    d::hermitian_rows()(groups_for(rows * n), half, p.full, i32(rows), i32(n), i32(h));
    p.run(*p.axes[0], p.full, p.full);
    d::real_part()(groups_for(out.size()), p.full, out, i32(out.size()));
}

void forward(const Stream<float2>& in, const Stream<float2>& out, int dims) {
    Runtime rt = Runtime::of(in);
    Plan::c2c(rt, in.shape(), dims, Direction::Forward)(in, out);
}
void inverse(const Stream<float2>& in, const Stream<float2>& out, int dims, Scale scale) {
    Runtime rt = Runtime::of(in);
    Plan::c2c(rt, in.shape(), dims, Direction::Inverse, scale)(in, out);
}
void forward(const Stream<float>& in, const Stream<float2>& out, int dims) {
    Runtime rt = Runtime::of(in);
    Plan::r2c(rt, in.shape(), dims)(in, out);
}
void inverse(const Stream<float2>& in, const Stream<float>& out, int dims, Scale scale) {
    Runtime rt = Runtime::of(out);
    Plan::c2r(rt, out.shape(), dims, scale)(in, out);
}

}  // namespace rill::fft
