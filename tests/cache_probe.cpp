// Runs a few kernels on every backend and checks how many shaders had to be
// compiled from source: `cold` expects some (on backends that compile
// shaders), `warm` expects none. tests/check_disk_cache.cmake runs it twice in
// fresh processes, then again after corrupting every cache file.
#include <cstdio>
#include <cstring>

#include <rill/rill.h>

int main(int argc, char** argv) {
    const bool warm = argc > 1 && std::strcmp(argv[1], "warm") == 0;
    auto scale = rill::kernel("probe_scale(x, r)", [](rill::In<float> x, rill::Out<float> r) { r = x * 3.0f; });
    auto sum = rill::reduction("probe_sum", [](rill::In<float> a, rill::Reduce<float> r) { r += a; });
    int failures = 0;
    for (const std::string& name : rill::Runtime::registered_backends()) {
        rill::Runtime rt(name);
        auto x = rt.stream<float>({1000}, std::vector<float>(1000, 1.0f));
        auto r = rt.stream<float>({1000});
        scale(x, r);
        const float total = sum.value(r);
        const auto compiles = rt.stats().shader_compiles;
        const bool compiles_shaders = rt.info().persistent_cache;
        std::printf("%s: %llu shader compile(s), result %g\n", name.c_str(), static_cast<unsigned long long>(compiles), total);
        if (total != 3000.0f) ++failures;
        if (compiles_shaders && warm && compiles != 0) ++failures;
        if (compiles_shaders && !warm && compiles == 0) ++failures;
    }
    return failures == 0 ? 0 : 1;
}
