// rill-random-kernels: random DSL kernels against the host interpreter.
//
//   rill-random-kernels [--seed S] [--count N] [--elements E] [--shrink K] [--backend NAME]...
//
// Runs N programs from seed S on every backend that starts (or those named),
// prints each failure as it is found (the first K, default 5, shrunk to a
// small kernel with its inputs), and exits 1 when any failed.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "program.h"

int main(int argc, char** argv) {
    std::uint64_t seed = 1;
    int count = 100;
    std::int64_t elements = 0;
    int shrink = 5;
    std::vector<std::string> backends;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has_value = i + 1 < argc;
        if (a == "--seed" && has_value) seed = std::stoull(argv[++i]);
        else if (a == "--count" && has_value) count = std::stoi(argv[++i]);
        else if (a == "--elements" && has_value) elements = std::stoll(argv[++i]);
        else if (a == "--shrink" && has_value) shrink = std::stoi(argv[++i]);
        else if (a == "--backend" && has_value) backends.emplace_back(argv[++i]);
        else {
            std::fprintf(stderr, "usage: %s [--seed S] [--count N] [--elements E] [--shrink K] [--backend NAME]...\n", argv[0]);
            return 2;
        }
    }
    if (backends.empty()) backends = rill::Runtime::registered_backends();
    int failed = 0;
    for (const std::string& b : backends) {
        try {
            rill::Runtime rt(b);
            const rill::random_kernels::Report r =
                rill::random_kernels::check_seeds(rt, seed, count, elements, shrink, [](const std::string& f) {
                    std::printf("\n%s\n", f.c_str());
                    std::fflush(stdout);
                });
            std::printf("%s (%s): %d kernels, %d elements compared, %d undetermined, %d failed\n", b.c_str(),
                        rt.info().device.c_str(), r.kernels, r.elements, r.undetermined, r.failed);
            failed += r.failed;
        } catch (const rill::Error& e) {
            std::printf("%s: does not start: %s\n", b.c_str(), e.what());
            ++failed;
        }
        std::fflush(stdout);
    }
    return failed ? 1 : 0;
}
