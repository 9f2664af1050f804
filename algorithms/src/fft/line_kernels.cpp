// The FFT's line kernels (kernels.h). The line kernel is a Stockham FFT in shared
// memory: each workgroup loads G lines of length R (applying the pass's
// pre-twiddles), runs one radix-r pass per factor of R between two shared
// buffers (no bit reversal: each pass writes its outputs in order), and
// stores the lines. A plan chains such passes through memory for lengths
// above kLineElements (the four-step / Stockham decomposition: pass p
// transforms lines of R_p elements spaced N / R_p apart, after twiddling by
// w_M^(k t), M = R_1 ... R_p). The lockstep kernel is the same passes for
// the CPU backend, four or eight lines side by side in float4s.
#include <deque>
#include <functional>
#include <optional>

#include "kernel_support.h"

namespace rill::fft::detail {

namespace {

/// The line kernel's shared memory. Specialized kernels swizzle it
/// (`swizzled`): element i lives at i with its bits 0-2 XORed with its bits
/// 4-6. A power-of-two radix pass writes its butterflies' outputs r elements
/// apart (a line's first pass: 8 float2), which put a half-warp's stores in
/// two banks; swizzled, 16 neighbouring butterflies store to 16 banks. Runs
/// of 16 aligned neighbouring elements (the loads, the passes' reads) stay
/// in 16 banks, and no element leaves its aligned run of 8, so any buffer of
/// a multiple of 8 elements maps onto itself (no memory more: lines of 2048
/// keep their 16 KiB, three workgroups to an NVIDIA SM through Vulkan).
struct LineBuffer {
    const Shared<float2>& mem;
    bool swizzled;
    Expr<std::int32_t> at(const Expr<std::int32_t>& i) const { return swizzled ? Expr<std::int32_t>(i ^ ((i >> 4) & 7)) : i; }
    Expr<float2> load(const Expr<std::int32_t>& i) const { return mem.load(at(i)); }
    void store(const Expr<std::int32_t>& i, const Expr<float2>& v) const { mem.store(at(i), v); }
};

/// Butterfly j of a radix-r pass (k = j mod ns): reads elements j + u count
/// of the line at `line` in buffer `cur`, twiddles element u by w^(k u step)
/// from the line's table (when `twiddled`: in a line's first radix pass, ns =
/// 1, every twiddle is 1), and writes their DFT to (j - k) r + k + u ns in `next`.
template <int r>
void butterfly(const LineBuffer& buf, const Array<float2>& tw, const Expr<std::int32_t>& cur,
               const Expr<std::int32_t>& next, const Expr<std::int32_t>& line, const Expr<std::int32_t>& j,
               const Expr<std::int32_t>& k, const Expr<std::int32_t>& count, const Expr<std::int32_t>& ns,
               const Expr<std::int32_t>& step, const Expr<std::int32_t>& line_twiddles, bool twiddled) {
    std::vector<C> v;
    for (int u = 0; u < r; ++u) {
        C x = buf.load(cur + line + j + u * count);
        v.push_back(u == 0 || !twiddled ? x : cmul(x, tw.load(line_twiddles + k * (u * step))));
    }
    const std::vector<C> y = dft(v);
    Int out = (j - k) * r + k;
    for (int u = 0; u < r; ++u) buf.store(next + line + out + u * ns, y[static_cast<std::size_t>(u)]);
}

/// One radix-r pass over a line of R elements at `line` in shared memory,
/// from buffer `cur` into `next`: butterfly j (of R / r) reads elements j +
/// u R / r, twiddles them by w_(Ns r)^(k u), k = j mod Ns, and writes its
/// outputs to (j - k) r + k + u Ns. Invocation t of the line's T does
/// butterflies t, t + T, ...
template <int r>
void radix_pass(const LineBuffer& buf, const Array<float2>& tw, const Expr<std::int32_t>& cur,
                const Expr<std::int32_t>& next, const Expr<std::int32_t>& line, const Expr<std::int32_t>& R,
                const Expr<std::int32_t>& ns, const Expr<std::int32_t>& t, const Expr<std::int32_t>& T,
                const Expr<std::int32_t>& line_twiddles) {
    Int count = R / r;
    Int twiddle_step = count / ns;  // w_(Ns r)^(k u) = w_R^(k u R / (Ns r))
    Int j = t;
    While([&] { return j < count; }, [&] {
        butterfly<r>(buf, tw, cur, next, line, j, j % ns, count, ns, twiddle_step, line_twiddles, true);
        j = j + T;
    });
}

template <int... Rs>
void any_radix_pass(std::integer_sequence<int, Rs...>, const Expr<std::int32_t>& radix, const LineBuffer& buf,
                    const Array<float2>& tw, const Expr<std::int32_t>& cur, const Expr<std::int32_t>& next,
                    const Expr<std::int32_t>& line, const Expr<std::int32_t>& R, const Expr<std::int32_t>& ns,
                    const Expr<std::int32_t>& t, const Expr<std::int32_t>& T, const Expr<std::int32_t>& line_twiddles) {
    // Uniform in the workgroup: every invocation takes the same branch.
    (If(radix == Rs, [&] { radix_pass<Rs>(buf, tw, cur, next, line, R, ns, t, T, line_twiddles); }), ...);
}

/// body(b, j, k) for butterfly j = t + b T (k = j mod ns) of invocation t's
/// butterflies among `count`, unrolled, the last only where it exists.
template <class Body>
void each_butterfly(int count, int ns, const Expr<std::int32_t>& t, int T, const Body& body) {
    each_item(count, t, T, [&](int b, const Expr<std::int32_t>& j) {
        body(b, j, ns == 1 ? Expr<std::int32_t>(0) : Expr<std::int32_t>(j % ns));
    });
}

/// radix_pass with every size known when the kernel is traced: the butterflies
/// of an invocation are unrolled, and the first pass of a line (ns = 1, every
/// twiddle 1) multiplies by none.
template <int r>
void radix_pass_known(const LineBuffer& buf, const Array<float2>& tw, int cur, int next, const Expr<std::int32_t>& line,
                      int R, int ns, const Expr<std::int32_t>& t, int T, const Expr<std::int32_t>& line_twiddles) {
    const int count = R / r, twiddle_step = count / ns;
    each_butterfly(count, ns, t, T, [&](int, const Expr<std::int32_t>& j, const Expr<std::int32_t>& k) {
        butterfly<r>(buf, tw, cur, next, line, j, k, count, ns, twiddle_step, line_twiddles, ns > 1);
    });
}

/// radix_pass_known in one buffer: every butterfly of the invocation reads its
/// inputs and computes its outputs into registers, then after a barrier writes
/// them where it read, so that the line needs half the shared memory of two
/// buffers (the caller's barrier follows, as after radix_pass_known).
template <int r>
void radix_pass_in_place(const LineBuffer& buf, const Array<float2>& tw, const Expr<std::int32_t>& line, int R, int ns,
                         const Expr<std::int32_t>& t, int T, const Expr<std::int32_t>& line_twiddles) {
    const int count = R / r, twiddle_step = count / ns;
    std::deque<Var<float2>> held;  // r outputs per butterfly of this invocation (a deque: Vars stay put)
    for (int first = 0; first < count; first += T)
        for (int u = 0; u < r; ++u) held.emplace_back();
    each_butterfly(count, ns, t, T, [&](int b, const Expr<std::int32_t>& j, const Expr<std::int32_t>& k) {
        std::vector<C> v;
        for (int u = 0; u < r; ++u) {
            C x = buf.load(line + j + u * count);
            v.push_back(u == 0 || ns == 1 ? x : cmul(x, tw.load(line_twiddles + k * (u * twiddle_step))));
        }
        const std::vector<C> y = dft(v);
        for (int u = 0; u < r; ++u) held[static_cast<std::size_t>(b * r + u)] = y[static_cast<std::size_t>(u)];
    });
    barrier();
    each_butterfly(count, ns, t, T, [&](int b, const Expr<std::int32_t>& j, const Expr<std::int32_t>& k) {
        Int out = (j - k) * r + k;
        for (int u = 0; u < r; ++u) buf.store(line + out + u * ns, held[static_cast<std::size_t>(b * r + u)]);
    });
}

/// pass.template operator()<r>() for the r of Rs (every radix of kRadices)
/// that equals `radix`, known when the kernel is traced.
template <int... Rs, class Pass>
void with_radix(std::integer_sequence<int, Rs...>, int radix, const Pass& pass) {
    const bool found = ((radix == Rs && (pass.template operator()<Rs>(), true)) || ...);
    if (!found) throw Error("rill::fft: internal error: no radix-" + std::to_string(radix) + " pass");
}

/// The line kernel; with `known`, specialized to that pass's schedule;
/// without, generic, with the butterflies of every radix (`large_radices`) or
/// of SmallRadices only. The generic kernel serves a plan's first call only,
/// so it is built for a short build rather than for speed: without spirv-opt,
/// which took 55-65% of its cold build through lavapipe (fft_lines_2048: 252
/// -> 120 ms with the glslang start; docs/PERFORMANCE.md#fft), and as a quick
/// build (GroupOptions::quick_build: the drivers' own optimizers off).
LineKernel make_line_kernel(int capacity, std::optional<Words> known, bool large_radices, const std::string& name) {
    const GroupOptions options = known ? GroupOptions{.spirv_opt = SpirvOpt::UnlessTheDriverOptimizes}
                                       : GroupOptions{.spirv_opt = SpirvOpt::Never, .quick_build = true};
    return group_kernel<kWorkgroup>(
        name + "(src, dst, twiddles, schedule, at, scale)", options,
        [capacity, known, large_radices](Array<float2> src, Array<float2> dst, Array<float2> tw, Array<std::int32_t> schedule, Int at,
                          Float scale) {
            auto word = [&](int w) -> Int {
                if (known && !run_time_word(w)) return Int((*known)[static_cast<std::size_t>(w)]);
                return schedule.load(at + w);
            };
            // body() where the pass's word w is not 0, decided at trace time when known.
            auto when = [&](int w, const std::function<void()>& body) {
                if (!known) If(word(w) != 0, body);
                else if ((*known)[static_cast<std::size_t>(w)] != 0) body();
            };
            // body(e) for e = local_id() + k * kWorkgroup below `elements`: a loop,
            // unrolled when the count is known.
            auto each_element = [&](const Int& elements, const std::function<void(const Int&)>& body) {
                if (known) {
                    const int count = (*known)[desc::PerGroup] * (*known)[desc::Length];
                    for (int first = 0; first < count; first += kWorkgroup) {
                        Int e = local_id() + first;
                        if (first + kWorkgroup <= count) body(e);
                        else If(e < count, [&] { body(e); });
                    }
                    return;
                }
                Int e = local_id();
                While([&] { return e < elements; }, [&] {
                    body(e);
                    e = e + kWorkgroup;
                });
            };
            Int R = word(desc::Length), lines = word(desc::Lines), G = word(desc::PerGroup), T = word(desc::Threads);
            Int c0 = word(desc::Count0), c1 = word(desc::Count1), c2 = word(desc::Count2);
            // Specialized passes of the full capacity run in one buffer (radix_pass_in_place):
            // 16 KiB, three workgroups to an SM through Vulkan on NVIDIA where two buffers fit one.
            const bool in_place = known && capacity == kLineElements;
            Shared<float2> mem(in_place ? capacity : 2 * capacity, dsl::Unchecked{});
            const LineBuffer buf{mem, known.has_value()};
            Int first_line = group_id() * G;
            Int elements = G * R;

            // The digits of line l and its first element's address for multipliers m0..m3.
            auto address = [&](const Expr<std::int32_t>& l, int mul0) {
                return line_address(l, c0, c1, c2, [&](int i) { return word(mul0 + i); });
            };
            // Element e of the workgroup's G R as (line in the group, element in the line).
            auto split = [&](const Expr<std::int32_t>& e, int rows_word, Int& g, Int& t) {
                if (known) {
                    const bool rows = (*known)[static_cast<std::size_t>(rows_word)] != 0;
                    g = rows ? e / R : e % G;
                    t = rows ? e % R : e / G;
                    return;
                }
                Int rows = word(rows_word);
                g = select(rows != 0, e / R, e % G);
                t = select(rows != 0, e % R, e / G);
            };

            Int in_stride = word(desc::InStride);
            Int pre_fine = word(desc::PreFine), pre_coarse = word(desc::PreCoarse);
            each_element(elements, [&](const Int& e) {
                Int g = 0, t = 0;
                split(e, desc::InRows, g, t);
                Int l = first_line + g;
                Float2 v = Expr<float2>(0.0f, 0.0f);
                If(l < lines, [&] {
                    v = src.load(address(l, desc::InMul0) + t * in_stride);
                    when(desc::ConjIn, [&] { v = conj(v); });
                    when(desc::PreTwiddle, [&] {
                        Int q = ((l / c0) % c1) * t;
                        v = cmul(v, pre_twiddle(tw, pre_coarse, pre_fine, q));
                    });
                });
                buf.store(g * R + t, v);
            });
            barrier();

            Int line = (local_id() / T) * R, t = local_id() % T;
            Int line_twiddles = word(desc::LineTwiddles);
            Int cur = 0;
            if (known) {
                // G T = kWorkgroup (plan_passes): every invocation has a line.
                const Words& w = *known;
                int at_cur = 0, ns = 1;
                for (int p = 0; p < w[desc::RadixCount]; ++p) {
                    const int radix = w[static_cast<std::size_t>(desc::Radices + p)];
                    with_radix(Radices{}, radix, [&]<int r>() {
                        if (in_place) radix_pass_in_place<r>(buf, tw, line, w[desc::Length], ns, t, w[desc::Threads], line_twiddles);
                        else radix_pass_known<r>(buf, tw, at_cur, capacity - at_cur, line, w[desc::Length], ns, t, w[desc::Threads],
                                                 line_twiddles);
                    });
                    if (!in_place) at_cur = capacity - at_cur;
                    barrier();
                    ns *= radix;
                }
                cur = at_cur;
            } else {
                Int ns = 1;
                For(0, word(desc::RadixCount), [&](Expr<std::int32_t> p) {
                    Int radix = schedule.load(at + int(desc::Radices) + p);
                    Int next = capacity - cur;
                    If(local_id() / T < G, [&] {
                        if (large_radices) any_radix_pass(Radices{}, radix, buf, tw, cur, next, line, R, ns, t, T, line_twiddles);
                        else any_radix_pass(SmallRadices{}, radix, buf, tw, cur, next, line, R, ns, t, T, line_twiddles);
                    });
                    barrier();
                    cur = next;
                    ns = ns * radix;
                });
            }

            Int out_stride = word(desc::OutStride);
            each_element(elements, [&](const Int& e) {
                Int g = 0, t2 = 0;
                split(e, desc::OutRows, g, t2);
                Int l = first_line + g;
                If(l < lines, [&] {
                    Float2 v = buf.load(cur + g * R + t2) * scale;
                    when(desc::ConjOut, [&] { v = conj(v); });
                    dst.store(address(l, desc::OutMul0) + t2 * out_stride, v);
                });
            });
        });
}


/// base + c, or base itself for c = 0.
Expr<std::int32_t> plus(const Expr<std::int32_t>& base, int c) { return c == 0 ? base : base + c; }

/// Four lines' complex numbers side by side: their real parts and their
/// imaginary parts, each a float4, so that every operation of a butterfly is
/// one float4 operation for the four lines (what the lockstep kernel is for).
struct Lanes {
    Expr<float4> re, im;
};
Lanes operator+(const Lanes& a, const Lanes& b) { return {a.re + b.re, a.im + b.im}; }
Lanes operator-(const Lanes& a, const Lanes& b) { return {a.re - b.re, a.im - b.im}; }
Lanes operator-(const Lanes& a) { return {-a.re, -a.im}; }
Lanes operator*(const Lanes& a, float s) { return {a.re * s, a.im * s}; }
Lanes mul_i(const Lanes& a) { return {-a.im, a.re}; }
Lanes mul_neg_i(const Lanes& a) { return {a.im, -a.re}; }
/// a w with one w for the four lines: cmul's products.
Lanes cmul(const Lanes& a, const Expr<float2>& w) {
    Expr<float> wr = w.x(), wi = w.y();
    return {a.re * wr - a.im * wi, a.re * wi + a.im * wr};
}
/// Component c of v.
Expr<float> lane(const Expr<float4>& v, int c) { return c == 0 ? v.x() : c == 1 ? v.y() : c == 2 ? v.z() : v.w(); }

/// A radix-r pass of the lockstep kernel over the lines side by side in
/// `buf`, from `cur` into `next` (offsets of the buffers): butterfly j = b ns
/// + k (count = R / r of them) as in radix_pass, for all the lines at once.
/// Element e of lane group h (of H) has its real parts at 2 (e H + h) and
/// its imaginary parts next to them: every index is one base plus a constant,
/// which the compiled code sees as neighbouring addresses. Twiddles w_R^(k u
/// step) are loaded once for the lines; `twiddled` false in a line's first
/// pass (ns = 1).
template <int r>
void lockstep_pass(const Shared<float4>& buf, int H, const Array<float2>& tw, const Expr<std::int32_t>& cur,
                   const Expr<std::int32_t>& next, int count, const Expr<std::int32_t>& ns,
                   const Expr<std::int32_t>& line_twiddles, bool twiddled) {
    Int step = count / ns;
    For(0, count / ns, [&](const Expr<std::int32_t>& b) {
        For(0, ns, [&](const Expr<std::int32_t>& k) {
            Int j = b * ns + k;
            std::vector<C> w;
            if (twiddled)
                for (int u = 0; u < r; ++u) w.push_back(u == 0 ? C(1.0f, 0.0f) : C(tw.load(line_twiddles + k * (step * u))));
            const Expr<std::int32_t> in = (cur + j * H) * 2, out = (next + (b * ns * r + k) * H) * 2;
            for (int h = 0; h < H; ++h) {
                std::vector<Lanes> x;
                for (int u = 0; u < r; ++u) {
                    const int at = 2 * (u * count * H + h);
                    Lanes e{buf.load(plus(in, at)), buf.load(in + (at + 1))};
                    x.push_back(twiddled && u > 0 ? cmul(e, w[static_cast<std::size_t>(u)]) : e);
                }
                const std::vector<Lanes> y = dft(x);
                for (int u = 0; u < r; ++u) {
                    const Expr<std::int32_t> o = u == 0 ? out : Expr<std::int32_t>(out + ns * (2 * u * H));
                    buf.store(plus(o, 2 * h), y[static_cast<std::size_t>(u)].re);
                    buf.store(o + (2 * h + 1), y[static_cast<std::size_t>(u)].im);
                }
            }
        });
    });
}


}  // namespace

int lockstep_lines(const Words& w) {
    // Eight where a pass reads or writes element t of neighbouring lines next
    // to each other (64 bytes of a row of a column pass), or where lines are
    // so short that a set's own work is most of its time; else four, whose
    // kernels are half the code (docs/PERFORMANCE.md#fft).
    const bool across = !w[desc::InRows] || !w[desc::OutRows];
    if (w[desc::Length] > kLineElements) return 4;  // eight would take all of the CPU's 1 MiB of shared memory
    return across || w[desc::Length] <= 4 ? 8 : 4;
}

int lockstep_sets(const Words& w) {
    // About 2048 elements a workgroup: short lines would otherwise spend
    // more on starting workgroups than on their butterflies.
    return std::max(1, 2048 / (w[desc::Length] * lockstep_lines(w)));
}

namespace {

LineKernel make_lockstep_kernel(const Words& w, const std::string& name) {
    return group_kernel<1>(
        name + "(src, dst, twiddles, schedule, at, scale)", kInRange,
        [w](Array<float2> src, Array<float2> dst, Array<float2> tw, Array<std::int32_t> schedule, Int at, Float scale) {
            const int V = lockstep_lines(w), H = V / 4;
            auto word = [&](int i) { return w[static_cast<std::size_t>(i)]; };
            const int R = word(desc::Length), c0 = word(desc::Count0), c1 = word(desc::Count1), c2 = word(desc::Count2);
            Int lines = schedule.load(at + int(desc::Lines));
            Int line_twiddles = schedule.load(at + int(desc::LineTwiddles));
            // Two buffers of R elements of H lane groups, real and imaginary parts.
            std::optional<Shared<float4>> shared;  // none for lines in registers
            if (R > kLockstepRegisterLine) shared.emplace(4 * R * H, dsl::Unchecked{});
            const int Q = lockstep_sets(w);
            // The workgroup's Q sets of V lines, one after another.
            auto each_set = [&](const std::function<void(const Expr<std::int32_t>&)>& body) {
                if (Q == 1) body(group_id() * V);
                else For(0, Q, [&](const Expr<std::int32_t>& q) { body((group_id() * Q + q) * V); });
            };
            each_set([&](const Expr<std::int32_t>& first_line) {
                Int first = first_line;

                // The first element's address of line l for multipliers m0..m3.
                auto address = [&](const Expr<std::int32_t>& l, int mul0) -> Int { return known_line_address(w, l, mul0); };
                // The addresses of the lines first + v: the first one's plus v times the
                // multiplier of the lowest digit with more than one value, when that digit
                // counts in multiples of V (first is a multiple of V).
                auto addresses = [&](int mul0) {
                    std::vector<Int> a;
                    const int counts[3] = {c0, c1, c2};
                    int digit = 0;
                    while (digit < 3 && counts[digit] == 1) ++digit;
                    const bool even = digit == 3 || counts[digit] % V == 0;
                    Int base = address(first, mul0);
                    for (int v = 0; v < V; ++v) a.push_back(even ? Int(base + v * word(mul0 + digit)) : address(first + v, mul0));
                    return a;
                };
                // Both copies of `body`: every line there (no checks), or the last lines of the pass.
                auto full_or_last = [&](const std::function<void(bool)>& body) {
                    If(first + V <= lines, [&] { body(false); }).Else([&] { body(true); });
                };

                const std::vector<Int> in_at = addresses(desc::InMul0);
                const int in_stride = word(desc::InStride);
                Int pre_fine = schedule.load(at + int(desc::PreFine)), pre_coarse = schedule.load(at + int(desc::PreCoarse));
                // Element t of lane group h's four lines (zero past the last line).
                auto loaded = [&](int h, const Expr<std::int32_t>& t, bool last) {
                    std::vector<Float2> x;
                    for (int c = 0; c < 4; ++c) {
                        const int v = 4 * h + c;
                        x.emplace_back(Expr<float2>(0.0f, 0.0f));
                        auto load = [&] {
                            Float2& e = x.back();
                            e = src.load(in_at[static_cast<std::size_t>(v)] + t * in_stride);
                            if (word(desc::ConjIn)) e = conj(e);
                            if (word(desc::PreTwiddle)) {
                                Int q = ((first + v) / c0 % c1) * t;
                                e = cmul(e, pre_twiddle(tw, pre_coarse, pre_fine, q));
                            }
                        };
                        if (!last) load();
                        else If(first + v < lines, load);
                    }
                    return Lanes{Expr<float4>(x[0].x(), x[1].x(), x[2].x(), x[3].x()), Expr<float4>(x[0].y(), x[1].y(), x[2].y(), x[3].y())};
                };
                const std::vector<Int> out_at = addresses(desc::OutMul0);
                const int out_stride = word(desc::OutStride);
                // Element t of lane group h's four lines, scaled (none past the last line).
                auto stored = [&](int h, const Expr<std::int32_t>& t, const Lanes& y, bool last) {
                    const Expr<float4> xr = y.re * scale, xi = y.im * scale;
                    for (int c = 0; c < 4; ++c) {
                        const int v = 4 * h + c;
                        auto store = [&] {
                            const Expr<float> im = word(desc::ConjOut) ? -lane(xi, c) : lane(xi, c);
                            dst.store(out_at[static_cast<std::size_t>(v)] + t * out_stride, Expr<float2>(lane(xr, c), im));
                        };
                        if (!last) store();
                        else If(first + v < lines, store);
                    }
                };
                // Short lines whole in registers: no exchanges through shared
                // memory, no loops over elements and passes.
                if (R <= kLockstepRegisterLine) {
                    full_or_last([&](bool last) {
                        for (int h = 0; h < H; ++h) {
                            std::vector<Lanes> x;
                            for (int t = 0; t < R; ++t) x.push_back(loaded(h, Int(t), last));
                            const std::vector<Lanes> y = register_fft(x);
                            for (int t = 0; t < R; ++t) stored(h, Int(t), y[static_cast<std::size_t>(t)], last);
                        }
                    });
                    return;
                }
                const Shared<float4>& buf = *shared;
                full_or_last([&](bool last) {
                    For(0, R, [&](const Expr<std::int32_t>& t) {
                        const Expr<std::int32_t> th = t * (2 * H);
                        for (int h = 0; h < H; ++h) {
                            const Lanes x = loaded(h, t, last);
                            buf.store(plus(th, 2 * h), x.re);
                            buf.store(th + (2 * h + 1), x.im);
                        }
                    });
                });

                // Runs of passes of one radix loop at run time (a kernel's code is one
                // butterfly per radix, not per pass); a line's first pass has no
                // twiddles and is traced on its own.
                std::vector<int> radices;
                for (int p = 0; p < word(desc::RadixCount); ++p) radices.push_back(word(desc::Radices + p));
                const int half = R * H;
                Var<std::int32_t> cur = Int(0);
                Var<std::int32_t> ns = Int(1);
                std::size_t p = 0;
                while (p < radices.size()) {
                    const int radix = radices[p];
                    std::size_t end = p + 1;
                    if (p > 0)
                        while (end < radices.size() && radices[end] == radix) ++end;
                    auto one_pass = [&] {
                        with_radix(Radices{}, radix, [&]<int r>() {
                            lockstep_pass<r>(buf, H, tw, cur, half - cur, R / r, ns, line_twiddles, p > 0);
                        });
                        cur = half - cur;
                        ns = ns * radix;
                    };
                    if (end == p + 1) one_pass();
                    else For(0, static_cast<int>(end - p), [&](const Expr<std::int32_t>&) { one_pass(); });
                    p = end;
                }

                full_or_last([&](bool last) {
                    For(0, R, [&](const Expr<std::int32_t>& t) {
                        const Expr<std::int32_t> th = (cur + t * H) * 2;
                        for (int h = 0; h < H; ++h) stored(h, t, Lanes{buf.load(plus(th, 2 * h)), buf.load(th + (2 * h + 1))}, last);
                    });
                });
            });
        });
}

}  // namespace

bool large_radices(const Words& words) {
    for (int p = 0; p < words[desc::RadixCount]; ++p)
        if (words[static_cast<std::size_t>(desc::Radices + p)] > 8) return true;
    return false;
}

const LineKernel& generic_line_kernel(int capacity, bool large_radices) {
    // Each made at its first use: a process pays only for those its transforms need.
    auto make = [](int c, bool large) {
        return make_line_kernel(c, std::nullopt, large, "fft_lines_" + std::to_string(c) + (large ? "_all_radices" : ""));
    };
    if (capacity == kShortLine) {
        if (large_radices) {
            static const LineKernel k = make(kShortLine, true);
            return k;
        }
        static const LineKernel k = make(kShortLine, false);
        return k;
    }
    if (large_radices) {
        static const LineKernel k = make(kLineElements, true);
        return k;
    }
    static const LineKernel k = make(kLineElements, false);
    return k;
}

const LineKernel& line_kernel(int capacity, const Words& words) {
    const Words key = kernel_key(words);
    return once_per_key(std::pair{capacity, key},
                        [&] { return make_line_kernel(capacity, key, true, kernel_name("fft_lines_", key)); });
}

const LineKernel& lockstep_line_kernel(const Words& words) {
    const Words key = kernel_key(words);
    return once_per_key(key, [&] { return make_lockstep_kernel(key, kernel_name("fft_lockstep_lines_", key)); });
}

}  // namespace rill::fft::detail
