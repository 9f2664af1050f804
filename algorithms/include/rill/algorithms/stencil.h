// Stencil iterations over 2D and 3D streams: every element's next value is a
// DSL function of its neighbourhood, applied `iterations` times with
// ping-pong buffers on the device.
//
//   rill::Stencil<float> smooth("smooth", 1, [](const rill::Neighbourhood<float>& n, const rill::Expr<rill::float4>& p) {
//       return n(0, 0) + p.x() * (n(-1, 0) + n(1, 0) + n(0, -1) + n(0, 1) - 4.0f * n(0, 0));
//   }, rill::Boundary::Clamp);
//   smooth(image, out, 100, rill::float4{0.2f, 0, 0, 0});   // 100 iterations, p = (0.2, 0, 0, 0)
//
//   rill::Stencil<float> heat("heat", 1, [](const rill::Neighbourhood<float>& n, const rill::Expr<rill::float4>& p) {
//       return n(0, 0, 0) + p.x() * (n(-1, 0, 0) + n(1, 0, 0) + n(0, -1, 0) + n(0, 1, 0) + n(0, 0, -1) + n(0, 0, 1) - 6.0f * n(0, 0, 0));
//   }, rill::Boundary::Clamp, {.dimensions = 3});
//   heat(volume, out, 10, rill::float4{0.1f, 0, 0, 0});     // volume: planes x rows x columns
//
// A body in conservative form takes its terms through n.flux(dy, dx, f): f(a,
// b) is what flows from this element a to its neighbour b, antisymmetric
// (f(a, b) == -f(b, a)), and the elements of an invocation that meet at an
// edge compute it once:
//
//   auto f = [](const rill::Expr<float>& a, const rill::Expr<float>& b) { return (b - a) / (1.0f + (b - a) * (b - a)); };
//   rill::Stencil<float> diffuse("diffuse", 1, [f](const rill::Neighbourhood<float>& n, const rill::Expr<rill::float4>& p) {
//       return n(0, 0) + p.x() * (n.flux(-1, 0, f) + n.flux(1, 0, f) + n.flux(0, -1, f) + n.flux(0, 1, f));
//   });
//
// A body that weighs differences takes n.edge(dy, dx, g): the neighbour minus
// this element, and g of it, g even (g(d) == g(-d)), made once per edge, so
// that it adds its terms by fma:
//
//   auto g = [](const rill::Expr<float>& d) { return 1.0f / (1.0f + d * d); };
//   ... auto e = n.edge(0, 1, g); sum = fma(e.weight, e.difference, sum); ...
//
// n(dy, dx) is the element dy rows and dx columns away, n(dz, dy, dx) (3D
// stencils) the element dz planes, dy rows and dx columns away (each offset
// at most the stencil's radius); the element outside the stream is given by
// the boundary rule: Clamp repeats the edge (a zero-flux boundary for
// diffusion), Mirror reflects about the edge element (-1 reads 1; in a stream
// narrower than the radius it then clamps), Zero reads T{}. The float4 is the
// call's parameters: changing them compiles nothing. n.row() and n.column()
// (and n.plane()) are the element's position, n.rows() and n.columns() (and
// n.planes()) the stream's shape.
//
// Where the device's memory is what limits an iteration, several iterations
// of a 2D stencil run in one dispatch (temporal blocking,
// StencilOptions::steps_per_pass; GPUs take up to 4, as many as let two tiles
// with their halos fit in 16 KiB, the CPU backend 1): a workgroup loads a
// 32 x 32 tile and a halo of steps * radius into shared memory, runs the
// steps there on regions one radius smaller each time (an invocation 4
// consecutive rows of a column, neighbouring invocations neighbouring
// columns), and writes the tile once. Single iterations (and the rest after
// the passes) are one dispatch over tiles of 32 x 32 elements, a workgroup of
// 256 invocations each, an invocation 4 consecutive rows of a column (a read
// or flux that several of its rows share is made once); 3D stencils take tiles of 32 columns x 8 rows x 4
// planes, an invocation 4 consecutive planes, one iteration per dispatch (on
// the CPU backend, whose invocations run in sequence, an invocation a line).
// The results are the same either way: every element sees the same reads in
// the same order. in and out may be the same stream; both must be dense (a
// fresh stream or a reshape of one) and of the same shape.
// Performance: docs/PERFORMANCE.md#stencils.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include <rill/rill.h>
#include <rill/algorithms/detail/dense_streams.h>
#include <rill/algorithms/detail/rows.h>

namespace rill {

/// The default tile width of Stencil's dispatches (docs/PERFORMANCE.md#stencils).
inline constexpr int kDefaultTileWidth = 32;

enum class Boundary { Clamp, Mirror, Zero };

/// The neighbourhood of one element, for a Stencil's body (trace time only).
template <class T>
class Neighbourhood {
public:
    /// Loads already made for this invocation, by (plane or row from the
    /// invocation's first, row offset, column offset) and the IR block they
    /// were made in: an element read by the bodies of several of the
    /// invocation's elements is loaded once.
    struct Loads {
        std::map<std::tuple<int, int, int>, std::pair<ir::BlockId, Expr<T>>> made;
        /// Fluxes (flux()) and weights (edge()) already computed, by function and edge (its two
        /// ends in the order of the tuples), as f(first end, second end).
        std::map<std::tuple<std::type_index, std::tuple<int, int, int>, std::tuple<int, int, int>>, std::pair<ir::BlockId, Expr<T>>>
            fluxes;
    };
    /// The element `lead` steps along the invocation's elements from its
    /// first (rows in 2D, planes in 3D), dy rows (3D; 0 in 2D) and dx columns
    /// away, by the boundary rule (where it is read from: the stream or a
    /// tile in shared memory).
    using Reader = std::function<Expr<T>(int lead, int dy, int dx)>;

