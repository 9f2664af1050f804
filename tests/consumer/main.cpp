#include <rill/rill.h>

#include <cstdio>

int main() {
    rill::Runtime rt;
    auto twice = rill::kernel("twice(x, r)", [](rill::In<float> x, rill::Out<float> r) { r = 2.0f * x; });
    auto x = rt.stream<float>({3}, std::vector<float>{1, 2, 3});
    auto r = rt.stream<float>({3});
    twice(x, r);
    auto out = r.download();
    std::printf("%s: %g %g %g\n", rt.backend_name().c_str(), out[0], out[1], out[2]);
    return out == std::vector<float>{2, 4, 6} ? 0 : 1;
}
