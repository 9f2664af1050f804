// The particle engine's grid stages: cell keys, the gather into key order
// with the cell table, contacts and the pair list, and emission.
#include <rill/algorithms/scan.h>

#include <string>

#include "grid.h"
#include "kernels.h"

namespace rill::particles::detail {

namespace {

constexpr int kWorkgroup = 256;
std::int64_t groups_for(std::int64_t n) { return (n + kWorkgroup - 1) / kWorkgroup; }


}  // namespace

void cell_keys(const Stream<Particle>& items, const Stream<std::uint32_t>& keys, const Stream<std::int32_t>& ids, const GridParams& g,
               float time) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "particles_keys(items, keys, ids, grid, dims, time)",
        [](Array<Particle> items, Array<std::uint32_t> keys, Array<std::int32_t> ids, Float4 grid, Int4 dims, Float time) {
            Int i = global_id();
            If(i < items.size(), [&] {
                Var<Particle> p = items.load(i);
                Bool born = p.birth <= time;
                Bool live = born && time < p.birth + p.life;
                Int key = select(live, key_of(cell_of(p.position, grid, dims), dims), select(born, dims.w() + 1, dims.w()));
                keys.store(i, cast<std::uint32_t>(key));
                ids.store(i, i);
            });
        });
    kernel(Groups{groups_for(items.size())}, items, keys, ids, g.grid, int4{g.dims.x, g.dims.y, g.dims.z, g.dims.w}, time);
}

void gather_sorted(const Stream<std::uint32_t>& keys, const Stream<std::int32_t>& ids, const Stream<Particle>& items, const Sorted& out,
                   const GridParams& g) {
    static const auto kernel = group_kernel<kWorkgroup>(
        "particles_gather(keys, ids, items, sorted, positions, velocities, cells, info, dims)",
        [](Array<std::uint32_t> keys, Array<std::int32_t> ids, Array<Particle> items, Array<Particle> sorted, Array<float> positions,
           Array<float> velocities, Array<std::int32_t> cells, Array<std::uint32_t> info, Int4 dims) {
            Int i = global_id();
            Int n = keys.size();
            If(i < n, [&] {
                UInt k = keys.load(i);
                Var<Particle> p = items.load(ids.load(i));
                sorted.store(i, p);
                positions.store_vector<4>(i, Float4(p.position, 0.0f));
                velocities.store_vector<4>(i, Float4(p.velocity, 0.0f));
                UInt count = cast<std::uint32_t>(dims.w()), gone = count + 1u;
                Bool first = i == 0 || keys.load(i - 1) != k;
                Bool last = i == n - 1 || keys.load(i + 1) != k;
                If(k < count, [&] {
                    Int at = 2 * cast<std::int32_t>(k);
                    If(first, [&] { cells.store(at, i); });
                    If(last, [&] { cells.store(at + 1, i + 1); });
                });
                If(k == gone && first, [&] { info.store(0, cast<std::uint32_t>(i)); });
                If(i == n - 1 && k != gone, [&] { info.store(0, cast<std::uint32_t>(n)); });
            });
        });
    kernel(Groups{groups_for(keys.size())}, keys, ids, items, out.items, out.positions, out.velocities, out.cells, out.info, g.dims);
}

