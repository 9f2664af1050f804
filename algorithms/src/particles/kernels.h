// The particle engine's stages as functions over streams (engine.cpp puts
// them in order; render.cpp draws).
#pragma once

#include <rill/algorithms/particles.h>

namespace rill::particles::detail {

/// The grid's parameters as the kernels take them: grid = (box.lo, 1 /
/// cell size), dims = (cells along x, y, z, all cells). Keys: a live
/// particle's cell; `dims.w` for one not yet born; `dims.w + 1` for one gone.
struct GridParams {
    float4 grid;
    int4 dims;
};

/// keys[i], ids[i] = i for the particles at `time`.
void cell_keys(const Stream<Particle>& items, const Stream<std::uint32_t>& keys, const Stream<std::int32_t>& ids, const GridParams& g,
               float time);

/// The sorted order's streams: particles, positions and velocities (4 floats
/// a particle, read as one 16-byte access by the neighbour loops),
/// the cell table (cells[2 k], cells[2 k + 1] = start and end of cell k's
/// run, valid where the key at start is k), and info[0] = the first place
/// of a particle that is gone (the size when none is).
struct Sorted {
    Stream<Particle> items;
    Stream<float> positions, velocities;
    Stream<std::int32_t> cells;
    Stream<std::uint32_t> info;
};
void gather_sorted(const Stream<std::uint32_t>& keys, const Stream<std::int32_t>& ids, const Stream<Particle>& items, const Sorted& out,
                   const GridParams& g);

/// Velocity and position changes from contacts, per sorted particle.
void contacts(const Sorted& s, const Stream<std::uint32_t>& keys, const Stream<float>& dv, const Stream<float>& dp, const GridParams& g,
              const Options& o, float dt);

/// Pairs closer than 2 radius, (i, j) with i < j, places in the sorted order.
Stream<int2> pairs_within(const Sorted& s, const Stream<std::uint32_t>& keys, const GridParams& g, float diameter);

/// Emits `count` particles of `e` into the slots from s.info[0] + offset
/// on, each at a random place closer than `diameter` to no particle of the
/// grid `s` (8 tries; a slot stays free when all of them are taken).
void emit(const Stream<Particle>& items, const Sorted& s, const Stream<std::uint32_t>& keys, const GridParams& g, float diameter,
          const Emitter& e, std::int32_t offset, std::int32_t count, float birth, std::uint32_t seed);

/// Draws the particles live at `time` into image (render.cpp).
void draw(const Stream<Particle>& items, float radius, float time, const Camera& camera, const Stream<float4>& image,
          const RenderOptions& options);

}  // namespace rill::particles::detail
