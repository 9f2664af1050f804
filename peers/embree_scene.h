// A triangle mesh in Embree 3 (Intel's CPU ray tracer), for the tests'
// reference answers and the benchmarks' CPU peer: closest and any hit of
// rays given as rill lays them out (origin xyz + t_min, direction xyz +
// t_max; a hit as t, u, v, face).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

struct RTCDeviceTy;
struct RTCSceneTy;

namespace rill::peers {

/// Rows of four numbers from any 4-component structs with fields x, y, z, w
/// (rill's float4 and int4), as EmbreeScene takes them.
template <class T, class V>
std::vector<std::array<T, 4>> rows(const std::vector<V>& v) {
    std::vector<std::array<T, 4>> out;
    out.reserve(v.size());
    for (const V& x : v) out.push_back({x.x, x.y, x.z, x.w});
    return out;
}

class EmbreeScene {
public:
    /// vertices: x, y, z, (ignored) per vertex; faces: three indices per face.
    /// `threads` 0: Embree's default (every core). `robust`: Embree's
    /// RTC_SCENE_FLAG_ROBUST (no arithmetic shortcuts; what the tests use).
    EmbreeScene(const std::vector<std::array<float, 4>>& vertices, const std::vector<std::array<std::int32_t, 4>>& faces,
                int threads = 0, bool robust = true);
    ~EmbreeScene();
    EmbreeScene(const EmbreeScene&) = delete;
    EmbreeScene& operator=(const EmbreeScene&) = delete;

    struct Hit {
        float t, u, v;
        std::int32_t face;  // -1: a miss (t = t_max)
    };
    Hit closest(const std::array<float, 4>& origin, const std::array<float, 4>& direction) const;
    bool occluded(const std::array<float, 4>& origin, const std::array<float, 4>& direction) const;

    /// Rays per second of one call over all rays on `threads` threads (TBB),
    /// in packets of single rays as a path tracer shoots them.
    void closest_all(const std::vector<std::array<float, 4>>& origins, const std::vector<std::array<float, 4>>& directions,
                     std::vector<Hit>& hits) const;
    void occluded_all(const std::vector<std::array<float, 4>>& origins, const std::vector<std::array<float, 4>>& directions,
                      std::vector<std::uint8_t>& occluded) const;

    /// The SAH cost of Embree's binary BVH over the same triangles (its
    /// builder API, one triangle per leaf, high quality), in the cost model of
    /// rill::bvh::Bvh::sah_cost: 1 per node, 1 per triangle, by area.
    static double binary_sah_cost(const std::vector<std::array<float, 4>>& vertices,
                                  const std::vector<std::array<std::int32_t, 4>>& faces);

    /// Embree's broad phase over boxes (lo, hi: x, y, z, ignored): a scene
    /// of user geometry, one primitive per box, collided with itself
    /// (rtcCollide), which reports each overlapping pair (i, j), i != j, in
    /// both orders. Returns how many it reported; build_ms and collide_ms get
    /// the host wall times of rtcCommitScene and of rtcCollide.
    static std::int64_t overlapping_pairs(const std::vector<std::array<float, 4>>& lo,
                                          const std::vector<std::array<float, 4>>& hi, double& build_ms, double& collide_ms);

private:
    RTCDeviceTy* device_ = nullptr;
    RTCSceneTy* scene_ = nullptr;
};

}  // namespace rill::peers