void contacts(const Sorted& s, const Stream<std::uint32_t>& keys, const Stream<float>& dv, const Stream<float>& dp, const GridParams& g,
              const Options& o, float dt) {
    // contact = (diameter, stiffness, damping, dt); response = (0 springs / 1 nearest, restitution).
    static const auto kernel = group_kernel<kWorkgroup>(
        "particles_contacts(positions, velocities, keys, cells, dv, dp, grid, dims, contact, response)",
        [](Array<float> positions, Array<float> velocities, Array<std::uint32_t> keys, Array<std::int32_t> cells, Array<float> dv,
           Array<float> dp, Float4 grid, Int4 dims, Float4 contact, Float2 response) {
            Int i = global_id();
            If(i < keys.size(), [&] {
                Var<float4> out_v = Float4(0.0f), out_p = Float4(0.0f);
                If(keys.load(i) < cast<std::uint32_t>(dims.w()), [&] {
                    Float3 p = positions.load_vector<4>(i).xyz(), v = velocities.load_vector<4>(i).xyz();
                    Float diameter = contact.x(), reach = diameter * diameter, dt = contact.w();
                    If(response.x() == 0.0f, [&] {
                        Var<float3> f = Float3(0.0f);
                        for_each_neighbour(keys, cells, grid, dims, p, [&](const Int& j) {
                            Float3 d = p - positions.load_vector<4>(j).xyz();
                            Float d2 = dot(d, d);
                            If(d2 < reach && d2 > 0.0f, [&] {
                                Float dist = sqrt(d2);
                                Float3 n = d / dist;
                                Float3 relative = v - velocities.load_vector<4>(j).xyz();
                                f = f + n * (contact.y() * (diameter - dist) - contact.z() * dot(relative, n));
                            });
                        });
                        out_v = Float4(f * dt, 0.0f);
                    }).Else([&] {
                        Var<float> best = reach;
                        Var<std::int32_t> partner = -1;
                        for_each_neighbour(keys, cells, grid, dims, p, [&](const Int& j) {
                            Float3 d = p - positions.load_vector<4>(j).xyz();
                            Float d2 = dot(d, d);
                            If(d2 < best && d2 > 0.0f && dot(v - velocities.load_vector<4>(j).xyz(), d) < 0.0f, [&] {
                                best = d2;
                                partner = j;
                            });
                        });
                        If(partner >= 0, [&] {
                            Float3 d = p - positions.load_vector<4>(partner).xyz();
                            Float dist = sqrt(dot(d, d));
                            Float3 n = d / dist;
                            Float vn = dot(v - velocities.load_vector<4>(partner).xyz(), n);
                            out_v = Float4(n * (-(1.0f + response.y()) * 0.5f * vn), 0.0f);
                            out_p = Float4(n * ((diameter - dist) * 0.5f), 0.0f);
                        });
                    });
                });
                dv.store_vector<4>(i, out_v);
                dp.store_vector<4>(i, out_p);
            });
        });
    const float diameter = 2 * o.radius;
    kernel(Groups{groups_for(keys.size())}, s.positions, s.velocities, keys, s.cells, dv, dp, g.grid,
           int4{g.dims.x, g.dims.y, g.dims.z, g.dims.w}, float4{diameter, o.stiffness, o.damping, dt},
           float2{o.response == Response::SpringDamper ? 0.0f : 1.0f, o.restitution});
}

Stream<int2> pairs_within(const Sorted& s, const Stream<std::uint32_t>& keys, const GridParams& g, float diameter) {
    // write = 0: counts[i] = the partners j > i; 1: pairs from ends[i] - counts[i] on.
    static const auto kernel = group_kernel<kWorkgroup>(
        "particles_pairs(positions, keys, cells, counts, ends, pairs, grid, dims, diameter, write)",
        [](Array<float> positions, Array<std::uint32_t> keys, Array<std::int32_t> cells, Array<std::uint32_t> counts,
           Array<std::uint32_t> ends, Array<int2> pairs, Float4 grid, Int4 dims, Float diameter, Int write) {
            Int i = global_id();
            If(i < keys.size(), [&] {
                Var<std::int32_t> found = 0;
                Var<std::int32_t> at = 0;
                If(write != 0, [&] { at = cast<std::int32_t>(ends.load(i) - counts.load(i)); });
                If(keys.load(i) < cast<std::uint32_t>(dims.w()), [&] {
                    Float3 p = positions.load_vector<4>(i).xyz();
                    for_each_neighbour(keys, cells, grid, dims, p, [&](const Int& j) {
                        Float3 d = p - positions.load_vector<4>(j).xyz();
                        If(j > i && dot(d, d) < diameter * diameter, [&] {
                            If(write != 0, [&] { pairs.store(at + found, Int2(i, j)); });
                            found = found + 1;
                        });
                    });
                });
                If(write == 0, [&] { counts.store(i, cast<std::uint32_t>(found)); });
            });
        });
    Runtime rt = Runtime::of(keys);
    const std::int64_t n = keys.size();
    Stream<std::uint32_t> counts = rt.scratch<std::uint32_t>({n}), ends = rt.scratch<std::uint32_t>({n});
    Stream<int2> none = rt.stream<int2>({1});
    const int4 dims = g.dims;
    kernel(Groups{groups_for(n)}, s.positions, keys, s.cells, counts, ends, none, g.grid, dims, diameter, 0);
    inclusive_scan(counts, ends);
    const std::int64_t total = ends.domain({n - 1}, {n}).download()[0];
    Stream<int2> pairs = rt.stream<int2>({total});
    if (total > 0) kernel(Groups{groups_for(n)}, s.positions, keys, s.cells, counts, ends, pairs, g.grid, dims, diameter, 1);
    return pairs;
}

