// The FFT's kernels that keep a line's elements in registers (kernels.h):
// the staged kernel (a line per invocation), the split kernel (the four-step
// split inside a workgroup, one exchange through shared memory), the
// three-step split kernel (the split twice, two exchanges) and Bluestein's
// algorithm in one kernel built on it.
#include <cstdlib>
#include <deque>
#include <tuple>

#include "kernel_support.h"

namespace rill::fft::detail {

bool staged(const Words& w) {
    const int R = w[desc::Length];
    return R >= 3 && R <= kStagedLongest && w[desc::InStride] == 1 && w[desc::OutStride] == 1;
}

SplitLine split_line(int R) {
    int n2 = 1;
    for (int d = 2; d * d <= R; ++d)
        if (R % d == 0) n2 = d;
    return {R / n2, n2};
}

namespace {

/// Whether lines of R take the split kernel (split() without the rest of the pass).
bool split_length(std::int64_t R) {
    if (R <= kStagedLongest) return false;  // the staged kernel's, or the line kernel's where strided
    const SplitLine s = split_line(static_cast<int>(R));
    return s.n2 > 1 && s.n1 <= kSplitLongestColumn;
}

}  // namespace

bool split(const Words& w) { return split_length(w[desc::Length]); }

namespace {

/// How the split kernel lays a line out in shared memory: row k1 (of n1) of
/// n2 columns, element j of it at k1 row + (j ^ swizzle(k1, g)) where n2 is a
/// power of two (rows unpadded; the XOR spreads a column's and a row's
/// accesses over the banks), else at k1 (n2 + 1) + j.
struct SplitLayout {
    int n1, n2, row, line;
    bool xor_swizzle;
    explicit SplitLayout(int R) {
        const SplitLine s = split_line(R);
        n1 = s.n1, n2 = s.n2;
        xor_swizzle = (n2 & (n2 - 1)) == 0;
        row = xor_swizzle ? n2 : n2 + 1;
        line = n1 * row;
    }
    /// Element j of row k1 of line g of the workgroup.
    Expr<std::int32_t> at(const Expr<std::int32_t>& g, const Expr<std::int32_t>& k1, const Expr<std::int32_t>& j) const {
        if (!xor_swizzle) return g * line + k1 * row + j;
        // Neighbouring lines' rows differently swizzled: strided passes put
        // their lines side by side in a subgroup.
        return g * line + k1 * row + (j ^ ((k1 + g * 8) & (n2 - 1)));
    }
};

}  // namespace

int split_strided_shared_bytes() {
    static const int bytes = [] {
        const char* knob = std::getenv("RILL_FFT_STRIDED_SHARED_KIB");
        if (!knob) return 2 * kSplitSharedBytes;
        const std::string v = knob;
        if (v == "8" || v == "16" || v == "32") return std::stoi(v) * 1024;
        throw Error("RILL_FFT_STRIDED_SHARED_KIB is '" + v + "'; give 8, 16 or 32, or unset it");
    }();
    return bytes;
}

int split_lines_per_group(const Words& w) {
    const SplitLayout s(w[desc::Length]);
    // Strided lines: several side by side, so that loads and stores of
    // neighbouring invocations touch neighbouring elements, in up to 32 KiB.
    const int bytes = w[desc::InStride] == 1 && w[desc::OutStride] == 1 ? kSplitSharedBytes : split_strided_shared_bytes();
    int g = 1;
    while (2 * g * s.n2 <= kWorkgroup && 2 * g * s.line * 8 <= bytes) g *= 2;
    return g;
}

const LineKernel& split_line_kernel(const Words& words) {
    const Words key = kernel_key(words);
    return once_per_key(key, [&] {
        const int G = split_lines_per_group(key);
        const SplitLayout lay(key[desc::Length]);
        const bool strided = key[desc::InStride] != 1 || key[desc::OutStride] != 1;
        return group_kernel(static_cast<std::uint32_t>(G * lay.n2),
            kernel_name("fft_split_lines_", key) + (strided ? "_strided" : "") + "(src, dst, twiddles, schedule, at, scale)", kInRange,
            [key, G, lay](Array<float2> src, Array<float2> dst, Array<float2> tw, Array<std::int32_t> schedule, Int at, Float scale) {
                const int n1 = lay.n1, n2 = lay.n2;
                auto word = [&](int w) { return key[static_cast<std::size_t>(w)]; };
                const int c0 = word(desc::Count0), c1 = word(desc::Count1);
                Shared<float2> buf(G * lay.line, dsl::Unchecked{});
                Int lines = schedule.load(at + int(desc::Lines));
                Int line_twiddles = schedule.load(at + int(desc::LineTwiddles));
                // An invocation's line of the group and its column (load) or
                // row (store): where the pass's elements are contiguous, a
                // line's columns side by side; where strided, the group's
                // lines side by side (neighbouring elements either way).
                auto place = [&](int stride, Int& g, Int& j) {
                    g = stride == 1 ? local_id() / n2 : local_id() % G;
                    j = stride == 1 ? local_id() % n2 : local_id() / G;
                };
                auto address = [&](const Expr<std::int32_t>& l, int mul0) { return known_line_address(key, l, mul0); };
                {
                    // Column j: elements t = j + n2 k1 (pre-twiddled by w_M^(d1 t) in a
                    // pass after a line's first), its n1-point DFT, twiddled by w_R^(j k1).
                    Int g = 0, j = 0;
                    place(word(desc::InStride), g, j);
                    Int l = group_id() * G + g;
                    If(l < lines, [&] {
                        Int base = address(l, desc::InMul0);
                        Int d1 = (l / c0) % c1;
                        Int pre_fine = schedule.load(at + int(desc::PreFine)), pre_coarse = schedule.load(at + int(desc::PreCoarse));
                        std::vector<C> x;
                        for (int k1 = 0; k1 < n1; ++k1) {
                            Int t = j + n2 * k1;
                            const C loaded = src.load(base + t * word(desc::InStride));
                            const C v = word(desc::ConjIn) ? conj(loaded) : loaded;
                            if (!word(desc::PreTwiddle)) {
                                x.push_back(v);
                                continue;
                            }
                            x.push_back(cmul(v, pre_twiddle(tw, pre_coarse, pre_fine, d1 * t)));
                        }
                        const std::vector<C> y = register_fft(x);
                        for (int k1 = 0; k1 < n1; ++k1) {
                            const C& v = y[static_cast<std::size_t>(k1)];
                            buf.store(lay.at(g, Int(k1), j), k1 == 0 ? v : cmul(v, tw.load(line_twiddles + j * k1)));
                        }
                    });
                }
                barrier();
                // Rows k1 = j, j + n2, ...: their n2-point DFTs are X[k1 + n1 k2].
                Int g = 0, j = 0;
                place(word(desc::OutStride), g, j);
                Int l = group_id() * G + g;
                Int base = address(l, desc::OutMul0);
                for (int first = 0; first < n1; first += n2) {
                    Int k1 = j + first;
                    If(l < lines && k1 < n1, [&] {
                        std::vector<C> x;
                        for (int t = 0; t < n2; ++t) x.push_back(buf.load(lay.at(g, k1, Int(t))));
                        const std::vector<C> y = register_fft(x);
                        for (int k2 = 0; k2 < n2; ++k2) {
                            C v = y[static_cast<std::size_t>(k2)] * scale;
                            dst.store(base + (k1 + n1 * k2) * word(desc::OutStride), word(desc::ConjOut) ? conj(v) : v);
                        }
                    });
                }
            });
    });
}

namespace {

/// RILL_FFT_NO_THREE_STEP=1 leaves the three-step kernels' passes to the line
/// kernels and Bluestein's lengths to five kernels (an A/B knob, docs/TUNING.md).
bool three_step_off() {
    static const bool off = env_flag("RILL_FFT_NO_THREE_STEP");
    return off;
}

}  // namespace

SplitLine3 split_line3(int R) {
    SplitLine3 best{0, 0, 0};
    for (int n1 = 2; n1 <= kSplitLongestColumn && best.n1 == 0; ++n1) {
        if (R % n1) continue;
        for (int n2 = 2; n2 <= n1; ++n2) {
            if ((R / n1) % n2) continue;
            const int n3 = R / n1 / n2;
            if (n3 >= 2 && n3 <= n2 && n3 > best.n3) best = {n1, n2, n3};
        }
    }
    return best;
}

bool split3_length(std::int64_t R) {
    if (three_step_off() || R <= kStagedLongest || R > kSplit3Longest) return false;
    return !split_length(R) && split_line3(static_cast<int>(R)).n1 > 0;
}

bool split3(const Words& w) {
    // Contiguous lines only: strided, a workgroup holds one line and each
    // invocation loads one element of it, 32-byte sectors shared with the
    // neighbouring lines' workgroups; on an H100 that pass of 4096^2's
    // columns took 0.80 ms where the contiguous rows took 0.19
    // (docs/PERFORMANCE.md#fft).
    return w[desc::InStride] == 1 && w[desc::OutStride] == 1 && split3_length(w[desc::Length]);
}

namespace {

/// The three-step split of a line of R = n1 n2 n3 elements held in a
/// workgroup's buffer of R float2 (split3_line_kernel), for invocation v of
/// T = R / n1, in three steps with a barrier after each of the first two.
struct ThreeStep {
    const Shared<float2>& buf;
    const Array<float2>& tw;
    Expr<std::int32_t> line_twiddles;  // w_R^q, q < R, in tw
    Expr<std::int32_t> v;
    int R, n1, n2, n3, m, T;
    bool swizzled;

