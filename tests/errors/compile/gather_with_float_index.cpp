// expect: index with an Int for R = 1
#include <rill/rill.h>
auto k = rill::kernel("k(t, x, r)", [](rill::Gather<float> t, rill::In<float> x, rill::Out<float> r) { r = t[x]; });
