// Perona-Malik diffusion as a Stencil, and region growing over the active
// tiles found by compaction (rill/algorithms/segment.h).
#include <rill/algorithms/compact.h>
#include <rill/algorithms/detail/dense_streams.h>
#include <rill/algorithms/detail/rows.h>
#include <rill/algorithms/segment.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace rill::segment {

namespace {

constexpr int kTile = 32;  // growth tiles: kTile x kTile pixels, one workgroup each
constexpr int kWorkgroup = 256;
constexpr int kRowsApart = kWorkgroup / kTile;        // an invocation's pixels: rows ly, ly + 8, ...
constexpr int kPixels = kTile * kTile / kWorkgroup;  // pixels per invocation

void check_image(const char* who, const Stream<float>& image) {
    if (image.shape().rank != 2)
        throw Error(std::string(who) + ": the image has shape " + image.shape().str() + "; give a 2D stream (rows x columns)");
    if (image.shape().size() == 0)
        throw Error(std::string(who) + ": the image has 0 pixels (" + image.shape().str() + "); give an image of at least 1 x 1");
    if (image.shape().size() > 0x7fffffff) throw Error(std::string(who) + ": more than 2^31 - 1 pixels; split the image");
}

void check_same(const char* who, const Stream<float>& image, const StreamBase& s, const char* name) {
    if (!(s.shape() == image.shape()))
        throw Error(std::string(who) + ": " + name + " has shape " + s.shape().str() + " but the image " + image.shape().str() +
                    "; give " + name + " of the image's shape");
    detail::require_runtime_of(who, s, name, image, "the image");
    detail::require_dense(who, s, name);
}

void check_diffusion(const char* who, const Diffusion& d) {
    if (d.iterations < 0) throw Error(std::string(who) + ": diffusion.iterations is " + std::to_string(d.iterations) + "; give 0 or more");
    if (!(d.time_step > 0.0f && d.time_step <= 0.25f))
        throw Error(std::string(who) + ": diffusion.time_step is " + std::to_string(d.time_step) +
                    "; give a time step in (0, 0.25] (above 0.25 the explicit scheme on four neighbours is unstable)");
    // The exponential conductance's kernel takes -log2(e) / K^2 as a float (perona_malik).
    if (!(d.contrast >= kMinContrast && d.contrast <= kMaxContrast)) {
        char got[32];
        std::snprintf(got, sizeof got, "%g", static_cast<double>(d.contrast));
        throw Error(std::string(who) + ": diffusion.contrast is " + got +
                    "; give a K from 1e-18 to 1e18 in the image's units (gradients well above K are kept as edges)");
    }
}

void check_growth(const char* who, const Growth& g) {
    if (std::isnan(g.low) || std::isnan(g.high) || g.low > g.high)
        throw Error(std::string(who) + ": growth.low " + std::to_string(g.low) + " and growth.high " + std::to_string(g.high) +
                    " give no range; give low <= high");
    if (g.max_passes < 0)
        throw Error(std::string(who) + ": growth.max_passes is " + std::to_string(g.max_passes) + "; give 0 (until convergence) or more");
}

/// The diffusion step for one conductance and boundary rule; params = (dt, k):
/// k = -log2(e) / K^2 for the exponential conductance, whose exp(-(d / K)^2)
/// is exp2((d k) d): two multiplies, where -(d s)^2 took an add more for the
/// negation (NVIDIA's compilers do not fold a negation into a multiply or
/// exp2). Exact while k is a normal float (K from 1e-18 to 1e18, which
/// check_diffusion asks for): where d k underflows, |d| < 1 and the exponent
/// is below the smallest float; where it overflows, |d| > 1 and the exponent
/// is past the largest. k = 1 / K for the rational one, 1 / (1 + (d k)^2).
/// With `fluxes` the body sums the fluxes g(d) d (Neighbourhood::flux), each
/// made once where an invocation's elements share the edge; otherwise it adds
/// the terms by fma over the edges' differences and conductances
/// (Neighbourhood::edge), each conductance made once: the product and one add
/// an edge fewer (uses_fluxes picks).
const Stencil<float>& perona_malik(Conductance c, Boundary b, bool fluxes) {
    static std::mutex mutex;
    static std::map<std::tuple<Conductance, Boundary, bool>, Stencil<float>> stencils;
    std::lock_guard lock(mutex);
    auto it = stencils.find({c, b, fluxes});
    if (it != stencils.end()) return it->second;
    const bool exponential = c == Conductance::Exponential;
    // g(d), even in d: the conductance.
    auto conductance = [exponential](const Expr<float>& d, const Expr<float4>& p) -> Expr<float> {
        Float scaled = d * p.y();
        return exponential ? exp2(scaled * d) : 1.0f / (1.0f + scaled * scaled);
    };
    const std::string name = std::string(exponential ? "perona_malik_exp" : "perona_malik_rational") + (fluxes ? "_fluxes" : "");
    Stencil<float> s(name, 1,
                     [conductance, fluxes](const Neighbourhood<float>& n, const Expr<float4>& p) -> Expr<float> {
                         static constexpr int kAround[4][2] = {{-1, 0}, {1, 0}, {0, 1}, {0, -1}};
                         if (fluxes) {
                             // The flux from a to b, antisymmetric bit for bit (d and -d give the
                             // same square), so that neighbours share it (Neighbourhood::flux).
                             auto flux = [&p, &conductance](const Expr<float>& a, const Expr<float>& b) -> Expr<float> {
                                 Float d = b - a;
                                 return conductance(d, p) * d;
                             };
                             Float sum = n.flux(kAround[0][0], kAround[0][1], flux);
                             for (int i = 1; i < 4; ++i) sum = sum + n.flux(kAround[i][0], kAround[i][1], flux);
                             return fma(p.x(), sum, n(0, 0));
                         }
                         auto g = [&p, &conductance](const Expr<float>& d) { return conductance(d, p); };
                         auto first = n.edge(kAround[0][0], kAround[0][1], g);
                         Float sum = first.weight * first.difference;
                         for (int i = 1; i < 4; ++i) {
                             auto e = n.edge(kAround[i][0], kAround[i][1], g);
                             sum = fma(e.weight, e.difference, sum);
                         }
                         return fma(p.x(), sum, n(0, 0));
                     },
                     b);
    return stencils.emplace(std::tuple{c, b, fluxes}, std::move(s)).first->second;
}

/// Whether the diffusion on `info`'s device sums fluxes: where its
/// invocations run in sequence (the CPU backend), whose compiled kernels
/// ran an iteration of 1024^2 in 4.65 ms with fluxes against 5.07 with edges
/// (2 cores, 2026-12-07, medians of six alternations), where GPUs run the
/// edges faster (H100: 0.97 -> 0.92 of the copy through Vulkan, 0.98 ->
/// 0.95 through OpenGL; docs/PERFORMANCE.md#segment). RILL_SEGMENT_FLUXES=1
/// or 0 (an A/B knob) takes fluxes or edges everywhere.
bool uses_fluxes(const BackendInfo& info) {
    const long knob = env_count("RILL_SEGMENT_FLUXES", 0, 1, -1, "the form (0: edges, 1: fluxes)");
    return knob < 0 ? detail::rows_pay(info) : knob == 1;
}

/// Active tiles are stored as id + 1 (0: inactive), so that the compaction's
/// predicate sees the id it keeps.
const Filter<std::int32_t>& active_tiles() {
    static const Filter<std::int32_t> keep("segment_active_tiles", [](Expr<std::int32_t> x) { return x != 0; });
    return keep;
}

/// Seeds to 1, everything else to 0; each seed's tile active, and the tile
/// across the border where a seed lies on one.
void mark_seeds(const Stream<std::uint32_t>& mask, const Stream<std::int32_t>& flags, std::int64_t h, std::int64_t w, std::int64_t tiles_x) {
    static const auto kernel = group_kernel<256>("segment_mark_seeds(mask, flags, h, w, tiles_x)",
                                                 [](Array<std::uint32_t> mask, Array<std::int32_t> flags, Int h, Int w, Int tiles_x) {
        Int i = global_id();
        If(i < h * w && mask.load(i) != 0u, [&] {
            mask.store(i, 1u);
            Int y = i / w, x = i - (i / w) * w;
            Int ty = y / kTile, tx = x / kTile;
            auto activate = [&](const Expr<std::int32_t>& t) { flags.store(t, t + 1); };
            activate(ty * tiles_x + tx);
            If(y % kTile == 0 && ty > 0, [&] { activate((ty - 1) * tiles_x + tx); });
            If(y % kTile == kTile - 1 && y + 1 < h, [&] { activate((ty + 1) * tiles_x + tx); });
            If(x % kTile == 0 && tx > 0, [&] { activate(ty * tiles_x + tx - 1); });
            If(x % kTile == kTile - 1 && x + 1 < w, [&] { activate(ty * tiles_x + tx + 1); });
        });
    });
    kernel(Groups{(h * w + 255) / 256}, mask, flags, static_cast<std::int32_t>(h), static_cast<std::int32_t>(w),
           static_cast<std::int32_t>(tiles_x));
}

/// The streams one pass reads and writes (grow_pass).
struct PassLists {
    Stream<std::int32_t> list, listed, flags, next;
    Stream<std::uint32_t> count, next_count, clear;
};

/// One pass: every listed tile grows to its fixed point in shared memory
/// (its neighbours outside the tile read from `mask` as they are); a pixel
/// that joins on the tile's border activates the tile across that border.
/// Labels only go from 0 to 1, so reading a neighbouring tile's pixel before
/// or after that tile sets it are both right: a late one is seen next pass.
/// The list's length stays on the device: workgroups take tiles g, g + groups,
/// ... so that any number of workgroups covers it, and the host reads the
/// count only every few passes. The pass makes the next pass's list itself,
/// so that a pass is one dispatch (a compaction of flags after each pass was
/// more dispatches, and the passes are short): the first activation of a
/// tile (an atomic exchange of its flag in `flags`, all zeros when the pass
/// starts) appends it to `next` at an atomic count in `next_count`. Each
/// listed tile clears its own flag in `listed` (all zeros again for the pass
/// after next), and the pass clears `clear`, the count the pass after it
/// appends to. Lists hold tile ids + 1. stats[0] += tiles processed,
/// stats[1] += 1 for a pass with any.
void grow_pass(const Stream<float>& image, const Stream<std::uint32_t>& mask, const PassLists& at, const Stream<std::uint32_t>& stats,
               std::int64_t groups, float low, float high, std::int64_t h, std::int64_t w, std::int64_t tiles_x) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "segment_grow(image, mask, list, count, listed, flags, next, next_count, clear, stats, low, high, h, w, tiles_x)",
        [](Array<float> image, Array<std::uint32_t> mask, Array<std::int32_t> list, Array<std::uint32_t> count,
           Array<std::int32_t> listed, Array<std::int32_t> flags, Array<std::int32_t> next, Array<std::uint32_t> next_count,
           Array<std::uint32_t> clear, Array<std::uint32_t> stats, Float low, Float high, Int h, Int w, Int tiles_x) {
            Shared<std::uint32_t> labels(kTile * kTile);
            Shared<std::uint32_t> changed(3);  // round k sets slot k % 3 (see the loop)
            Int n = cast<std::int32_t>(count.load(0));
            Int l = local_id();
            Int lx = l % kTile;
            If(l == 0 && group_id() == 0, [&] {
                clear.store(0, 0u);
                If(n > 0, [&] { stats.atomic_add(1, 1u); });
            });
            Var<std::int32_t> e = group_id();
            While([&] { return e < n; }, [&] {
                Int tile = list.load(e) - 1;
                Int ty = tile / tiles_x, tx = tile - (tile / tiles_x) * tiles_x;
                Int x = tx * kTile + lx;
                // The tile's pixels in shared memory: 1 in the region, 2 may join, 0 may not.
                for (int p = 0; p < kPixels; ++p) {
                    Int ly = l / kTile + p * kRowsApart;
                    Int y = ty * kTile + ly;
                    Bool inside = y < h && x < w;
                    Int i = min(y, h - 1) * w + min(x, w - 1);
                    Float v = image.load(i);
                    labels.store(ly * kTile + lx, select(inside && mask.load(i) != 0u, 1u, select(inside && v >= low && v <= high, 2u, 0u)));
                }
                If(l < 3, [&] { changed.store(l, 0u); });
                If(l == 0, [&] {
                    stats.atomic_add(0, 1u);
                    listed.store(tile, 0);
                });
                barrier();
                // Rounds of sweeps: invocations 0-127 each carry the region along a
                // row or a column of the tile, in one of the two directions, all at
                // once (labels only go from 2 to 1, so their races are benign), until
                // a round changes nothing. A sweep starts from the pixel outside the
                // tile's edge (from mask), so a neighbouring tile's region enters.
                Int line = l % kTile, kind = l / kTile;  // kind: 0 rows forward, 1 rows backward, 2 columns down, 3 columns up
                Var<std::int32_t> k = 0;
                Var<bool> again = true;
                While([&] { return again; }, [&] {
                    If(kind < 4, [&] {
                        auto place = [&](const Expr<std::int32_t>& step, Var<std::int32_t>& r, Var<std::int32_t>& c) {
                            Int along = select(kind == 1 || kind == 3, kTile - 1 - step, step);
                            r = select(kind < 2, line, along);
                            c = select(kind < 2, along, line);
                        };
                        Var<std::int32_t> r = 0, c = 0;
                        place(Expr<std::int32_t>(-1), r, c);  // the pixel before the first, outside the tile
                        Int gy = ty * kTile + r, gx = tx * kTile + c;
                        Var<bool> carry = gy >= 0 && gy < h && gx >= 0 && gx < w && mask.load(max(gy, 0) * w + max(gx, 0)) != 0u;
                        For(0, kTile, [&](Int step) {
                            place(step, r, c);
                            Int at = r * kTile + c;
                            UInt now = labels.load(at);
                            If(now == 2u && carry, [&] {
                                Int y = ty * kTile + r, x = tx * kTile + c;
                                labels.store(at, 1u);
                                mask.store(y * w + x, 1u);
                                changed.store(k % 3, 1u);
                                auto activate = [&](const Expr<std::int32_t>& t) {
                                    If(flags.atomic_exchange(t, 1) == 0, [&] { next.store(cast<std::int32_t>(next_count.atomic_add(0, 1u)), t + 1); });
                                };
                                If(r == 0 && y > 0, [&] { activate(tile - tiles_x); });
                                If(r == kTile - 1 && y + 1 < h, [&] { activate(tile + tiles_x); });
                                If(c == 0 && x > 0, [&] { activate(tile - 1); });
                                If(c == kTile - 1 && x + 1 < w, [&] { activate(tile + 1); });
                            });
                            carry = now == 1u || (now == 2u && carry);
                        });
                    });
                    // Slot (k + 1) % 3 was last read in round k - 2, which every
                    // invocation finished before the barrier of round k - 1.
                    If(l == 0, [&] { changed.store((k + 1) % 3, 0u); });
                    barrier();
                    again = changed.load(k % 3) != 0u;
                    k += 1;
                });
                barrier();  // every invocation is done with this tile's labels and flags
                e += num_groups();
            });
        });
    kernel(Groups{groups}, image, mask, at.list, at.count, at.listed, at.flags, at.next, at.next_count, at.clear, stats, low, high,
           static_cast<std::int32_t>(h), static_cast<std::int32_t>(w), static_cast<std::int32_t>(tiles_x));
}

