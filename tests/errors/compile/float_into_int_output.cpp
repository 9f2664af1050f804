// expect: assignment of a value of another type
#include <rill/rill.h>
auto k = rill::kernel("k(x, r)", [](rill::In<float> x, rill::Out<int> r) { r = x * 2.0f; });