    /// The element at plane z (0 in 2D), row y, column x of a d x h x w stream
    /// (d = 1 in 2D), element k of its invocation along rows (2D) or planes
    /// (3D), and in 2D `column` columns from the invocation's first.
    Neighbourhood(Reader read, int dimensions, int k, const Expr<std::int32_t>& z, const Expr<std::int32_t>& y,
                  const Expr<std::int32_t>& x, const Expr<std::int32_t>& d, const Expr<std::int32_t>& h,
                  const Expr<std::int32_t>& w, int radius, Loads& loads, int column = 0)
        : read_(std::move(read)), dimensions_(dimensions), k_(k), kx_(column), z_(z), y_(y), x_(x), d_(d), h_(h), w_(w),
          radius_(radius), loads_(loads) {}

    /// The element dy rows and dx columns away (in 3D, in the same plane).
    Expr<T> operator()(int dy, int dx) const {
        check({dy, dx});
        return dimensions_ == 2 ? at(k_ + dy, 0, kx_ + dx) : at(k_, dy, dx);
    }
    /// The element dz planes, dy rows and dx columns away (3D stencils).
    Expr<T> operator()(int dz, int dy, int dx) const {
        if (dimensions_ != 3)
            throw Error("rill::Stencil: the body reads n(" + std::to_string(dz) + ", " + std::to_string(dy) + ", " + std::to_string(dx) +
                        ") of a 3D neighbourhood but the stencil is 2D; read n(dy, dx), or give the Stencil "
                        "StencilOptions{.dimensions = 3}");
        check({dz, dy, dx});
        return at(k_ + dz, dy, dx);
    }
    /// f(this element, the element dy rows and dx columns away): what flows
    /// across the edge between them, for bodies in conservative form (a
    /// diffusion's sum of fluxes). f must be antisymmetric, f(a, b) ==
    /// -f(b, a) bit for bit, as g((b - a)^2) * (b - a) is, and depend on its
    /// arguments alone (the same captures in every call of the body). The
    /// elements of one invocation that share an edge compute f once: the
    /// second takes the first's result negated, which is what it would have
    /// computed, so results do not depend on how elements are grouped.
    template <class F>
    Expr<T> flux(int dy, int dx, F&& f) const {
        check({dy, dx});
        return dimensions_ == 2 ? edge<F>({k_ + dy, 0, kx_ + dx}, f) : edge<F>({k_, dy, dx}, f);
    }
    /// flux() across the edge to the element dz planes, dy rows and dx columns away (3D stencils).
    template <class F>
    Expr<T> flux(int dz, int dy, int dx, F&& f) const {
        require_3d("flux", "f", dz, dy, dx);
        return edge<F>({k_ + dz, dy, dx}, f);
    }
    /// What crosses the edge to a neighbour, for a body that weighs its
    /// differences (a diffusion written with fma, one rounding a term where
    /// flux() rounds its product and then its sum).
    struct Edge {
        /// The neighbour minus this element.
        Expr<T> difference;
        /// g(difference).
        Expr<T> weight;
    };
    /// The edge to the element dy rows and dx columns away: its difference
    /// and g of it. g must be even, g(d) == g(-d) bit for bit (as a function
    /// of d * d is), and depend on its argument alone (the same captures in
    /// every call of the body). The elements of one invocation that share
    /// the edge make the weight once: the second takes it as it is, what it
    /// would have computed.
    template <class G>
    Edge edge(int dy, int dx, G&& g) const {
        check({dy, dx});
        return weighed<G>(dimensions_ == 2 ? std::tuple<int, int, int>{k_ + dy, 0, kx_ + dx} : std::tuple<int, int, int>{k_, dy, dx}, g);
    }
    /// edge() to the element dz planes, dy rows and dx columns away (3D stencils).
    template <class G>
    Edge edge(int dz, int dy, int dx, G&& g) const {
        require_3d("edge", "g", dz, dy, dx);
        return weighed<G>({k_ + dz, dy, dx}, g);
    }
    const Expr<std::int32_t>& plane() const { return z_; }
    const Expr<std::int32_t>& row() const { return y_; }
    const Expr<std::int32_t>& column() const { return x_; }
    const Expr<std::int32_t>& planes() const { return d_; }
    const Expr<std::int32_t>& rows() const { return h_; }
    const Expr<std::int32_t>& columns() const { return w_; }
    int radius() const { return radius_; }
    int dimensions() const { return dimensions_; }

private:
    void check(std::initializer_list<int> offsets) const {
        int reach = 0;
        std::string read;
        for (int o : offsets) {
            reach = std::max(reach, std::abs(o));
            read += (read.empty() ? "" : ", ") + std::to_string(o);
        }
        if (reach > radius_)
            throw Error("rill::Stencil: the body reads n(" + read + ") but the stencil's radius is " + std::to_string(radius_) +
                        "; give the Stencil a radius of at least " + std::to_string(reach));
    }
    /// The checks of n.call(dz, dy, dx, fn), a 3D neighbourhood's: a clear
    /// error in a 2D stencil, or beyond the radius.
    void require_3d(const char* call, const char* fn, int dz, int dy, int dx) const {
        if (dimensions_ != 3)
            throw Error(std::string("rill::Stencil: the body takes n.") + call + "(" + std::to_string(dz) + ", " + std::to_string(dy) +
                        ", " + std::to_string(dx) + ", " + fn + ") of a 3D neighbourhood but the stencil is 2D; take n." + call +
                        "(dy, dx, " + fn + "), or give the Stencil StencilOptions{.dimensions = 3}");
        check({dz, dy, dx});
    }
    /// f(this element, the element at `other`) (in the coordinates of at(),
    /// within the radius), made once per edge and function.
    template <class F, class G>
    Expr<T> edge(std::tuple<int, int, int> other, G& f) const {
        const std::tuple<int, int, int> self{k_, 0, dimensions_ == 2 ? kx_ : 0};
        const bool forward = self < other;
        const Expr<T> value = once<F>(self, other, [&] {
            const Expr<T> here = at(self), there = at(other);  // loads traced in this order
            return forward ? Expr<T>(f(here, there)) : Expr<T>(f(there, here));
        });
        return forward ? value : Expr<T>(-value);
    }
    /// The Edge to `other`: its difference (each end its own subtraction,
    /// exactly the negation of the other's: NVIDIA's compilers spend an add
    /// on a negation that feeds a multiply), g of it once per g (by the end
    /// that makes it first: g is even).
    template <class G>
    Edge weighed(std::tuple<int, int, int> other, G& g) const {
        const std::tuple<int, int, int> self{k_, 0, dimensions_ == 2 ? kx_ : 0};
        const Expr<T> there = at(other), here = at(self);  // loads traced in this order
        const Expr<T> difference = there - here;
        return {difference, once<Edge(std::decay_t<G>)>(self, other, [&] { return Expr<T>(g(difference)); })};
    }
    /// make() for the edge between a and b under the tag F, made once in
    /// the current block (the edge's ends in order, as flux() keys them).
    template <class F, class Make>
    Expr<T> once(const std::tuple<int, int, int>& a, const std::tuple<int, int, int>& b, Make make) const {
        const auto key = std::make_tuple(std::type_index(typeid(std::decay_t<F>)), std::min(a, b), std::max(a, b));
        const ir::BlockId block = dsl::builder().current_block();
        auto it = loads_.fluxes.find(key);
        if (it == loads_.fluxes.end() || it->second.first != block) {
            Expr<T> value = make();
            loads_.fluxes.erase(key);
            it = loads_.fluxes.emplace(key, std::pair<ir::BlockId, Expr<T>>{block, value}).first;
        }
        return it->second.second;
    }
    /// at() of a position given as (lead, dy, dx).
    Expr<T> at(const std::tuple<int, int, int>& p) const { return at(std::get<0>(p), std::get<1>(p), std::get<2>(p)); }
    Expr<T> at(int lead, int dy, int dx) const {
        const std::tuple<int, int, int> key{lead, dy, dx};
        const ir::BlockId block = dsl::builder().current_block();
        if (auto it = loads_.made.find(key); it != loads_.made.end() && it->second.first == block) return it->second.second;
        Expr<T> value = read_(lead, dy, dx);
        loads_.made.erase(key);
        loads_.made.emplace(key, std::pair<ir::BlockId, Expr<T>>{block, value});
        return value;
    }