/// Passes between two reads of the active count: a pass whose list is empty
/// costs a small dispatch, a read a round trip to the host.
constexpr int kPassesPerRead = 16;

GrowthStats grow_checked(const Stream<float>& image, const Stream<std::uint32_t>& mask, const Growth& g) {
    const std::int64_t h = image.shape()[0], w = image.shape()[1];
    const std::int64_t tiles_x = (w + kTile - 1) / kTile, tiles = tiles_x * ((h + kTile - 1) / kTile);
    Runtime rt = Runtime::of(image);
    // Pass p lists its tiles in lists[p % 2] (flags[p % 2] nonzero for them) and
    // counts them in counts[p % 3]; the first list is a compaction of the seeds' flags.
    const std::array<Stream<std::int32_t>, 2> flags = {rt.stream<std::int32_t>({tiles}), rt.stream<std::int32_t>({tiles})};
    const std::array<Stream<std::int32_t>, 2> lists = {rt.scratch<std::int32_t>({tiles}), rt.scratch<std::int32_t>({tiles})};
    const std::array<Stream<std::uint32_t>, 3> counts = {rt.stream<std::uint32_t>({1}), rt.stream<std::uint32_t>({1}),
                                                         rt.stream<std::uint32_t>({1})};
    // stats[2]: the count of the list read last (copied there, so that the
    // passes' statistics come back with it in one read).
    auto stats = rt.stream<std::uint32_t>({3});
    mark_seeds(mask, flags[0], h, w, tiles_x);
    active_tiles()(flags[0], lists[0], counts[0]);
    std::int64_t known = counts[0].download()[0];
    std::vector<std::uint32_t> s = {0, 0, 0};
    int dispatched = 0;
    // Workgroups per pass: enough for the last count read and the front's growth since.
    while (known > 0 && !(g.max_passes > 0 && dispatched == g.max_passes)) {
        const std::int64_t groups = std::min(tiles, std::max<std::int64_t>(2 * known, 64));
        for (int p = 0; p < kPassesPerRead && !(g.max_passes > 0 && dispatched == g.max_passes); ++p, ++dispatched) {
            const int a = dispatched % 2, b = 1 - a;
            grow_pass(image, mask,
                      PassLists{lists[a], flags[a], flags[b], lists[b], counts[dispatched % 3], counts[(dispatched + 1) % 3],
                                counts[(dispatched + 2) % 3]},
                      stats, groups, g.low, g.high, h, w, tiles_x);
        }
        detail::copy_stream(counts[dispatched % 3], stats.domain({2}, {3}));
        s = stats.download();
        known = s[2];
    }
    return GrowthStats{static_cast<int>(s[1]), known == 0, static_cast<std::int64_t>(s[0])};
}

}  // namespace

