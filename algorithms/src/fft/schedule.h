// How an FFT of one axis is cut into passes (host only, no device): the
// factors of a length, the passes over memory, the radices inside a pass.
#pragma once

#include <cstdint>
#include <vector>

namespace rill::fft::detail {

/// The largest prime factor the Stockham passes handle; a length with a
/// larger one goes through Bluestein's algorithm.
constexpr std::int64_t kLargestRadix = 19;
/// The longest transformed dimension.
constexpr std::int64_t kLongest = std::int64_t{1} << 24;

/// The prime factors of n >= 1, smallest first.
std::vector<std::int64_t> prime_factors(std::int64_t n);

/// True when every prime factor of n is at most kLargestRadix.
bool smooth(std::int64_t n);

/// The line lengths of the passes over memory of a smooth length n: one
/// length for n <= longest, else as few as can be, each at most longest, as
/// even as the factors allow. Their product is n.
std::vector<std::int64_t> pass_lengths(std::int64_t n, std::int64_t longest);

/// The radices (kRadices) of the shared-memory passes of a line of R
/// elements, R smooth and at most kLockstepLine: 8s, then a 4 or a 2, then
/// the odd primes. Their product is R. RILL_FFT_MAX_RADIX=4 or 2 (a tuning
/// knob) takes the powers of two as 4s (and a 2) or as 2s instead.
std::vector<int> radices(std::int64_t R);

/// The largest power-of-two radix radices() takes: 8, or RILL_FFT_MAX_RADIX.
int largest_power_of_two_radix();

/// The power of two Bluestein's algorithm uses for length n: at least 2 n - 1.
std::int64_t bluestein_length(std::int64_t n);

}  // namespace rill::fft::detail
