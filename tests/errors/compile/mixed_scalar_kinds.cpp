// expect: operands of different scalar types
#include <rill/rill.h>
auto k = rill::kernel("k(x, i, r)", [](rill::In<float> x, rill::In<int> i, rill::Out<float> r) { r = x + i; });