void diffuse(const Stream<float>& image, const Stream<float>& out, const Diffusion& d) {
    const char* who = "rill::segment::diffuse";
    check_image(who, image);
    check_same(who, image, image, "the image");
    check_same(who, image, out, "the output");
    check_diffusion(who, d);
    const double k = static_cast<double>(d.contrast);
    const double scale = d.conductance == Conductance::Exponential ? -std::log2(std::exp(1.0)) / (k * k) : 1.0 / k;
    perona_malik(d.conductance, d.boundary, uses_fluxes(Runtime::of(image).info()))(image, out, d.iterations,
                                                                                     float4{d.time_step, static_cast<float>(scale), 0.0f, 0.0f});
}

GrowthStats grow(const Stream<float>& image, const Stream<std::uint32_t>& mask, const Growth& g) {
    const char* who = "rill::segment::grow";
    check_image(who, image);
    check_same(who, image, image, "the image");
    check_same(who, image, mask, "the mask");
    check_growth(who, g);
    return grow_checked(image, mask, g);
}

GrowthStats segment(const Stream<float>& image, const Stream<float>& diffused, const Stream<std::uint32_t>& mask,
                    const Options& options) {
    const char* who = "rill::segment::segment";
    check_image(who, image);
    check_same(who, image, image, "the image");
    check_same(who, image, diffused, "the diffused image");
    check_same(who, image, mask, "the mask");
    check_diffusion(who, options.diffusion);
    check_growth(who, options.growth);
    diffuse(image, diffused, options.diffusion);
    return grow_checked(diffused, mask, options.growth);
}

