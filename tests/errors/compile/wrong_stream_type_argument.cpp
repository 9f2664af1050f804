// expect: a kernel argument does not match its parameter
#include <rill/rill.h>
void f(rill::Runtime& rt) {
    auto k = rill::kernel("k(x, r)", [](rill::In<float> x, rill::Out<float> r) { r = x; });
    auto a = rt.stream<int>({4});
    auto b = rt.stream<float>({4});
    k(a, b);
}
