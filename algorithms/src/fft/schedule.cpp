#include "schedule.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include <rill/core/error.h>

#include "kernels.h"

namespace rill::fft::detail {

std::vector<std::int64_t> prime_factors(std::int64_t n) {
    std::vector<std::int64_t> f;
    for (std::int64_t p = 2; p * p <= n; ++p)
        while (n % p == 0) f.push_back(p), n /= p;
    if (n > 1) f.push_back(n);
    return f;
}

bool smooth(std::int64_t n) {
    const auto f = prime_factors(n);
    return f.empty() || f.back() <= kLargestRadix;
}

std::vector<std::int64_t> pass_lengths(std::int64_t n, std::int64_t longest) {
    if (n <= longest) return {n};
    auto f = prime_factors(n);
    std::sort(f.rbegin(), f.rend());
    // Largest factors first into the pass with the smallest product that
    // still has room: with 2s last, this evens the passes out.
    for (std::size_t passes = 2;; ++passes) {
        std::vector<std::int64_t> len(passes, 1);
        bool fits = true;
        for (std::int64_t p : f) {
            auto it = std::min_element(len.begin(), len.end());
            if (*it * p > longest) {
                fits = false;
                break;
            }
            *it *= p;
        }
        if (fits) {
            std::sort(len.rbegin(), len.rend());
            return len;
        }
    }
}

int largest_power_of_two_radix() {
    static const int largest = [] {
        const char* knob = std::getenv("RILL_FFT_MAX_RADIX");
        if (!knob) return 8;
        const std::string v = knob;
        if (v == "2" || v == "4" || v == "8") return std::stoi(v);
        throw Error("RILL_FFT_MAX_RADIX is '" + v + "'; give 2, 4 or 8, or unset it");
    }();
    return largest;
}

std::vector<int> radices(std::int64_t R) {
    std::vector<int> r;
    int twos = 0;
    while (R % 2 == 0) R /= 2, ++twos;
    const int largest = largest_power_of_two_radix();
    if (largest == 8)
        for (; twos >= 3; twos -= 3) r.push_back(8);
    if (largest >= 4)
        for (; twos >= 2; twos -= 2) r.push_back(4);
    for (; twos >= 1; twos -= 1) r.push_back(2);
    for (int p : {3, 5, 7, 11, 13, 17, 19})
        while (R % p == 0) R /= p, r.push_back(p);
    return r;
}

std::int64_t bluestein_length(std::int64_t n) {
    std::int64_t m = 1;
    while (m < 2 * n - 1) m *= 2;
    return m;
}

}  // namespace rill::fft::detail
