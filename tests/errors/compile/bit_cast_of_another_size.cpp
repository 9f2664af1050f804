// expect: give an element type of the stream's element size
#include <rill/rill.h>

void f(const rill::Stream<float>& s) { (void)s.bit_cast<rill::uint2>(); }