    Reader read_;
    int dimensions_, k_, kx_;
    Expr<std::int32_t> z_, y_, x_, d_, h_, w_;
    int radius_;
    Loads& loads_;
};

namespace detail {

/// Index i of a stream of n elements by the boundary rule, and whether the
/// rule reads zero there (Zero, outside). Mirror reflects about the edge
/// element, then clamps (streams narrower than the radius).
inline std::pair<Expr<std::int32_t>, Expr<bool>> boundary_index(const Expr<std::int32_t>& i, const Expr<std::int32_t>& n,
                                                                 Boundary boundary) {
    Expr<std::int32_t> r = boundary == Boundary::Mirror ? select(i < 0, -i, select(i >= n, 2 * (n - 1) - i, i)) : i;
    Expr<std::int32_t> c = clamp(r, 0, n - 1);
    return {c, c != r};
}

/// Where a stencil reads: element (z, y, x) of a d x h x w stream (d = 1 and
/// z = 0 in 2D) lies at base + (z * h_stride + y) * stride + x of `memory`
/// (base: none for 0; h_stride: the rows of a plane, unused in 2D).
template <class Memory>
struct StencilSource {
    const Memory& memory;
    int dimensions;
    Expr<std::int32_t> d, h, w;
    std::optional<Expr<std::int32_t>> base;
    Expr<std::int32_t> h_stride, stride;
};

/// A reader of the elements around (z0 + lead, y + dy, x + dx) in 3D, or
/// (y0 + lead, x + dx) in 2D (y0 passed as z0), by the boundary rule;
/// `interior`: every element within reach is inside the stream.
template <class T, class Memory>
typename Neighbourhood<T>::Reader boundary_reader(const StencilSource<Memory>& src, const Expr<std::int32_t>& z0,
                                                  const Expr<std::int32_t>& y, const Expr<std::int32_t>& x, Boundary boundary,
                                                  bool interior) {
    auto at = [base = src.base](const Expr<std::int32_t>& i) { return base ? *base + i : i; };
    const bool three = src.dimensions == 3;
    if (interior) {
        Expr<std::int32_t> origin = at(three ? (z0 * src.h_stride + y) * src.stride + x : z0 * src.stride + x);
        Expr<std::int32_t> plane = three ? src.h_stride * src.stride : src.stride;
        return [=, &memory = src.memory](int lead, int dy, int dx) -> Expr<T> {
            if (!three) return memory.load(origin + (lead * src.stride + dx));
            return memory.load(origin + (lead * plane + (dy * src.stride + dx)));
        };
    }
    return [=, &memory = src.memory](int lead, int dy, int dx) -> Expr<T> {
        auto value = [&](const Expr<std::int32_t>& index, const Expr<bool>& zero) -> Expr<T> {
            Expr<T> v = memory.load(at(index));
            return boundary == Boundary::Zero ? Expr<T>(select(zero, Expr<T>(T{}), v)) : v;
        };
        auto [cx, zero_x] = boundary_index(x + dx, src.w, boundary);
        auto [cy, zero_y] = boundary_index(three ? Expr<std::int32_t>(y + dy) : Expr<std::int32_t>(z0 + lead), src.h, boundary);
        if (!three) return value(cy * src.stride + cx, zero_y || zero_x);
        auto [cz, zero_z] = boundary_index(z0 + lead, src.d, boundary);
        return value((cz * src.h_stride + cy) * src.stride + cx, zero_z || zero_y || zero_x);
    };
}

}  // namespace detail

/// Options of a rill::Stencil.
struct StencilOptions {
    /// 2: the stencil runs over 2D streams (rows x columns) and its body
    /// reads n(dy, dx); 3: over 3D streams (planes x rows x columns), and the
    /// body reads n(dz, dy, dx) (n(dy, dx) is then n(0, dy, dx)).
    int dimensions = 2;
    /// Iterations per dispatch of a 2D stencil (temporal blocking): each
    /// workgroup loads its 32 x 32 tile with a halo of steps * radius elements
    /// into shared memory and runs the steps there, each on a region one
    /// radius smaller, so that the streams are read and written once per
    /// `steps` iterations at the cost of the halo's extra work (1.2x the
    /// elements at 4 steps of radius 1). 0: the library's choice
    /// (kDefaultStencilSteps where rows do not pay, as many as fit in
    /// kStencilBlockBytes of shared memory; 1 on the CPU backend, whose
    /// iterations are bound by arithmetic, not by memory). 1: one dispatch per
    /// iteration. RILL_STENCIL_STEPS overrides it for every stencil (a tuning
    /// knob). 3D stencils run one iteration per dispatch.
    int steps_per_pass = 0;
};

/// Iterations per dispatch where the library chooses, and the shared memory a
/// workgroup's two tile buffers may take then (docs/PERFORMANCE.md#stencils:
/// NVIDIA's Vulkan driver holds about 48 KiB of workgroups' shared memory per SM).
inline constexpr int kDefaultStencilSteps = 4;
inline constexpr std::int64_t kStencilBlockBytes = 16 * 1024;

template <class T>
class Stencil {
public:
    using Body = std::function<Expr<T>(const Neighbourhood<T>&, const Expr<float4>&)>;
    static constexpr int kWorkgroup = 256;
    /// Elements per invocation along rows (2D) or planes (3D): reads shared
    /// by their neighbourhoods are made once.
    static constexpr int kRows = 4;
    /// The output tile of a blocked pass: kBlockTile x kBlockTile elements.
    static constexpr int kBlockTile = 32;
    /// The most consecutive rows an invocation of a blocked pass takes in a step.
    static constexpr int kMaxBlockRows = 8;
    /// A 3D workgroup's invocations: kTile3Width columns x kTile3Height rows.
    static constexpr int kTile3Width = 32, kTile3Height = kWorkgroup / kTile3Width;