void emit(const Stream<Particle>& items, const Sorted& s, const Stream<std::uint32_t>& keys, const GridParams& g, float diameter,
          const Emitter& e, std::int32_t offset, std::int32_t count, float birth, std::uint32_t seed) {
    // where = (position, jitter), speed = (velocity, jitter), timing = (birth, life, diameter); slots = (offset, count, seed).
    static const auto kernel = group_kernel<kWorkgroup>(
        "particles_emit(items, info, positions, keys, cells, where, speed, colour, timing, slots, grid, dims)",
        [](Array<Particle> items, Array<std::uint32_t> info, Array<float> positions, Array<std::uint32_t> keys, Array<std::int32_t> cells,
           Float4 where, Float4 speed, Float4 colour, Float3 timing, Int4 slots, Float4 grid, Int4 dims) {
            Int j = global_id();
            Int slot = cast<std::int32_t>(info.load(0)) + slots.x() + j;
            If(j < slots.y() && slot < items.size(), [&] {
                // PCG hashes (O'Neill) of (seed, j): uniform numbers in [-1, 1).
                Var<std::uint32_t> state = cast<std::uint32_t>(j) * 0x9E3779B9u + cast<std::uint32_t>(slots.z());
                auto uniform = [&] {
                    state = state * 747796405u + 2891336453u;
                    UInt word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
                    UInt bits = (word >> 22u) ^ word;
                    return cast<float>(bits >> 8u) * (2.0f / 16777216.0f) - 1.0f;
                };
                // Up to 8 random places, the first that overlaps no particle of
                // the step's grid: a newborn particle inside another would be
                // thrown out by the contact springs.
                Var<float3> p = Float3(0.0f);
                Var<bool> free = false;
                For(0, 8, [&](Int) {
                    p = where.xyz() + Float3(uniform(), uniform(), uniform()) * where.w();
                    Var<bool> clear = true;
                    for_each_neighbour(keys, cells, grid, dims, p, [&](const Int& k) {
                        Float3 d = p - positions.load_vector<4>(k).xyz();
                        If(dot(d, d) < timing.z() * timing.z(), [&] { clear = false; });
                    });
                    If(clear, [&] {
                        free = true;
                        Break();
                    });
                });
                If(free, [&] {
                    Var<Particle> q = items.load(slot);
                    q.position = p;
                    q.velocity = speed.xyz() + Float3(uniform(), uniform(), uniform()) * speed.w();
                    q.birth = timing.x();
                    q.life = timing.y();
                    q.colour = colour;
                    items.store(slot, q);
                });
            });
        });
    kernel(Groups{groups_for(count)}, items, s.info, s.positions, keys, s.cells,
           float4{e.position.x, e.position.y, e.position.z, e.position_jitter},
           float4{e.velocity.x, e.velocity.y, e.velocity.z, e.velocity_jitter}, e.colour, float3{birth, e.life, diameter},
           int4{offset, count, static_cast<std::int32_t>(seed), 0}, g.grid, g.dims);
}

}  // namespace rill::particles::detail
