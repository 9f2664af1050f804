// expect: use of deleted function
#include <rill/rill.h>
auto k = rill::kernel("k(x, r)", [](rill::In<float> x, rill::Out<float> r) {
    auto t = x * 2.0f;
    t = x;
    r = t;
});