    Stencil(std::string name, int radius, Body body, Boundary boundary = Boundary::Clamp, StencilOptions options = {})
        : name_(std::move(name)), radius_(radius), boundary_(boundary), tile_width_(tile_width()), options_(checked(name_, options)),
          body_(std::make_shared<Body>(body)), lazy_(std::make_shared<LazyKernels>()),
          kernel_(trace(name_, radius, std::move(body), boundary, tile_width_, options.dimensions)) {}

    /// out = the body applied `iterations` times to in (0: a copy).
    void operator()(const Stream<T>& in, const Stream<T>& out, int iterations = 1, float4 params = {}) const {
        const std::string who = "rill::Stencil '" + name_ + "'";
        const int dims = options_.dimensions;
        if (in.shape().rank != dims)
            throw Error(who + ": the input has shape " + in.shape().str() + " but the stencil is " + std::to_string(dims) + "D; give " +
                        (dims == 2 ? "a 2D stream (rows x columns)" : "a 3D stream (planes x rows x columns)") +
                        ", or a Stencil of StencilOptions{.dimensions = " + std::to_string(in.shape().rank == 3 ? 3 : 2) + "}");
        if (!(in.shape() == out.shape()))
            throw Error(who + ": the input has shape " + in.shape().str() + " but the output " + out.shape().str() +
                        "; give an output of the input's shape");
        detail::require_dense(who, in, "the input");
        detail::require_dense(who, out, "the output");
        if (iterations < 0)
            throw Error(who + ": iterations is " + std::to_string(iterations) + "; give 0 or more");
        const std::int64_t d = dims == 3 ? in.shape()[0] : 1, h = in.shape()[dims - 2], w = in.shape()[dims - 1];
        if (d * h * w == 0) return;
        if (d * h * w > 0x7fffffff) throw Error(who + ": more than 2^31 - 1 elements; split the stream");
        if (iterations == 0) {
            if (in.buffer() != out.buffer()) detail::copy_stream(in, out);
            return;
        }
        // Passes of `steps` iterations, then single iterations for the rest (one
        // blocked kernel a stencil: fewer iterations than `steps` go one by one).
        const BackendInfo& info = Runtime::of(in).info();
        const int steps = steps_per_pass(info);
        const int blocked = steps > 1 ? iterations / steps : 0, single = iterations - blocked * steps;
        const auto [tile_w, tile_h] = dims == 2 ? std::pair<std::int64_t, std::int64_t>{tile_width_, kWorkgroup / tile_width_ * kRows}
                                                : std::pair<std::int64_t, std::int64_t>{kTile3Width, kTile3Height};
        const std::int64_t tiles_x = (w + tile_w - 1) / tile_w, tiles_y = (h + tile_h - 1) / tile_h;
        const std::int64_t tiles = tiles_x * tiles_y * (dims == 3 ? (d + kRows - 1) / kRows : 1);
        const std::int64_t blocks_x = (w + kBlockTile - 1) / kBlockTile, blocks = blocks_x * ((h + kBlockTile - 1) / kBlockTile);
        const int passes = blocked + single;
        auto i32 = [](std::int64_t v) { return static_cast<std::int32_t>(v); };
        // Where invocations run in sequence, single iterations of 3D stencils go
        // line by line (5.8 -> 3.5 ms for 161^3 on 2 CPU cores; 2D ones keep
        // their tiles, whose rows share loads: 22.9 against 33.9 ms by lines).
        const bool lines = dims == 3 && detail::rows_pay(info);
        const std::int64_t line_groups = (d * h + detail::kRowWorkgroup - 1) / detail::kRowWorkgroup;
        auto step = [&](int pass, const Stream<T>& from, const Stream<T>& to) {
            if (pass < blocked)
                blocked_kernel(steps)(Groups{blocks}, from, to, i32(d), i32(h), i32(w), i32(blocks_x), 0, params);
            else if (lines)
                line_kernel()(Groups{line_groups}, from, to, i32(d), i32(h), i32(w), 0, 0, params);
            else
                kernel_(Groups{tiles}, from, to, i32(d), i32(h), i32(w), i32(tiles_x), i32(tiles_y), params);
        };
        // Ping-pong between out and a scratch stream so that the last pass
        // writes out; the first never writes the stream it reads. One pass
        // from one stream into another needs no scratch.
        const bool same = in.buffer() == out.buffer();
        const Stream<T> other = passes == 1 && !same ? Stream<T>() : Runtime::of(in).template scratch<T>(in.shape());
        const Stream<T>* from = &in;
        for (int i = 0; i < passes; ++i) {
            const Stream<T>* to = from == &out ? &other : from == &other ? &out : (same || passes % 2 == 0) ? &other : &out;
            step(i, *from, *to);
            from = to;
        }
        if (from != &out) detail::copy_stream(*from, out);
    }

