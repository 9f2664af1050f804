// What the scatter probes (rill-vk-copy-peer scatter, rill-gl-copy-probe
// scatter) share: their shaders, the value they scatter and the store
// patterns. Invocation i stores its element at perm[i]. They ask whether
// scattered stores run slower through Vulkan than through OpenGL on the same
// GPU, outside rill (docs/PERFORMANCE.md#opengl-against-vulkan).
//   identity   perm[i] = i: a copy that also reads an index
//   radix      the stores of one pass of rill's radix scatter: every tile of
//              4096 keys sorted by an 8-bit digit, then written out in that
//              order, each digit's keys after those of the earlier tiles
//   random     a bijective hash of i: every store to its own place
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace rill_probe {

/// dst[perm[i]] = src[i]; both APIs bind src, dst, perm to 0, 1, 2, and the
/// size comes from the buffer, so the shader is the same text for both.
inline constexpr const char* kScatterShader = R"(#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uint dst[]; };
layout(std430, binding = 2) readonly buffer Perm { uint perm[]; };
void main() {
    uint n = uint(perm.length());
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (i < n) dst[perm[i]] = src[i];
}
)";

/// Each lane finds the lanes of its subgroup with the same 8-bit digit by 8
/// ballots, as rill's radix scatter ranks keys, 16 digits per element.
inline constexpr const char* kBallotShader = R"(#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uint dst[]; };
void main() {
    uint n = uint(src.length());
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    uint key = src[min(i, n - 1u)] * 0x9E3779B1u + i * 0x85EBCA77u, total = 0u;
    for (int j = 0; j < 16; ++j) {
        uint d = (key >> (j & 3) * 8) & 255u;
        uvec4 peers = subgroupBallot(true);
        for (int b = 0; b < 8; ++b) {
            bool bit = ((d >> b) & 1u) != 0u;
            uvec4 m = subgroupBallot(bit);
            peers &= bit ? m : ~m;
        }
        total += subgroupBallotBitCount(peers) + subgroupBallotExclusiveBitCount(peers);
        key = key * 0xC2B2AE3Du + 1u;
    }
    if (i < n) dst[i] = total;
}
)";

/// Every element of src holds this (1.0f); dst starts at 0.
inline constexpr std::uint32_t kScattered = 0x3f800000u;

/// Elements of dst the scatter did not write: 0 when it is right, since perm is a permutation.
inline std::uint64_t unwritten(const std::uint32_t* dst, std::size_t n) {
    std::uint64_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += dst[i] != kScattered;
    return wrong;
}

inline const std::array<std::string, 3> kScatterPatterns = {"identity", "radix", "random"};

inline std::vector<std::uint32_t> scatter_pattern(const std::string& pattern, int log2n) {
    const std::uint32_t n = std::uint32_t{1} << log2n, mask = n - 1;
    std::vector<std::uint32_t> perm(n);
    if (pattern == "identity") {
        for (std::uint32_t i = 0; i < n; ++i) perm[i] = i;
    } else if (pattern == "random") {
        // Multiplications by odd numbers and xor-shifts are bijections modulo 2^log2n.
        for (std::uint32_t i = 0; i < n; ++i) {
            std::uint32_t x = i;
            x = (x * 0x9E3779B1u) & mask;
            x ^= x >> (log2n / 2);
            x = (x * 0x85EBCA77u) & mask;
            x ^= x >> (log2n / 2 + 1);
            perm[i] = (x * 0xC2B2AE3Du) & mask;
        }
    } else {  // radix
        constexpr std::uint32_t kTile = 4096, kBins = 256;
        std::mt19937 rng(7);
        std::vector<std::uint8_t> digit(n);
        for (auto& d : digit) d = static_cast<std::uint8_t>(rng());
        std::vector<std::uint32_t> next(kBins, 0);  // where digit d's next key goes
        for (std::uint32_t i = 0; i < n; ++i) ++next[digit[i]];
        std::uint32_t run = 0;
        for (auto& c : next) {
            const std::uint32_t count = c;
            c = run;
            run += count;
        }
        for (std::uint32_t t = 0; t < n; t += kTile) {
            const std::uint32_t end = t + kTile < n ? t + kTile : n;
            // The tile's invocations store in the tile's sorted order.
            std::array<std::uint32_t, kBins> at{};
            for (std::uint32_t i = t; i < end; ++i) ++at[digit[i]];
            std::uint32_t p = t;
            for (auto& c : at) {
                const std::uint32_t count = c;
                c = p;
                p += count;
            }
            for (std::uint32_t i = t; i < end; ++i) perm[at[digit[i]]++] = next[digit[i]]++;
        }
    }
    return perm;
}

}  // namespace rill_probe
