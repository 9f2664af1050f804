// The FFT's kernels that keep a line's elements in registers (kernels.h):
// the staged kernel (a line per invocation), the split kernel (the four-step
// split inside a workgroup, one exchange through shared memory), the
// three-step split kernel (the split twice, two exchanges) and Bluestein's
// algorithm in one kernel built on it.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <optional>
#include <tuple>

#include "kernel_support.h"

namespace rill::fft::detail {

namespace {

std::atomic<int>& halves_setting() {
    // RILL_FFT_EXCHANGE_HALVES: 0 (never), 8 or 16 (the KiB above which),
    // unset: kHalvesWhereFewInvocations.
    static std::atomic<int> above{[] {
        const char* knob = std::getenv("RILL_FFT_EXCHANGE_HALVES");
        if (!knob) return kHalvesWhereFewInvocations;
        const std::string v = knob;
        if (v == "0" || v == "8" || v == "16") return std::stoi(v) * 1024;
        throw Error("RILL_FFT_EXCHANGE_HALVES is '" + v + "'; give 0 (never), 8 or 16 (the KiB above which), or unset it");
    }()};
    return above;
}

/// A workgroup's buffer through which its invocations exchange complex
/// numbers: `size` float2, or in halves `size` floats that carry the real
/// parts and then the imaginary parts (halves_above, kernels.h).
class ComplexExchange {
public:
    ComplexExchange(int size, bool halves) {
        if (halves) half_.emplace(size, dsl::Unchecked{});
        else whole_.emplace(size, dsl::Unchecked{});
    }
    bool halves() const { return half_.has_value(); }
    /// put(store) calls store(slot, value) for each value this invocation
    /// gives, get(load) load(slot, into) for each it takes; a barrier between
    /// (with halves: the real parts, then the imaginary parts, three
    /// barriers). Each runs twice with halves, so the values put are
    /// variables or cheap to recompute. No barrier before the puts: where
    /// they overwrite what other invocations read last, the caller puts one.
    template <class Put, class Get>
    void swap(const Put& put, const Get& get) const {
        using Slot = Expr<std::int32_t>;
        if (whole_) {
            put([&](const Slot& at, const C& v) { whole_->store(at, v); });
            barrier();
            get([&](const Slot& at, Var<float2>& into) { into = whole_->load(at); });
            return;
        }
        put([&](const Slot& at, const C& v) { half_->store(at, v.x()); });
        barrier();
        get([&](const Slot& at, Var<float2>& into) { into = C(half_->load(at), Expr<float>(0.0f)); });
        barrier();
        put([&](const Slot& at, const C& v) { half_->store(at, v.y()); });
        barrier();
        get([&](const Slot& at, Var<float2>& into) { into = C(C(into).x(), half_->load(at)); });
    }

private:
    std::optional<Shared<float2>> whole_;
    std::optional<Shared<float>> half_;
};

/// Whether a workgroup of `invocations` exchanging `elements` complex
/// numbers does so in halves (halves_above, kernels.h). `invocations` 0: by
/// the bytes alone (Bluestein's kernel, whose five exchanges a line made
/// lines of 1009 padded to 2048 0.81x as fast in halves on an H100).
bool in_halves(std::int64_t elements, std::int64_t invocations = 0) {
    const int above = halves_above();
    const std::int64_t bytes = elements * 8;
    if (above != kHalvesWhereFewInvocations) return above > 0 && bytes > above;
    return bytes > kSplitSharedBytes || (invocations > 0 && bytes > kSplitSharedBytes / 2 && bytes >= 128 * invocations);
}

/// into[i] = values[i]: values held across an exchange.
void hold(std::deque<Var<float2>>& into, const std::vector<C>& values) {
    for (std::size_t i = 0; i < values.size(); ++i) into[i] = values[i];
}

/// `count` variables.
std::deque<Var<float2>> variables(int count) {
    std::deque<Var<float2>> v;
    for (int i = 0; i < count; ++i) v.emplace_back();
    return v;
}

/// The first step's input in the split kernels: column v of line l, elements
/// t = v + m k1 (k1 < n1) read in_stride apart, conjugated in an inverse transform's
/// first pass and pre-twiddled by w_M^(d1 t) in a pass after a line's first.
std::vector<C> load_column(const Words& key, const Array<float2>& src, const Array<float2>& tw, const Array<std::int32_t>& schedule,
                           const Int& at, const Expr<std::int32_t>& l, const Expr<std::int32_t>& v, int m, int n1) {
    auto word = [&](int w) { return key[static_cast<std::size_t>(w)]; };
    const bool pre = word(desc::PreTwiddle) != 0;
    Int base = known_line_address(key, l, desc::InMul0);
    Int d1 = pre ? Expr<std::int32_t>((l / word(desc::Count0)) % word(desc::Count1)) : Expr<std::int32_t>(0);
    Int pre_fine = pre ? schedule.load(at + int(desc::PreFine)) : Expr<std::int32_t>(0);
    Int pre_coarse = pre ? schedule.load(at + int(desc::PreCoarse)) : Expr<std::int32_t>(0);
    std::vector<C> x;
    for (int k1 = 0; k1 < n1; ++k1) {
        Int t = v + m * k1;
        const C loaded = src.load(base + t * word(desc::InStride));
        const C e = word(desc::ConjIn) ? conj(loaded) : loaded;
        x.push_back(pre ? cmul(e, pre_twiddle(tw, pre_coarse, pre_fine, d1 * t)) : e);
    }
    return x;
}

/// The first step's column v in the split kernels: the DFT of x (its n1
/// elements) twiddled by w_R^(v k1), which the kernel's table holds at k1 m + v
/// from twiddles_at (m = R / n1).
std::vector<C> twiddled_dft(const std::vector<C>& x, const Array<float2>& tw, const Expr<std::int32_t>& twiddles_at,
                            const Expr<std::int32_t>& v, int m) {
    const std::vector<C> y = register_fft(x);
    std::vector<C> twiddled{y[0]};
    for (std::size_t k1 = 1; k1 < y.size(); ++k1) twiddled.push_back(cmul(y[k1], tw.load(twiddles_at + (static_cast<int>(k1) * m) + v)));
    return twiddled;
}

/// The line g of a workgroup's G and the index i within it of item e of
/// `per_line` a line: where that side of the pass is strided, the group's
/// lines side by side (neighbouring items, neighbouring lines: neighbouring
/// elements of the array), else a line's items side by side.
void place_item(int stride, const Expr<std::int32_t>& e, int per_line, int G, Int& g, Int& i) {
    g = stride == 1 ? e / per_line : e % G;
    i = stride == 1 ? e % per_line : e / G;
}

}  // namespace

float2 root_of_unity(std::int64_t M, std::int64_t q) {
    const double a = 2.0 * std::numbers::pi * static_cast<double>(q % M) / static_cast<double>(M);
    return float2{static_cast<float>(std::cos(a)), static_cast<float>(-std::sin(a))};
}

int halves_above() { return halves_setting().load(); }
void set_halves_above(int bytes) { halves_setting().store(bytes); }

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
/// n2 columns, element j of it at k1 row + (j ^ k1) where n2 is a power of
/// two (rows unpadded; the XOR spreads a column's and a row's accesses over
/// the banks), else at k1 (n2 + 1) + j; then the workgroup's lines, `line`
/// elements apart, each with its offsets' low bits XORed with a multiple of
/// its index g (spread()). Every line's offset is a multiple of the bank
/// count's 16 (float2) or 32 (floats) where n2 is a power of two, so without
/// that XOR the invocations of a subgroup that each take a different line
/// (strided passes, g fastest) hit one bank: 16- to 32-way conflicts for
/// lines of 64 to 256, the passes of 4096^2 and 2^24 (on an H200 those took
/// 1.59x and 1.18x as long that way: docs/PERFORMANCE.md#fft).
struct SplitLayout {
    int n1, n2, row, line;
    bool xor_swizzle;
    int g_mul = 0, g_mask = 0;  // line g's offsets XORed with (g g_mul) & g_mask
    explicit SplitLayout(int R) {
        const SplitLine s = split_line(R);
        n1 = s.n1, n2 = s.n2;
        xor_swizzle = (n2 & (n2 - 1)) == 0;
        row = xor_swizzle ? n2 : n2 + 1;
        line = n1 * row;
    }
    /// The exchange in `parts` (split_parts): the buffer holds n1 / parts
    /// rows, the rows of one part at a time.
    void in_parts(int parts) { line = n1 / parts * row; }
    /// Spreads G lines over the banks: `strided`, the subgroup's invocations
    /// take lines g fastest (G of them side by side, then columns j), so
    /// line g's XOR puts g above the bits that j takes; else lines follow
    /// each other's n2 invocations, so g goes above those. `halves`: float
    /// elements, 32 banks a subgroup, instead of float2, 16 bank pairs.
    void spread(int G, bool strided, bool halves) {
        // Padded rows: contiguous lines of them already spread (lines of 1000
        // = 40 x 25 ran 6% slower with the XOR on an H200), and lines of a
        // length that is no multiple of 16 fall in different banks anyway.
        if (!xor_swizzle && (!strided || line % 16)) return;
        int banks = halves ? 32 : 16;
        while (banks > 1 && line % banks) banks /= 2;
        g_mask = banks - 1;
        g_mul = strided ? std::max(1, banks / G) : n2;
    }
    /// Element j of row k1 of line g of the workgroup.
    Expr<std::int32_t> at(const Expr<std::int32_t>& g, const Expr<std::int32_t>& k1, const Expr<std::int32_t>& j) const {
        const Expr<std::int32_t> offset = k1 * row + (xor_swizzle ? Expr<std::int32_t>(j ^ (k1 & (n2 - 1))) : j);
        return g * line + (g_mask ? Expr<std::int32_t>(offset ^ ((g * g_mul) & g_mask)) : offset);
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

std::vector<float2> split_twiddles(int R) {
    const SplitLine s = split_line(R);
    std::vector<float2> table(static_cast<std::size_t>(R));
    for (int k1 = 0; k1 < s.n1; ++k1)
        for (int j = 0; j < s.n2; ++j) table[static_cast<std::size_t>(k1 * s.n2 + j)] = root_of_unity(R, std::int64_t{j} * k1);
    return table;
}

int split_parts(const Words& w) {
    static const int parts = static_cast<int>(env_count("RILL_FFT_STRIDED_PARTS", 1, 4, 2, "parts"));
    const bool strided = w[desc::InStride] != 1 || w[desc::OutStride] != 1;
    if (!strided) return 1;
    int p = parts;
    while (split_line(w[desc::Length]).n1 % p) --p;
    return p;
}

int split_strided_invocations() {
    static const int invocations = static_cast<int>(env_count("RILL_FFT_STRIDED_INVOCATIONS", kWorkgroup, 1024, kWorkgroup, "invocations"));
    return invocations;
}

int split_lines_per_group(const Words& w) {
    const SplitLayout s(w[desc::Length]);
    // Strided lines: several side by side, so that loads and stores of
    // neighbouring invocations touch neighbouring elements, in up to 32 KiB
    // (times the parts of the exchange, which holds one part at a time).
    const bool contiguous = w[desc::InStride] == 1 && w[desc::OutStride] == 1;
    const int bytes = contiguous ? kSplitSharedBytes : split_strided_shared_bytes() * split_parts(w);
    const int invocations = contiguous ? kWorkgroup : split_strided_invocations();
    int g = 1;
    while (2 * g * s.n2 <= invocations && 2 * g * s.line * 8 <= bytes) g *= 2;
    return g;
}

const LineKernel& split_line_kernel(const Words& words) {
    const Words key = kernel_key(words);
    const int G = split_lines_per_group(key);
    const int P = split_parts(key);
    SplitLayout lay(key[desc::Length]);
    lay.in_parts(P);
    const bool halves = in_halves(G * lay.line, G * lay.n2);
    const bool strided = key[desc::InStride] != 1 || key[desc::OutStride] != 1;
    lay.spread(G, strided, halves);
    return once_per_key(std::tuple{key, halves, P}, [&] {
        return group_kernel(static_cast<std::uint32_t>(G * lay.n2),
            kernel_name("fft_split_lines_", key) + (strided ? "_strided" : "") + (halves ? "_halves" : "") +
                (P > 1 ? "_parts" + std::to_string(P) : "") + "(src, dst, twiddles, schedule, at, scale)",
            kInRange,
            [key, G, P, lay, halves](Array<float2> src, Array<float2> dst, Array<float2> tw, Array<std::int32_t> schedule, Int at, Float scale) {
                const int n1 = lay.n1, n2 = lay.n2;
                auto word = [&](int w) { return key[static_cast<std::size_t>(w)]; };
                const ComplexExchange ex(G * lay.line, halves);
                Int lines = schedule.load(at + int(desc::Lines));
                Int twiddles_at = schedule.load(at + int(desc::RegisterTwiddles));
                // An invocation's line of the group and its column (load) or
                // row (store): neighbouring elements either way (place_item).
                auto place = [&](int stride, Int& g, Int& j) { place_item(stride, local_id(), n2, G, g, j); };
                auto address = [&](const Expr<std::int32_t>& l, int mul0) { return known_line_address(key, l, mul0); };
                // Column j: elements t = j + n2 k1 (load_column), its n1-point
                // DFT, twiddled by w_R^(j k1).
                Int g_in = 0, j_in = 0;
                place(word(desc::InStride), g_in, j_in);
                Int l_in = group_id() * G + g_in;
                std::deque<Var<float2>> column = variables(n1);
                If(l_in < lines, [&] { hold(column, twiddled_dft(load_column(key, src, tw, schedule, at, l_in, j_in, n2, n1), tw, twiddles_at, j_in, n2)); });
                // Rows k1 = j, j + n2, ...: their n2-point DFTs are X[k1 + n1 k2].
                Int g = 0, j = 0;
                place(word(desc::OutStride), g, j);
                Int l = group_id() * G + g;
                const int row_sets = (n1 + n2 - 1) / n2;
                std::deque<Var<float2>> rows = variables(row_sets * n2);
                auto each_row = [&](const auto& body) {
                    for (int r = 0; r < row_sets; ++r) {
                        Int k1 = j + r * n2;
                        If(l < lines && k1 < n1, [&] { body(r, k1); });
                    }
                };
                // In P parts: rows [p h, (p + 1) h) of every line through the
                // buffer at a time, a barrier before each part after the first.
                const int h = n1 / P;
                for (int p = 0; p < P; ++p) {
                    if (p > 0) barrier();
                    ex.swap(
                        [&](const auto& store) {
                            If(l_in < lines, [&] {
                                for (int k1 = p * h; k1 < (p + 1) * h; ++k1)
                                    store(lay.at(g_in, Int(k1 - p * h), j_in), column[static_cast<std::size_t>(k1)]);
                            });
                        },
                        [&](const auto& load) {
                            each_row([&](int r, const Int& k1) {
                                auto rows_of_part = [&] {
                                    for (int t = 0; t < n2; ++t) load(lay.at(g, k1 - p * h, Int(t)), rows[static_cast<std::size_t>(r * n2 + t)]);
                                };
                                if (P == 1) rows_of_part();
                                else If(k1 >= p * h && k1 < (p + 1) * h, rows_of_part);
                            });
                        });
                }
                Int base = address(l, desc::OutMul0);
                each_row([&](int r, const Int& k1) {
                    std::vector<C> x;
                    for (int t = 0; t < n2; ++t) x.push_back(rows[static_cast<std::size_t>(r * n2 + t)]);
                    const std::vector<C> y = register_fft(x);
                    for (int k2 = 0; k2 < n2; ++k2) {
                        C v = y[static_cast<std::size_t>(k2)] * scale;
                        dst.store(base + (k1 + n1 * k2) * word(desc::OutStride), word(desc::ConjOut) ? conj(v) : v);
                    }
                });
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

std::vector<float2> split3_twiddles(int R) {
    const SplitLine3 f = split_line3(R);
    const int T = R / f.n1;
    std::vector<float2> table(static_cast<std::size_t>(R + T));
    for (int k1 = 0; k1 < f.n1; ++k1)
        for (int v = 0; v < T; ++v) table[static_cast<std::size_t>(k1 * T + v)] = root_of_unity(R, std::int64_t{v} * k1);
    for (int ip = 0; ip < f.n2; ++ip)
        for (int jp = 0; jp < f.n3; ++jp) table[static_cast<std::size_t>(R + ip * f.n3 + jp)] = root_of_unity(R, std::int64_t{f.n1} * jp * ip);
    return table;
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

/// The three-step split of a line of R = n1 n2 n3 elements exchanged through
/// a workgroup's buffer of R elements (split3_line_kernel), for invocation v
/// of T = R / n1, in three steps with an exchange after each of the first two.
struct ThreeStep {
    const ComplexExchange& ex;
    const Array<float2>& tw;
    Expr<std::int32_t> twiddles_at;  // split3_twiddles(R) in tw
    Expr<std::int32_t> v;
    int R, n1, n2, n3, m, T;
    bool swizzled;

    ThreeStep(const ComplexExchange& e, const Array<float2>& t, const Expr<std::int32_t>& at, const Expr<std::int32_t>& invocation,
              int length)
        : ex(e), tw(t), twiddles_at(at), v(invocation), R(length) {
        const SplitLine3 f = split_line3(R);
        n1 = f.n1, n2 = f.n2, n3 = f.n3, m = n2 * n3, T = R / n1;
        swizzled = R % 16 == 0;
    }

    /// Element p of the line at p with bits XORed where R is a multiple of 16
    /// (a bijection on each aligned run of 32), so that a warp's stores of a
    /// column's outputs (neighbouring p), its loads of the columns j' (p n3
    /// apart within a row, rows m apart) and of the rows (k1, i') (p m apart)
    /// spread over the banks: float2 elements, bits 0-3 XORed with bits 4-7
    /// and 8-11 (each half-warp in 16 banks for R = 2048 and 4096); float
    /// elements (halves), bits 0-3 with bits 8-11 and bit 4 with bit 8 (each
    /// warp in 32 banks for R = 4096, and at most 3 ways for the other
    /// multiples of 16 to 4096 where the float2 pattern had up to 5).
    Expr<std::int32_t> slot(const Expr<std::int32_t>& p) const {
        if (!swizzled) return p;
        if (ex.halves()) return p ^ ((p >> 8) & 15) ^ ((p >> 4) & 16);
        return p ^ (((p >> 4) ^ (p >> 8)) & 15);
    }

    /// Step one's DFT of column v: x[k1] is element t = v + m k1 of the line;
    /// returns its n1-point DFT twiddled by w_R^(v k1), which finish() puts in row k1.
    std::vector<C> column(const std::vector<C>& x) const { return twiddled_dft(x, tw, twiddles_at, v, T); }

    /// Steps two and three after step one's column `y` of this invocation
    /// (held in variables, given where `active`): out(b, d, k, X) for the
    /// n3-point DFTs of its rows, where `active`. Step two: column j' of row
    /// k1 (DFT d = k1 n3 + j' of n1 n3), its n2-point DFT twiddled by w_m^(j'
    /// i') = w_R^(n1 j' i'), written back where it was read. Step three: row
    /// (k1, i') (DFT d = i' n1 + k1 of n1 n2, neighbouring invocations
    /// neighbouring k1), whose n3-point DFT is X[k1 + n1 (i' + n2 k)] = X[d +
    /// n1 n2 k].
    template <class Out>
    void finish(const Expr<bool>& active, const std::deque<Var<float2>>& y, const Out& out) const {
        auto inner = [&](const auto& body) { each_inner(body); };
        auto rows = [&](const auto& body) { each_row(active, body); };
        std::deque<Var<float2>> a = variables(((n1 * n3 + T - 1) / T) * n2), c = variables(rows_each() * n3);
        auto at = [](std::deque<Var<float2>>& vars, int i) -> Var<float2>& { return vars[static_cast<std::size_t>(i)]; };
        ex.swap(
            [&](const auto& store) {
                If(active, [&] {
                    for (int k1 = 0; k1 < n1; ++k1) store(slot(v + m * k1), y[static_cast<std::size_t>(k1)]);
                });
            },
            [&](const auto& load) {
                inner([&](int b, const Int& row, const Int&) {
                    for (int i = 0; i < n2; ++i) load(slot(row + n3 * i), at(a, b * n2 + i));
                });
            });
        inner([&](int b, const Int&, const Int& jp) {
            std::vector<C> x;
            for (int i = 0; i < n2; ++i) x.push_back(at(a, b * n2 + i));
            const std::vector<C> z = register_fft(x);
            for (int ip = 0; ip < n2; ++ip) {
                const C& e = z[static_cast<std::size_t>(ip)];
                at(a, b * n2 + ip) = ip == 0 ? e : cmul(e, tw.load(twiddles_at + (R + ip * n3) + jp));
            }
        });
        // Each invocation overwrites only the slots it read last: no barrier before.
        ex.swap(
            [&](const auto& store) {
                inner([&](int b, const Int& row, const Int&) {
                    for (int i = 0; i < n2; ++i) store(slot(row + n3 * i), at(a, b * n2 + i));
                });
            },
            [&](const auto& load) {
                rows([&](int b, const Int& row, const Expr<std::int32_t>&) {
                    for (int jp = 0; jp < n3; ++jp) load(slot(row + jp), at(c, b * n3 + jp));
                });
            });
        rows([&](int b, const Int&, const Expr<std::int32_t>& d) {
            std::vector<C> x;
            for (int jp = 0; jp < n3; ++jp) x.push_back(at(c, b * n3 + jp));
            const std::vector<C> z = register_fft(x);
            for (int k = 0; k < n3; ++k) out(b, d, k, z[static_cast<std::size_t>(k)]);
        });
    }
    /// body(b, first, j') for the invocation's b-th column of step two: its
    /// elements at first + n3 i.
    template <class Body>
    void each_inner(const Body& body) const {
        each_item(n1 * n3, v, T, [&](int b, const Expr<std::int32_t>& d) { body(b, Int(d / n3 * m + d % n3), Int(d % n3)); });
    }
    /// body(b, first, d) for the invocation's b-th row of step three, where
    /// `active`: its elements at first + j', its DFT X[d + n1 n2 k].
    template <class Body>
    void each_row(const Expr<bool>& active, const Body& body) const {
        If(active, [&] {
            each_item(n1 * n2, v, T, [&](int b, const Expr<std::int32_t>& d) { body(b, Int(d % n1 * m + d / n1 * n3), d); });
        });
    }
    /// Rows an invocation takes in step three.
    int rows_each() const { return (n1 * n2 + T - 1) / T; }
};

}  // namespace

const LineKernel& split3_line_kernel(const Words& words) {
    const Words key = kernel_key(words);
    const int R = key[desc::Length];
    const int T = R / split_line3(R).n1;
    const bool halves = in_halves(R, T);
    return once_per_key(std::pair{key, halves}, [&] {
        return group_kernel(static_cast<std::uint32_t>(T),
            kernel_name("fft_split3_lines_", key) + (halves ? "_halves" : "") + "(src, dst, twiddles, schedule, at, scale)", kInRange,
            [key, R, halves](Array<float2> src, Array<float2> dst, Array<float2> tw, Array<std::int32_t> schedule, Int at, Float scale) {
                const bool conj_out = key[desc::ConjOut] != 0;
                const int out_stride = key[desc::OutStride];
                const ComplexExchange ex(R, halves);
                Int lines = schedule.load(at + int(desc::Lines));
                Int l = group_id();
                const ThreeStep s(ex, tw, schedule.load(at + int(desc::RegisterTwiddles)), local_id(), R);
                // Column v (elements t = v + m k1, pre-twiddled by w_M^(d1 t) in a
                // pass after a line's first).
                std::deque<Var<float2>> column = variables(s.n1);
                If(l < lines, [&] { hold(column, s.column(load_column(key, src, tw, schedule, at, l, s.v, s.m, s.n1))); });
                Int out_base = known_line_address(key, l, desc::OutMul0);
                const int rows = s.n1 * s.n2;
                s.finish(l < lines, column, [&](int, const Expr<std::int32_t>& d, int k, const C& X) {
                    const C e = X * scale;
                    dst.store(out_base + (d + rows * k) * out_stride, conj_out ? conj(e) : e);
                });
            });
    });
}

namespace {

std::atomic<int>& strided3_lines_setting() {
    static std::atomic<int> lines{[] {
        const char* knob = std::getenv("RILL_FFT_STRIDED3_LINES");
        if (!knob || !*knob) return 0;  // not yet timed on a GPU against the split kernel's passes
        const std::string v = knob;
        if (v == "0" || v == "1" || v == "2" || v == "4") return std::stoi(v);
        throw Error("RILL_FFT_STRIDED3_LINES is '" + v + "'; give 1, 2 or 4 (lines a workgroup), 0 (none: strided lines of 4096 in two passes), or unset it");
    }()};
    return lines;
}

}  // namespace

int split3_strided_lines() { return strided3_lines_setting().load(); }
void set_split3_strided_lines(int lines) { strided3_lines_setting().store(lines); }

bool split3_strided_length(std::int64_t R, int G, std::uint32_t max_invocations, std::uint64_t shared_bytes) {
    if (G <= 0 || R <= kLineElements || !split3_length(R)) return false;
    const SplitLine3 f = split_line3(static_cast<int>(R));
    const int m = f.n2 * f.n3;
    return m % 16 == 0 && f.n1 % (kStrided3Rows / G) == 0 && std::uint64_t(G) * m <= max_invocations &&
           std::uint64_t(kStrided3Rows) * m * 8 <= shared_bytes;
}

bool split3_strided(const Words& w) {
    return (w[desc::InStride] != 1 || w[desc::OutStride] != 1) && w[desc::Length] > kLineElements && split3_length(w[desc::Length]);
}

const LineKernel& split3_strided_line_kernel(const Words& words, int G) {
    const Words key = kernel_key(words);
    return once_per_key(std::pair{key, G}, [&] {
        const SplitLine3 f = split_line3(key[desc::Length]);
        return group_kernel(static_cast<std::uint32_t>(G * f.n2 * f.n3),
            kernel_name("fft_split3_strided_lines_", key) + "_g" + std::to_string(G) + "(src, dst, twiddles, schedule, at, scale)", kInRange,
            [key, G, f](Array<float2> src, Array<float2> dst, Array<float2> tw, Array<std::int32_t> schedule, Int at, Float scale) {
                const int n1 = f.n1, n2 = f.n2, n3 = f.n3, m = n2 * n3, R = n1 * m;
                const int h = kStrided3Rows / G, P = n1 / h;  // rows of a part, parts
                const int in_stride = key[desc::InStride], out_stride = key[desc::OutStride];
                const bool conj_out = key[desc::ConjOut] != 0;
                Shared<float2> buffer(G * h * m, dsl::Unchecked{});
                Int lines = schedule.load(at + int(desc::Lines));
                Int twiddles_at = schedule.load(at + int(desc::RegisterTwiddles));
                // Element q of row r (of a part's h) of line g. The low four
                // bits of q are XORed with (g h + r) ^ (q / 16) h: a half-warp's
                // 16 float2 fall in 16 bank pairs when it stores step one's
                // outputs (G lines x 16 / G neighbouring q, strided loads; or
                // 16 neighbouring q), reads step two's columns (16
                // neighbouring q where n3 = 16) and step three's rows (G lines
                // x h rows at one q, strided stores; or h rows x 16 / h
                // columns q / 16).
                auto slot = [&](const Expr<std::int32_t>& g, const Expr<std::int32_t>& r, const Expr<std::int32_t>& q) {
                    Int row = g * h + r;
                    return row * m + (q ^ ((row ^ ((q >> 4) * h)) & 15));
                };
                // Step one: column v of line g (elements t = v + m k1,
                // pre-twiddled by w_M^(d1 t) in a pass after a line's first),
                // its n1-point DFT twiddled by w_R^(v k1), held for row k1.
                Int g1 = 0, v = 0;
                place_item(in_stride, local_id(), m, G, g1, v);
                Int l1 = group_id() * G + g1;
                std::deque<Var<float2>> column = variables(n1);
                If(l1 < lines, [&] { hold(column, twiddled_dft(load_column(key, src, tw, schedule, at, l1, v, m, n1), tw, twiddles_at, v, m)); });
                const int invocations = G * m;
                for (int p = 0; p < P; ++p) {
                    if (p > 0) barrier();  // the part before read the buffer to the end
                    If(l1 < lines, [&] {
                        for (int r = 0; r < h; ++r) buffer.store(slot(g1, Int(r), v), column[static_cast<std::size_t>(p * h + r)]);
                    });
                    barrier();
                    // Step two: column j' of row k1 = p h + r (elements q = j' + n3 i),
                    // its n2-point DFT twiddled by w_R^(n1 j' i') back where it was read.
                    each_item(G * h * n3, local_id(), invocations, [&](int, const Expr<std::int32_t>& e) {
                        Int g = e / (h * n3), r = (e / n3) % h, jp = e % n3;
                        std::vector<C> x;
                        for (int i = 0; i < n2; ++i) x.push_back(buffer.load(slot(g, r, jp + n3 * i)));
                        const std::vector<C> z = register_fft(x);
                        for (int ip = 0; ip < n2; ++ip) {
                            const C& e2 = z[static_cast<std::size_t>(ip)];
                            buffer.store(slot(g, r, jp + n3 * ip), ip == 0 ? e2 : cmul(e2, tw.load(twiddles_at + (R + ip * n3) + jp)));
                        }
                    });
                    barrier();
                    // Step three: row (k1, i') (elements q = i' n3 + j'), its
                    // n3-point DFT X[d + n1 n2 k], d = i' n1 + k1.
                    each_item(G * h * n2, local_id(), invocations, [&](int, const Expr<std::int32_t>& e) {
                        Int g = 0, rest = 0;
                        place_item(out_stride, e, h * n2, G, g, rest);
                        Int r = rest % h, ip = rest / h;
                        Int l = group_id() * G + g;
                        If(l < lines, [&] {
                            std::vector<C> x;
                            for (int jp = 0; jp < n3; ++jp) x.push_back(buffer.load(slot(g, r, ip * n3 + jp)));
                            const std::vector<C> z = register_fft(x);
                            Int base = known_line_address(key, l, desc::OutMul0);
                            Int d = ip * n1 + (p * h + r);
                            for (int k = 0; k < n3; ++k) {
                                const C e3 = z[static_cast<std::size_t>(k)] * scale;
                                dst.store(base + (d + n1 * n2 * k) * out_stride, conj_out ? conj(e3) : e3);
                            }
                        });
                    });
                }
            });
    });
}

bool bluestein_in_one(std::int64_t padded) {
    return !three_step_off() && padded <= kSplit3Longest && split_line3(static_cast<int>(padded)).n1 > 0;
}

const BluesteinKernel& bluestein_kernel(int length, int padded, bool inverse) {
    static std::mutex mutex;
    static std::map<std::tuple<int, int, bool, bool>, std::unique_ptr<BluesteinKernel>> kernels;
    std::lock_guard lock(mutex);
    const bool halves = in_halves(padded);
    auto& k = kernels[{length, padded, inverse, halves}];
    if (k) return *k;
    const int M = padded, n = length;
    const int T = M / split_line3(M).n1;
    k = std::make_unique<BluesteinKernel>(group_kernel(static_cast<std::uint32_t>(T),
        "fft_bluestein_" + std::to_string(n) + "_in_" + std::to_string(M) + (inverse ? "_inverse" : "") + (halves ? "_halves" : "") +
            "(x, y, twiddles, chirp_at, filter_at, split3_twiddles, lines, scale)",
        kInRange, [n, M, inverse, halves](Array<float2> x, Array<float2> y, Array<float2> tw, Int chirp_at, Int filter_at,
                                          Int split3_at, Int lines, Float scale) {
            const ComplexExchange ex(M, halves);
            const ThreeStep s(ex, tw, split3_at, local_id(), M);
            Int l = group_id();
            Expr<bool> active = l < lines;
            Int base = l * n;  // line l's element t
            // a_t = x_t w_t (x conjugated for an inverse), 0 from n to M.
            std::deque<Var<float2>> column = variables(s.n1);
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
                hold(column, s.column(a));
            });
            // A = DFT(a) times the filter's transform F; the inverse DFT of their
            // product as conj(DFT(conj(A F))), so the second transform is the first's code.
            std::deque<Var<float2>> held = variables(s.rows_each() * s.n3);
            const int rows = s.n1 * s.n2;
            s.finish(active, column, [&](int b, const Expr<std::int32_t>& d, int k, const C& A) {
                held[static_cast<std::size_t>(b * s.n3 + k)] = conj(cmul(A, tw.load(filter_at + d + rows * k)));
            });
            // The product in the line's order (after every invocation's last
            // reads of the rows), then column v of it.
            barrier();
            std::deque<Var<float2>> product = variables(s.n1);
            ex.swap(
                [&](const auto& store) {
                    s.each_row(active, [&](int b, const Int&, const Expr<std::int32_t>& d) {
                        for (int k = 0; k < s.n3; ++k) store(s.slot(d + rows * k), held[static_cast<std::size_t>(b * s.n3 + k)]);
                    });
                },
                [&](const auto& load) {
                    If(active, [&] {
                        for (int k1 = 0; k1 < s.n1; ++k1) load(s.slot(s.v + s.m * k1), product[static_cast<std::size_t>(k1)]);
                    });
                });
            If(active, [&] { hold(column, s.column(std::vector<C>(product.begin(), product.end()))); });
            // y_t = scale w_t conj(B_t) for t < n (conjugated for an inverse).
            s.finish(active, column, [&](int, const Expr<std::int32_t>& d, int k, const C& B) {
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
                // A whole workgroup's lines loaded first, then stored: NVIDIA's OpenGL
                // compiler kept each guarded load with its store in a branch of its
                // own, one load in flight (lines of 16 2.5x slower than through
                // Vulkan, docs/PERFORMANCE.md#opengl-against-vulkan).
                If(here == Int(kStagedLines * R), [&] {
                    std::deque<Var<float2>> loaded;
                    for (int k = 0; k < R; ++k) loaded.emplace_back(src.load(base + local_id() + k * kStagedLines));
                    for (int k = 0; k < R; ++k) buf.store(slot(local_id() + k * kStagedLines), loaded[static_cast<std::size_t>(k)]);
                }).Else([&] {
                    for (int k = 0; k < R; ++k) {
                        Int e = local_id() + k * kStagedLines;
                        If(e < here, [&] { buf.store(slot(e), src.load(base + e)); });
                    }
                });
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