    /// Iterations per dispatch on this backend (StencilOptions::steps_per_pass
    /// resolved): at least 1, and 1 where a blocked tile would not fit and
    /// for 3D stencils.
    int steps_per_pass(const BackendInfo& info) const {
        int steps = options_.steps_per_pass;
        if (const char* knob = std::getenv("RILL_STENCIL_STEPS")) {
            char* end = nullptr;
            const long v = std::strtol(knob, &end, 10);
            if (end == knob || *end != '\0' || v < 1 || v > 64)
                throw Error(std::string("RILL_STENCIL_STEPS is '") + knob + "'; give iterations per dispatch from 1 to 64, or unset it");
            steps = static_cast<int>(v);
        }
        if (options_.dimensions != 2 || radius_ == 0) return 1;
        if (steps == 0) {
            if (detail::rows_pay(info)) return 1;
            steps = kDefaultStencilSteps;
            while (steps > 1 && block_bytes(steps) > kStencilBlockBytes) --steps;
        }
        while (steps > 1 && block_bytes(steps) > static_cast<std::int64_t>(info.limits.shared_memory_bytes)) --steps;
        return std::max(steps, 1);
    }

    const std::string& name() const { return name_; }
    int radius() const { return radius_; }
    Boundary boundary() const { return boundary_; }
    int dimensions() const { return options_.dimensions; }

private:
    /// in, out, planes, rows, columns, tiles across, tiles down, params.
    using Kernel = rill::Kernel<Array<T>, Array<T>, Int, Int, Int, Int, Int, Float4>;
    /// The blocked kernels, traced at their first call, by steps per pass, and
    /// the line kernel (steps_per_pass 0), traced at its first call.
    struct LazyKernels {
        std::mutex mutex;
        std::map<int, Kernel> kernels;
    };

    static StencilOptions checked(const std::string& name, StencilOptions options) {
        if (options.dimensions != 2 && options.dimensions != 3)
            throw Error("rill::Stencil '" + name + "': dimensions is " + std::to_string(options.dimensions) + "; give 2 or 3");
        if (options.steps_per_pass < 0)
            throw Error("rill::Stencil '" + name + "': steps_per_pass is " + std::to_string(options.steps_per_pass) +
                        "; give 0 (the library's choice) or more");
        return options;
    }

    /// The shared memory of a blocked pass's two tile buffers.
    std::int64_t block_bytes(int steps) const {
        const std::int64_t side = kBlockTile + 2 * steps * radius_, odd = odd_side(static_cast<int>(side), radius_);
        return (side * side + odd * odd) * static_cast<std::int64_t>(element_words<T>) * 4;
    }
    /// The side of the buffer of odd steps' regions: one radius in from the
    /// tile's on each edge, which the first step's region fills. At 4 steps
    /// of radius 1 the two buffers take 12,176 bytes instead of 12,800: an SM
    /// holds about 48 KiB of workgroups' shared memory on NVIDIA's drivers
    /// (docs/PERFORMANCE.md#opengl-against-vulkan). H100, 2026-12-07:
    /// Perona-Malik's iteration 1.09x as fast through Vulkan, 1.07x through
    /// OpenGL (presumably four workgroups an SM instead of three; not checked).
    /// RILL_STENCIL_EQUAL_BUFFERS=1 (an A/B knob) makes it as large as the other.
    static int odd_side(int side, int radius) {
        static const bool equal = env_flag("RILL_STENCIL_EQUAL_BUFFERS");
        return equal ? side : std::max(side - 2 * radius, 1);
    }

    /// The kernel cached under `key`, traced by `trace()` at its first call.
    template <class Trace>
    const Kernel& lazily(int key, Trace trace) const {
        std::lock_guard lock(lazy_->mutex);
        auto it = lazy_->kernels.find(key);
        if (it == lazy_->kernels.end()) it = lazy_->kernels.emplace(key, trace()).first;
        return it->second;
    }
    const Kernel& line_kernel() const {
        return lazily(0, [&] { return trace_lines(name_, radius_, *body_, boundary_, options_.dimensions); });
    }
    const Kernel& blocked_kernel(int steps) const {
        const int rows = block_rows(), columns = block_columns();
        return lazily(steps * 64 + rows * 4 + columns,
                      [&] { return trace_blocked(name_, radius_, *body_, boundary_, steps, rows, columns); });
    }

