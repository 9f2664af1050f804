// The scene and rays that rill-bench-raytrace hands to rill-vkrt-peer
// (`rill-bench-raytrace --rays-out DIR`, then `rill-vkrt-peer DIR`), so that
// the peer traces exactly the rays rill traced and checks its answers against
// rill's. Plain headers and arrays, no rill types: the peer shares no code
// with rill.
//
//   DIR/mesh.bin                      MeshHeader, float4 vertices[], int4 faces[]
//   DIR/primary.bin, DIR/shadow.bin,  RaysHeader, float4 origins[n], float4 directions[n],
//   DIR/bounce.bin                    then rill's results: float4 hits[n] (t, -, -, face as
//                                     int bits, -1 for a miss) or uint32 occluded[n]
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace ray_dump {

struct MeshHeader {
    std::int32_t vertices = 0, faces = 0;
    double build_fast_ms = 0, build_ms = 0, refit_ms = 0;  // rill's, for the peer's table
};

struct RaysHeader {
    std::int32_t width = 0, height = 0, any_hit = 0, unused = 0;
    double rill_ms = 0;  // rill's device time for these rays
};

inline const char* const kKinds[] = {"primary", "shadow", "bounce"};

/// Appends `count` elements at `data` to `f`; false on a short write.
template <typename T>
bool put(std::FILE* f, const T* data, std::size_t count) {
    return std::fwrite(data, sizeof(T), count, f) == count;
}

/// Reads `count` elements of T from `f` into `out`; false on a short read.
template <typename T>
bool get(std::FILE* f, std::vector<T>& out, std::size_t count) {
    out.resize(count);
    return std::fread(out.data(), sizeof(T), count, f) == count;
}

}  // namespace ray_dump
