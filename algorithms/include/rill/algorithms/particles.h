// A particle engine in the line of UberFlow (Kipfer, Segal and Westermann,
// Graphics Hardware 2004), every stage a DSL kernel or one of rill's sorts and
// scans, so that it runs on every backend and the particles never pass
// through the host:
//
//   #include <rill/algorithms/particles.h>
//   rill::particles::Engine engine(rt, 1 << 20, {.box = {{-1, 0, -1}, {1, 2, 1}}, .radius = 0.005f});
//   engine.add_emitter({.position = {0, 0.2f, 0}, .velocity = {0, 3, 0}, .velocity_jitter = 0.5f, .rate = 2e5f});
//   engine.set_height_field(heights);          // Stream<float> {rows, columns} of y over the box's z, x
//   for (int frame = 0; frame < 600; ++frame) engine.step(1.0f / 600);
//   engine.render(camera, image);              // Stream<float4> {height, width}
//   engine.render(camera, image, {.translucent = true});  // UberFlow's E3: blended front to back
//
// A step, as in UberFlow's section 4: (1) a key per particle, its grid cell
// (cells of twice the radius over the box, x fastest; particles outside the
// box in the nearest edge cell), or past the last cell for a particle not
// yet born or no longer alive; (2) rill's radix sort of the keys with the
// particles' places (UberFlow's bitonic sort by Options::sort); (3) the
// particles gathered into key order, with each occupied cell's range
// [start, end) of the sorted particles written into a table over the cells
// (entries of cells left empty are stale, and told apart by checking the key
// at their start: no clearing pass); (4) contacts: every particle visits
// the 27 cells around its own and tests every particle there, so that every
// pair closer than twice the radius is found (not UberFlow's approximation
// of a few neighbours along a row, which misses pairs); (5) motion:
// gravity, drag and a user force (a DSL lambda), the contact response,
// semi-implicit Euler, then the height field, the distance field and the
// box's walls; (6) emission into the slots of particles no longer alive.
//
// Contact responses: SpringDamper, the discrete-element model (each pair
// closer than 2 r pushes apart with stiffness * overlap along the line of
// centres, damped by damping * the normal relative velocity; equal and
// opposite, so momentum is conserved), or NearestPartner, UberFlow's
// (each particle reflects its velocity off its nearest approaching partner,
// elastically, and steps back out of the overlap). Particles have unit mass.
//
// Fields: a height field (2D stream {rows, columns} of heights y over the
// box: row 0 at box.lo.z, the last at box.hi.z, column 0 at box.lo.x, the
// last at box.hi.x), and a signed distance field (3D stream {nz, ny, nx} of
// distances over the box, element (k, j, i) at box.lo + (i, j, k) * (hi - lo)
// / (n - 1), negative inside the solid), both sampled with rill's filtered
// reads (rill/dsl/sampling.h). A particle that ends a step below the height
// field (less than its radius above) is lifted onto it and its velocity
// reflected off the field's normal with the restitution; one closer than its
// radius to the distance field's surface is pushed out along the field's
// gradient (up to four times) and reflected the same way.
//
// Rendering: opaque lit spheres splatted into an image stream (the nearest
// surface per pixel), or translucent (each particle's colour alpha its
// opacity, blended per pixel front to back in order of distance, as UberFlow
// drew sorted semi-transparent particles). On OpenGL the particles can also
// be drawn as sprites straight from streams (rill/backends/opengl.h;
// rill-particles --gl-points).
//
// Figures: docs/PERFORMANCE.md#particles.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <rill/rill.h>

namespace rill::particles {

/// One particle: 48 bytes, the same layout on the host and every backend.
struct Particle {
    float3 position;
    /// The engine time (seconds) at which it appears; it moves, collides
    /// and is drawn from then on.
    float birth = 0;
    float3 velocity;
    /// Seconds it lives after its birth; gone at birth + life (0: a free
    /// slot that emitters fill).
    float life = 0;
    /// Linear RGBA; rendering draws the RGB, and the alpha is the opacity
    /// of translucent drawing (RenderOptions::translucent).
    float4 colour{1, 1, 1, 1};
};

}  // namespace rill::particles

RILL_STRUCT(rill::particles::Particle, position, birth, velocity, life, colour);