    /// Rows an invocation of a blocked pass takes in each step: 0, as many as
    /// let one round of the workgroup cover the step's region (fit_rows);
    /// RILL_STENCIL_BLOCK_ROWS (a tuning knob: 1, 2, 4, 8, or fit) fixes it.
    static int block_rows() {
        const char* knob = std::getenv("RILL_STENCIL_BLOCK_ROWS");
        if (!knob) return 0;
        const std::string v = knob;
        if (v == "fit") return 0;
        for (int r : {1, 2, 4, 8})
            if (v == std::to_string(r)) return r;
        throw Error("RILL_STENCIL_BLOCK_ROWS is '" + v + "'; give 1, 2, 4, 8 or fit, or unset it");
    }
    /// The rows of a strip for a step's region `extent` high, `across`
    /// invocations wide: the fewest with which the workgroup covers it in one
    /// round (at most kMaxBlockRows). A step's regions at 4 steps of radius 1
    /// are 38, 36, 34 and 32 high: 7, 6, 5 and 4 rows, 22 elements an
    /// invocation in 4 rounds, where 4 rows a step take 7 rounds (28
    /// elements: the first step's 380 strips take two rounds of 256). H100,
    /// 2026-12-07: Perona-Malik's iteration 1.03x / 1.02x as fast through
    /// Vulkan / OpenGL, 1.04x / 1.03x with the smaller odd buffer (odd_side)
    /// (docs/PERFORMANCE.md#segment).
    static int fit_rows(int extent, int across) {
        const int strips = std::max(1, kWorkgroup / across);
        return std::min(kMaxBlockRows, (extent + strips - 1) / strips);
    }
    /// Neighbouring columns an invocation of a blocked pass takes (1);
    /// RILL_STENCIL_BLOCK_COLUMNS=2 (a tuning knob) makes it two, so that
    /// the fluxes between them are shared too, at the cost of loads from
    /// shared memory two words apart across a warp.
    static int block_columns() {
        const char* knob = std::getenv("RILL_STENCIL_BLOCK_COLUMNS");
        if (!knob) return 1;
        const std::string v = knob;
        if (v == "1" || v == "2") return v[0] - '0';
        throw Error("RILL_STENCIL_BLOCK_COLUMNS is '" + v + "'; give 1 or 2, or unset it");
    }

    /// Workgroups of width x (256 / width) invocations, tiles of width x
    /// (1024 / width) elements; RILL_STENCIL_TILE_WIDTH (a
    /// tuning knob: 16, 32, 64, 128 or 256) overrides the default.
    static int tile_width() {
        const char* knob = std::getenv("RILL_STENCIL_TILE_WIDTH");
        if (!knob) return kDefaultTileWidth;
        const std::string v = knob;
        for (int w : {16, 32, 64, 128, 256})
            if (v == std::to_string(w)) return w;
        throw Error("RILL_STENCIL_TILE_WIDTH is '" + v + "'; give 16, 32, 64, 128 or 256, or unset it");
    }

    /// One iteration per dispatch. 2D: tiles of tile_w columns x (1024 /
    /// tile_w) rows, an invocation kRows consecutive rows of a column. 3D:
    /// tiles of 32 columns x 8 rows x kRows planes, an invocation kRows
    /// consecutive planes of a row and column.
    static Kernel trace(const std::string& name, int radius, Body body, Boundary boundary, int tile_w, int dims) {
        if (radius < 0 || radius > 16)
            throw Error("rill::Stencil '" + name + "': radius " + std::to_string(radius) + " is outside 0..16; give a radius in that range");
        if (!body) throw Error("rill::Stencil '" + name + "': the body is empty; give a function of the neighbourhood");
        if (dims == 3) tile_w = kTile3Width;
        // Every index is clamped into the stream (whose shape the call
        // checks), so the arrays need no checks of their own.
        return group_kernel<kWorkgroup>(
            name + (dims == 3 ? "_3d" : "") + "(in, out, d, h, w, tiles_x, tiles_y, params)", GroupOptions{.unchecked_arrays = true},
            [body = std::move(body), radius, boundary, tile_w, dims](Array<T> in, Array<T> out, Int d, Int h, Int w, Int tiles_x,
                                                                    Int tiles_y, Float4 params) {
                const bool three = dims == 3;
                const int tile_h = three ? kWorkgroup / tile_w : kWorkgroup / tile_w * kRows;
                Int tile = group_id();
                // 3D: tiles run across, then down, then through the planes.
                Int plane_tiles = tiles_x * tiles_y;
                Int tz = three ? Expr<std::int32_t>(tile / plane_tiles) : Expr<std::int32_t>(0);
                Int in_plane = tile - tz * plane_tiles;
                Int ty = in_plane / tiles_x;
                Int y0 = ty * tile_h, x0 = (in_plane - ty * tiles_x) * tile_w;
                Int lx = local_id() % tile_w, ly = local_id() / tile_w;
                // The invocation's first element: 2D (y0 + 4 ly, x); 3D (z0, y0 + ly, x).
                Int z0 = tz * kRows, x = x0 + lx;
                Int y = three ? Expr<std::int32_t>(y0 + ly) : Expr<std::int32_t>(y0 + ly * kRows);
                // Most tiles are interior: their body reads without clamps (the same in the whole workgroup).
                Bool interior = y0 >= radius && y0 + (tile_h + radius) <= h && x0 >= radius && x0 + (tile_w + radius) <= w &&
                                (three ? Expr<bool>(z0 >= radius && z0 + (kRows + radius) <= d) : Expr<bool>(true));
                const detail::StencilSource<Array<T>> src{in, dims, d, h, w, std::nullopt, h, w};
                auto elements = [&](bool inside) {
                    typename Neighbourhood<T>::Loads loads;
                    auto read = detail::boundary_reader<T>(src, three ? z0 : y, y, x, boundary, inside);
                    for (int k = 0; k < kRows; ++k) {
                        Expr<std::int32_t> zk = three ? Expr<std::int32_t>(z0 + k) : Expr<std::int32_t>(0);
                        Expr<std::int32_t> yk = three ? Expr<std::int32_t>(y) : Expr<std::int32_t>(y + k);
                        Neighbourhood<T> n(read, dims, k, zk, yk, x, d, h, w, radius, loads);
                        Expr<T> value = body(n, params);
                        Expr<std::int32_t> at = three ? Expr<std::int32_t>((zk * h + yk) * w + x) : Expr<std::int32_t>(yk * w + x);
                        // Clamped reads are in the stream for any position: every
                        // element's value is computed, and only those inside are stored.
                        if (inside) out.store(at, value);
                        else If((three ? Expr<bool>(zk < d) : Expr<bool>(true)) && yk < h && x < w, [&] { out.store(at, value); });
                    }
                };
                If(interior, [&] { elements(true); }).Else([&] { elements(false); });
            });
    }

