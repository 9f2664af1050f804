// rill::particles::Engine: the step's stages in order (stages.cpp), the
// motion kernel with its forces and boundaries (traced per engine, as it
// holds the user's force), and the checks of the engine's inputs.
#include <rill/algorithms/bitonic_sort.h>
#include <rill/algorithms/detail/dense_streams.h>
#include <rill/algorithms/radix_sort.h>
#include <rill/dsl/sampling.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>

#include "kernels.h"

namespace rill::particles {

namespace {

constexpr int kWorkgroup = 256;
std::int64_t groups_for(std::int64_t n) { return (n + kWorkgroup - 1) / kWorkgroup; }
constexpr std::int64_t kMaxCells = std::int64_t{1} << 27;
constexpr int kCheckEvery = 16;

/// Lifts a particle below the height field onto it; reflects its velocity
/// off the field's normal. field = (rows, columns); box lo, hi; r, e.
void height_response(const Gather<float, 2>& height, const Int4& field, const Float4& lo, const Float4& hi, Var<float3>& p,
                     Var<float3>& v) {
    Float2 world_per = Float2((hi.z() - lo.z()) / cast<float>(max(field.x() - 1, Int(1))),
                              (hi.x() - lo.x()) / cast<float>(max(field.y() - 1, Int(1))));
    Float2 at = Float2(p.z() - lo.z(), p.x() - lo.x()) / world_per;
    Float h = sample_linear(height, at);
    If(p.y() < h + lo.w(), [&] {
        Float dz = (sample_linear(height, at + Float2(0.5f, 0.0f)) - sample_linear(height, at - Float2(0.5f, 0.0f))) / world_per.x();
        Float dx = (sample_linear(height, at + Float2(0.0f, 0.5f)) - sample_linear(height, at - Float2(0.0f, 0.5f))) / world_per.y();
        Float3 n = normalize(Float3(-dx, 1.0f, -dz));
        p = Float3(p.x(), h + lo.w(), p.z());
        Float vn = dot(v, n);
        If(vn < 0.0f, [&] { v = v - n * ((1.0f + hi.w()) * vn); });
    });
}

/// Pushes a particle closer than r to the distance field's surface out
/// along its gradient; reflects its velocity. field = (nx, ny, nz).
void distance_response(const Gather<float, 3>& sdf, const Int4& field, const Float4& lo, const Float4& hi, Var<float3>& p,
                       Var<float3>& v) {
    Float3 per_world = cast<float>(max(field.xyz() - 1, Int3(1))) / (hi.xyz() - lo.xyz());
    auto distance = [&](const Expr<float3>& x) {
        Float3 g = (x - lo.xyz()) * per_world;
        return Expr<float>(sample_linear(sdf, Float3(g.z(), g.y(), g.x())));
    };
    Var<float> d = distance(p);
    If(d < lo.w(), [&] {
        Float3 half = 0.5f / per_world;
        Var<float3> n = Float3(0.0f, 1.0f, 0.0f);
        For(0, 4, [&](Int) {
            Float3 grad = Float3(distance(p + Float3(half.x(), 0.0f, 0.0f)) - distance(p - Float3(half.x(), 0.0f, 0.0f)),
                                 distance(p + Float3(0.0f, half.y(), 0.0f)) - distance(p - Float3(0.0f, half.y(), 0.0f)),
                                 distance(p + Float3(0.0f, 0.0f, half.z())) - distance(p - Float3(0.0f, 0.0f, half.z())));
            Float g2 = dot(grad, grad);
            If(g2 > 0.0f, [&] { n = grad * inversesqrt(g2); });
            p = p + n * (lo.w() - d);
            d = distance(p);
            If(d >= lo.w(), [&] { Break(); });
        });
        Float vn = dot(v, n);
        If(vn < 0.0f, [&] { v = v - n * ((1.0f + hi.w()) * vn); });
    });
}

/// The motion kernel: out[i] = sorted[i] moved by dt. lo = (box.lo, r),
/// hi = (box.hi, restitution), motion = (gravity, drag), clock = (time, dt),
/// flags = (walls, cells, step), height = (rows, columns, on), sdf = (nx, ny, nz, on).
auto make_motion(const std::string& name, Force force) {
    return group_kernel<kWorkgroup>(
        name + "_motion(sorted, keys, dv, dp, out, height, sdf, status, lo, hi, motion, clock, flags, height_dims, sdf_dims)",
        [force](Array<Particle> sorted, Array<std::uint32_t> keys, Array<float> dv, Array<float> dp, Array<Particle> out,
                Gather<float, 2> height, Gather<float, 3> sdf, Array<std::uint32_t> status, Float4 lo, Float4 hi, Float4 motion,
                Float2 clock, Int4 flags, Int4 height_dims, Int4 sdf_dims) {
            Int i = global_id();
            If(i < out.size(), [&] {
                Var<Particle> q = sorted.load(i);
                If(keys.load(i) < cast<std::uint32_t>(flags.y()), [&] {
                    Float3 p0 = q.position, v0 = q.velocity;
                    Var<float3> a = motion.xyz() - v0 * motion.w();
                    if (force) a = a + force(p0, v0, clock.x());
                    Var<float3> v = v0 + a * clock.y() + dv.load_vector<4>(i).xyz();
                    Var<float3> p = p0 + v * clock.y() + dp.load_vector<4>(i).xyz();
                    If(flags.x() != 0, [&] {
                        Float3 low = lo.xyz() + lo.w(), high = hi.xyz() - lo.w();
                        Float3 back = v * -hi.w();
                        v = select(p < low, max(v, back), select(p > high, min(v, back), Expr<float3>(v)));
                        p = clamp(p, low, high);
                    });
                    If(height_dims.z() != 0, [&] { height_response(height, height_dims, lo, hi, p, v); });
                    If(sdf_dims.w() != 0, [&] { distance_response(sdf, sdf_dims, lo, hi, p, v); });
                    Bool finite = !any(isnan(p)) && !any(isinf(p)) && !any(isnan(v)) && !any(isinf(v));
                    If(finite, [&] {
                        q.position = p;
                        q.velocity = v;
                    }).Else([&] {
                        If(status.atomic_add(0, 1u) == 0u, [&] {
                            status.store(1, cast<std::uint32_t>(flags.z()));
                            status.store(2, cast<std::uint32_t>(i));
                            status.store(3, float_bits_to_uint(p.x()));
                            status.store(4, float_bits_to_uint(p.y()));
                            status.store(5, float_bits_to_uint(p.z()));
                            status.store(6, float_bits_to_uint(v.x()));
                            status.store(7, float_bits_to_uint(v.y()));
                            status.store(8, float_bits_to_uint(v.z()));
                        });
                        q.life = 0.0f;
                    });
                });
                out.store(i, q);
            });
        });
}

using MotionKernel = decltype(make_motion("", Force()));

bool finite3(const float3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

std::string text(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}
std::string text(const float3& v) { return "(" + text(v.x) + ", " + text(v.y) + ", " + text(v.z) + ")"; }

}  // namespace

struct Engine::State {
    Runtime rt;
    Options options;
    detail::GridParams grid{};
    int key_bits = 1;
    std::int64_t n = 0;
    Stream<Particle> items;  // the particles (after a step: in the step's sorted order)
    detail::Sorted sorted;   // sorted.items doubles as the motion kernel's output
    Stream<std::uint32_t> keys;
    Stream<std::int32_t> ids;
    Stream<float> dv, dp;  // 4 floats a particle
    Stream<std::uint32_t> status;
    Stream<float> height, sdf;
    bool has_height = false, has_sdf = false;
    std::vector<Emitter> emitters;
    std::vector<double> carry;
    double time = 0;
    std::uint64_t steps = 0;
    bool grid_current = false;  // sorted.* and keys describe `items` now
    MotionKernel motion;

