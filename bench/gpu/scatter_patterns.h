// Store patterns for the scatter probes (rill-vk-copy-peer scatter,
// rill-gl-copy-probe scatter): invocation i stores its element at perm[i].
// They ask whether scattered stores run slower through Vulkan than through
// OpenGL on the same GPU, outside rill (docs/PERFORMANCE.md, session 13).
//   identity   perm[i] = i: a copy that also reads an index
//   radix      the stores of one pass of rill's radix scatter: every tile of
//              4096 keys sorted by an 8-bit digit, then written out in that
//              order, each digit's keys after those of the earlier tiles
//   random     a bijective hash of i: every store to its own place
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace rill_probe {

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