    /// One iteration per dispatch where invocations run in sequence (the CPU
    /// backend; 3D stencils): an invocation takes a whole line (a row of a
    /// plane; the kernel also serves 2D streams), 64 lines a workgroup, and walks it element by
    /// element, so that its loads are consecutive memory. A line whose rows
    /// and planes within the radius lie inside the stream reads its middle
    /// without clamps in one loop (what the compiler vectorizes); its ends,
    /// and other lines, apply the boundary rule.
    static Kernel trace_lines(const std::string& name, int radius, const Body& body, Boundary boundary, int dims) {
        return group_kernel<detail::kRowWorkgroup>(
            name + "_lines(in, out, d, h, w, tiles_x, tiles_y, params)", GroupOptions{.unchecked_arrays = true},
            [&body, radius, boundary, dims](Array<T> in, Array<T> out, Int d, Int h, Int w, Int, Int, Float4 params) {
                const bool three = dims == 3;
                Int line = global_id();
                If(line < d * h, [&] {
                    Int z = three ? Expr<std::int32_t>(line / h) : Expr<std::int32_t>(0);
                    Int y = line - z * h;
                    const detail::StencilSource<Array<T>> src{in, dims, d, h, w, std::nullopt, h, w};
                    auto run = [&](const Expr<std::int32_t>& first, const Expr<std::int32_t>& end, bool inside) {
                        For(first, end, [&](Int x) {
                            typename Neighbourhood<T>::Loads loads;
                            auto read = detail::boundary_reader<T>(src, three ? Expr<std::int32_t>(z) : Expr<std::int32_t>(y), y, x,
                                                                   boundary, inside);
                            Neighbourhood<T> n(read, dims, 0, z, y, x, d, h, w, radius, loads);
                            out.store(line * w + x, body(n, params));
                        });
                    };
                    Bool rows_inside = y >= radius && y + radius < h && (three ? Expr<bool>(z >= radius && z + radius < d) : Expr<bool>(true));
                    If(rows_inside && w > 2 * radius, [&] {
                        run(Int(0), Int(radius), false);
                        run(Int(radius), w - radius, true);
                        run(w - radius, w, false);
                    }).Else([&] { run(Int(0), w, false); });
                });
            });
    }