    ThreeStep(const Shared<float2>& b, const Array<float2>& t, const Expr<std::int32_t>& twiddles_at, const Expr<std::int32_t>& invocation,
              int length)
        : buf(b), tw(t), line_twiddles(twiddles_at), v(invocation), R(length) {
        const SplitLine3 f = split_line3(R);
        n1 = f.n1, n2 = f.n2, n3 = f.n3, m = n2 * n3, T = R / n1;
        swizzled = R % 16 == 0;
    }

    /// Element p of the line at p with bits 0-3 XORed with bits 4-7 and 8-11
    /// where R is a multiple of 16 (a bijection on each aligned run of 16): a
    /// half-warp's stores of a column's outputs (neighbouring p), its loads of
    /// the columns j' (p n3 apart within a row, rows m apart) and of the rows
    /// (k1, i') (p m apart) then fall in 16 banks for R = 2048 and 4096.
    Expr<std::int32_t> slot(const Expr<std::int32_t>& p) const {
        return swizzled ? Expr<std::int32_t>(p ^ (((p >> 4) ^ (p >> 8)) & 15)) : p;
    }

    /// Step one's DFT of column v: x[k1] is element t = v + m k1 of the line;
    /// returns its n1-point DFT twiddled by w_R^(v k1), which store_column puts in row k1.
    std::vector<C> column(const std::vector<C>& x) const {
        const std::vector<C> y = register_fft(x);
        std::vector<C> twiddled{y[0]};
        for (int k1 = 1; k1 < n1; ++k1) twiddled.push_back(cmul(y[static_cast<std::size_t>(k1)], tw.load(line_twiddles + v * k1)));
        return twiddled;
    }
    template <class Value>
    void store_column(const Value& y) const {
        for (int k1 = 0; k1 < n1; ++k1) buf.store(slot(v + m * k1), y[static_cast<std::size_t>(k1)]);
    }