    State(Runtime r, const Options& o) : rt(std::move(r)), options(o), motion(make_motion(o.name, o.force)) {}

    /// Keys at the engine's time, sorted, the particles gathered in their
    /// order; `items` becomes that order.
    void regrid(StageTimes* times);
    template <class F>
    void stage(StageTimes* times, double StageTimes::*slot, F f) {
        if (!times) return f();
        const auto t0 = std::chrono::steady_clock::now();
        f();
        rt.finish();
        times->*slot = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
};

namespace {

void check_options(const char* who, const Options& o) {
    if (!(std::isfinite(o.radius) && o.radius > 0))
        throw Error(std::string(who) + ": Options::radius is " + text(o.radius) +
                    "; give a positive radius (the grid's cells are twice the radius wide)");
    const float3 &lo = o.box.lo, &hi = o.box.hi;
    if (!finite3(lo) || !finite3(hi) || !(lo.x < hi.x && lo.y < hi.y && lo.z < hi.z))
        throw Error(std::string(who) + ": Options::box runs from " + text(lo) + " to " + text(hi) +
                    "; give finite corners with lo < hi on every axis");
    if (o.walls && (hi.x - lo.x <= 2 * o.radius || hi.y - lo.y <= 2 * o.radius || hi.z - lo.z <= 2 * o.radius))
        throw Error(std::string(who) + ": Options::box " + text(lo) + " to " + text(hi) + " is no wider than a particle (radius " +
                    text(o.radius) + ") on some axis; make the box larger or the radius smaller");
    if (!finite3(o.gravity) || !std::isfinite(o.drag) || !(o.stiffness >= 0 && std::isfinite(o.stiffness)) ||
        !(o.damping >= 0 && std::isfinite(o.damping)))
        throw Error(std::string(who) + ": Options::gravity, drag, stiffness and damping must be finite (stiffness and damping >= 0)");
    if (!(o.restitution >= 0 && o.restitution <= 1))
        throw Error(std::string(who) + ": Options::restitution is " + text(o.restitution) + "; give 0 (no bounce) to 1 (elastic)");
}

detail::GridParams grid_for(const char* who, const Options& o) {
    const double cell = 2.0 * o.radius * (1 + 1e-5);  // wider than the reach, so that rounding never skips a cell
    std::int64_t d[3];
    const float lo[3] = {o.box.lo.x, o.box.lo.y, o.box.lo.z}, hi[3] = {o.box.hi.x, o.box.hi.y, o.box.hi.z};
    double cells = 1;
    for (int a = 0; a < 3; ++a) {
        const double c = std::ceil((static_cast<double>(hi[a]) - lo[a]) / cell);
        d[a] = std::max<std::int64_t>(1, c > 1e12 ? std::int64_t{1} << 40 : static_cast<std::int64_t>(c));
        cells *= static_cast<double>(d[a]);
    }
    if (cells > static_cast<double>(kMaxCells))
        throw Error(std::string(who) + ": the box " + text(o.box.lo) + " to " + text(o.box.hi) + " with radius " + text(o.radius) +
                    " makes a grid of " + text(cells) + " cells (more than 2^27); make the radius larger or the box smaller");
    detail::GridParams g;
    g.grid = {lo[0], lo[1], lo[2], static_cast<float>(1.0 / cell)};
    g.dims = {static_cast<std::int32_t>(d[0]), static_cast<std::int32_t>(d[1]), static_cast<std::int32_t>(d[2]),
              static_cast<std::int32_t>(d[0] * d[1] * d[2])};
    return g;
}

}  // namespace

void Engine::State::regrid(StageTimes* times) {
    stage(times, &StageTimes::keys, [&] { detail::cell_keys(items, keys, ids, grid, static_cast<float>(time)); });
    stage(times, &StageTimes::sort, [&] {
        if (options.sort == SortAlgorithm::Bitonic) bitonic_sort(keys, ids);
        else radix_sort(keys, ids, {.bits = key_bits});
    });
    stage(times, &StageTimes::neighbours, [&] {
        detail::gather_sorted(keys, ids, items, sorted, grid);
        std::swap(items, sorted.items);
    });
    grid_current = true;
}

Engine::Engine(const Stream<Particle>& particles, const Options& options) {
    const char* who = "rill::particles::Engine";
    rill::detail::require_dense(who, particles, "the particle stream");
    check_options(who, options);
    const std::int64_t n = particles.size();
    if (n == 0) throw Error(std::string(who) + ": the particle stream is empty; give at least one particle (free slots have life 0)");
    if (n >= (std::int64_t{1} << 31) - 1)
        throw Error(std::string(who) + ": " + std::to_string(n) + " particles; give fewer than 2^31 - 1");
    s_ = std::make_unique<State>(Runtime::of(particles), options);
    State& s = *s_;
    Runtime& rt = s.rt;
    s.grid = grid_for(who, options);
    const std::uint64_t table = 8 * static_cast<std::uint64_t>(s.grid.dims.w), limit = rt.info().limits.max_buffer_bytes;
    if (limit > 0 && table > limit)
        throw Error(std::string(who) + ": the grid of " + std::to_string(s.grid.dims.w) + " cells (box " + text(options.box.lo) + " to " +
                    text(options.box.hi) + ", radius " + text(options.radius) + ") needs a cell table of " + std::to_string(table) +
                    " bytes, more than the largest stream of this device (" + std::to_string(limit) +
                    " bytes); make the radius larger or the box smaller");
    s.key_bits = std::max(1, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(s.grid.dims.w + 1))));
    s.n = n;
    s.items = rt.stream<Particle>({n});
    rill::detail::copy_stream(particles.reshape({n}), s.items);
    s.sorted = {rt.scratch<Particle>({n}), rt.scratch<float>({4 * n}), rt.scratch<float>({4 * n}),
                rt.stream<std::int32_t>({2 * std::int64_t{s.grid.dims.w}}), rt.stream<std::uint32_t>({1})};
    s.keys = rt.scratch<std::uint32_t>({n});
    s.ids = rt.scratch<std::int32_t>({n});
    s.dv = rt.stream<float>({4 * n});
    s.dp = rt.stream<float>({4 * n});
    s.status = rt.stream<std::uint32_t>({9});
    s.height = rt.stream<float>({1, 1});
    s.sdf = rt.stream<float>({1, 1, 1});
}

Engine::Engine(Runtime& rt, std::int64_t capacity, const Options& options)
    : Engine(
          [&] {
              if (capacity <= 0)
                  throw Error("rill::particles::Engine: capacity is " + std::to_string(capacity) + "; give at least 1 particle slot");
              return rt.stream<Particle>({capacity}, std::vector<Particle>(static_cast<std::size_t>(capacity)));
          }(),
          options) {}

Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;

void Engine::add_emitter(const Emitter& e) {
    if (!finite3(e.position) || !finite3(e.velocity) || !std::isfinite(e.position_jitter) || !std::isfinite(e.velocity_jitter) ||
        !(e.rate >= 0 && std::isfinite(e.rate)) || !(e.life > 0 && std::isfinite(e.life)))
        throw Error("rill::particles::Engine::add_emitter: give a finite position and velocity, a rate >= 0 and a life > 0 (rate " +
                    text(e.rate) + ", life " + text(e.life) + ")");
    s_->emitters.push_back(e);
    s_->carry.push_back(0);
}

namespace {

/// The checks the field setters share: rank, not empty, the engine's runtime.
void check_field(const char* who, const Stream<float>& field, int rank, const std::string& give, const char* element,
                 const Stream<Particle>& engine) {
    if (field.shape().rank != rank)
        throw Error(std::string(who) + ": the field has rank " + std::to_string(field.shape().rank) + "; give " + give);
    if (field.size() == 0) throw Error(std::string(who) + ": the field is empty; give at least one " + element);
    rill::detail::require_runtime_of(who, field, "the field", engine, "the engine");
}

}  // namespace

void Engine::set_height_field(const Stream<float>& heights) {
    check_field("rill::particles::Engine::set_height_field", heights, 2,
                "a 2D stream {rows, columns} of heights (rows along the box's z, columns along its x)", "height", s_->items);
    s_->height = heights;
    s_->has_height = true;
}

void Engine::set_distance_field(const Stream<float>& distances) {
    check_field("rill::particles::Engine::set_distance_field", distances, 3,
                "a 3D stream {nz, ny, nx} of signed distances over the box (negative inside the solid)", "distance", s_->items);
    s_->sdf = distances;
    s_->has_sdf = true;
}

void Engine::step(float dt, StageTimes* times) {
    if (!(dt > 0 && std::isfinite(dt)))
        throw Error("rill::particles::Engine::step: dt is " + text(dt) + "; give a positive, finite time step in seconds");
    State& s = *s_;
    const Options& o = s.options;
    if (times) *times = {};
    s.regrid(times);
    s.stage(times, &StageTimes::collide, [&] {
        if (o.response != Response::None) detail::contacts(s.sorted, s.keys, s.dv, s.dp, s.grid, o, dt);
    });
    s.stage(times, &StageTimes::integrate, [&] {
        const Shape hs = s.height.shape(), ds = s.sdf.shape();
        s.motion(Groups{groups_for(s.n)}, s.items, s.keys, s.dv, s.dp, s.sorted.items, s.height, s.sdf, s.status, float4{o.box.lo.x, o.box.lo.y, o.box.lo.z, o.radius},
                 float4{o.box.hi.x, o.box.hi.y, o.box.hi.z, o.restitution}, float4{o.gravity.x, o.gravity.y, o.gravity.z, o.drag},
                 float2{static_cast<float>(s.time), dt}, int4{o.walls ? 1 : 0, s.grid.dims.w, static_cast<std::int32_t>(s.steps), 0},
                 int4{static_cast<std::int32_t>(hs[0]), static_cast<std::int32_t>(hs[1]), s.has_height ? 1 : 0, 0},
                 int4{static_cast<std::int32_t>(ds[2]), static_cast<std::int32_t>(ds[1]), static_cast<std::int32_t>(ds[0]), s.has_sdf ? 1 : 0});
        std::swap(s.items, s.sorted.items);
    });
    s.time += dt;
    s.stage(times, &StageTimes::emit, [&] {
        std::int32_t offset = 0;
        for (std::size_t e = 0; e < s.emitters.size(); ++e) {
            s.carry[e] += static_cast<double>(s.emitters[e].rate) * dt;
            const double whole = std::floor(s.carry[e]);
            s.carry[e] -= whole;
            const std::int32_t count = static_cast<std::int32_t>(std::min<double>(whole, static_cast<double>(s.n - offset)));
            if (count <= 0) continue;
            detail::emit(s.items, s.sorted, s.keys, s.grid, 2 * o.radius, s.emitters[e], offset, count, static_cast<float>(s.time),
                         static_cast<std::uint32_t>(s.steps * 7919u + e * 104729u));
            offset += count;
        }
    });
    s.grid_current = false;
    ++s.steps;
    if (s.steps % kCheckEvery == 0) check();
}

void Engine::check() {
    State& s = *s_;
    const std::vector<std::uint32_t> st = s.status.download();
    if (st[0] == 0) return;
    s.status.upload(std::vector<std::uint32_t>(9, 0));
    auto f = [&](int k) {
        float v;
        std::memcpy(&v, &st[k], 4);
        return v;
    };
    throw Error("rill::particles::Engine::step: the particle at place " + std::to_string(st[2]) + " of step " + std::to_string(st[1]) +
                " got a non-finite state (position " + text(float3{f(3), f(4), f(5)}) + ", velocity " + text(float3{f(6), f(7), f(8)}) +
                "; " + std::to_string(st[0]) +
                " such particles); Options::force gave a non-finite acceleration or dt is too long for the contact springs "
                "(keep dt below 0.3 / sqrt(stiffness)); such particles are removed");
}

const Stream<Particle>& Engine::particles() {
    check();
    return s_->items;
}

Stream<int2> Engine::pairs() {
    check();
    State& s = *s_;
    if (!s.grid_current) s.regrid(nullptr);
    return detail::pairs_within(s.sorted, s.keys, s.grid, 2 * s.options.radius);
}

void Engine::render(const Camera& camera, const Stream<float4>& image, const RenderOptions& options) {
    check();
    const char* who = "rill::particles::Engine::render";
    if (image.shape().rank != 2) throw Error(std::string(who) + ": the image has rank " + std::to_string(image.shape().rank) + "; give a 2D stream {height, width}");
    rill::detail::require_dense(who, image, "the image");
    rill::detail::require_runtime_of(who, image, "the image", s_->items, "the engine");
    detail::draw(s_->items, s_->options.radius, static_cast<float>(s_->time), camera, image, options);
}

double Engine::time() const { return s_->time; }
std::int64_t Engine::capacity() const { return s_->n; }
const Options& Engine::options() const { return s_->options; }
int3 Engine::grid() const { return {s_->grid.dims.x, s_->grid.dims.y, s_->grid.dims.z}; }

}  // namespace rill::particles