namespace rill::particles {

enum class Response {
    /// Discrete-element springs and dampers on every pair closer than 2 r.
    SpringDamper,
    /// UberFlow's: an elastic reflection off the nearest approaching partner.
    NearestPartner,
    /// No inter-particle collisions (UberFlow's collisionless motion, E1).
    None,
};

enum class SortAlgorithm {
    /// rill's radix sort of the cell keys (the fastest).
    Radix,
    /// rill's bitonic sort, as UberFlow sorted (for the paper's tables).
    Bitonic,
};

/// An axis-aligned box: the grid's extent, and the walls with Options::walls.
struct Box {
    float3 lo{-1, -1, -1};
    float3 hi{1, 1, 1};
};

/// Emits `rate` particles per second (fractions carried from step to step)
/// into free slots (those of particles gone; none when every slot is live),
/// at `position` plus a uniform random offset in a cube of half-size
/// `position_jitter`, with `velocity` plus one in a cube of half-size
/// `velocity_jitter`. A particle is placed only where it overlaps no
/// particle of the step (up to 8 random tries, else it is not emitted that
/// step): one born inside another would be thrown out by the springs. Keep
/// rate * (2 radius)^3 well below the cube's face * speed, or most tries fail.
struct Emitter {
    float3 position{};
    float position_jitter = 0;
    float3 velocity{};
    float velocity_jitter = 0;
    float rate = 0;
    float life = 1;
    float4 colour{1, 1, 1, 1};
};

/// An acceleration added to every live particle, written in the DSL and
/// traced once into the engine's motion kernel: (position, velocity, time).
using Force = std::function<Expr<float3>(const Expr<float3>& position, const Expr<float3>& velocity, const Expr<float>& time)>;

struct Options {
    /// The grid covers the box (particles outside it go to its edge cells,
    /// and are still found); with `walls`, its faces bound the particles.
    Box box{};
    /// Every particle's radius: pairs closer than 2 radius are in contact;
    /// grid cells are 2 radius wide (slightly more, against rounding).
    float radius = 0.01f;
    float3 gravity{0, -9.81f, 0};
    /// Velocity lost per second: a = -drag v.
    float drag = 0;
    Response response = Response::SpringDamper;
    /// SpringDamper: the spring constant per unit mass (1 / s^2) and the
    /// normal damping (1 / s). A step must be short against the spring:
    /// dt below about 0.3 / sqrt(stiffness) stays stable.
    float stiffness = 2e4f;
    float damping = 20;
    /// The share of the normal velocity a wall or a field gives back, and
    /// NearestPartner's (1 = elastic).
    float restitution = 0.5f;
    bool walls = true;
    SortAlgorithm sort = SortAlgorithm::Radix;
    /// A user acceleration; empty for none.
    Force force{};
    /// The prefix of the engine's kernel names, so that engines with
    /// different forces have different kernels.
    std::string name = "particles";
};

/// What each stage of the last step took (milliseconds of wall time, with
/// the device finishing each stage before the next: slower than untimed
/// steps, for a breakdown only).
struct StageTimes {
    double keys = 0, sort = 0, neighbours = 0, collide = 0, integrate = 0, emit = 0;
    double total() const { return keys + sort + neighbours + collide + integrate + emit; }
};

/// A pinhole camera for render().
struct Camera {
    float3 eye{0, 1, 4};
    float3 target{0, 0, 0};
    float3 up{0, 1, 0};
    float fov_y_degrees = 40;
};

/// A camera's orthonormal frame: forward (eye to target), right, up.
/// Throws rill::Error where the eye is at the target or up lies along the view.
struct CameraFrame {
    float3 forward, right, up;
};
CameraFrame frame_of(const Camera& camera);

struct RenderOptions {
    float4 background{0.02f, 0.02f, 0.03f, 1};
    /// Draw the particles semi-transparent, each with its colour's alpha as
    /// its opacity (UberFlow's E3): they are sorted front to back by their
    /// centres' distance along the view, and every pixel blends the
    /// particles covering it in that order over the background. Costs two
    /// sorts (the particles, then their fragments by pixel) and a read-back
    /// of the fragment count. Without it, particles are opaque and the
    /// nearest surface shows.
    bool translucent = false;
};

class Engine {
public:
    /// An engine over `particles` (copied): its capacity is their count.
    Engine(const Stream<Particle>& particles, const Options& options = {});
    /// An engine of `capacity` free slots (life 0), for emitters to fill.
    Engine(Runtime& rt, std::int64_t capacity, const Options& options = {});
    ~Engine();
    Engine(Engine&&) noexcept;
    Engine& operator=(Engine&&) noexcept;

    void add_emitter(const Emitter& emitter);
    /// Heights over the box: a 2D float stream {rows, columns}, each at least 1.
    void set_height_field(const Stream<float>& heights);
    /// Signed distances over the box: a 3D float stream {nz, ny, nx}.
    void set_distance_field(const Stream<float>& distances);

    /// Advances the engine by dt seconds; with `times`, finishes the device
    /// after each stage and writes what each took. A particle whose state
    /// becomes non-finite (a force giving NaN, a time step too long for the
    /// springs) is removed and reported by the next call that reads the
    /// particles (particles(), pairs(), render(), check()) or by step()
    /// itself every 16 steps, as a rill::Error naming the particle.
    void step(float dt, StageTimes* times = nullptr);
    /// Throws the error of a particle that became non-finite, if any.
    void check();

    /// The particles, in the grid order of the last step (live ones first).
    /// The engine steps between two buffers: a copy of this handle shows
    /// the particles of now, not of later steps (ask again after step()).
    const Stream<Particle>& particles();
    /// Every pair of live particles closer than 2 radius now, as (i, j),
    /// i < j, places in particles() (which this sorts by cell first).
    Stream<int2> pairs();
    /// Draws the live particles as lit spheres into `image` ({height, width}).
    void render(const Camera& camera, const Stream<float4>& image, const RenderOptions& options = {});

    /// The engine's clock: the sum of the steps' dt (from 0).
    double time() const;
    std::int64_t capacity() const;
    const Options& options() const;
    /// Cells of the grid along x, y and z.
    int3 grid() const;

    struct State;

private:
    std::unique_ptr<State> s_;
};

}  // namespace rill::particles
