// expect: cannot drive a C++ `if`
#include <rill/rill.h>
auto k = rill::kernel("k(x, r)", [](rill::In<float> x, rill::Out<float> r) {
    if (x > 0.0f) r = 1.0f;
});