    /// `steps` iterations of a 2D stencil in one dispatch: a workgroup loads
    /// its tile and a halo of steps * radius into shared memory, computes
    /// each step on a region one radius smaller than the step before (from
    /// one buffer into the other), and stores the last step's tile. An
    /// invocation takes `rows` consecutive rows of `columns` neighbouring
    /// columns of the region (the last strip of a column overlaps the one
    /// before where the region's height is no multiple of it: those elements
    /// are computed twice, to the same value; the region's width, 32 plus an
    /// even halo, is a multiple of 1 and 2), so that reads and fluxes its
    /// elements share are made once, and neighbouring invocations take
    /// neighbouring columns. Elements outside the stream are computed as
    /// copies of the nearest element inside, and every read goes through the
    /// boundary rule to an element inside, which lies within the region of
    /// the step before.
    static Kernel trace_blocked(const std::string& name, int radius, const Body& body, Boundary boundary, int steps, int rows,
                                int columns) {
        const int halo = steps * radius, side = kBlockTile + 2 * halo, odd = odd_side(side, radius);
        return group_kernel<kWorkgroup>(
            name + "_steps" + std::to_string(steps) + (rows == 0 ? "" : "_rows" + std::to_string(rows)) +
                (odd == side ? "_equal" : "") +
                (columns == 1 ? "" : "_columns" + std::to_string(columns)) + "(in, out, d, h, w, tiles_x, tiles_y, params)",
            // Parameters read once: its steps' loops read them after stores (GroupOptions).
            GroupOptions{.unchecked_arrays = true, .parameters_at_start = true},
            [&body, radius, boundary, steps, rows, columns, halo, side, odd](Array<T> in, Array<T> out, Int d, Int h, Int w,
                                                                             Int tiles_x, Int, Float4 params) {
                // Even steps' regions (and the loaded tile) in buffers[0], the
                // tile's side wide; odd steps' in buffers[1], `odd` wide, its
                // element 0 at (origin, origin) of the tile.
                const Shared<T> buffers[2] = {Shared<T>(side * side, dsl::Unchecked{}), Shared<T>(odd * odd, dsl::Unchecked{})};
                // Tile position (r, c) lies at r * pitches[b] + c + shifts[b] of buffers[b].
                const int origin = (side - odd) / 2;
                const int pitches[2] = {side, odd}, shifts[2] = {0, -(origin * odd + origin)};
                Int tile = group_id();
                Int ty = tile / tiles_x;
                Int y0 = ty * kBlockTile, x0 = (tile - ty * tiles_x) * kBlockTile;
                Int by = y0 - halo, bx = x0 - halo;  // the stream's position of the buffers' element 0
                // i >= 0: its quotients by the buffers' widths are taken unsigned (in a
                // loop of about 40 instructions a step's element; docs/PERFORMANCE.md#segment).
                auto quotient = [](const Int& i, int d) { return nonnegative_quotient(i, static_cast<std::uint32_t>(d)); };
                // The region with its halo, every load of an invocation read before
                // its first store (slots past the region read its last element and
                // store nothing): NVIDIA's OpenGL compiler kept this as a loop of one
                // load in flight (docs/PERFORMANCE.md#opengl-against-vulkan).
                const int elements = side * side, slots = (elements + kWorkgroup - 1) / kWorkgroup;
                std::vector<Var<T>> loaded;
                for (int k = 0; k < slots; ++k) {
                    Int at = local_id() + k * kWorkgroup;
                    Int i = (k + 1) * kWorkgroup <= elements ? Expr<std::int32_t>(at) : min(at, Int(elements - 1));
                    Int r = quotient(i, side);
                    loaded.emplace_back(in.load(clamp(by + r, 0, h - 1) * w + clamp(bx + (i - r * side), 0, w - 1)));
                }
                for (int k = 0; k < slots; ++k) {
                    Int i = local_id() + k * kWorkgroup;
                    if ((k + 1) * kWorkgroup <= elements) buffers[0].store(i, loaded[static_cast<std::size_t>(k)]);
                    else If(i < elements, [&] { buffers[0].store(i, loaded[static_cast<std::size_t>(k)]); });
                }
                barrier();
                Bool interior = by >= 0 && y0 + (kBlockTile + halo) <= h && bx >= 0 && x0 + (kBlockTile + halo) <= w;
                for (int s = 1; s <= steps; ++s) {
                    const int fb = (s - 1) % 2, tb = s % 2;
                    const Shared<T>& from = buffers[fb];
                    const Shared<T>& to = buffers[tb];
                    const int first = s * radius, extent = side - 2 * first;
                    const int across = extent / columns;  // an invocation's columns side by side
                    const int rows_here = rows == 0 ? fit_rows(extent, across) : rows;
                    const int strips = (extent + rows_here - 1) / rows_here;
                    const bool last = s == steps;
                    const int pitch = pitches[fb], shift = shifts[fb];  // of the step's reads
                    auto region = [&](bool inside) {
                        For(local_id(), strips * across, kWorkgroup, [&](Int i) {
                            Int q = quotient(i, across);
                            // The strip's first element in the tile, (r0, c), and in the stream, (y, x).
                            Int r0 = first + (extent % rows_here == 0 ? Expr<std::int32_t>(q * rows_here)
                                                                      : min(q * rows_here, Int(extent - rows_here)));
                            Int c = first + columns * (i - q * across);
                            Int y = by + r0, x = bx + c;
                            // Inside: (r0 + lead, c + dx) of the tile, the strip's reads and
                            // fluxes shared. Otherwise each element is computed at its nearest
                            // element in the stream, (cy, cx), reading the stream's elements by
                            // the boundary rule at -(by * pitch + bx) + shift + row * pitch +
                            // column: an element outside the stream reads only what that
                            // element reads, which the buffer holds.
                            const detail::StencilSource<Shared<T>> src{
                                from, 2, d, h, w,
                                !inside ? std::optional<Expr<std::int32_t>>(shift - (by * pitch + bx))
                                : shift != 0 ? std::optional<Expr<std::int32_t>>(Int(shift))
                                             : std::nullopt,
                                Int(pitch), Int(pitch)};
                            typename Neighbourhood<T>::Loads shared;
                            auto strip = inside ? detail::boundary_reader<T>(src, r0, r0, c, boundary, true) : typename Neighbourhood<T>::Reader{};
                            for (int k = 0; k < rows_here; ++k)
                                for (int j = 0; j < columns; ++j) {
                                    Int yk = y + k, xj = x + j;
                                    Expr<std::int32_t> cy = inside ? Expr<std::int32_t>(yk) : clamp(yk, 0, h - 1);
                                    Expr<std::int32_t> cx = inside ? Expr<std::int32_t>(xj) : clamp(xj, 0, w - 1);
                                    typename Neighbourhood<T>::Loads own;
                                    auto read = inside ? strip : detail::boundary_reader<T>(src, cy, cy, cx, boundary, false);
                                    Neighbourhood<T> n(read, 2, inside ? k : 0, Expr<std::int32_t>(0), cy, cx, d, h, w, radius,
                                                       inside ? shared : own, inside ? j : 0);
                                    Expr<T> value = body(n, params);
                                    if (!last) to.store((r0 + k) * pitches[tb] + (c + j + shifts[tb]), value);
                                    else if (inside) out.store(yk * w + xj, value);
                                    else If(yk < h && xj < w, [&] { out.store(yk * w + xj, value); });
                                }
                        });
                    };
                    If(interior, [&] { region(true); }).Else([&] { region(false); });
                    if (!last) barrier();
                }
            });
    }

    std::string name_;
    int radius_;
    Boundary boundary_;
    int tile_width_;
    StencilOptions options_;
    std::shared_ptr<const Body> body_;
    std::shared_ptr<LazyKernels> lazy_;
    Kernel kernel_;
};

}  // namespace rill