    /// Step two, in place: column j' of row k1 (DFT d = k1 n3 + j' of n1 n3),
    /// its n2-point DFT twiddled by w_m^(j' i') = w_R^(n1 j' i').
    void inner_columns() const {
        each_item(n1 * n3, v, T, [&](int, const Expr<std::int32_t>& d) {
            Int k1 = d / n3, jp = d % n3;
            Int row = k1 * m + jp;
            std::vector<C> x;
            for (int i = 0; i < n2; ++i) x.push_back(buf.load(slot(row + n3 * i)));
            const std::vector<C> y = register_fft(x);
            for (int ip = 0; ip < n2; ++ip) {
                const C& e = y[static_cast<std::size_t>(ip)];
                buf.store(slot(row + n3 * ip), ip == 0 ? e : cmul(e, tw.load(line_twiddles + jp * (n1 * ip))));
            }
        });
    }

    /// Step three: row (k1, i') (DFT d = i' n1 + k1 of n1 n2, neighbouring
    /// invocations neighbouring k1), whose n3-point DFT is X[k1 + n1 (i' + n2
    /// k)] = X[d + n1 n2 k]: out(b, d, k, X) for the invocation's b-th row,
    /// where `active` holds.
    template <class Out>
    void rows(const Expr<bool>& active, const Out& out) const {
        If(active, [&] {
            each_item(n1 * n2, v, T, [&](int b, const Expr<std::int32_t>& d) {
                Int ip = d / n1, k1 = d % n1;
                Int row = k1 * m + ip * n3;
                std::vector<C> x;
                for (int jp = 0; jp < n3; ++jp) x.push_back(buf.load(slot(row + jp)));
                const std::vector<C> y = register_fft(x);
                for (int k = 0; k < n3; ++k) out(b, d, k, y[static_cast<std::size_t>(k)]);
            });
        });
    }
    /// Rows an invocation takes in step three.
    int rows_each() const { return (n1 * n2 + T - 1) / T; }
};

}  // namespace

const LineKernel& split3_line_kernel(const Words& words) {
    const Words key = kernel_key(words);
    return once_per_key(key, [&] {
        const int R = key[desc::Length];
        const int T = R / split_line3(R).n1;
        return group_kernel(static_cast<std::uint32_t>(T),
            kernel_name("fft_split3_lines_", key) + "(src, dst, twiddles, schedule, at, scale)", kInRange,
            [key, R](Array<float2> src, Array<float2> dst, Array<float2> tw, Array<std::int32_t> schedule, Int at, Float scale) {
                const bool conj_in = key[desc::ConjIn] != 0, conj_out = key[desc::ConjOut] != 0;
                auto word = [&](int w) { return key[static_cast<std::size_t>(w)]; };
                const int c0 = word(desc::Count0), c1 = word(desc::Count1);
                const int in_stride = word(desc::InStride), out_stride = word(desc::OutStride);
                auto address = [&](const Expr<std::int32_t>& line, int mul0) { return known_line_address(key, line, mul0); };
                Shared<float2> buf(R, dsl::Unchecked{});
                Int lines = schedule.load(at + int(desc::Lines));
                Int l = group_id();
                const ThreeStep s(buf, tw, schedule.load(at + int(desc::LineTwiddles)), local_id(), R);
                // Column v (elements t = v + m k1, pre-twiddled by w_M^(d1 t) in a
                // pass after a line's first).
                If(l < lines, [&] {
                    Int in_base = address(l, desc::InMul0);
                    const bool pre = word(desc::PreTwiddle) != 0;
                    Int d1 = pre ? Expr<std::int32_t>((l / c0) % c1) : Expr<std::int32_t>(0);
                    Int pre_fine = pre ? schedule.load(at + int(desc::PreFine)) : Expr<std::int32_t>(0);
                    Int pre_coarse = pre ? schedule.load(at + int(desc::PreCoarse)) : Expr<std::int32_t>(0);
                    std::vector<C> x;
                    for (int k1 = 0; k1 < s.n1; ++k1) {
                        Int t = s.v + s.m * k1;
                        const C loaded = src.load(in_base + t * in_stride);
                        const C e = conj_in ? conj(loaded) : loaded;
                        if (pre) x.push_back(cmul(e, pre_twiddle(tw, pre_coarse, pre_fine, d1 * t)));
                        else x.push_back(e);
                    }
                    s.store_column(s.column(x));
                });
                barrier();
                s.inner_columns();
                barrier();
                Int out_base = address(l, desc::OutMul0);
                const int rows = s.n1 * s.n2;
                s.rows(l < lines, [&](int, const Expr<std::int32_t>& d, int k, const C& X) {
                    const C e = X * scale;
                    dst.store(out_base + (d + rows * k) * out_stride, conj_out ? conj(e) : e);
                });
            });
    });
}

bool bluestein_in_one(std::int64_t padded) {
    return !three_step_off() && padded <= kSplit3Longest && split_line3(static_cast<int>(padded)).n1 > 0;
}

const BluesteinKernel& bluestein_kernel(int length, int padded, bool inverse) {
    static std::mutex mutex;
    static std::map<std::tuple<int, int, bool>, std::unique_ptr<BluesteinKernel>> kernels;
    std::lock_guard lock(mutex);
    auto& k = kernels[{length, padded, inverse}];
    if (k) return *k;
    const int M = padded, n = length;
    const int T = M / split_line3(M).n1;
    k = std::make_unique<BluesteinKernel>(group_kernel(static_cast<std::uint32_t>(T),
        "fft_bluestein_" + std::to_string(n) + "_in_" + std::to_string(M) + (inverse ? "_inverse" : "") +
            "(x, y, twiddles, chirp_at, filter_at, line_twiddles, lines, scale)",
        kInRange, [n, M, inverse](Array<float2> x, Array<float2> y, Array<float2> tw, Int chirp_at, Int filter_at, Int line_twiddles,
                                  Int lines, Float scale) {
            Shared<float2> buf(M, dsl::Unchecked{});
            const ThreeStep s(buf, tw, line_twiddles, local_id(), M);
            Int l = group_id();
            Expr<bool> active = l < lines;
            Int base = l * n;  // line l's element t
            // a_t = x_t w_t (x conjugated for an inverse), 0 from n to M.
            If(active, [&] {
                std::vector<C> a;
                for (int k1 = 0; k1 < s.n1; ++k1) {
                    if (s.m * k1 >= n) {
                        a.push_back(Expr<float2>(0.0f, 0.0f));
                        continue;
                    }
                    Int t = s.v + s.m * k1;
                    const bool inside = s.m * (k1 + 1) <= n;
                    // Past n the index is clamped (never read out of the stream) and the value dropped.
                    Int u = inside ? Expr<std::int32_t>(t) : Expr<std::int32_t>(min(t, Expr<std::int32_t>(n - 1)));
                    const C loaded = x.load(base + u);
                    const C e = cmul(inverse ? conj(loaded) : loaded, tw.load(chirp_at + u));
                    if (inside) a.push_back(e);
                    else a.push_back(select(t < n, e, Expr<float2>(0.0f, 0.0f)));
                }
                s.store_column(s.column(a));
            });
            barrier();
            s.inner_columns();
            barrier();
            // A = DFT(a) times the filter's transform F; the inverse DFT of their
            // product as conj(DFT(conj(A F))), so the second transform is the first's code.
            std::deque<Var<float2>> held;
            for (int i = 0; i < s.rows_each() * s.n3; ++i) held.emplace_back();
            const int rows = s.n1 * s.n2;
            s.rows(active, [&](int b, const Expr<std::int32_t>& d, int k, const C& A) {
                held[static_cast<std::size_t>(b * s.n3 + k)] = conj(cmul(A, tw.load(filter_at + d + rows * k)));
            });
            barrier();
            s.rows(active, [&](int b, const Expr<std::int32_t>& d, int k, const C&) {
                buf.store(s.slot(d + rows * k), held[static_cast<std::size_t>(b * s.n3 + k)]);
            });
            barrier();
            // Column v of the product, read before any invocation writes rows.
            std::deque<Var<float2>> column;
            for (int k1 = 0; k1 < s.n1; ++k1) column.emplace_back();
            If(active, [&] {
                std::vector<C> p;
                for (int k1 = 0; k1 < s.n1; ++k1) p.push_back(buf.load(s.slot(s.v + s.m * k1)));
                const std::vector<C> c = s.column(p);
                for (int k1 = 0; k1 < s.n1; ++k1) column[static_cast<std::size_t>(k1)] = c[static_cast<std::size_t>(k1)];
            });
            barrier();
            If(active, [&] { s.store_column(column); });
            barrier();
            s.inner_columns();
            barrier();
            // y_t = scale w_t conj(B_t) for t < n (conjugated for an inverse).
            s.rows(active, [&](int, const Expr<std::int32_t>& d, int k, const C& B) {
                if (rows * k >= n) return;
                Int t = d + rows * k;
                auto put = [&] {
                    const C e = cmul(conj(B), tw.load(chirp_at + t)) * scale;
                    y.store(base + t, inverse ? conj(e) : e);
                };
                if (rows * (k + 1) <= n) put();
                else If(t < n, put);
            });
        }));
    return *k;
}

const LineKernel& staged_line_kernel(const Words& words) {
    const Words key = kernel_key(words);
    return once_per_key(key, [&] {
        const int R = key[desc::Length];
        const bool conj_in = key[desc::ConjIn] != 0, conj_out = key[desc::ConjOut] != 0;
        return group_kernel<kStagedLines>(
            kernel_name("fft_staged_lines_", key) + "(src, dst, twiddles, schedule, at, scale)", kInRange,
            [R, conj_in, conj_out](Array<float2> src, Array<float2> dst, Array<float2>, Array<std::int32_t> schedule, Int at,
                                   Float scale) {
                // Line l at l P in shared memory, P odd: an invocation's t-th
                // elements then fall in different banks (lines of an even length
                // side by side put many invocations' in one bank).
                const int P = R % 2 == 0 ? R + 1 : R;
                Shared<float2> buf(kStagedLines * P, dsl::Unchecked{});
                auto slot = [&](const Expr<std::int32_t>& e) -> Expr<std::int32_t> { return P == R ? e : e + e / R; };
                Int lines = schedule.load(at + int(desc::Lines));
                Int first = group_id() * kStagedLines;
                // Contiguous lines (a single pass over whole lines) lie at l R.
                Int base = first * R, here = min(lines - first, Int(kStagedLines)) * R;
                for (int k = 0; k < R; ++k) {
                    Int e = local_id() + k * kStagedLines;
                    If(e < here, [&] { buf.store(slot(e), src.load(base + e)); });
                }
                barrier();
                Int l = local_id();
                If(first + l < lines, [&] {
                    std::vector<C> x;
                    for (int t = 0; t < R; ++t) {
                        C v = buf.load(l * P + t);
                        x.push_back(conj_in ? conj(v) : v);
                    }
                    const std::vector<C> y = register_fft(x);
                    // Only this invocation reads or writes its line's elements: no barrier between.
                    for (int t = 0; t < R; ++t) {
                        C v = y[static_cast<std::size_t>(t)] * scale;
                        buf.store(l * P + t, conj_out ? conj(v) : v);
                    }
                });
                barrier();
                for (int k = 0; k < R; ++k) {
                    Int e = local_id() + k * kStagedLines;
                    If(e < here, [&] { dst.store(base + e, buf.load(slot(e))); });
                }
            });
    });
}

}  // namespace rill::fft::detail