namespace {

void check_seeds(const char* who, const std::vector<int2>& seeds, const Shape& shape) {
    const std::int64_t h = shape[0], w = shape[1];
    for (std::size_t s = 0; s < seeds.size(); ++s)
        if (seeds[s].x < 0 || seeds[s].x >= h || seeds[s].y < 0 || seeds[s].y >= w)
            throw Error(std::string(who) + ": seed " + std::to_string(s) + " at (row " + std::to_string(seeds[s].x) + ", column " +
                        std::to_string(seeds[s].y) + ") is outside the image of " + shape.str() + "; give seeds with 0 <= row < " +
                        std::to_string(h) + " and 0 <= column < " + std::to_string(w));
}

void write_seeds(const std::vector<int2>& seeds, const Stream<std::uint32_t>& mask) {
    const std::int64_t w = mask.shape()[1];
    std::vector<std::uint32_t> m(static_cast<std::size_t>(mask.size()), 0u);
    for (const int2& s : seeds) m[static_cast<std::size_t>(s.x * w + s.y)] = 1u;
    Stream<std::uint32_t>(mask).upload(m);
}

}  // namespace

void seed_mask(const std::vector<int2>& seeds, const Stream<std::uint32_t>& mask) {
    const char* who = "rill::segment::seed_mask";
    if (mask.shape().rank != 2)
        throw Error(std::string(who) + ": the mask has shape " + mask.shape().str() + "; give a 2D stream (rows x columns)");
    detail::require_dense(who, mask, "the mask");
    check_seeds(who, seeds, mask.shape());
    write_seeds(seeds, mask);
}

GrowthStats segment(const Stream<float>& image, const std::vector<int2>& seeds, const Stream<float>& diffused,
                    const Stream<std::uint32_t>& mask, const Options& options) {
    const char* who = "rill::segment::segment";
    check_image(who, image);
    check_same(who, image, mask, "the mask");
    check_seeds(who, seeds, image.shape());
    check_same(who, image, diffused, "the diffused image");
    check_diffusion(who, options.diffusion);
    check_growth(who, options.growth);
    write_seeds(seeds, mask);
    return segment(image, diffused, mask, options);
}

}  // namespace rill::segment
