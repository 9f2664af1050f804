// expect: vectors of different widths
#include <rill/rill.h>
auto k = rill::kernel("k(a, b, r)", [](rill::In<rill::float3> a, rill::In<rill::float4> b, rill::Out<rill::float4> r) {
    r = a + b;
});
